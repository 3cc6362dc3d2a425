// 802.11 channels of wtcp's ns-3 engine, compiled before harness.cc, into the same
// precompiled header or by cppyy.cppdef (harness.cc's header says what this asks of it). A
// `WifiNet` is one `[[wifi]]` channel as ns-3 3.44 objects: non-QoS ad hoc stations (DCF,
// no beacons or association, as wtcp's stations), a constant data rate and control rate,
// a YansWifiChannel whose propagation reproduces wtcp's two ranges, and the counters of
// wtcp's per-station MAC statistics. What wtcp's translator cannot match is refused in
// translate.py before anything here runs.

#include "ns3/mobility-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace wtcpns3
{
using namespace ns3;

// Received power (dBm) by distance, wtcp's range discs. A frame from within the
// transmission range arrives at kInRangeDbm: its preamble is detected (ns-3's default
// ThresholdPreambleDetectionModel, 4 dB SINR, here with MinimumRssi between the two
// powers), and alone it is 34 dB above the -94 dBm noise floor. One from the carrier-sense
// annulus arrives at kCsZoneDbm: never detected, so never received, but above the -82 dBm
// CCA sensitivity, so the medium is busy while it lasts. Nothing is heard beyond the
// carrier-sense range (below RxSensitivity, not even interference). The two powers are
// 0.1 dB apart, so any overlap leaves a SINR near 0 dB, and StepErrorRate loses every
// OFDM and ERP-OFDM chunk below 4 dB, PHY header included: as wtcp, any overlap destroys
// an 802.11a/g frame (ns-3's own tables would still decode most short control frames at
// 6-12 Mb/s and the L-SIG at 0 dB). 802.11b's DSSS and CCK chunks keep ns-3's own
// formulas, which no error model replaces (error-rate-model.cc:62-77): there a PLCP
// header (1 Mb/s) survives an overlap that began after the preamble, as do 1 Mb/s
// frames; docs/model.md lists the difference.
static const double kInRangeDbm = -60.0;
static const double kPreambleMinimumRssiDbm = -60.05;
static const double kCsZoneDbm = -60.1;
static const double kUnheardDbm = -1000.0;

// Every OFDM chunk is received at a SINR of 4 dB or more and lost below (alone, a frame is
// at 34 dB); ns-3 computes DSSS chunks without calling this.
class StepErrorRate : public ErrorRateModel
{
  private:
    double DoGetChunkSuccessRate(WifiMode, const WifiTxVector&, double snr, uint64_t, uint8_t, WifiPpduField, uint16_t) const override
    {
        return snr >= 2.5118864315095797 ? 1.0 : 0.0; // 4 dB
    }
};

// Per-station counters, wtcp's `WifiStationResult`.
struct WifiStationStats
{
    uint64_t attempts = 0;       // RTS frames, or data frames under basic access
    uint64_t mpdus = 0;          // data MPDUs sent (each MPDU of an A-MPDU)
    uint64_t ampdus = 0;         // A-MPDUs sent (PSDUs of two MPDUs or more)
    uint64_t ampduMpdus = 0;     // ... and the MPDUs in them
    uint64_t successes = 0;      // MSDUs acknowledged
    uint64_t collisions = 0;     // frames sent that failed at their receiver (not the BER draw)
    uint64_t frameErrors = 0;    // frames sent that the BER draw destroyed
    uint64_t retryLimitDrops = 0;
    uint64_t gaveUpAfterDelivery = 0; // retry limit reached although a copy had arrived
    uint64_t queueDrops = 0;
    uint64_t expired = 0;        // WifiMacQueue lifetime drops (none with MaxDelay off)
};

class WifiNet;

// wtcp's range discs on the stations' positions (std::hypot, as wtcp's resolver).
class RangeDiscLoss : public PropagationLossModel
{
  public:
    WifiNet* net = nullptr;

  private:
    double DoCalcRxPower(double txPowerDbm, Ptr<MobilityModel> a, Ptr<MobilityModel> b) const override;

    int64_t DoAssignStreams(int64_t) override
    {
        return 0;
    }
};

// wtcp's one propagation delay between every pair of stations.
class ConstantDelay : public PropagationDelayModel
{
  public:
    Time delay = NanoSeconds(1000);

    Time GetDelay(Ptr<MobilityModel>, Ptr<MobilityModel>) const override
    {
        return delay;
    }

  private:
    int64_t DoAssignStreams(int64_t) override
    {
        return 0;
    }
};

// wtcp's bit errors: a frame addressed to this station (data, RTS, CTS or ACK) is lost with
// probability 1 - (1 - BER)^bits over its MPDU (MAC header, body and FCS). Frames overheard
// by third parties are not drawn, as in wtcp. ns-3 hands a PostReceptionErrorModel the
// MPDU's body only (phy-entity.cc:833-835), so the frame's header and size are taken from
// the PHY's PhyRxBegin trace (fired once its preamble is detected, phy-entity.cc:1110,
// with the whole PSDU; a PHY receives one frame at a time), and the draw is made only
// after the frame passed ns-3's own SINR draw.
class BerModel : public ErrorModel
{
  public:
    WifiNet* net = nullptr;
    int station = 0;
    Mac48Address self;
    double ber = 0;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    WifiMacHeader current; // the frame whose payload is being received
    uint32_t currentBytes = 0;
    bool lostLast = false; // the last frame was lost to this model (not a collision)

  private:
    bool DoCorrupt(Ptr<Packet> p) override;

    void DoReset() override
    {
    }
};

class WifiNet
{
  public:
    int index = 0;
    Ptr<YansWifiChannel> channel;
    double txRange = 0;
    double csRange = 0;
    std::vector<std::pair<double, double>> pos;     // station -> (x, y)
    std::map<const MobilityModel*, int> stationOfMobility;
    std::map<Mac48Address, int> stationOf;
    std::vector<int> nodeOf;                         // station -> node index
    std::vector<Ptr<WifiNetDevice>> devs;
    std::vector<WifiStationStats> stats;
    std::vector<int> peerOf;                         // station -> where its last RTS/data went
    std::vector<bool> afterCts;                      // station's next data frame follows a CTS
    std::vector<int> ifIndex;                        // station -> its node's IPv4 interface
    // (transmitter, receiver, sequence number) of data frames whose addressee received a
    // copy, until the transmitter is done with the MSDU.
    std::set<std::tuple<int, int, uint16_t>> arrived;
    std::vector<Ptr<BerModel>> berModels;
    // Hooks into the harness: an MSDU (LLC/SNAP + IP packet) dropped with a cause, and an
    // MSDU its transmitter is done with (acknowledged or given up), at `node`.
    std::function<void(Ptr<const Packet>, int)> onDrop;
    std::function<void(Ptr<const Packet>, int)> onDone;
    // An MSDU given up at the retry limit by the station at `node` (the MAC hint).
    std::function<void(Ptr<const Packet>, int)> onGiveUp;

    int StationOfAddress(Mac48Address a) const
    {
        auto it = stationOf.find(a);
        return it == stationOf.end() ? -1 : it->second;
    }

    // The station that sent a frame addressed by `h`: its transmitter address, or for a
    // CTS or ACK (which carry none) the station the addressee had sent its RTS or data to.
    int SenderOf(const WifiMacHeader& h) const
    {
        if (h.IsCts() || h.IsAck())
        {
            int to = StationOfAddress(h.GetAddr1());
            return to < 0 ? -1 : peerOf[to];
        }
        return StationOfAddress(h.GetAddr2());
    }

    // A channel access: an RTS, or a data frame not sent after a CTS (basic access).
    void OnTxBegin(int s, WifiConstPsduMap psdus, WifiTxVector, double)
    {
        for (const auto& [staId, psdu] : psdus)
        {
            const WifiMacHeader& h = psdu->GetHeader(0);
            if (!(h.IsRts() || h.IsData()) || h.GetAddr1().IsGroup())
            {
                continue;
            }
            peerOf[s] = StationOfAddress(h.GetAddr1());
            if (h.IsData())
            {
                stats[s].mpdus += psdu->GetNMpdus();
                if (psdu->GetNMpdus() >= 2) // an A-MPDU (not a VHT S-MPDU)
                {
                    stats[s].ampdus += 1;
                    stats[s].ampduMpdus += psdu->GetNMpdus();
                }
            }
            if (h.IsRts() || !afterCts[s])
            {
                stats[s].attempts += 1;
            }
            afterCts[s] = false;
        }
    }

    // A frame addressed to station `s` was received correctly (the BER draw passed).
    void OnRxOk(int s, const WifiMacHeader& h)
    {
        if (h.IsCts())
        {
            afterCts[s] = true;
        }
        else if (h.IsData())
        {
            int from = StationOfAddress(h.GetAddr2());
            if (from >= 0)
            {
                arrived.insert({from, s, h.GetSequenceNumber()});
            }
        }
    }

    // A frame addressed to station `s` failed at its PHY (interference, or the PHY busy).
    void OnRxFail(int s, Ptr<const Packet> p)
    {
        WifiMacHeader h;
        if (p->GetSize() < 14 || p->PeekHeader(h) == 0 || h.GetAddr1() != devs[s]->GetMac()->GetAddress())
        {
            return;
        }
        int from = SenderOf(h);
        if (from >= 0)
        {
            stats[from].collisions += 1;
        }
    }

    void OnAcked(int s, Ptr<const WifiMpdu> mpdu)
    {
        stats[s].successes += 1;
        Finish(s, mpdu);
        if (onDone)
        {
            onDone(mpdu->GetPacket(), nodeOf[s]);
        }
    }

    void OnDropped(int s, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
    {
        switch (reason)
        {
        case WIFI_MAC_DROP_REACHED_RETRY_LIMIT: {
            bool copy = Finish(s, mpdu);
            if (copy)
            {
                stats[s].gaveUpAfterDelivery += 1;
            }
            else
            {
                stats[s].retryLimitDrops += 1;
                if (onDrop)
                {
                    onDrop(mpdu->GetPacket(), 1); // kChannel: wireless
                }
            }
            if (onGiveUp)
            {
                onGiveUp(mpdu->GetPacket(), nodeOf[s]);
            }
            if (onDone)
            {
                onDone(mpdu->GetPacket(), nodeOf[s]);
            }
            break;
        }
        // (WIFI_MAC_DROP_FAILED_ENQUEUE: never raised for a full queue in 3.44; OnMacTx
        // counts those drops.)
        case WIFI_MAC_DROP_EXPIRED_LIFETIME:
            stats[s].expired += 1;
            if (onDrop)
            {
                onDrop(mpdu->GetPacket(), 0);
            }
            break;
        default:
            break;
        }
    }

    // An MSDU handed to the MAC (LLC/SNAP header added). ns-3 3.44 drops it silently when
    // the queue is full: WifiMacQueue::DoEnqueue returns false without DropBeforeEnqueue
    // (wifi-mac-queue.cc:460-467) and Txop::Queue ignores the result (txop.cc:667). With
    // lifetimes off, a data MSDU is refused exactly when the queue, in-flight MPDU
    // included, holds MaxSize packets (wifi-mac-queue.cc:238, fcfs-wifi-queue-scheduler.cc:84).
    void OnMacTx(int s, Ptr<const Packet> p)
    {
        Ptr<WifiMac> mac = devs[s]->GetMac();
        Ptr<Txop> txop = mac->GetQosSupported() ? Ptr<Txop>(mac->GetQosTxop(AC_BE)) : mac->GetTxop();
        Ptr<WifiMacQueue> q = txop->GetWifiMacQueue();
        if (q->QueueBase::GetNPackets() >= q->GetMaxSize().GetValue())
        {
            stats[s].queueDrops += 1;
            if (onDrop)
            {
                onDrop(p, 0); // kQueue: congestion
            }
        }
    }

    // Forget the MSDU's copy record; whether its addressee had received a copy.
    bool Finish(int s, Ptr<const WifiMpdu> mpdu)
    {
        const WifiMacHeader& h = mpdu->GetHeader();
        int to = StationOfAddress(h.GetAddr1());
        return arrived.erase({s, to, h.GetSequenceNumber()}) > 0;
    }
};

// Trace sinks of one station.
struct StationProbe
{
    WifiNet* net = nullptr;
    int s = 0;

    void TxBegin(WifiConstPsduMap psdus, WifiTxVector v, double w)
    {
        net->OnTxBegin(s, psdus, v, w);
    }

    void RxDrop(Ptr<const Packet> p, WifiPhyRxfailureReason)
    {
        net->OnRxFail(s, p);
    }

    void RxError(Ptr<const Packet> p, double)
    {
        if (net->berModels[s]->lostLast)
        {
            net->berModels[s]->lostLast = false; // a bit error, counted by the model
            return;
        }
        net->OnRxFail(s, p);
    }

    void RxBegin(Ptr<const Packet> p, RxPowerWattPerChannelBand)
    {
        BerModel& m = *net->berModels[s];
        m.currentBytes = 0;
        if (p->GetSize() >= 14 && p->PeekHeader(m.current) > 0)
        {
            m.currentBytes = p->GetSize();
        }
    }

    void MacTx(Ptr<const Packet> p)
    {
        net->OnMacTx(s, p);
    }

    void Acked(Ptr<const WifiMpdu> mpdu)
    {
        net->OnAcked(s, mpdu);
    }

    void Dropped(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
    {
        net->OnDropped(s, reason, mpdu);
    }
};

inline double
RangeDiscLoss::DoCalcRxPower(double, Ptr<MobilityModel> a, Ptr<MobilityModel> b) const
{
    auto ia = net->stationOfMobility.find(PeekPointer(a));
    auto ib = net->stationOfMobility.find(PeekPointer(b));
    if (ia == net->stationOfMobility.end() || ib == net->stationOfMobility.end())
    {
        return kUnheardDbm;
    }
    auto [ax, ay] = net->pos[ia->second];
    auto [bx, by] = net->pos[ib->second];
    double d = std::hypot(ax - bx, ay - by);
    if (d <= net->txRange)
    {
        return kInRangeDbm;
    }
    return d <= net->csRange ? kCsZoneDbm : kUnheardDbm;
}

inline bool
BerModel::DoCorrupt(Ptr<Packet>)
{
    const WifiMacHeader& h = current;
    lostLast = false;
    if (currentBytes == 0 || h.GetAddr1() != self)
    {
        return false;
    }
    bool lost = false;
    if (ber > 0)
    {
        double fer = 1.0 - std::pow(1.0 - ber, 8.0 * currentBytes);
        lost = rng->GetValue() < fer;
    }
    lostLast = lost;
    if (lost)
    {
        int from = net->SenderOf(h);
        if (from >= 0)
        {
            net->stats[from].frameErrors += 1;
        }
    }
    else
    {
        net->OnRxOk(station, h);
    }
    return lost;
}

} // namespace wtcpns3
