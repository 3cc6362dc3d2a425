// ns-3 congestion controls for the validation suite's ablations (validation/suite.toml
// `[[ablations]]`, `ns3 = "wtcpval::..."`), compiled into the process by `wtcp validate`
// after ns-3 is loaded. They change ns-3's side of one flagged point by exactly one
// mechanism, to measure how much of a gap that mechanism makes; nothing here is used by a
// translation.
//
// LinuxRenoAblation restates ns-3 3.44's TcpLinuxReno (src/internet/model/tcp-linux-reno.cc:
// GetSsThresh, SlowStart, CongestionAvoidance, IncreaseWindow, the cwnd-limited check) with
// two switches. wtcpval::LinuxRenoCopy has both at ns-3's behaviour and must give
// TcpLinuxReno's numbers exactly (the control).
//
// - exit credit: on the ACK that ends fast recovery, TcpSocketBase::ProcessAck (3.44)
//   sets cwnd = ssthresh and then calls IncreaseWindow with segsAcked = (ack - old
//   SND.UNA) / MSS, the whole span the ACK covers (about a window, SACKed segments
//   included). TcpLinuxReno's segment counter credits all of it (one MSS per w = cwnd/MSS
//   segments: +2 MSS for a window of 2w); TcpNewReno adds at most one MSS*MSS/cwnd per
//   call; wtcp gives the ACK that ends recovery no growth. LinuxRenoNoExitCredit skips
//   that one IncreaseWindow call.
// - counter reset: TcpLinuxReno keeps m_cWndCnt across a loss, so the first increase after
//   the window is halved can come at once (the counter was counting towards the old,
//   larger w); Linux zeroes snd_cwnd_cnt when the reduction starts
//   (tcp_init_cwnd_reduction, tcp_enter_loss). LinuxRenoCountReset zeroes it on entering
//   recovery or loss.
//
// PrrAblation restates ns-3 3.44's TcpPrrRecovery (src/internet/model/tcp-prr-recovery.cc)
// with one switch, RecoverFS. ns-3 takes the RFC 6675 pipe before recovery
// (tcb->m_bytesInFlight: outstanding minus SACKed minus lost); RFC 6937 §3 and wtcp take
// FlightSize (SND.NXT - SND.UNA). PRR sends ssthresh / RecoverFS of what is delivered
// while pipe > ssthresh, so with ssthresh = cwnd / 2 (LinuxReno) ns-3's smaller RecoverFS
// sends more than half during recovery; with ssthresh = pipe / 2 (ns-3's NewReno) the
// ratio is one half either way. wtcpval::PrrCopy (pipe) must give TcpPrrRecovery's numbers
// exactly; wtcpval::PrrFlightSize uses FlightSize (ns-3's unAckDataCount).

#include "ns3/internet-module.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace wtcpval
{
using namespace ns3;

class LinuxRenoAblation : public TcpCongestionOps
{
  public:
    LinuxRenoAblation(bool exitCredit, bool resetCount, bool byteCounting)
        : m_exitCredit(exitCredit),
          m_resetCount(resetCount),
          m_byteCounting(byteCounting)
    {
    }

    LinuxRenoAblation(const LinuxRenoAblation& o) = default;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        return std::max<uint32_t>(2 * tcb->m_segmentSize, tcb->m_cWnd / 2);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_exiting)
        {
            m_exiting = false;
            if (!m_exitCredit)
            {
                return;
            }
        }
        if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            SlowStart(tcb, segmentsAcked);
        }
        else
        {
            CongestionAvoidance(tcb, segmentsAcked);
        }
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState) override
    {
        // Called before TcpSocketBase stores the new state: m_congState is the old one.
        if (newState == TcpSocketState::CA_OPEN && tcb->m_congState == TcpSocketState::CA_RECOVERY)
        {
            m_exiting = true;
        }
        if (m_resetCount && (newState == TcpSocketState::CA_RECOVERY || newState == TcpSocketState::CA_LOSS))
        {
            m_cWndCnt = 0;
        }
    }

  protected:
    uint32_t SlowStart(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
    {
        if (segmentsAcked >= 1)
        {
            uint32_t sndCwnd = tcb->m_cWnd;
            tcb->m_cWnd = std::min((sndCwnd + (segmentsAcked * tcb->m_segmentSize)), (uint32_t)tcb->m_ssThresh);
            return segmentsAcked - ((tcb->m_cWnd - sndCwnd) / tcb->m_segmentSize);
        }
        return 0;
    }

    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
    {
        if (!tcb->m_isCwndLimited)
        {
            return;
        }
        if (m_byteCounting)
        {
            // RFC 3465 §2.1 as wtcp's byte_counting: cwnd += MSS * acked / cwnd, the
            // fraction kept.
            m_frac += static_cast<double>(segmentsAcked) * tcb->m_segmentSize * tcb->m_segmentSize / tcb->m_cWnd;
            uint32_t whole = static_cast<uint32_t>(m_frac);
            m_frac -= whole;
            tcb->m_cWnd += whole;
            return;
        }
        uint32_t w = std::max<uint32_t>(1, tcb->m_cWnd / tcb->m_segmentSize);
        if (m_cWndCnt >= w)
        {
            m_cWndCnt = 0;
            tcb->m_cWnd += tcb->m_segmentSize;
        }
        m_cWndCnt += segmentsAcked;
        if (m_cWndCnt >= w)
        {
            uint32_t delta = m_cWndCnt / w;
            m_cWndCnt -= delta * w;
            tcb->m_cWnd += delta * tcb->m_segmentSize;
        }
    }

  private:
    bool m_exitCredit;
    bool m_resetCount;
    bool m_byteCounting;
    bool m_exiting{false};
    double m_frac{0.0};
    uint32_t m_cWndCnt{0};
};

#define WTCPVAL_VARIANT(Name, exitCredit, resetCount, byteCounting)                                              \
    class Name : public LinuxRenoAblation                                                          \
    {                                                                                              \
      public:                                                                                      \
        static TypeId GetTypeId()                                                                  \
        {                                                                                          \
            static TypeId tid = TypeId("wtcpval::" #Name)                                          \
                                    .SetParent<TcpCongestionOps>()                                 \
                                    .SetGroupName("wtcp")                                          \
                                    .AddConstructor<Name>();                                       \
            return tid;                                                                            \
        }                                                                                          \
        Name()                                                                                     \
            : LinuxRenoAblation(exitCredit, resetCount, byteCounting)                                            \
        {                                                                                          \
        }                                                                                          \
        Name(const Name& o) = default;                                                             \
        TypeId GetInstanceTypeId() const override                                                  \
        {                                                                                          \
            return GetTypeId();                                                                    \
        }                                                                                          \
        std::string GetName() const override                                                       \
        {                                                                                          \
            return #Name;                                                                          \
        }                                                                                          \
        Ptr<TcpCongestionOps> Fork() override                                                      \
        {                                                                                          \
            return CopyObject<Name>(this);                                                         \
        }                                                                                          \
    };

WTCPVAL_VARIANT(LinuxRenoCopy, true, false, false)
WTCPVAL_VARIANT(LinuxRenoNoExitCredit, false, false, false)
WTCPVAL_VARIANT(LinuxRenoCountReset, true, true, false)
WTCPVAL_VARIANT(LinuxRenoNoExitCreditCountReset, false, true, false)
WTCPVAL_VARIANT(LinuxRenoNoExitCreditByteCounting, false, false, true)

class PrrAblation : public TcpRecoveryOps
{
  public:
    explicit PrrAblation(bool flightSize)
        : m_flightSize(flightSize)
    {
    }

    PrrAblation(const PrrAblation& o) = default;

    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t unAckDataCount, uint32_t deliveredBytes) override
    {
        m_prrOut = 0;
        m_prrDelivered = 0;
        m_recoveryFlightSize = m_flightSize ? unAckDataCount : tcb->m_bytesInFlight.Get();
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        if (isDupAck && m_prrDelivered < m_recoveryFlightSize)
        {
            deliveredBytes += tcb->m_segmentSize;
        }
        if (deliveredBytes == 0)
        {
            return;
        }
        m_prrDelivered += deliveredBytes;
        int sendCount;
        if (tcb->m_bytesInFlight > tcb->m_ssThresh)
        {
            sendCount = std::ceil(m_prrDelivered * tcb->m_ssThresh * 1.0 / m_recoveryFlightSize) - m_prrOut;
        }
        else
        {
            int limit = std::max(m_prrDelivered - m_prrOut, deliveredBytes);
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            sendCount = std::min(limit, static_cast<int>(tcb->m_ssThresh - tcb->m_bytesInFlight));
        }
        sendCount = std::max(sendCount, static_cast<int>(m_prrOut > 0 ? 0 : tcb->m_segmentSize));
        tcb->m_cWnd = tcb->m_bytesInFlight + sendCount;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_prrOut += bytesSent;
    }

  private:
    bool m_flightSize;
    uint32_t m_prrDelivered{0};
    uint32_t m_prrOut{0};
    uint32_t m_recoveryFlightSize{0};
};

#define WTCPVAL_PRR(Name, flightSize)                                                              \
    class Name : public PrrAblation                                                                \
    {                                                                                              \
      public:                                                                                      \
        static TypeId GetTypeId()                                                                  \
        {                                                                                          \
            static TypeId tid = TypeId("wtcpval::" #Name)                                          \
                                    .SetParent<TcpRecoveryOps>()                                   \
                                    .SetGroupName("wtcp")                                          \
                                    .AddConstructor<Name>();                                       \
            return tid;                                                                            \
        }                                                                                          \
        Name()                                                                                     \
            : PrrAblation(flightSize)                                                              \
        {                                                                                          \
        }                                                                                          \
        Name(const Name& o) = default;                                                             \
        TypeId GetInstanceTypeId() const override                                                  \
        {                                                                                          \
            return GetTypeId();                                                                    \
        }                                                                                          \
        std::string GetName() const override                                                       \
        {                                                                                          \
            return #Name;                                                                          \
        }                                                                                          \
        Ptr<TcpRecoveryOps> Fork() override                                                       \
        {                                                                                          \
            return CopyObject<Name>(this);                                                         \
        }                                                                                          \
    };

WTCPVAL_PRR(PrrCopy, false)
WTCPVAL_PRR(PrrFlightSize, true)

// SampleRtt<Base>: ns-3 3.44's TcpVegas or TcpVeno fed the RTT sample of each ACK
// (tcb->m_lastRtt) instead of what TcpSocketBase::ProcessAck passes to PktsAcked, the
// smoothed RTT (m_tcb->m_srtt). Their BaseRTT and per-RTT minimum RTT are then minima of
// samples, as in the papers and Linux (tcp_vegas.c, tcp_veno.c take the sample, rs->rtt_us);
// the rest of each algorithm is ns-3's, unchanged.
#define WTCPVAL_SAMPLE_RTT(Name, Base)                                                             \
    class Name : public Base                                                                       \
    {                                                                                              \
      public:                                                                                      \
        static TypeId GetTypeId()                                                                  \
        {                                                                                          \
            static TypeId tid = TypeId("wtcpval::" #Name)                                          \
                                    .SetParent<Base>()                                             \
                                    .SetGroupName("wtcp")                                          \
                                    .AddConstructor<Name>();                                       \
            return tid;                                                                            \
        }                                                                                          \
        Name() = default;                                                                          \
        Name(const Name& o) = default;                                                             \
        TypeId GetInstanceTypeId() const override                                                  \
        {                                                                                          \
            return GetTypeId();                                                                    \
        }                                                                                          \
        std::string GetName() const override                                                       \
        {                                                                                          \
            return #Name;                                                                          \
        }                                                                                          \
        void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time&) override      \
        {                                                                                          \
            Base::PktsAcked(tcb, segmentsAcked, tcb->m_lastRtt.Get());                             \
        }                                                                                          \
        Ptr<TcpCongestionOps> Fork() override                                                      \
        {                                                                                          \
            return CopyObject<Name>(this);                                                         \
        }                                                                                          \
    };

WTCPVAL_SAMPLE_RTT(VegasSampleRtt, TcpVegas)
WTCPVAL_SAMPLE_RTT(VenoSampleRtt, TcpVeno)

// VenoAblation restates ns-3 3.44's TcpVeno (src/internet/model/tcp-veno.cc, beta = 3)
// with three switches, each towards wtcp's reading (Linux tcp_veno.c and the paper):
// `sampleRtt` as SampleRtt above; `realDiff`, the backlog N = cwnd * (1 - BaseRTT / RTT)
// as a real number (ns-3 truncates the target window to whole segments, which rounds N
// up by up to one segment); `cwndBase`, ssthresh = 4/5 or 1/2 of cwnd (the paper and
// Linux) instead of ns-3's 4/5 or 1/2 of BytesInFlight (the RFC 6675 pipe with SACK,
// outstanding + 1 segment without). wtcpval::VenoCopy has all three off and must give
// TcpVeno's numbers exactly. A fourth switch, `keepCount`: ns-3 zeroes its RTT-sample
// counter on every IncreaseWindow call (every ACK), so `m_cntRtt <= 2` always holds and
// Veno grows as NewReno whatever N is; Linux leaves the counter alone ("veno->cntrtt = 0"
// is commented out), so its half-rate increase with N >= beta takes effect, as wtcp's.
class VenoAblation : public TcpNewReno
{
  public:
    VenoAblation(bool sampleRtt, bool realDiff, bool cwndBase, bool keepCount)
        : m_sampleRtt(sampleRtt),
          m_realDiff(realDiff),
          m_cwndBase(cwndBase),
          m_keepCount(keepCount)
    {
    }

    VenoAblation(const VenoAblation& o) = default;

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t, const Time& srtt) override
    {
        Time rtt = m_sampleRtt ? tcb->m_lastRtt.Get() : srtt;
        if (rtt.IsZero())
        {
            return;
        }
        m_minRtt = std::min(m_minRtt, rtt);
        m_baseRtt = std::min(m_baseRtt, rtt);
        m_cntRtt++;
    }

    void CongestionStateSet(Ptr<TcpSocketState>, const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_OPEN)
        {
            m_doingVenoNow = true;
            m_minRtt = Time::Max();
        }
        else
        {
            m_doingVenoNow = false;
        }
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        uint32_t segCwnd = tcb->GetCwndInSegments();
        double tmp = m_baseRtt.GetSeconds() / m_minRtt.GetSeconds();
        if (m_realDiff)
        {
            m_diff = segCwnd - segCwnd * tmp;
        }
        else
        {
            uint32_t targetCwnd = static_cast<uint32_t>(segCwnd * tmp);
            m_diff = segCwnd - targetCwnd;
        }
        if (!m_doingVenoNow)
        {
            // As ns-3: outside Open, NewReno, and the RTT counters are not reset.
            TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
            return;
        }
        if (m_cntRtt <= 2)
        {
            TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
        }
        else if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            TcpNewReno::SlowStart(tcb, segmentsAcked);
        }
        else if (m_diff < m_beta)
        {
            TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
        }
        else if (m_inc)
        {
            TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
            m_inc = false;
        }
        else
        {
            m_inc = true;
        }
        if (!m_keepCount)
        {
            m_cntRtt = 0;
        }
        m_minRtt = Time::Max();
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        uint32_t base = m_cwndBase ? tcb->m_cWnd.Get() : bytesInFlight;
        if (m_diff < m_beta)
        {
            return std::max(static_cast<uint32_t>(base * (4.0 / 5.0)), 2 * tcb->m_segmentSize);
        }
        return std::max(base / 2, 2 * tcb->m_segmentSize);
    }

  private:
    bool m_sampleRtt;
    bool m_realDiff;
    bool m_cwndBase;
    bool m_keepCount;
    Time m_baseRtt{Time::Max()};
    Time m_minRtt{Time::Max()};
    uint32_t m_cntRtt{0};
    bool m_doingVenoNow{true};
    double m_diff{0};
    bool m_inc{true};
    double m_beta{3};
};

#define WTCPVAL_VENO(Name, sampleRtt, realDiff, cwndBase, keepCount)                                          \
    class Name : public VenoAblation                                                               \
    {                                                                                              \
      public:                                                                                      \
        static TypeId GetTypeId()                                                                  \
        {                                                                                          \
            static TypeId tid = TypeId("wtcpval::" #Name)                                          \
                                    .SetParent<TcpNewReno>()                                       \
                                    .SetGroupName("wtcp")                                          \
                                    .AddConstructor<Name>();                                       \
            return tid;                                                                            \
        }                                                                                          \
        Name()                                                                                     \
            : VenoAblation(sampleRtt, realDiff, cwndBase, keepCount)                               \
        {                                                                                          \
        }                                                                                          \
        Name(const Name& o) = default;                                                             \
        TypeId GetInstanceTypeId() const override                                                  \
        {                                                                                          \
            return GetTypeId();                                                                    \
        }                                                                                          \
        std::string GetName() const override                                                       \
        {                                                                                          \
            return #Name;                                                                          \
        }                                                                                          \
        Ptr<TcpCongestionOps> Fork() override                                                      \
        {                                                                                          \
            return CopyObject<Name>(this);                                                         \
        }                                                                                          \
    };

WTCPVAL_VENO(VenoCopy, false, false, false, false)
WTCPVAL_VENO(VenoRealDiff, false, true, false, false)
WTCPVAL_VENO(VenoCwndBase, false, false, true, false)
WTCPVAL_VENO(VenoSampleRealDiffCwndBase, true, true, true, false)
WTCPVAL_VENO(VenoLinuxLike, true, true, true, true)

// TypeIds register when first asked for.
inline void register_types()
{
    LinuxRenoCopy::GetTypeId();
    LinuxRenoNoExitCredit::GetTypeId();
    LinuxRenoCountReset::GetTypeId();
    LinuxRenoNoExitCreditCountReset::GetTypeId();
    LinuxRenoNoExitCreditByteCounting::GetTypeId();
    PrrCopy::GetTypeId();
    PrrFlightSize::GetTypeId();
    VegasSampleRtt::GetTypeId();
    VenoSampleRtt::GetTypeId();
    VenoCopy::GetTypeId();
    VenoRealDiff::GetTypeId();
    VenoCwndBase::GetTypeId();
    VenoSampleRealDiffCwndBase::GetTypeId();
    VenoLinuxLike::GetTypeId();
}

} // namespace wtcpval
