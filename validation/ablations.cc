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
    // Slow start as TcpLinuxReno behaves: each acknowledged segment adds one MSS, up to
    // ssthresh; the segments that did not fit are returned for congestion avoidance.
    uint32_t SlowStart(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
    {
        if (segmentsAcked == 0)
        {
            return 0;
        }
        const uint32_t mss = tcb->m_segmentSize;
        const uint32_t before = tcb->m_cWnd;
        const uint64_t wanted = static_cast<uint64_t>(before) + static_cast<uint64_t>(segmentsAcked) * mss;
        const uint64_t capped = std::min<uint64_t>(wanted, tcb->m_ssThresh);
        tcb->m_cWnd = static_cast<uint32_t>(capped);
        const uint32_t usedSegments = (tcb->m_cWnd - before) / mss;
        return segmentsAcked - usedSegments;
    }

    // Congestion avoidance as Linux's tcp_cong_avoid_ai: one MSS per w = cwnd/MSS
    // acknowledged segments, counted in m_cWndCnt (which TcpLinuxReno keeps across losses).
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
    {
        if (!tcb->m_isCwndLimited)
        {
            return;
        }
        const uint32_t mss = tcb->m_segmentSize;
        if (m_byteCounting)
        {
            // RFC 3465 §2.1 as wtcp's byte_counting: cwnd += MSS * acked / cwnd, the
            // fraction kept.
            m_frac += static_cast<double>(segmentsAcked) * mss * mss / tcb->m_cWnd;
            const auto whole = static_cast<uint32_t>(m_frac);
            m_frac -= whole;
            tcb->m_cWnd += whole;
            return;
        }
        const uint32_t perIncrease = std::max<uint32_t>(1, tcb->m_cWnd / mss);
        // An increase already due (the counter reached w before this ACK).
        if (m_cWndCnt >= perIncrease)
        {
            m_cWndCnt = 0;
            tcb->m_cWnd += mss;
        }
        m_cWndCnt += segmentsAcked;
        const uint32_t increases = m_cWndCnt / perIncrease;
        m_cWndCnt %= perIncrease;
        tcb->m_cWnd += increases * mss;
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

    // RFC 6937 §3 as ns-3 3.44's TcpPrrRecovery applies it (with its quirks kept: a
    // duplicate ACK credits one MSS while less than RecoverFS was delivered, the unsigned
    // differences, at least one MSS before anything was sent).
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        const uint32_t mss = tcb->m_segmentSize;
        uint32_t delivered = deliveredBytes;
        if (isDupAck && m_prrDelivered < m_recoveryFlightSize)
        {
            delivered += mss;
        }
        if (delivered == 0)
        {
            return;
        }
        m_prrDelivered += delivered;
        const uint32_t pipe = tcb->m_bytesInFlight.Get();
        const uint32_t ssthresh = tcb->m_ssThresh.Get();
        int sndcnt = 0;
        if (pipe > ssthresh)
        {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            const double target = std::ceil(static_cast<double>(m_prrDelivered) * ssthresh / m_recoveryFlightSize);
            sndcnt = static_cast<int>(target) - static_cast<int>(m_prrOut);
        }
        else
        {
            // Slow-start reduction bound: MAX(prr_delivered - prr_out, DeliveredData) + MSS
            // (the MSS only when retransmitted data was acknowledged), capped at
            // ssthresh - pipe.
            const uint32_t owed = m_prrDelivered - m_prrOut;
            int bound = static_cast<int>(std::max(owed, delivered));
            if (tcb->m_isRetransDataAcked)
            {
                bound += static_cast<int>(mss);
            }
            const int room = static_cast<int>(ssthresh - pipe);
            sndcnt = std::min(bound, room);
        }
        const int floor = m_prrOut > 0 ? 0 : static_cast<int>(mss);
        sndcnt = std::max(sndcnt, floor);
        tcb->m_cWnd = pipe + sndcnt;
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

// A class derived from ns-3's congestion control Base with the members given (one
// override each), registered as "wtcpval::Name".
#define WTCPVAL_DERIVED(Name, Base, ...)                                                           \
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
        __VA_ARGS__                                                                                \
        Ptr<TcpCongestionOps> Fork() override                                                      \
        {                                                                                          \
            return CopyObject<Name>(this);                                                         \
        }                                                                                          \
    };

// SampleRtt: ns-3 3.44's TcpVegas or TcpVeno fed the RTT sample of each ACK
// (tcb->m_lastRtt) instead of what TcpSocketBase::ProcessAck passes to PktsAcked, the
// smoothed RTT (m_tcb->m_srtt). Their BaseRTT and per-RTT minimum RTT are then minima of
// samples, as in the papers and Linux (tcp_vegas.c, tcp_veno.c take the sample, rs->rtt_us);
// the rest of each algorithm is ns-3's, unchanged.
#define WTCPVAL_SAMPLE_RTT(Base)                                                                   \
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time&) override          \
    {                                                                                              \
        Base::PktsAcked(tcb, segmentsAcked, tcb->m_lastRtt.Get());                                 \
    }

WTCPVAL_DERIVED(VegasSampleRtt, TcpVegas, WTCPVAL_SAMPLE_RTT(TcpVegas))
WTCPVAL_DERIVED(VenoSampleRtt, TcpVeno, WTCPVAL_SAMPLE_RTT(TcpVeno))

// Halving: ns-3 3.44's TcpVegas answering a loss as the Vegas paper's Reno, ns-2, Linux
// (tcp_vegas.c keeps tcp_reno_ssthresh) and wtcp do, ssthresh = max(cwnd / 2, 2 segments),
// in place of TcpVegas::GetSsThresh, max(min(ssthresh, cwnd - 1 segment), 2 segments),
// which in congestion avoidance (ssthresh >= 3/4 cwnd there) cuts by one segment or a
// quarter. Everything else is ns-3's.
#define WTCPVAL_HALVING                                                                            \
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override                         \
    {                                                                                              \
        return std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);                           \
    }

WTCPVAL_DERIVED(VegasHalving, TcpVegas, WTCPVAL_HALVING)
WTCPVAL_DERIVED(VegasSampleRttHalving, VegasSampleRtt, WTCPVAL_HALVING)

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
        : m_useSample(sampleRtt),
          m_realBacklog(realDiff),
          m_halveCwnd(cwndBase),
          m_keepSamples(keepCount)
    {
    }

    VenoAblation(const VenoAblation& o) = default;

    // The RTT each ACK reports: ns-3 passes the smoothed RTT here, Linux the sample.
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t, const Time& srtt) override
    {
        const Time reported = m_useSample ? tcb->m_lastRtt.Get() : srtt;
        if (reported.IsZero())
        {
            return;
        }
        m_roundMin = std::min(m_roundMin, reported);
        m_base = std::min(m_base, reported);
        ++m_samples;
    }

    // Veno's refinement applies in the Open state only; entering it starts a new round.
    void CongestionStateSet(Ptr<TcpSocketState>, const TcpSocketState::TcpCongState_t state) override
    {
        m_open = state == TcpSocketState::CA_OPEN;
        if (m_open)
        {
            m_roundMin = Time::Max();
        }
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        // Backlog N = cwnd - cwnd * BaseRTT / RTT (segments); ns-3 takes the expected
        // window as a whole number of segments.
        const uint32_t cwndSegs = tcb->GetCwndInSegments();
        const double ratio = m_base.GetSeconds() / m_roundMin.GetSeconds();
        const double expected = cwndSegs * ratio;
        m_backlog = m_realBacklog ? cwndSegs - expected : cwndSegs - static_cast<double>(static_cast<uint32_t>(expected));
        if (!m_open)
        {
            TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
            return;
        }
        const bool tooFewSamples = m_samples <= 2;
        const bool inSlowStart = tcb->m_cWnd < tcb->m_ssThresh;
        if (tooFewSamples)
        {
            TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
        }
        else if (inSlowStart)
        {
            TcpNewReno::SlowStart(tcb, segmentsAcked);
        }
        else if (m_backlog < kBeta)
        {
            // Below beta: Reno's rate.
            TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
        }
        else
        {
            // At or above beta: every other call (half the rate).
            if (m_growNow)
            {
                TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
            }
            m_growNow = !m_growNow;
        }
        if (!m_keepSamples)
        {
            m_samples = 0;
        }
        m_roundMin = Time::Max();
    }

    // Veno's decrease: 4/5 when the backlog says the loss was random, else 1/2, of
    // BytesInFlight (ns-3) or cwnd (the paper, Linux); at least two segments.
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        const uint32_t of = m_halveCwnd ? tcb->m_cWnd.Get() : bytesInFlight;
        const uint32_t least = 2 * tcb->m_segmentSize;
        const uint32_t cut = m_backlog < kBeta ? static_cast<uint32_t>(of * (4.0 / 5.0)) : of / 2;
        return std::max(cut, least);
    }

  private:
    static constexpr double kBeta = 3; // Veno's beta, segments (ns-3's default)
    bool m_useSample;
    bool m_realBacklog;
    bool m_halveCwnd;
    bool m_keepSamples;
    Time m_base{Time::Max()};
    Time m_roundMin{Time::Max()};
    uint32_t m_samples{0};
    bool m_open{true};
    double m_backlog{0};
    bool m_growNow{true};
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
    VegasHalving::GetTypeId();
    VegasSampleRttHalving::GetTypeId();
    VenoSampleRtt::GetTypeId();
    VenoCopy::GetTypeId();
    VenoRealDiff::GetTypeId();
    VenoCwndBase::GetTypeId();
    VenoSampleRealDiffCwndBase::GetTypeId();
    VenoLinuxLike::GetTypeId();
}

} // namespace wtcpval
