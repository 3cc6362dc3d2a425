// The C++ half of wtcp's ns-3 engine, compiled with wifi.cc into the precompiled header
// cppyy starts from (wtcp/ns3/pch.py), or by cppyy.cppdef after ns-3's headers when there is
// none (wtcp/ns3/run.py). Everything here is defined in its class or `inline`, and
// namespace-scope variables are constants: from a precompiled header, a non-inline
// definition or a dynamic initialiser could be emitted when the header is read, before
// ns-3's libraries are loaded. Python (translate.py) calls the Harness to build one run: nodes,
// point-to-point links whose device DropTail queue is the only buffer, receive-side loss
// and outages per link direction, TCP and CBR flows; the Harness counts what wtcp's
// metrics report (per-flow goodput, retransmissions, fast retransmits and timeouts with
// their ground-truth causes, drops per link direction) with per-packet C++ hooks, so that
// Python is never called per packet.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace wtcpns3
{
using namespace ns3;

// Drop causes of a link direction and loss causes of a sender, as wtcp names them.
enum DropCause
{
    kQueue = 0,
    kChannel = 1,
    kOutage = 2
};

enum LossCause
{
    kCongestion = 0,
    kWireless = 1,
    kSpurious = 2
};

// The transmission number of a TCP segment copy (1 = original), carried to the drop points
// so that a drop is charged to the segment's latest transmission only (wtcp's Oracle).
class TxNoTag : public Tag
{
  public:
    uint32_t n = 0;

    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("wtcpns3::TxNoTag").SetParent<Tag>().SetGroupName("wtcp").AddConstructor<TxNoTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 4;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU32(n);
    }

    void Deserialize(TagBuffer i) override
    {
        n = i.ReadU32();
    }

    void Print(std::ostream& os) const override
    {
        os << "tx=" << n;
    }
};

// Fate of a segment's latest transmission (wtcp's metrics::Oracle).
struct Fate
{
    uint32_t lastTx = 0;
    int lastDrop = -1;
    bool delivered = false;
};

// Counters of one flow, read by Python after the run.
struct FlowStats
{
    bool tcp = true;
    uint64_t segmentsSent = 0;
    uint64_t retransmitted = 0;
    uint64_t unnecessary = 0;
    uint64_t fastRetransmits = 0;
    uint64_t timeouts = 0;
    uint32_t backoff = 0;
    uint32_t maxBackoff = 0;
    uint64_t frCauses[3] = {0, 0, 0};
    uint64_t toCauses[3] = {0, 0, 0};
    uint64_t bytesSent = 0; // IP bytes the source's device put on the wire (headers included)
    int srcNode = -1;       // the source node, whose devices' transmissions count
    uint64_t delivered = 0; // application bytes delivered in order at the receiver
    uint64_t limit = 0;      // bytes of a finite transfer (0: unlimited)
    int64_t completedNs = -1; // when the last byte of a finite transfer was delivered
    uint64_t packetsReceived = 0;
    uint64_t macHints = 0;   // MAC retry-limit give-ups on the flow's segments that reach it
    uint64_t startDelivered = 0;
    uint64_t startSent = 0;
    uint64_t endDelivered = 0;
    uint64_t endSent = 0;
    bool ended = false;
    // Time-averaged smoothed RTT: integral of SRTT (ns * ns) and the time it covers.
    double srttArea = 0;
    double srttSpan = 0;
    int64_t srttSince = -1;
    int64_t srttNs = 0;
    // Sequence numbers relative to the first data byte, unwrapped to 64 bits.
    bool haveIsn = false;
    uint32_t isn = 0;
    uint64_t highest = 0;
    std::map<uint64_t, Fate> fates;

    uint64_t Unwrap(uint32_t raw) const
    {
        uint32_t rel = raw - isn;
        auto d = static_cast<int32_t>(rel - static_cast<uint32_t>(highest));
        int64_t v = static_cast<int64_t>(highest) + d;
        return v < 0 ? 0 : static_cast<uint64_t>(v);
    }

    // The cause of a retransmission of `seq`: the fate of its latest transmission.
    int CauseOf(uint64_t seq) const
    {
        auto it = fates.find(seq);
        if (it == fates.end() || it->second.delivered)
        {
            return kSpurious;
        }
        switch (it->second.lastDrop)
        {
        case kQueue:
            return kCongestion;
        case kChannel:
        case kOutage:
            return kWireless;
        default:
            return kSpurious;
        }
    }

    void OnDrop(uint64_t seq, uint32_t txNo, int cause)
    {
        auto it = fates.find(seq);
        if (it != fates.end() && it->second.lastTx == txNo)
        {
            it->second.lastDrop = cause;
        }
    }

    void OnDelivered(uint64_t seq)
    {
        auto it = fates.find(seq);
        if (it != fates.end())
        {
            it->second.delivered = true;
        }
    }

    void Advance(uint64_t una)
    {
        fates.erase(fates.begin(), fates.lower_bound(una));
    }

    void Srtt(int64_t now, int64_t srtt)
    {
        if (srttSince >= 0)
        {
            srttArea += static_cast<double>(srttNs) * static_cast<double>(now - srttSince);
            srttSpan += static_cast<double>(now - srttSince);
        }
        srttNs = srtt;
        srttSince = now;
    }
};

// Counters of one link direction.
struct DirStats
{
    uint64_t queue = 0;
    uint64_t channel = 0;
    uint64_t outage = 0;
    uint64_t tx = 0;
};

class Harness;

// A TCP sender: ns-3's TcpSocketBase plus the hooks wtcp's metrics need (timeouts, the
// fast-retransmit and timeout causes, the end of the application's supply).
class Sender : public TcpSocketBase
{
  public:
    FlowStats* st = nullptr;
    bool supplyStopped = false;
    SequenceNumber32 supplyEnd;

    // `traces`: false for a bare run (no per-segment callbacks into the harness).
    void Hook(FlowStats* s, bool traces)
    {
        st = s;
        if (!traces)
        {
            return;
        }
        TraceConnectWithoutContext("Tx", MakeCallback(&Sender::OnTx, this));
        TraceConnectWithoutContext("RTT", MakeCallback(&Sender::OnSrtt, this));
        m_tcb->TraceConnectWithoutContext("CongState", MakeCallback(&Sender::OnCongState, this));
    }

    // wtcp's stop_s: no new data after this instant; data already sent is still recovered.
    void StopSupply()
    {
        supplyStopped = true;
        supplyEnd = m_tcb->m_highTxMark;
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        uint32_t len = p->GetSize();
        if (len == 0)
        {
            return; // SYN, FIN or pure ACK: not a data segment
        }
        if (!st->haveIsn)
        {
            st->isn = h.GetSequenceNumber().GetValue();
            st->haveIsn = true;
        }
        uint64_t seq = st->Unwrap(h.GetSequenceNumber().GetValue());
        Fate& f = st->fates[seq];
        f.lastTx += 1;
        f.lastDrop = -1;
        if (seq < st->highest)
        {
            st->retransmitted += 1;
        }
        if (f.delivered && f.lastTx > 1)
        {
            st->unnecessary += 1;
        }
        TxNoTag tag;
        tag.n = f.lastTx;
        p->AddPacketTag(tag);
        st->segmentsSent += 1; // (bytesSent: counted when the source's device sends it)
        st->highest = std::max(st->highest, seq + len);
    }

    void OnSrtt(Time, Time now)
    {
        st->Srtt(Simulator::Now().GetNanoSeconds(), now.GetNanoSeconds());
    }

    void OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
    {
        if (now == TcpSocketState::CA_RECOVERY && st->haveIsn)
        {
            // EnterRecovery sets the state before it retransmits the head: classify it now.
            st->fastRetransmits += 1;
            st->frCauses[st->CauseOf(st->Unwrap(m_txBuffer->HeadSequence().GetValue()))] += 1;
        }
    }

  protected:
    void ReTxTimeout() override
    {
        uint32_t before = m_dataRetrCount;
        int cause = kSpurious;
        if (st->haveIsn && m_txBuffer->Size() > 0)
        {
            cause = st->CauseOf(st->Unwrap(m_txBuffer->HeadSequence().GetValue()));
        }
        TcpSocketBase::ReTxTimeout();
        if (m_dataRetrCount != before)
        {
            // A data retransmission timeout (not a SYN or FIN timer).
            st->timeouts += 1;
            st->toCauses[cause] += 1;
            st->backoff += 1;
            st->maxBackoff = std::max(st->maxBackoff, st->backoff);
        }
    }

    void NewAck(const SequenceNumber32& ack, bool resetRTO) override
    {
        if (st->haveIsn)
        {
            st->Advance(st->Unwrap(ack.GetValue()));
        }
        if (resetRTO)
        {
            st->backoff = 0; // the RTO is recomputed from the estimator: no backoff left
        }
        TcpSocketBase::NewAck(ack, resetRTO);
    }

    uint32_t AvailableWindow() const override
    {
        uint32_t w = TcpSocketBase::AvailableWindow();
        if (supplyStopped && w > 0)
        {
            SequenceNumber32 next;
            SequenceNumber32 high;
            bool rule3 = m_sackEnabled && m_tcb->m_congState == TcpSocketState::CA_RECOVERY;
            if (!m_txBuffer->NextSeg(&next, &high, rule3) || next >= supplyEnd)
            {
                return 0; // only retransmissions of data sent before the stop may go
            }
        }
        return w;
    }
};

// Receive-side impairment of one link direction, on the receiving device: outages first,
// then the loss model (an ns-3 error model), applied to the packets wtcp exposes (data
// only, or all). The outage test uses the instant the frame finished transmission
// (arrival minus the propagation delay), as wtcp does.
class RxFilter : public ErrorModel
{
  public:
    Harness* h = nullptr;
    int dir = 0;
    bool dataOnly = true;
    int64_t delayNs = 0;
    Ptr<ErrorModel> inner;
    std::vector<std::pair<int64_t, int64_t>> outages; // merged [start, end), ns

    void SetOutages(std::vector<std::pair<int64_t, int64_t>> spans)
    {
        std::sort(spans.begin(), spans.end());
        outages.clear();
        for (auto& s : spans)
        {
            if (!outages.empty() && s.first <= outages.back().second)
            {
                outages.back().second = std::max(outages.back().second, s.second);
            }
            else
            {
                outages.push_back(s);
            }
        }
    }

    bool InOutage(int64_t t) const
    {
        auto it = std::upper_bound(outages.begin(),
                                   outages.end(),
                                   std::make_pair(t, INT64_MAX));
        if (it == outages.begin())
        {
            return false;
        }
        --it;
        return t >= it->first && t < it->second;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override;

    void DoReset() override
    {
    }
};

// Gilbert-Elliott loss exactly as wtcp's net::loss: the two-state chain steps once per
// exposed packet (from the good state), then the packet sees the new state.
class GilbertElliott : public ErrorModel
{
  public:
    double pGoodToBad = 0;
    double pBadToGood = 0;
    double lossGood = 0;
    double lossBad = 1;
    bool bad = false;
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        double flip = bad ? pBadToGood : pGoodToBad;
        if (rng->GetValue() < flip)
        {
            bad = !bad;
        }
        double p = bad ? lossBad : lossGood;
        return p > 0 && rng->GetValue() < p;
    }

    void DoReset() override
    {
        bad = false;
    }
};

// The list model as wtcp's net::loss: the packets at the given 0-based indices among
// those the filter exposes are lost. Decides as ns-3's ReceiveListErrorModel does
// (error-model.cc:522-538) but walks its sorted list with a cursor instead of scanning
// the whole list per packet, so a list of a whole run's losses stays O(1) per packet.
class PacketList : public ErrorModel
{
  public:
    std::vector<uint32_t> lost; // sorted
    uint64_t seen = 0;
    size_t next = 0;

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        uint64_t index = seen++;
        while (next < lost.size() && lost[next] < index)
        {
            next++;
        }
        return next < lost.size() && lost[next] == index;
    }

    void DoReset() override
    {
        seen = 0;
        next = 0;
    }
};

// Queue limited in bytes as wtcp counts them: IP packet sizes, without the link-layer
// header the device has already added (the packet in transmission is not in the queue).
class ByteQueue : public DropTailQueue<Packet>
{
  public:
    uint64_t limit = 0;
    uint32_t linkHeader = 0;

    bool Enqueue(Ptr<Packet> p) override
    {
        uint64_t held = GetNBytes() - static_cast<uint64_t>(linkHeader) * GetNPackets();
        if (held + p->GetSize() - linkHeader > limit)
        {
            DropBeforeEnqueue(p);
            return false;
        }
        return DropTailQueue<Packet>::Enqueue(p);
    }
};

struct DirProbe
{
    Harness* h = nullptr;
    int dir = 0;
    int fromNode = -1; // the node this direction leaves
    void OnMacTxDrop(Ptr<const Packet> p);
    void OnPhyTxEnd(Ptr<const Packet> p);
};

// Drops of a station's queue disc: counted as its queue drops and charged to the segment.
struct DiscProbe
{
    Harness* h = nullptr;
    WifiStationStats* stats = nullptr;
    void OnDrop(Ptr<const QueueDiscItem> item);
};

// The TCP application: an unlimited (or `limit`-byte) bulk source that keeps the socket's
// send buffer full from the connection on.
struct TcpSource
{
    Ptr<Sender> sock;
    Address peer;
    uint16_t port = 0;
    uint64_t limit = 0; // 0: unlimited
    uint64_t written = 0;
    bool connected = false;
    bool stopped = false;

    void Start()
    {
        sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        sock->SetConnectCallback(MakeCallback(&TcpSource::OnConnected, this),
                                 MakeCallback(&TcpSource::OnFailed, this));
        sock->SetSendCallback(MakeCallback(&TcpSource::OnSend, this));
        sock->Connect(peer);
    }

    void Stop()
    {
        stopped = true;
        sock->StopSupply();
    }

    void OnConnected(Ptr<Socket>)
    {
        connected = true;
        Fill();
    }

    void OnFailed(Ptr<Socket>)
    {
    }

    void OnSend(Ptr<Socket>, uint32_t)
    {
        if (connected)
        {
            Fill();
        }
    }

    void Fill()
    {
        while (!stopped && (limit == 0 || written < limit))
        {
            uint32_t room = sock->GetTxAvailable();
            if (room == 0)
            {
                break;
            }
            uint64_t n = room;
            if (limit != 0)
            {
                n = std::min<uint64_t>(n, limit - written);
            }
            int sent = sock->Send(Create<Packet>(static_cast<uint32_t>(n)), 0);
            if (sent <= 0)
            {
                break;
            }
            written += static_cast<uint64_t>(sent);
        }
    }
};

struct TcpSink
{
    FlowStats* st = nullptr;
    bool traces = true;
    Ptr<Socket> listener;
    std::vector<Ptr<Socket>> accepted;

    void OnAccept(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&TcpSink::OnRecv, this));
        if (traces)
        {
            s->TraceConnectWithoutContext("Rx", MakeCallback(&TcpSink::OnRx, this));
        }
        accepted.push_back(s);
    }

    void OnRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            st->delivered += p->GetSize();
        }
        if (st->limit != 0 && st->completedNs < 0 && st->delivered >= st->limit)
        {
            st->completedNs = Simulator::Now().GetNanoSeconds();
        }
    }

    void OnRx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() > 0 && st->haveIsn)
        {
            st->OnDelivered(st->Unwrap(h.GetSequenceNumber().GetValue()));
        }
    }
};

// Constant-bit-rate UDP as wtcp sends it: the first datagram at the start, then one every
// `intervalNs` until the stop.
struct CbrSource
{
    FlowStats* st = nullptr;
    Ptr<Socket> sock;
    Address peer;
    uint32_t bytes = 0;
    int64_t intervalNs = 0;
    EventId next;

    void Start()
    {
        sock->Bind();
        sock->Connect(peer);
        Send();
    }

    void Stop()
    {
        next.Cancel();
    }

    void Send()
    {
        sock->Send(Create<Packet>(bytes));
        st->segmentsSent += 1; // (bytesSent: counted when the source's device sends it)
        next = Simulator::Schedule(NanoSeconds(intervalNs), &CbrSource::Send, this);
    }
};

struct UdpSink
{
    FlowStats* st = nullptr;
    Ptr<Socket> sock;

    void OnRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            st->packetsReceived += 1;
            st->delivered += p->GetSize();
        }
    }
};

struct LinkEnds
{
    Ptr<PointToPointNetDevice> dev[2];
    Ipv4Address addr[2];
    int ifIndex[2] = {0, 0};
    int node[2] = {0, 0};
    int64_t delayNs = 0;
};

// Data-port base of the flows: flow i listens on kPortBase + i at its destination.
static const uint16_t kPortBase = 10000;
static const uint16_t kSourcePortBase = 40000;

class Harness
{
  public:
    // A bare run (the bench's "ns-3 bare"): no per-packet trace sinks on devices, TCP
    // sockets or the receivers, only what a user's own script has: the applications, the
    // error models of the scenario's impairments and the goodput counted at the sink.
    // The simulation (its events) is the same; wtcp's metrics other than goodput are not.
    bool bare = false;
    std::vector<Ptr<Node>> nodes;
    std::vector<LinkEnds> links;
    std::vector<DirStats> dirs;
    std::vector<std::unique_ptr<DirProbe>> probes;
    std::vector<std::unique_ptr<FlowStats>> flows;
    std::vector<std::unique_ptr<TcpSource>> tcpSources;
    std::vector<std::unique_ptr<TcpSink>> tcpSinks;
    std::vector<std::unique_ptr<CbrSource>> cbrSources;
    std::vector<std::unique_ptr<UdpSink>> udpSinks;
    std::map<uint16_t, int> flowByPort;
    std::vector<Ptr<RxFilter>> filters;
    std::vector<std::unique_ptr<WifiNet>> wifis;
    std::vector<std::unique_ptr<StationProbe>> stationProbes;
    std::vector<std::unique_ptr<DiscProbe>> discProbes;

    int AddNodes(int n)
    {
        InternetStackHelper stack;
        stack.SetIpv6StackInstall(false);
        for (int i = 0; i < n; i++)
        {
            Ptr<Node> node = CreateObject<Node>();
            stack.Install(node);
            nodes.push_back(node);
        }
        return static_cast<int>(nodes.size());
    }

    // A full-duplex point-to-point link: one PointToPointNetDevice (2-byte PPP header) per
    // end with its own DropTail queue, no NetDeviceQueueInterface and no queue disc, so the
    // device queue is the only buffer and the only place a packet waits or is dropped.
    int AddLink(int a,
                int b,
                double rateBps,
                int64_t delayNs,
                uint32_t mtu,
                uint32_t limitPackets,
                uint64_t limitBytes,
                uint32_t linkHeader,
                uint32_t network)
    {
        Ptr<PointToPointChannel> channel = CreateObject<PointToPointChannel>();
        channel->SetAttribute("Delay", TimeValue(NanoSeconds(delayNs)));
        LinkEnds ends;
        ends.delayNs = delayNs;
        int ids[2] = {a, b};
        int linkIndex = static_cast<int>(links.size());
        for (int k = 0; k < 2; k++)
        {
            Ptr<Node> node = nodes[ids[k]];
            Ptr<PointToPointNetDevice> dev = CreateObject<PointToPointNetDevice>();
            dev->SetAddress(Mac48Address::Allocate());
            dev->SetDataRate(DataRate(static_cast<uint64_t>(rateBps)));
            dev->SetMtu(static_cast<uint16_t>(mtu));
            Ptr<Queue<Packet>> queue;
            if (limitBytes > 0)
            {
                Ptr<ByteQueue> q = CreateObject<ByteQueue>();
                q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, UINT32_MAX));
                q->limit = limitBytes;
                q->linkHeader = linkHeader;
                queue = q;
            }
            else
            {
                Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
                q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, limitPackets));
                queue = q;
            }
            dev->SetQueue(queue);
            node->AddDevice(dev);
            dev->Attach(channel);
            ends.dev[k] = dev;
            ends.node[k] = ids[k];
            // Direction 2*link + k leaves this end.
            auto probe = std::make_unique<DirProbe>();
            probe->h = this;
            probe->dir = 2 * linkIndex + k;
            probe->fromNode = ids[k];
            if (!bare)
            {
                dev->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&DirProbe::OnMacTxDrop, probe.get()));
                dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&DirProbe::OnPhyTxEnd, probe.get()));
            }
            probes.push_back(std::move(probe));
            dirs.emplace_back();
            // Addresses: the link's own /30, .1 at a and .2 at b.
            Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
            int32_t iface = ipv4->AddInterface(dev);
            Ipv4Address addr(network + 1 + k);
            ipv4->AddAddress(iface, Ipv4InterfaceAddress(addr, Ipv4Mask("255.255.255.252")));
            ipv4->SetMetric(iface, 1);
            ipv4->SetUp(iface);
            ends.addr[k] = addr;
            ends.ifIndex[k] = iface;
        }
        links.push_back(ends);
        return linkIndex;
    }

    // `node` reaches the /30 of link `target` through link `via` (an interface of `node`).
    void AddRoute(int node, int target, int via)
    {
        Ipv4StaticRoutingHelper helper;
        Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(nodes[node]->GetObject<Ipv4>());
        const LinkEnds& l = links[via];
        int k = l.node[0] == node ? 0 : 1;
        Ipv4Address network = links[target].addr[0].CombineMask(Ipv4Mask("255.255.255.252"));
        routing->AddNetworkRouteTo(network, Ipv4Mask("255.255.255.252"), l.addr[1 - k], l.ifIndex[k]);
    }

    // `node` reaches `dest`/`mask` through `gateway`, over link `index` (kind 0) or 802.11
    // channel `index` (kind 1).
    void AddRouteVia(int node, uint32_t dest, uint32_t mask, uint32_t gateway, int kind, int index)
    {
        Ipv4StaticRoutingHelper helper;
        Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(nodes[node]->GetObject<Ipv4>());
        int ifIndex = 0;
        if (kind == 0)
        {
            const LinkEnds& l = links[index];
            ifIndex = l.ifIndex[l.node[0] == node ? 0 : 1];
        }
        else
        {
            const WifiNet& w = *wifis[index];
            for (size_t s = 0; s < w.nodeOf.size(); s++)
            {
                if (w.nodeOf[s] == node)
                {
                    ifIndex = w.ifIndex[s];
                }
            }
        }
        routing->AddNetworkRouteTo(Ipv4Address(dest), Ipv4Mask(mask), Ipv4Address(gateway), ifIndex);
    }

    // An 802.11 channel (wifi.cc): standard 0 = 802.11b, 1 = 802.11g, 2 = 802.11a, 3 =
    // 802.11n in the 5 GHz band (`widthMhz`, `shortGi`; QoS stations sending best effort,
    // A-MPDUs of up to `ampduMaxBytes` octets, 0: off, A-MSDU off), 4 = 802.11ac alike
    // with `streams` antennas and spatial streams; data and control (RTS; CTS and ACK answer at ns-3's control
    // answer rate) modes by name; stations on `stationNodes` at (xs, ys), addressed
    // network + 1, + 2, ... in a /16.
    int AddWifiChannel(int standard,
                       std::string dataMode,
                       std::string controlMode,
                       uint32_t rtsThreshold,
                       uint32_t retryLimit,
                       std::vector<uint32_t> queueLimits,
                       double ber,
                       double txRange,
                       double csRange,
                       int64_t delayNs,
                       std::vector<int> stationNodes,
                       std::vector<double> xs,
                       std::vector<double> ys,
                       uint32_t network,
                       bool relayHints,
                       int64_t slotNs,
                       std::vector<int> queueDisc,
                       uint32_t widthMhz,
                       bool shortGi,
                       uint32_t ampduMaxBytes,
                       uint32_t streams,
                       int rateControl)
    {
        const bool ht = standard >= 3;
        auto net = std::make_unique<WifiNet>();
        WifiNet* w = net.get();
        w->index = static_cast<int>(wifis.size());
        w->txRange = txRange;
        w->csRange = csRange;
        size_t n = stationNodes.size();
        w->nodeOf = stationNodes;
        w->stats.resize(n);
        w->peerOf.assign(n, -1);
        w->afterCts.assign(n, false);
        w->ifIndex.assign(n, 0);
        Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
        w->channel = channel;
        Ptr<RangeDiscLoss> loss = CreateObject<RangeDiscLoss>();
        loss->net = w;
        channel->SetPropagationLossModel(loss);
        Ptr<ConstantDelay> delay = CreateObject<ConstantDelay>();
        delay->delay = NanoSeconds(delayNs);
        channel->SetPropagationDelayModel(delay);

        // Two helpers alike but for flow control. A DropTail station has none: with it, a
        // full interface queue would stop the device and the traffic-control layer drop
        // instead of the MAC (wifi-helper.cc:1113-1139). A station with a queue disc
        // (`queueDisc`) has it, so the disc holds what waits behind the frame in service.
        WifiHelper helpers[2];
        for (int fc = 0; fc < 2; fc++)
        {
            helpers[fc].SetStandard(standard == 0   ? WIFI_STANDARD_80211b
                                    : standard == 1 ? WIFI_STANDARD_80211g
                                    : standard == 2 ? WIFI_STANDARD_80211a
                                    : standard == 3 ? WIFI_STANDARD_80211n
                                                    : WIFI_STANDARD_80211ac);
            if (ht)
            {
                helpers[fc].ConfigHtOptions("ShortGuardIntervalSupported", BooleanValue(shortGi));
            }
            if (rateControl == 1)
            {
                // wtcp's rate_control = "ideal" (BerThreshold 1e-6, the default).
                helpers[fc].SetRemoteStationManager("ns3::IdealWifiManager",
                                                  "RtsCtsThreshold", UintegerValue(rtsThreshold),
                                                  "IncrementRetryCountUnderBa", BooleanValue(true));
            }
            else if (rateControl == 2)
            {
                // wtcp's rate_control = "minstrel_ht": ns-3's own Minstrel-HT, with its
                // defaults (an earlier Linux design: see docs/wifi.md).
                helpers[fc].SetRemoteStationManager("ns3::MinstrelHtWifiManager",
                                                  "RtsCtsThreshold", UintegerValue(rtsThreshold),
                                                  "IncrementRetryCountUnderBa", BooleanValue(true));
            }
            else
            {
                helpers[fc].SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                                  "DataMode", StringValue(dataMode),
                                                  "ControlMode", StringValue(controlMode),
                                                  "RtsCtsThreshold", UintegerValue(rtsThreshold),
                                                  // An MPDU under Block Ack counts its transmissions
                                                  // against FrameRetryLimit, as in wtcp and 802.11
                                                  // (ns-3's default counts none).
                                                  "IncrementRetryCountUnderBa", BooleanValue(true));
            }
        }
        helpers[0].DisableFlowControl();
        YansWifiPhyHelper phy;
        phy.SetChannel(channel);
        phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi", DoubleValue(kPreambleMinimumRssiDbm));
        WifiMacHelper mac;
        if (ht)
        {
            phy.Set("ChannelSettings", StringValue("{0, " + std::to_string(widthMhz) + ", BAND_5GHZ, 0}"));
            phy.Set("Antennas", UintegerValue(streams));
            phy.Set("MaxSupportedTxSpatialStreams", UintegerValue(streams));
            phy.Set("MaxSupportedRxSpatialStreams", UintegerValue(streams));
            mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(true), "FrameRetryLimit", UintegerValue(retryLimit),
                        "BE_MaxAmpduSize", UintegerValue(ampduMaxBytes), "BE_MaxAmsduSize", UintegerValue(0));
        }
        else
        {
            mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false), "FrameRetryLimit", UintegerValue(retryLimit));
        }
        NetDeviceContainer devices;
        for (size_t s = 0; s < n; s++)
        {
            Ptr<Node> node = nodes[stationNodes[s]];
            Ptr<MobilityModel> m = node->GetObject<MobilityModel>();
            if (!m)
            {
                m = CreateObject<ConstantPositionMobilityModel>();
                m->SetPosition(Vector(xs[s], ys[s], 0.0));
                node->AggregateObject(m);
            }
            w->pos.emplace_back(xs[s], ys[s]);
            w->stationOfMobility[PeekPointer(m)] = static_cast<int>(s);
            devices.Add(helpers[queueDisc[s] ? 1 : 0].Install(phy, mac, node));
        }
        for (size_t s = 0; s < n; s++)
        {
            Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(s));
            w->devs.push_back(dev);
            w->stationOf[Mac48Address::ConvertFrom(dev->GetAddress())] = static_cast<int>(s);
            dev->GetPhy()->SetErrorRateModel(CreateObject<StepErrorRate>());
            if (slotNs > 0)
            {
                dev->GetPhy()->SetSlot(NanoSeconds(slotNs));
            }
            Ptr<Txop> txop = ht ? Ptr<Txop>(dev->GetMac()->GetQosTxop(AC_BE)) : dev->GetMac()->GetTxop();
            if (ht)
            {
                // After a missed Block Ack the MPDUs go again in the next A-MPDU, as in wtcp;
                // ns-3's default sends a BlockAckReq first (qos-txop.cc:54-59).
                txop->SetAttribute("UseExplicitBarAfterMissedBlockAck", BooleanValue(false));
            }
            Ptr<WifiMacQueue> q = txop->GetWifiMacQueue();
            // The MPDU in service stays in ns-3's queue until it is acknowledged or given up;
            // wtcp's limit counts the packets waiting behind it (in the disc, if any). With
            // aggregation wtcp's MAC holds up to the 64 MPDUs of its Block Ack window besides
            // its queue; ns-3 keeps them in its queue, which gets room for them.
            uint32_t inService = ht && ampduMaxBytes > 0 ? 64 : 1;
            q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queueDisc[s] ? 1 : queueLimits[s] + inService));
            q->SetAttribute("MaxDelay", TimeValue(Seconds(1e6))); // no lifetime drops (wtcp has none)
            Ptr<BerModel> em = CreateObject<BerModel>();
            em->net = w;
            em->station = static_cast<int>(s);
            em->self = Mac48Address::ConvertFrom(dev->GetAddress());
            em->ber = ber;
            dev->GetPhy()->SetAttribute("PostReceptionErrorModel", PointerValue(em));
            w->berModels.push_back(em);
            auto probe = std::make_unique<StationProbe>();
            probe->net = w;
            probe->s = static_cast<int>(s);
            dev->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&StationProbe::TxBegin, probe.get()));
            dev->GetPhy()->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&StationProbe::RxDrop, probe.get()));
            dev->GetPhy()->TraceConnectWithoutContext("PhyRxBegin", MakeCallback(&StationProbe::RxBegin, probe.get()));
            dev->GetPhy()->GetState()->TraceConnectWithoutContext("RxError", MakeCallback(&StationProbe::RxError, probe.get()));
            dev->GetMac()->TraceConnectWithoutContext("MacTx", MakeCallback(&StationProbe::MacTx, probe.get()));
            dev->GetMac()->TraceConnectWithoutContext("AckedMpdu", MakeCallback(&StationProbe::Acked, probe.get()));
            dev->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&StationProbe::Dropped, probe.get()));
            stationProbes.push_back(std::move(probe));
            Ptr<Ipv4> ipv4 = nodes[stationNodes[s]]->GetObject<Ipv4>();
            int32_t iface = ipv4->AddInterface(dev);
            ipv4->AddAddress(iface, Ipv4InterfaceAddress(Ipv4Address(network + 1 + static_cast<uint32_t>(s)), Ipv4Mask("255.255.0.0")));
            ipv4->SetMetric(iface, 1);
            ipv4->SetUp(iface);
            w->ifIndex[s] = iface;
        }
        w->onDrop = [this](Ptr<const Packet> p, int cause) { Attribute(p, cause, true); };
        w->onDone = [this](Ptr<const Packet> p, int node) { CountOnWire(p, node, true); };
        w->onGiveUp = [this, relayHints](Ptr<const Packet> p, int node) { MacHint(p, node, relayHints); };
        wifis.push_back(std::move(net));
        return w->index;
    }

    // Node `node` moves from (x, y) at time 0 at (vx, vy) m/s. Before AddWifiChannel, which
    // keeps a node's mobility model.
    void SetNodeVelocity(int node, double x, double y, double vx, double vy)
    {
        Ptr<ConstantVelocityMobilityModel> m = CreateObject<ConstantVelocityMobilityModel>();
        m->SetPosition(Vector(x, y, 0.0)); // (SetPosition zeroes the velocity: first)
        m->SetVelocity(Vector(vx, vy, 0.0));
        nodes[node]->AggregateObject(m);
    }

    // Node `node` moves in straight lines from (x, y) at time 0 through waypoints (ns, x, y).
    void SetNodeWaypoints(int node, double x, double y, std::vector<int64_t> ts, std::vector<double> wx, std::vector<double> wy)
    {
        Ptr<WaypointMobilityModel> m = CreateObject<WaypointMobilityModel>();
        m->AddWaypoint(Waypoint(Seconds(0), Vector(x, y, 0.0)));
        for (size_t k = 0; k < ts.size(); k++)
        {
            m->AddWaypoint(Waypoint(NanoSeconds(ts[k]), Vector(wx[k], wy[k], 0.0)));
        }
        nodes[node]->AggregateObject(m);
    }

    // Channel `channel` under wtcp's radio model (channel.model = "log_distance"): log-distance
    // loss (then Rayleigh fading per frame and receiver: Nakagami with m = 1 at every
    // distance), the transmit power and noise figure, NIST's OFDM error model, and frames
    // below `ccaDbm` neither detected, sensed nor summed as interference (RxSensitivity, CCA
    // sensitivity and the preamble detection's minimum RSSI all at it). After AddWifiChannel.
    void SetWifiRadio(int channel, double exponent, double d0, double l0, double txPowerDbm, double noiseFigureDb, double ccaDbm, bool rayleigh)
    {
        WifiNet* w = wifis[channel].get();
        Ptr<LogDistancePropagationLossModel> loss = CreateObject<LogDistancePropagationLossModel>();
        loss->SetAttribute("Exponent", DoubleValue(exponent));
        loss->SetAttribute("ReferenceDistance", DoubleValue(d0));
        loss->SetAttribute("ReferenceLoss", DoubleValue(l0));
        if (rayleigh)
        {
            Ptr<NakagamiPropagationLossModel> fading = CreateObject<NakagamiPropagationLossModel>();
            fading->SetAttribute("m0", DoubleValue(1.0));
            fading->SetAttribute("m1", DoubleValue(1.0));
            fading->SetAttribute("m2", DoubleValue(1.0));
            loss->SetNext(fading);
        }
        w->channel->SetPropagationLossModel(loss);
        for (auto& dev : w->devs)
        {
            Ptr<WifiPhy> phy = dev->GetPhy();
            phy->SetTxPowerStart(txPowerDbm);
            phy->SetTxPowerEnd(txPowerDbm);
            phy->SetRxNoiseFigure(noiseFigureDb);
            phy->SetRxSensitivity(ccaDbm);
            phy->SetCcaSensitivityThreshold(ccaDbm);
            phy->SetPreambleDetectionModel(CreateObjectWithAttributes<ThresholdPreambleDetectionModel>("MinimumRssi", DoubleValue(ccaDbm)));
            phy->SetErrorRateModel(CreateObject<NistErrorRateModel>());
        }
    }

    // Station `station` of `channel` queues in an FqCoDelQueueDisc (RFC 8290) with wtcp's
    // parameters; its drops (overflow and CoDel) are the station's queue drops.
    void SetStationFqCoDel(int channel, int station, uint32_t limit, int64_t targetNs, int64_t intervalNs, bool ecn, uint32_t quantum, uint32_t flows,
                           uint32_t dropBatch, uint32_t perturbation)
    {
        WifiNet* w = wifis[channel].get();
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                             "Target", StringValue(std::to_string(targetNs) + "ns"),
                             "Interval", StringValue(std::to_string(intervalNs) + "ns"),
                             "UseEcn", BooleanValue(ecn),
                             "Flows", UintegerValue(flows),
                             "DropBatchSize", UintegerValue(dropBatch),
                             "Perturbation", UintegerValue(perturbation));
        QueueDiscContainer discs = tch.Install(w->devs[station]);
        Ptr<FqCoDelQueueDisc> disc = DynamicCast<FqCoDelQueueDisc>(discs.Get(0));
        disc->SetQuantum(quantum);
        auto probe = std::make_unique<DiscProbe>();
        probe->h = this;
        probe->stats = &w->stats[station];
        disc->TraceConnectWithoutContext("Drop", MakeCallback(&DiscProbe::OnDrop, probe.get()));
        discProbes.push_back(std::move(probe));
    }

    WifiStationStats* Station(int channel, int station)
    {
        return &wifis[channel]->stats[station];
    }

    // Impairments of direction `dir` (2*link + 0: a -> b, 2*link + 1: b -> a), installed
    // on the receiving device. model: 0 none, 1 uniform(p1), 2 ber(p1), 3 list, 4
    // Gilbert-Elliott(p1..p4).
    RxFilter* SetImpairment(int dir,
                            bool dataOnly,
                            int model,
                            double p1,
                            double p2,
                            double p3,
                            double p4,
                            std::vector<uint32_t> list,
                            std::vector<int64_t> outageStart,
                            std::vector<int64_t> outageEnd)
    {
        const LinkEnds& l = links[dir / 2];
        Ptr<RxFilter> f = CreateObject<RxFilter>();
        f->h = this;
        f->dir = dir;
        f->dataOnly = dataOnly;
        f->delayNs = l.delayNs;
        if (model == 1 || model == 2)
        {
            Ptr<RateErrorModel> m = CreateObject<RateErrorModel>();
            m->SetUnit(model == 1 ? RateErrorModel::ERROR_UNIT_PACKET : RateErrorModel::ERROR_UNIT_BIT);
            m->SetRate(p1);
            f->inner = m;
        }
        else if (model == 3)
        {
            Ptr<PacketList> m = CreateObject<PacketList>();
            std::sort(list.begin(), list.end());
            m->lost = std::move(list);
            f->inner = m;
        }
        else if (model == 4)
        {
            Ptr<GilbertElliott> m = CreateObject<GilbertElliott>();
            m->pGoodToBad = p1;
            m->pBadToGood = p2;
            m->lossGood = p3;
            m->lossBad = p4;
            f->inner = m;
        }
        std::vector<std::pair<int64_t, int64_t>> spans;
        for (size_t i = 0; i < outageStart.size(); i++)
        {
            spans.emplace_back(outageStart[i], outageEnd[i]);
        }
        f->SetOutages(spans);
        l.dev[1 - dir % 2]->SetReceiveErrorModel(f);
        filters.push_back(f);
        return PeekPointer(f);
    }

    // Random outages of wtcp's `random_outages`: a Poisson process of mean interval
    // `meanIntervalS` from `fromNs`, each of `durationNs` (or exponential with that mean).
    void AddRandomOutages(RxFilter* f, double meanIntervalS, int64_t durationNs, bool exponential, int64_t fromNs, int64_t untilNs)
    {
        Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
        gap->SetAttribute("Mean", DoubleValue(meanIntervalS));
        Ptr<ExponentialRandomVariable> len = CreateObject<ExponentialRandomVariable>();
        len->SetAttribute("Mean", DoubleValue(static_cast<double>(durationNs)));
        std::vector<std::pair<int64_t, int64_t>> spans = f->outages;
        int64_t t = fromNs + static_cast<int64_t>(gap->GetValue() * 1e9 + 0.5);
        while (t < untilNs)
        {
            int64_t d = exponential ? static_cast<int64_t>(len->GetValue() + 0.5) : durationNs;
            spans.emplace_back(t, t + d);
            t += std::max<int64_t>(1, static_cast<int64_t>(gap->GetValue() * 1e9 + 0.5));
        }
        f->SetOutages(spans);
    }

    Ipv4Address AddressOf(int node)
    {
        Ptr<Ipv4> ipv4 = nodes[node]->GetObject<Ipv4>();
        return ipv4->GetAddress(1, 0).GetLocal(); // interface 0 is the loopback
    }

    static void SetAttributes(Ptr<Object> obj, const std::vector<std::string>& attrs)
    {
        for (const auto& a : attrs)
        {
            auto eq = a.find('=');
            obj->SetAttribute(a.substr(0, eq), StringValue(a.substr(eq + 1)));
        }
    }

    int AddTcpFlow(int src,
                   int dst,
                   std::string ccType,
                   std::vector<std::string> ccAttrs,
                   std::vector<std::string> socketAttrs,
                   std::vector<std::string> rttAttrs,
                   bool pacing,
                   uint64_t limit,
                   int64_t startNs,
                   int64_t stopNs,
                   std::string recoveryType)
    {
        int id = static_cast<int>(flows.size());
        auto st = std::make_unique<FlowStats>();
        st->tcp = true;
        st->srcNode = src;
        uint16_t port = kPortBase + id;
        Ptr<TcpL4Protocol> srcTcp = nodes[src]->GetObject<TcpL4Protocol>();
        Ptr<TcpL4Protocol> dstTcp = nodes[dst]->GetObject<TcpL4Protocol>();

        // Receiver: a listening socket with the flow's options; accepted sockets are forks.
        auto sink = std::make_unique<TcpSink>();
        sink->st = st.get();
        sink->traces = !bare;
        Ptr<Socket> listener = dstTcp->CreateSocket(TcpNewReno::GetTypeId(), TcpClassicRecovery::GetTypeId());
        SetAttributes(listener, socketAttrs);
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&TcpSink::OnAccept, sink.get()));
        sink->listener = listener;

        // Sender: built as TcpL4Protocol::CreateSocket does, with the hooks of Sender.
        Ptr<Sender> sock = CreateObject<Sender>();
        Ptr<RttMeanDeviation> rtt = CreateObject<RttMeanDeviation>();
        SetAttributes(rtt, rttAttrs);
        ObjectFactory ccFactory;
        ccFactory.SetTypeId(ccType);
        Ptr<TcpCongestionOps> cc = ccFactory.Create<TcpCongestionOps>();
        SetAttributes(cc, ccAttrs);
        sock->SetNode(nodes[src]);
        sock->SetTcp(srcTcp);
        sock->SetRtt(rtt);
        sock->SetCongestionControlAlgorithm(cc);
        ObjectFactory recoveryFactory;
        recoveryFactory.SetTypeId(recoveryType);
        sock->SetRecoveryAlgorithm(recoveryFactory.Create<TcpRecoveryOps>());
        SetAttributes(sock, socketAttrs);
        sock->SetPacingStatus(pacing);
        sock->Hook(st.get(), !bare);

        auto source = std::make_unique<TcpSource>();
        source->sock = sock;
        source->peer = InetSocketAddress(AddressOf(dst), port);
        source->port = kSourcePortBase + id;
        source->limit = limit;
        st->limit = limit;
        Simulator::Schedule(NanoSeconds(startNs), &TcpSource::Start, source.get());
        if (stopNs >= 0)
        {
            Simulator::Schedule(NanoSeconds(stopNs), &TcpSource::Stop, source.get());
        }
        flowByPort[port] = id;
        tcpSources.push_back(std::move(source));
        tcpSinks.push_back(std::move(sink));
        flows.push_back(std::move(st));
        return id;
    }

    int AddCbrFlow(int src, int dst, uint32_t bytes, int64_t intervalNs, int64_t startNs, int64_t stopNs)
    {
        int id = static_cast<int>(flows.size());
        auto st = std::make_unique<FlowStats>();
        st->tcp = false;
        st->srcNode = src;
        uint16_t port = kPortBase + id;
        auto sink = std::make_unique<UdpSink>();
        sink->st = st.get();
        sink->sock = Socket::CreateSocket(nodes[dst], UdpSocketFactory::GetTypeId());
        sink->sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        sink->sock->SetRecvCallback(MakeCallback(&UdpSink::OnRecv, sink.get()));
        auto source = std::make_unique<CbrSource>();
        source->st = st.get();
        source->sock = Socket::CreateSocket(nodes[src], UdpSocketFactory::GetTypeId());
        source->peer = InetSocketAddress(AddressOf(dst), port);
        source->bytes = bytes;
        source->intervalNs = intervalNs;
        Simulator::Schedule(NanoSeconds(startNs), &CbrSource::Start, source.get());
        if (stopNs >= 0)
        {
            Simulator::Schedule(NanoSeconds(stopNs), &CbrSource::Stop, source.get());
        }
        flowByPort[port] = id;
        cbrSources.push_back(std::move(source));
        udpSinks.push_back(std::move(sink));
        flows.push_back(std::move(st));
        return id;
    }

    void MeasureStart()
    {
        for (auto& f : flows)
        {
            f->startDelivered = f->delivered;
            f->startSent = f->bytesSent;
        }
    }

    void MeasureEnd()
    {
        for (auto& f : flows)
        {
            f->endDelivered = f->delivered;
            f->endSent = f->bytesSent;
            f->ended = true;
        }
    }

    uint64_t Run(int64_t durationNs, int64_t fromNs, int64_t toNs)
    {
        if (!wifis.empty())
        {
            // Every station knows every other's MAC address from the start (wtcp has no ARP).
            NeighborCacheHelper().PopulateNeighborCache();
        }
        Simulator::Schedule(NanoSeconds(fromNs), &Harness::MeasureStart, this);
        Simulator::Schedule(NanoSeconds(toNs), &Harness::MeasureEnd, this);
        Simulator::Stop(NanoSeconds(durationNs));
        Simulator::Run();
        for (auto& f : flows)
        {
            if (f->tcp && f->srttSince >= 0)
            {
                f->Srtt(durationNs, f->srttNs);
            }
            if (!f->ended)
            {
                f->endDelivered = f->delivered;
                f->endSent = f->bytesSent;
            }
        }
        return Simulator::GetEventCount();
    }

    FlowStats* Flow(int i)
    {
        return flows[i].get();
    }

    DirStats* Dir(int i)
    {
        return &dirs[i];
    }

    // A packet as the harness reads it: IP header, and for TCP its header, the flow's
    // destination port and the payload bytes; a UDP datagram counts as 1 payload byte.
    struct Decoded
    {
        Ipv4Header ip;
        TcpHeader th;
        bool tcp = false;
        bool udp = false;
        uint16_t port = 0;
        uint32_t payload = 0;
    };

    // A point-to-point frame (PPP header first) or, with `llc`, an 802.11 MSDU (LLC/SNAP
    // header first).
    static Decoded Decode(Ptr<const Packet> pkt, bool llc = false, bool bareIp = false)
    {
        Decoded d;
        Ptr<Packet> p = pkt->Copy();
        if (bareIp)
        {
        }
        else if (llc)
        {
            LlcSnapHeader h;
            p->RemoveHeader(h);
        }
        else
        {
            PppHeader ppp;
            p->RemoveHeader(ppp);
        }
        p->RemoveHeader(d.ip);
        if (d.ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
        {
            d.tcp = true;
            p->RemoveHeader(d.th);
            d.port = d.th.GetDestinationPort();
            d.payload = p->GetSize();
        }
        else if (d.ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER)
        {
            d.udp = true;
            UdpHeader uh;
            p->PeekHeader(uh);
            d.port = uh.GetDestinationPort();
            d.payload = 1;
        }
        return d;
    }

    // A flow's throughput: the IP bytes of its data segments and datagrams its source's
    // device finished sending (wtcp's "put on the wire"; a point-to-point device sends once,
    // an 802.11 station is done with an MSDU when it is acknowledged or given up).
    void CountOnWire(Ptr<const Packet> pkt, int fromNode, bool llc = false)
    {
        Decoded d = Decode(pkt, llc);
        auto it = flowByPort.find(d.port);
        if (d.payload == 0 || it == flowByPort.end())
        {
            return; // SYN, FIN, a pure ACK, or not a flow's
        }
        FlowStats* st = flows[it->second].get();
        if (st->srcNode == fromNode)
        {
            st->bytesSent += d.ip.GetPayloadSize() + d.ip.GetSerializedSize();
        }
    }

    // A station at `node` gave up on an MSDU at its retry limit: the MAC retry-limit hint
    // of wtcp's `mac_hint` rule reaches the segment's sender if it sits on that node (or
    // from any station with `relay`). Counted, as wtcp counts `mac_hints`; no algorithm
    // translated to ns-3 reads it.
    void MacHint(Ptr<const Packet> pkt, int node, bool relay)
    {
        Decoded d = Decode(pkt, true);
        auto it = flowByPort.find(d.port);
        if (!d.tcp || d.payload == 0 || it == flowByPort.end())
        {
            return;
        }
        FlowStats* st = flows[it->second].get();
        if (st->srcNode == node || relay)
        {
            st->macHints += 1;
        }
    }

    // Charge a drop to the flow and the transmission of the TCP segment it carried.
    void Attribute(Ptr<const Packet> pkt, int cause, bool llc = false, bool bareIp = false)
    {
        Decoded d = Decode(pkt, llc, bareIp);
        auto it = flowByPort.find(d.port);
        TxNoTag tag;
        if (!d.tcp || d.payload == 0 || it == flowByPort.end() || !pkt->PeekPacketTag(tag))
        {
            return;
        }
        FlowStats* st = flows[it->second].get();
        if (st->haveIsn)
        {
            st->OnDrop(st->Unwrap(d.th.GetSequenceNumber().GetValue()), tag.n, cause);
        }
    }

    // What wtcp's `loss_applies_to = "data"` exposes: TCP segments carrying data, and UDP.
    static bool IsData(Ptr<const Packet> pkt)
    {
        Decoded d = Decode(pkt);
        return d.udp || (d.tcp && d.payload > 0);
    }

    void Clear()
    {
        for (auto& s : tcpSources)
        {
            s->sock = nullptr;
        }
        tcpSources.clear();
        tcpSinks.clear();
        cbrSources.clear();
        udpSinks.clear();
        filters.clear();
        probes.clear();
        stationProbes.clear();
        discProbes.clear();
        wifis.clear();
        links.clear();
        nodes.clear();
        flows.clear();
        dirs.clear();
        flowByPort.clear();
    }
};

inline void
DiscProbe::OnDrop(Ptr<const QueueDiscItem> item)
{
    stats->queueDrops += 1;
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ip)
    {
        Ptr<Packet> p = item->GetPacket()->Copy();
        p->AddHeader(ip->GetHeader());
        h->Attribute(p, kQueue, false, true);
    }
}

inline void
DirProbe::OnMacTxDrop(Ptr<const Packet> p)
{
    h->dirs[dir].queue += 1;
    h->Attribute(p, kQueue);
}

inline void
DirProbe::OnPhyTxEnd(Ptr<const Packet> p)
{
    h->dirs[dir].tx += 1;
    h->CountOnWire(p, fromNode);
}

inline bool
RxFilter::DoCorrupt(Ptr<Packet> p)
{
    if (dataOnly && !Harness::IsData(p))
    {
        return false;
    }
    if (!outages.empty() && InOutage(Simulator::Now().GetNanoSeconds() - delayNs))
    {
        h->dirs[dir].outage += 1;
        h->Attribute(p, kOutage);
        return true;
    }
    if (inner && inner->IsCorrupt(p))
    {
        h->dirs[dir].channel += 1;
        h->Attribute(p, kChannel);
        return true;
    }
    return false;
}

} // namespace wtcpns3
