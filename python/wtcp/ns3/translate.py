"""A wtcp scenario as ns-3 3.44 objects.

Two steps. `plan(document)` reads the scenario document (after overrides, already checked
by the Rust core) field by field and either translates each field into a `Plan` of plain
values or refuses it (`Ns3TranslationError` naming the field, what is wrong and what is
allowed). It knows every field of the schema: a field it does not know, such as one added
to the schema later, is refused, never ignored. `build(plan, harness)` then creates the ns-3
objects through the C++ harness (harness.cc).

What is translated (ns-3 3.44 names):

- nodes: `ns3::Node` with the IPv4 stack (no IPv6, no queue discs).
- links: a `PointToPointChannel` (the delay) with one `PointToPointNetDevice` (the rate,
  a 2-byte PPP header) per end, each with its own `DropTailQueue<Packet>` in packets (or a
  DropTail queue limited in bytes as wtcp counts them) as the only buffer. Routes are
  static: along the unique path where the links form a tree; otherwise, and with 802.11
  channels, host routes along wtcp's own next hops (`wtcp_routes`).
- 802.11 channels (`[[wifi]]`): wifi.py and wifi.cc.
- loss of a link direction, on the receiving device: `RateErrorModel` per packet
  (uniform) or per bit (BER, over the whole frame with its PPP header),
  the harness's `PacketList` (list; packet k is index k - 1; decides as ns-3's
  `ReceiveListErrorModel`, O(1) per packet), and a Gilbert-Elliott model
  stepped as wtcp's. `loss_applies_to = "data"` passes ACKs (and SYN/FIN) untouched and
  counts only data packets; scheduled and random outages drop what finishes transmission
  inside them.
- TCP flows: a `TcpSocketBase` per sender with ns-3's congestion control of the same name,
  classic (RFC 6582) fast recovery, SACK off, and every option of `[tcp]`; a listening
  socket with the same options at the receiver. CBR flows: UDP datagrams at wtcp's rate.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from wtcp.ns3.refuse import known, refuse, toml_text
from wtcp.ns3.wifi import MAX_IP_BYTES as WIFI_MAX_IP_BYTES
from wtcp.ns3.wifi import PROP_DELAY_NS as WIFI_PROP_DELAY_NS
from wtcp.ns3.wifi import WifiPlan, wifi_plan

# [tcp] defaults: crates/wtcp-engine/src/scenario/resolve.rs (TcpConfig::default and
# resolve_tcp_flow) and wtcp-cc's RttConfig::default. tests/python/test_ns3.py checks them
# against the Rust core.
TCP_DEFAULTS: dict[str, Any] = {
    "mss_bytes": 1000,
    "header_bytes": 40,
    "timestamps": False,
    "initial_cwnd_segments": 10.0,
    "initial_ssthresh_segments": math.inf,
    "rto_initial_s": 1.0,
    "rto_min_s": 1.0,
    "rto_max_s": 60.0,
    "clock_granularity_s": 0.001,
    "max_backoff": 16,
    "rto_estimator": "rfc6298",
    "rtt_sampling": "every_ack",
    "dupack_threshold": 3,
    "limited_transmit": True,
    "delayed_ack": True,
    "delayed_ack_count": 2,
    "delayed_ack_timeout_s": 0.2,
    "send_buffer_bytes": 1 << 20,
    "recv_buffer_bytes": 1 << 20,
    "ecn": False,
    "ecn_echo": "per_packet",
    "frto": False,
    "partial_ack_timer": "impatient",
    "sack": False,
    "recovery": "classic",
    "backoff_reset": "rtt_sample",
    "handshake": False,
    "prr_recover_fs": "flight_size",
    "prr_dupack_credit": False,
    "prr_extra_segment": "every_ack",
    "recovery_exit_growth": False,
    "timeout_count_reset": "new_ack",
    "reno_sack": False,
    "loss_exit_credit": "delivered",
    "cwnd_limited": "assumed",
    "ts_recent": "rfc7323",
    "quick_acks_at_start": 0,
    "handshake_ack": False,
    "receive_window": "free_space",
    "timeout_in_recovery": "cut",
    "loss_detection": "dupack",
    "rearm_rto_on_head_retransmit": False,
    "tail_loss_probe": False,
}

# The hash salt of an ns-3 FqCoDelQueueDisc (wtcp draws its own from the queue's stream;
# with a handful of flows in 1024 queues both almost always keep them apart).
FQ_PERTURBATION = 1
NS3_RTO_CAP_S = 60.0  # tcp-socket-base.cc ReTxTimeout: m_rto = Min(2 * m_rto, 60 s)
PPP_HEADER_BYTES = 2  # PointToPointNetDevice::AddHeader (PppHeader)
# The harness's rate-control codes (AddWifiChannel's rateControl).
RATE_CONTROL = {"constant": 0, "ideal": 1, "minstrel_ht": 2}
IP_TCP_HEADER_BYTES = 40  # Ipv4Header + TcpHeader without options
TIMESTAMP_OPTION_BYTES = 12  # TcpOptionTS (10) padded to 32-bit words
UDP_OVERHEAD_BYTES = 28  # Ipv4Header + UdpHeader
MIN_MTU = 1500
MAX_MTU = 65535  # PointToPointNetDevice::SetMtu takes a uint16_t
U32 = 2**32 - 1


@dataclass(frozen=True)
class Algorithm:
    """ns-3's counterpart of a wtcp algorithm: its TypeId, the wtcp parameters that map to
    its attributes, attributes fixed by what wtcp's algorithm does, and `matched`: wtcp
    parameters whose ns-3 behaviour is fixed, with the one wtcp value that behaves as
    ns-3 does and why (any other value, the default included, is refused)."""

    type_id: str
    knobs: dict[str, tuple[str, str]] = field(default_factory=dict)  # param -> (attribute, kind)
    fixed: tuple[str, ...] = ()
    pacing: bool = False
    matched: dict[str, tuple[Any, str]] = field(default_factory=dict)  # param -> (value, ns-3's behaviour)


ALGORITHMS: dict[str, Algorithm] = {
    "newreno": Algorithm(
        "ns3::TcpNewReno",
        matched={"halve": ("pipe", "ns-3's TcpNewReno::GetSsThresh halves BytesInFlight, the RFC 6675 pipe, not FlightSize")},
    ),
    "westwoodplus": Algorithm(
        "ns3::TcpWestwoodPlus",
        {"filter": ("FilterType", "westwood_filter")},
        matched={"accounting": ("ns3_literal", "ns-3 3.44's TcpSocketBase passes PktsAcked the ACK that leaves recovery or CA_LOSS in full, bytes duplicate ACKs already counted included")},
    ),
    # ns-3's HyStart is the 2011 one (ACK train and delay), wtcp's RFC 9406 HyStart++: only
    # `hystart = false` translates (ns-3's turned off too).
    "cubic": Algorithm(
        "ns3::TcpCubic",
        {"c": ("C", "float"), "beta": ("Beta", "float"), "fast_convergence": ("FastConvergence", "bool"), "reno_friendly": ("TcpFriendliness", "bool")},
        fixed=("HyStart=false",),
        matched={
            "hystart": (False, "wtcp's CUBIC runs RFC 9406 HyStart++ by default; ns-3 3.44 has only the 2011 HyStart (ACK train and delay), a different slow-start exit, turned off with it"),
            "reduce": ("cwnd", "ns-3's TcpCubic::GetSsThresh multiplies cwnd by beta, as Linux does, not FlightSize (RFC 9438 §4.6)"),
            "slow_start": ("segments_acked", "ns-3's TcpCubic::IncreaseWindow grows slow start by every segment an ACK acknowledges, uncapped, not by one SMSS per ACK (RFC 5681)"),
            "growth_unit": ("segment", "ns-3's TcpCubic::IncreaseWindow counts acknowledged segments against cnt (m_cWndCnt += segmentsAcked), not ACKs (RFC 9438 §4.4)"),
            "alpha_switch": (False, "ns-3's TcpCubic grows its Reno-friendly window at the fixed rate 3 (1 - beta) / (1 + beta) (tcp-cubic.cc:326-343), never switching alpha to 1 (RFC 9438 §4.3)"),
            "arithmetic": ("ns3", "ns-3's TcpCubic works in whole segments with integer counters (a growth counter never reset, uint32 target and ssthresh, a fixed Reno-friendly rate, growth per acknowledged segment), not RFC 9438's real-valued window"),
        },
    ),
    # ns-3's TcpVegas is wtcp's Vegas with the ns3 profile's structure and inputs.
    "vegas": Algorithm(
        "ns3::TcpVegas",
        {"alpha": ("Alpha", "uint"), "beta": ("Beta", "uint"), "gamma": ("Gamma", "uint")},
        matched={
            "model": ("ns3", "ns-3's TcpVegas has Linux's structure (integer Diff, slow start every round, NewReno growth while a round has under 3 RTT reports, Vegas off outside CA_OPEN), not the paper's and ns-2's"),
            "rtt": ("smoothed", "ns-3's TcpSocketBase passes the smoothed RTT to PktsAcked, which TcpVegas takes as the RTT"),
            "round_rtt": ("min", "ns-3's TcpVegas keeps the minimum RTT of a round (m_minRtt)"),
            "loss_response": ("one_segment", "ns-3's TcpVegas::GetSsThresh is max(min(ssthresh, cwnd - 1 segment), 2 segments)"),
        },
    ),
    # ns-3's BBR needs pacing (as wtcp's paces).
    "bbr": Algorithm(
        "ns3::TcpBbr",
        {"high_gain": ("HighGain", "float"), "min_rtt_window_s": ("RttWindowLength", "seconds"), "probe_rtt_ms": ("ProbeRttDuration", "ms")},
        pacing=True,
    ),
}

# ns-3's TcpLinuxReno and TcpVeno are not translation targets: each differs from
# wtcp's closest configuration in ways a scenario cannot turn off, so they are compared
# only by explicit pairing (`wtcp.crosscheck.Config(ns3_type=...)`; the validation suite
# pairs them, docs/validation.md), never by translation.

# wtcp parameters that still set attributes of a paired congestion control (it is, or
# derives from, ns-3's class of the same algorithm): Vegas's thresholds, whose ns-3
# defaults (2, 4, 1) differ from wtcp's (the paper's 1, 3, 1). Veno's beta is 3 in both.
PAIRED_KNOBS: dict[str, dict[str, tuple[str, str]]] = {
    "vegas": ALGORITHMS["vegas"].knobs,
}

# Algorithms wtcp has and ns-3 3.44 does not translate, with the reason when it is not
# plain absence.
REFUSED_ALGORITHMS = {
    "reno": "ns-3's TcpSocketBase always keeps NewReno's partial-ACK recovery; Reno's (recovery ends at the first new ACK) has no counterpart",
    "westwood": "ns-3 3.44 has only Westwood+ (TcpWestwoodPlus; use cc = \"westwoodplus\")",
    "veno": (
        "ns-3's TcpVeno computes its backlog on every ACK it grows on, wtcp's on ACKs with an RTT sample outside recovery; the ns3 "
        "profile sets every other ns-3 behaviour on wtcp's Veno (smoothed RTT, whole-segment backlog, cut of the pipe, NewReno growth "
        "and recovery, Veno's cut on timeouts): compare the two by explicit pairing (docs/validation.md)"
    ),
}

# wtcp TCP options whose ns-3 3.44 behaviour is fixed: the wtcp value that behaves as ns-3
# does and ns-3's behaviour. Any other value is refused.
TCP_MATCHED: dict[str, tuple[Any, str]] = {
    "handshake": (True, "ns-3 always opens the connection with SYN / SYN-ACK (TcpSocketBase::Connect)"),
    "backoff_reset": ("new_ack", "ns-3 recomputes the RTO from SRTT and RTTVAR on every ACK of new data, which clears the backoff (TcpSocketBase::NewAck)"),
    "recovery_exit_growth": (True, "ns-3's TcpSocketBase::ProcessAck gives the ACK that ends fast recovery to IncreaseWindow with its whole span"),
    "loss_exit_credit": ("above_recovery_point", "ns-3's TcpSocketBase::ProcessAck credits the ACK that leaves CA_LOSS with the segments above the recovery point only (tcp-socket-base.cc:2219-2233)"),
    "ts_recent": ("ns3", "ns-3's TcpSocketBase::ProcessOptionTimestamp echoes the TSval of the segment at RCV.NXT only, and ignores a TSval below the largest seen (tcp-socket-base.cc:4459-4481)"),
    "receive_window": ("whole_buffer", "ns-3 advertises RcvBufSize from the next expected byte whatever out-of-order data it holds (TcpRxBuffer::MaxRxSequence, tcp-rx-buffer.cc:101-114)"),
    "handshake_ack": (True, "ns-3's TcpSocketBase::ProcessSynSent answers the SYN-ACK with a pure ACK before any data (tcp-socket-base.cc:2373)"),
    "quick_acks_at_start": (1, "ns-3's TcpSocketBase::ProcessSynRcvd sets m_delAckCount to DelAckCount so that the first in-order data segment is acknowledged at once (\"Always respond to first data packet\", tcp-socket-base.cc:2445-2447)"),
    "cwnd_limited": ("ns3", "ns-3's TcpSocketBase::SendDataPacket records after every data segment whether cwnd < BytesInFlight + one segment (m_isCwndLimited, tcp-socket-base.cc:3336), and TcpCubic and TcpLinuxReno grow only while it holds"),
    "timeout_in_recovery": ("cut", "ns-3's TcpSocketBase::ReTxTimeout sets ssthresh by GetSsThresh in every state but CA_LOSS (tcp-socket-base.cc:3961), a fast recovery included"),
    "timeout_count_reset": ("every_timeout", "ns-3's TcpSocketBase::ReTxTimeout cuts ssthresh on every timeout, from what was in flight (SetSentListLost clears the retransmitted flag its keep-ssthresh test reads)"),
}
# The same, where they apply only with PRR (`tcp.recovery = "prr"`).
TCP_MATCHED_PRR: dict[str, tuple[Any, str]] = {
    "prr_recover_fs": ("pipe", "ns-3's TcpPrrRecovery::EnterRecovery takes RecoverFS from the pipe (tcb->m_bytesInFlight), not FlightSize"),
    "prr_dupack_credit": (True, "ns-3's TcpPrrRecovery::DoRecovery credits one more segment per duplicate ACK while less than RecoverFS was delivered"),
    "prr_extra_segment": ("retransmission_acked", "ns-3's TcpPrrRecovery::DoRecovery adds PRR-SSRB's extra segment only on an ACK of retransmitted data"),
}

# The same, where they apply only without SACK (`tcp.sack = false`).
TCP_MATCHED_NO_SACK: dict[str, tuple[Any, str]] = {
    "reno_sack": (True, "without SACK ns-3's TcpTxBuffer invents a SACK per duplicate ACK and keeps it after recovery, presumes everything sent lost after a timeout and ignores duplicate ACKs in CA_LOSS (AddRenoSack, SetSentListLost, TcpSocketBase::DupAck); RFC 5681 window inflation has no counterpart"),
}


def matching(doc: dict[str, Any]) -> dict[str, Any]:
    """The overrides that match a scenario document to ns-3: the `ns3` profile
    (docs/profiles.md), which fills every default ns-3 fixes, the values this module
    requires (`TCP_MATCHED`, each algorithm's `matched`) among them, wherever the document
    leaves a field out. A document that names its own profile is left alone (and `plan`
    refuses what ns-3 cannot do). For the algorithms only paired with an ns-3 class
    (Vegas, Veno) the profile sets the parameters that reproduce ns-3's readings."""
    return {} if "profile" in doc else {"profile": "ns3"}


# --- the plan -------------------------------------------------------------------------


@dataclass
class DirPlan:
    """Impairments of one link direction (the receiving device's error model)."""

    data_only: bool
    model: int = 0  # 0 none, 1 uniform, 2 ber, 3 list, 4 Gilbert-Elliott
    params: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    packets: list[int] = field(default_factory=list)  # list model: 0-based indices
    outages: list[tuple[int, int]] = field(default_factory=list)  # [start, end) ns
    random_outages: tuple[float, int, bool, int] | None = None  # mean interval s, duration ns, exponential, from ns


@dataclass
class LinkPlan:
    name: str
    a: int
    b: int
    rate_bps: int
    delay_ns: int
    limit_packets: int
    limit_bytes: int
    link_header: int
    dirs: tuple[DirPlan | None, DirPlan | None]


@dataclass
class TcpFlowPlan:
    name: str
    src: int
    dst: int
    cc: str
    type_id: str
    cc_attrs: list[str]
    socket_attrs: list[str]
    rtt_attrs: list[str]
    pacing: bool
    limit_bytes: int  # 0: unlimited
    start_ns: int
    stop_ns: int  # -1: never
    max_packet: int
    recovery_type: str = "ns3::TcpClassicRecovery"


@dataclass
class CbrFlowPlan:
    name: str
    src: int
    dst: int
    packet_bytes: int
    interval_ns: int
    start_ns: int
    stop_ns: int
    max_packet: int


@dataclass
class Plan:
    name: str
    seed: int
    replication: int
    duration_ns: int
    from_ns: int
    to_ns: int
    nodes: list[str]
    links: list[LinkPlan]
    flows: list[TcpFlowPlan | CbrFlowPlan]
    routes: list[tuple[int, int, int]]  # (node, target link, via link): links forming a forest
    fairness: list[int]
    mtu: int
    wifis: list[WifiPlan] = field(default_factory=list)
    # (node, destination, mask, gateway, kind, index): wtcp's next hops where the links do
    # not form a forest or 802.11 channels join nodes; kind 0 = link index, 1 = channel.
    host_routes: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)
    delays_requested: bool = False  # metrics.delays: not measured by this engine (a warning)


# --- helpers ------------------------------------------------------------------------


def secs(s: float) -> int:
    """Seconds to nanoseconds, rounded (wtcp's time::secs)."""
    return int(round(s * 1e9))


def tx_time_ns(nbytes: int, rate_bps: float) -> int:
    """wtcp's time::tx_time: serialisation time, round half up, at least 1 ns."""
    return max(1, int(nbytes * 8.0 * 1e9 / rate_bps + 0.5))


def ns_text(t: int) -> str:
    return f"{t}ns"


@lru_cache(maxsize=1)
def algorithm_defaults() -> dict[str, dict[str, Any]]:
    """wtcp's default of every algorithm parameter, as Python values."""
    from wtcp import _core

    out: dict[str, dict[str, Any]] = {}
    for alg in _core.algorithms():
        params = {}
        for p in alg["params"]:
            text = p["default"]
            try:
                params[p["name"]] = tomllib.loads(f"v = {text}")["v"]
            except tomllib.TOMLDecodeError:
                params[p["name"]] = text
        out[alg["name"]] = params
    return out


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


# --- the translation ------------------------------------------------------------------

TOP_KEYS = ("name", "description", "profile", "run", "tcp", "nodes", "links", "wifi", "flows", "trace", "metrics")
RUN_KEYS = ("duration_s", "seed", "replication", "measure_from_s", "measure_to_s")
LINK_KEYS = ("name", "a", "b", "rate_mbps", "delay_ms", "link_header_bytes", "queue", "ab", "ba")
QUEUE_KEYS = ("discipline", "limit_packets", "limit_bytes", "min_th", "max_th", "max_p", "weight", "gentle", "ecn", "threshold", "mean_packet_bytes", "target_ms", "interval_ms", "t_update_ms", "max_burst_ms", "quantum_bytes", "flows", "drop_batch", "eta", "delta_ms", "delay_threshold_ms", "rate_window_ms", "token_limit", "queue_delay")
DIR_KEYS = ("loss", "loss_applies_to", "outages", "random_outages", "delay_spikes", "arq", "capacity")
FLOW_KEYS = ("kind", "name", "src", "dst", "start_s", "stop_s", "count", "start_stagger_s", "on_off", "cc", "cc_params", "bytes", "tcp", "rate_mbps", "packet_bytes")


def plan(doc: dict[str, Any], congestion_type: str | None = None) -> Plan:
    """Translate a checked scenario document, or raise `Ns3TranslationError`.

    `congestion_type` (an ns-3 TypeId, e.g. "ns3::TcpVegas") pairs every TCP flow with
    that congestion control, at ns-3's defaults, in place of translating `cc` and
    `cc_params`: an explicit pairing, not a translation (every other field is still
    translated or refused)."""
    known(doc, TOP_KEYS, "")
    run = doc["run"]
    known(run, RUN_KEYS, "run")
    duration_ns = secs(run["duration_s"])
    seed = int(run.get("seed", 1))
    if not 1 <= seed <= U32:
        raise refuse("run.seed", f"is {seed}; ns-3's RngSeedManager::SetSeed takes no 0 and 32 bits; allowed: 1 .. {U32}")
    replication = int(run.get("replication", 0))
    from_ns = secs(run.get("measure_from_s", 0.0))
    to_ns = secs(run["measure_to_s"]) if "measure_to_s" in run else duration_ns

    trace = doc.get("trace", {})
    known(trace, ("enabled", "interval_ms"), "trace")
    if trace.get("enabled", False):
        raise refuse("trace.enabled", "is true; the ns-3 engine records no time series; allowed: false")
    metrics = doc.get("metrics", {})
    known(metrics, ("fairness_flows", "delays"), "metrics")

    nodes = [n["name"] for n in doc["nodes"]]
    for i, n in enumerate(doc["nodes"]):
        known(n, ("name",), f"nodes.{i}")
    index = {name: i for i, name in enumerate(nodes)}

    global_tcp = doc.get("tcp", {})
    known(global_tcp, tuple(TCP_DEFAULTS), "tcp")

    links = [link_plan(i, l, index) for i, l in enumerate(doc.get("links", []))]
    positions: dict[int, tuple[float, float, str, bool]] = {}
    radios = wifi_radios(doc) if any("channel" in w for w in doc.get("wifi", [])) else []
    wifis = [wifi_plan(i, w, index, positions, radios[i] if radios else None) for i, w in enumerate(doc.get("wifi", []))]

    flows: list[TcpFlowPlan | CbrFlowPlan] = []
    groups: list[str] = []
    for i, f in enumerate(doc["flows"]):
        known(f, FLOW_KEYS, f"flows.{i}")
        p = f"flows.{i}"
        count = int(f.get("count", 1))
        base = f.get("name", f"flow{i}")
        if f.get("on_off") is not None:
            raise refuse(f"{p}.on_off", "on/off sources are not translated (ns-3's OnOffApplication starts off and draws its own periods); allowed: leave it out")
        start_ns = secs(f.get("start_s", 0.0))
        stagger_ns = secs(f.get("start_stagger_s", 0.0))
        stop_ns = secs(f["stop_s"]) if "stop_s" in f else -1
        for copy in range(count):
            name = base if count == 1 else f"{base}-{copy + 1}"
            src, dst = index[f["src"]], index[f["dst"]]
            start = start_ns + copy * stagger_ns
            if f.get("kind", "tcp") == "tcp":
                flows.append(tcp_flow_plan(p, f, global_tcp, name, src, dst, start, stop_ns, congestion_type))
            else:
                flows.append(cbr_flow_plan(p, f, name, src, dst, start, stop_ns))
            groups.append(base)

    fairness = fairness_flows(metrics.get("fairness_flows"), flows, groups)
    mtu = max([MIN_MTU, *(f.max_packet for f in flows)])
    if mtu > MAX_MTU:
        raise refuse("flows", f"a packet of {mtu} bytes exceeds ns-3's largest point-to-point MTU and would be fragmented; allowed: packets up to {MAX_MTU} bytes")
    if wifis and mtu > WIFI_MAX_IP_BYTES:
        raise refuse("flows", f"a packet of {mtu} bytes exceeds ns-3's 802.11 MTU ({WIFI_MAX_IP_BYTES} bytes) and would be fragmented; allowed: packets up to {WIFI_MAX_IP_BYTES} bytes")
    routes: list[tuple[int, int, int]] = []
    host_routes: list[tuple[int, int, int, int, int, int]] = []
    if not wifis and is_forest(len(nodes), links):
        routes = tree_routes(len(nodes), links)
    else:
        host_routes = wtcp_routes(doc, links, wifis)
    return Plan(doc.get("name", "scenario"), seed, replication, duration_ns, from_ns, to_ns, nodes, links, flows, routes, fairness, mtu, wifis, host_routes,
                bool(metrics.get("delays", False)))


def link_plan(i: int, l: dict[str, Any], index: dict[str, int]) -> LinkPlan:
    p = f"links.{i}"
    known(l, LINK_KEYS, p)
    header = int(l.get("link_header_bytes", 0))
    if header != PPP_HEADER_BYTES:
        raise refuse(f"{p}.link_header_bytes", f"is {header}; ns-3's PointToPointNetDevice adds a {PPP_HEADER_BYTES}-byte PPP header to every frame; allowed: {PPP_HEADER_BYTES}")
    rate_bps = l["rate_mbps"] * 1e6  # as the core computes it
    if abs(rate_bps - round(rate_bps)) > 1e-3:
        raise refuse(f"{p}.rate_mbps", f"is {l['rate_mbps']}; ns-3's DataRate counts whole bits per second; allowed: a multiple of 1e-6 Mb/s")
    queue = l.get("queue", {"limit_packets": 100})
    known(queue, QUEUE_KEYS, f"{p}.queue")
    discipline = queue.get("discipline", "droptail")
    if discipline != "droptail":
        raise refuse(f"{p}.queue.discipline", f"is \"{discipline}\"; only DropTail device queues are translated; allowed: \"droptail\"")
    limit_packets = int(queue.get("limit_packets", 0) or 0)
    limit_bytes = int(queue.get("limit_bytes", 0) or 0)
    if limit_bytes > U32:
        raise refuse(f"{p}.queue.limit_bytes", f"is {limit_bytes}; ns-3's QueueSize counts 32-bit bytes; allowed: up to {U32}")
    dirs = (dir_plan(f"{p}.ab", l.get("ab", {})), dir_plan(f"{p}.ba", l.get("ba", {})))
    return LinkPlan(l.get("name", f"{l['a']}-{l['b']}"), index[l["a"]], index[l["b"]], int(round(rate_bps)), secs(l["delay_ms"] / 1e3), limit_packets, limit_bytes, header, dirs)


def dir_plan(p: str, d: dict[str, Any]) -> DirPlan | None:
    known(d, DIR_KEYS, p)
    if d.get("arq") is not None:
        raise refuse(f"{p}.arq", "link-layer ARQ has no counterpart on ns-3's point-to-point device; allowed: leave it out")
    if d.get("capacity") is not None:
        raise refuse(f"{p}.capacity", "ns-3 3.44 has no link whose capacity follows a trace (its point-to-point device sends at one DataRate); allowed: leave it out and set rate_mbps")
    if d.get("delay_spikes"):
        raise refuse(f"{p}.delay_spikes", "delay spikes have no counterpart on ns-3's point-to-point channel (one fixed delay); allowed: []")
    out = DirPlan(data_only=d.get("loss_applies_to", "data") == "data")
    loss = d.get("loss")
    if loss is not None:
        model = loss["model"]
        if model == "uniform":
            out.model, out.params = 1, (float(loss["rate"]), 0.0, 0.0, 0.0)
        elif model == "ber":
            out.model, out.params = 2, (float(loss["ber"]), 0.0, 0.0, 0.0)
        elif model == "list":
            packets = [int(n) for n in loss["packets"]]
            if any(n > U32 for n in packets):
                raise refuse(f"{p}.loss.packets", f"counts beyond 32 bits; the ns-3 engine's list model takes 32-bit indices; allowed: packets up to {U32}")
            out.model, out.packets = 3, sorted(n - 1 for n in packets)
        elif model == "gilbert_elliott":
            out.model = 4
            out.params = (float(loss["p_good_to_bad"]), float(loss["p_bad_to_good"]), float(loss.get("loss_good", 0.0)), float(loss.get("loss_bad", 1.0)))
        else:
            raise refuse(f"{p}.loss.model", f"is \"{model}\", which the ns-3 engine does not translate; allowed: uniform, ber, list, gilbert_elliott")
    for k, o in enumerate(d.get("outages", [])):
        known(o, ("start_s", "duration_s"), f"{p}.outages.{k}")
        start = secs(o["start_s"])
        out.outages.append((start, start + secs(o["duration_s"])))
    r = d.get("random_outages")
    if r is not None:
        known(r, ("count_per_200s", "duration_s", "exponential_duration", "from_s"), f"{p}.random_outages")
        if r["count_per_200s"] > 0:
            out.random_outages = (200.0 / r["count_per_200s"], secs(r["duration_s"]), bool(r.get("exponential_duration", False)), secs(r.get("from_s", 0.0)))
    if out.model == 0 and not out.outages and out.random_outages is None:
        return None
    return out


def is_forest(n_nodes: int, links: list[LinkPlan]) -> bool:
    """Whether the links form a forest (no cycle), so that every path is unique."""
    parent = list(range(n_nodes))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for l in links:
        ra, rb = find(l.a), find(l.b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


def link_address(link: int, end: int) -> int:
    """The IPv4 address of end 0 (a) or 1 (b) of link `link`: its own /30 in 10.0.0.0/8."""
    return (10 << 24) + 4 * link + 1 + end


def wifi_radios(doc: dict[str, Any]) -> list[dict[str, Any] | None]:
    """Each channel's radio model as the core resolves it (defaults filled in)."""
    from wtcp import _core
    from wtcp.scenario import dict_to_json

    text, overrides = dict_to_json(doc)
    return _core.wifi_radios(text, "json", overrides)


def wtcp_routes(doc: dict[str, Any], links: list[LinkPlan], wifis: list[WifiPlan]) -> list[tuple[int, int, int, int, int, int]]:
    """Host routes that send every packet along wtcp's path: for every node, a /32 route to
    every address of every flow end point, through the next hop the core's route table
    (net/routing.rs) names, at that neighbour's address on the edge it takes."""
    from wtcp import _core
    from wtcp.scenario import dict_to_json

    addresses: dict[int, list[int]] = {}
    for i, l in enumerate(links):
        addresses.setdefault(l.a, []).append(link_address(i, 0))
        addresses.setdefault(l.b, []).append(link_address(i, 1))
    for w in wifis:
        for s, n in enumerate(w.nodes):
            addresses.setdefault(n, []).append(w.address(s))
    text, overrides = dict_to_json(doc)
    out = []
    for v, d, kind, index, far in _core.next_hops(text, "json", overrides):
        gateway = link_address(index, far) if kind == "link" else wifis[index].address(far)
        # (The neighbour's own address on the edge taken is connected: no route.)
        out.extend((v, a, 0xFFFFFFFF, gateway, 0 if kind == "link" else 1, index) for a in addresses.get(d, []) if a != gateway)
    return out


def tree_routes(n_nodes: int, links: list[LinkPlan]) -> list[tuple[int, int, int]]:
    """Static routes along links that form a forest (`is_forest`: every path is unique):
    for every node and every link it is not on, the first link of the path towards it."""
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(n_nodes)]
    for i, l in enumerate(links):
        adjacency[l.a].append((l.b, i))
        adjacency[l.b].append((l.a, i))
    routes = []
    for src in range(n_nodes):
        # Breadth-first from src: the first link of the path to every node.
        first: dict[int, int | None] = {src: None}
        queue = [src]
        for node in queue:
            for nxt, link in adjacency[node]:
                if nxt not in first:
                    first[nxt] = link if node == src else first[node]
                    queue.append(nxt)
        for target, l in enumerate(links):
            # A link src is on is directly connected; a link elsewhere in src's tree is
            # reached through the first link towards either of its ends (the same one).
            if src not in (l.a, l.b) and l.a in first:
                routes.append((src, target, first[l.a]))
    return routes


def tcp_value(flow_tcp: dict[str, Any] | None, global_tcp: dict[str, Any], key: str, p: str) -> tuple[Any, str]:
    """A TCP option as wtcp resolves it (flow table, then [tcp], then the default) and the
    path to name in an error."""
    if flow_tcp is not None and key in flow_tcp:
        return flow_tcp[key], f"{p}.tcp.{key}"
    if key in global_tcp:
        return global_tcp[key], f"tcp.{key}"
    return TCP_DEFAULTS[key], f"tcp.{key}"


def path_given(flow_tcp: dict[str, Any] | None, global_tcp: dict[str, Any], key: str) -> bool:
    return (flow_tcp is not None and key in flow_tcp) or key in global_tcp


def tcp_flow_plan(p: str, f: dict[str, Any], global_tcp: dict[str, Any], name: str, src: int, dst: int, start_ns: int, stop_ns: int,
                  congestion_type: str | None = None) -> TcpFlowPlan:
    cc = str(f.get("cc", ""))
    if cc.startswith("kernel:"):
        # Whatever the pairing: the flow names the Linux kernel's own algorithm.
        raise refuse(f"{p}.cc", f"is \"{cc}\", the Linux kernel's own algorithm, which only the linux engine runs; allowed: {', '.join(ALGORITHMS)}")
    flow_tcp = f.get("tcp")
    if flow_tcp is not None:
        known(flow_tcp, tuple(TCP_DEFAULTS), f"{p}.tcp")

    def opt(key: str) -> tuple[Any, str]:
        return tcp_value(flow_tcp, global_tcp, key, p)

    mss, _ = opt("mss_bytes")
    header, path = opt("header_bytes")
    if header != IP_TCP_HEADER_BYTES:
        raise refuse(path, f"is {header}; ns-3's IPv4 and TCP headers are 20 + 20 bytes; allowed: {IP_TCP_HEADER_BYTES}")
    timestamps, _ = opt("timestamps")
    iw, path = opt("initial_cwnd_segments")
    if iw != int(iw):
        raise refuse(path, f"is {iw}; ns-3's InitialCwnd counts whole segments; allowed: an integer")
    iss, path = opt("initial_ssthresh_segments")
    if math.isinf(iss):
        ssthresh = U32
    else:
        ssthresh = iss * mss
        if ssthresh != int(ssthresh) or ssthresh > U32:
            raise refuse(path, f"is {iss} ({ssthresh} bytes); ns-3's InitialSlowStartThreshold counts whole bytes; allowed: a whole number of bytes up to {U32}, or unlimited")
        ssthresh = int(ssthresh)
    rto_initial, _ = opt("rto_initial_s")
    rto_min, path_min = opt("rto_min_s")
    rto_max, path = opt("rto_max_s")
    if rto_max != NS3_RTO_CAP_S:
        raise refuse(path, f"is {rto_max}; ns-3 caps the backed-off RTO at {NS3_RTO_CAP_S:g} s (TcpSocketBase::ReTxTimeout); allowed: {NS3_RTO_CAP_S:g}")
    max_backoff, path = opt("max_backoff")
    if rto_min * 2.0**max_backoff < NS3_RTO_CAP_S:
        raise refuse(path, f"is {max_backoff}; with rto_min_s = {rto_min:g} the backoff stops below ns-3's 60 s cap, and ns-3 doubles until that cap; allowed: rto_min_s * 2^max_backoff >= 60")
    granularity, _ = opt("clock_granularity_s")
    estimator, path = opt("rto_estimator")
    if estimator != "rfc6298":
        raise refuse(path, f"is \"{estimator}\"; ns-3 estimates as RFC 6298 (RttMeanDeviation; TcpSocketBase::EstimateRtt bounds the whole RTO by MinRto); allowed: \"rfc6298\"")
    sampling, path = opt("rtt_sampling")
    if sampling != "ns3":
        raise refuse(path, f"is \"{sampling}\"; ns-3 times the oldest transmission record on every ACK, keeps none across a timeout and reads timestamps in whole milliseconds (TcpSocketBase::EstimateRtt); allowed: \"ns3\"")
    dupthresh, _ = opt("dupack_threshold")
    limited, _ = opt("limited_transmit")
    delack, _ = opt("delayed_ack")
    delack_count, _ = opt("delayed_ack_count")
    delack_timeout, _ = opt("delayed_ack_timeout_s")
    sndbuf, path_snd = opt("send_buffer_bytes")
    rcvbuf, path_rcv = opt("recv_buffer_bytes")
    for value, path in ((sndbuf, path_snd), (rcvbuf, path_rcv)):
        if value > U32:
            raise refuse(path, f"is {value}; ns-3's socket buffers count 32-bit bytes; allowed: up to {U32}")
    ecn, path = opt("ecn")
    if ecn:
        raise refuse(path, "is true; ECN needs a marking queue (RED), which the ns-3 engine does not translate; allowed: false")
    frto, path = opt("frto")
    if frto:
        raise refuse(path, "is true; ns-3 3.44 has no F-RTO (RFC 5682); allowed: false")
    rearm, path = opt("rearm_rto_on_head_retransmit")
    if rearm:
        raise refuse(path, "is true; ns-3 3.44 schedules the retransmission timer on a send only when it has expired (TcpSocketBase::SendDataPacket); allowed: false")
    detection, path = opt("loss_detection")
    if detection != "dupack":
        raise refuse(path, f"is \"{detection}\"; ns-3 3.44 has no RACK (RFC 8985): it finds loss by duplicate ACKs and SACK (TcpTxBuffer::IsLost); allowed: \"dupack\"")
    probe, path = opt("tail_loss_probe")
    if probe:
        raise refuse(path, "is true; ns-3 3.44 has no tail loss probe (RFC 8985 §7): a lost tail waits for the retransmission timer; allowed: false")
    timer, path = opt("partial_ack_timer")
    if timer != "impatient":
        raise refuse(path, f"is \"{timer}\"; ns-3 restarts the RTO on the first partial ACK only (RFC 6582 Impatient, TcpSocketBase::ProcessAck); allowed: \"impatient\"")
    sack, _ = opt("sack")
    recovery, _ = opt("recovery")
    matched = TCP_MATCHED | (TCP_MATCHED_PRR if recovery == "prr" else {}) | ({} if sack else TCP_MATCHED_NO_SACK)
    for key, (value, why) in matched.items():
        given, path = opt(key)
        if not same_value(given, value):
            default = "" if path_given(flow_tcp, global_tcp, key) else " (wtcp's default)"
            raise refuse(path, f"is {toml_text(given)}{default}; {why}; allowed: {toml_text(value)} (`wtcp crosscheck` sets it in both engines)")

    socket_attrs = [
        f"SegmentSize={mss}",
        f"InitialCwnd={int(iw)}",
        f"InitialSlowStartThreshold={ssthresh}",
        f"ConnTimeout={ns_text(secs(rto_initial))}",
        f"MinRto={ns_text(secs(rto_min))}",
        f"ClockGranularity={ns_text(secs(granularity))}",
        f"ReTxThreshold={dupthresh}",
        f"LimitedTransmit={'true' if limited else 'false'}",
        f"DelAckCount={delack_count if delack else 1}",
        f"DelAckTimeout={ns_text(secs(delack_timeout))}",
        f"SndBufSize={sndbuf}",
        f"RcvBufSize={rcvbuf}",
        f"Timestamp={'true' if timestamps else 'false'}",
        f"Sack={'true' if sack else 'false'}",
        "WindowScaling=true",  # buffers beyond 64 KiB are advertised as they are
        f"DataRetries={U32}",  # wtcp never gives a connection up
        "ConnCount=16",
        "TcpNoDelay=true",
    ]
    rtt_attrs = [f"InitialEstimation={ns_text(secs(rto_initial))}"]

    cc = f.get("cc", "newreno")
    if congestion_type is None:
        alg, cc_attrs = algorithm_plan(p, cc, f.get("cc_params") or {})
    else:
        alg, cc_attrs = Algorithm(congestion_type), paired_attributes(p, cc, f.get("cc_params") or {}, congestion_type)
    bytes_limit = int(f.get("bytes", 0) or 0)
    max_packet = mss + IP_TCP_HEADER_BYTES + (TIMESTAMP_OPTION_BYTES if timestamps else 0)
    # ns-3 names its recovery by TypeId: TcpClassicRecovery (inflation, RFC 6582) or
    # TcpPrrRecovery (RFC 6937). With SACK on, ns-3's classic recovery still inflates.
    recovery_type = "ns3::TcpPrrRecovery" if recovery == "prr" else "ns3::TcpClassicRecovery"
    return TcpFlowPlan(name, src, dst, cc, alg.type_id, cc_attrs, socket_attrs, rtt_attrs, alg.pacing, bytes_limit, start_ns, stop_ns, max_packet,
                       recovery_type)


def algorithm_plan(p: str, cc: str, params: dict[str, Any]) -> tuple[Algorithm, list[str]]:
    if cc not in ALGORITHMS:
        reason = REFUSED_ALGORITHMS.get(cc, f"ns-3 3.44 has no implementation of `{cc}`")
        raise refuse(f"{p}.cc", f"is \"{cc}\"; {reason}; allowed: {', '.join(ALGORITHMS)}")
    alg = ALGORITHMS[cc]
    defaults = algorithm_defaults().get(cc, {})
    for name, (value, why) in alg.matched.items():
        given = params.get(name, defaults.get(name))
        if not same_value(given, value):
            default = "" if name in params else " (wtcp's default)"
            raise refuse(f"{p}.cc_params.{name}", f"is {toml_text(given)}{default}; {why}; allowed: {toml_text(value)} (`wtcp crosscheck` sets it in both engines)")
    attrs = list(alg.fixed)
    for name, (attribute, kind) in alg.knobs.items():
        value = params.get(name, defaults.get(name))
        qualified = f"{alg.type_id.removeprefix('ns3::')}::{attribute}"
        text = attribute_text(f"{p}.cc_params.{name}", value, kind, qualified)
        attrs.append(f"{attribute}={text}")
    for name, value in params.items():
        if name in alg.knobs or name in alg.matched:
            continue
        if name in defaults and same_value(value, defaults[name]):
            continue
        raise refuse(
            f"{p}.cc_params.{name}",
            f"is {toml_text(value)}; ns-3's {alg.type_id.removeprefix('ns3::')} has no counterpart of this parameter (its behaviour is fixed there); allowed: wtcp's default {defaults.get(name)!r}, or leave it out",
        )
    return alg, attrs


def paired_attributes(p: str, cc: str, params: dict[str, Any], congestion_type: str) -> list[str]:
    defaults = algorithm_defaults().get(cc, {})
    out = []
    for name, (attribute, kind) in PAIRED_KNOBS.get(cc, {}).items():
        value = params.get(name, defaults.get(name))
        out.append(f"{attribute}={attribute_text(f'{p}.cc_params.{name}', value, kind, f'{congestion_type}::{attribute}')}")
    return out


def attribute_text(path: str, value: Any, kind: str, attribute: str = "") -> str:
    if kind == "uint":
        if isinstance(value, bool) or float(value) != int(value) or value < 0:
            raise refuse(path, f"is {value}; ns-3's {attribute} is an unsigned integer; allowed: a whole number >= 0")
        return str(int(value))
    if kind == "float":
        return repr(float(value))
    if kind == "bool":
        return "true" if value else "false"
    if kind == "seconds":
        return ns_text(secs(float(value)))
    if kind == "ms":
        return ns_text(secs(float(value) / 1e3))
    if kind == "westwood_filter":
        names = {"tustin": "Tustin", "none": "None"}
        if value not in names:
            raise refuse(path, f"is \"{value}\"; ns-3's TcpWestwoodPlus filters with Tustin or not at all; allowed: \"tustin\", \"none\"")
        return names[value]
    raise ValueError(kind)


def cbr_flow_plan(p: str, f: dict[str, Any], name: str, src: int, dst: int, start_ns: int, stop_ns: int) -> CbrFlowPlan:
    size = int(f.get("packet_bytes", 1000))
    rate_bps = f["rate_mbps"] * 1e6
    return CbrFlowPlan(name, src, dst, size, tx_time_ns(size, rate_bps), start_ns, stop_ns, size + UDP_OVERHEAD_BYTES)


def fairness_flows(names: list[str] | None, flows: list[Any], groups: list[str]) -> list[int]:
    if names is None:
        return [i for i, f in enumerate(flows) if isinstance(f, TcpFlowPlan)]
    out: list[int] = []
    for n in names:
        exact = [i for i, f in enumerate(flows) if f.name == n]
        for i in exact or [i for i, g in enumerate(groups) if g == n]:
            if i not in out:
                out.append(i)
    return out


# --- building ---------------------------------------------------------------------------


def build(p: Plan, h: Any, std: Any) -> None:
    """Create the plan's ns-3 objects through the harness `h` (`std` is cppyy's std)."""
    h.AddNodes(len(p.nodes))
    for i, l in enumerate(p.links):
        network = (10 << 24) + 4 * i  # 10.0.0.0/30, 10.0.0.4/30, ...
        h.AddLink(l.a, l.b, float(l.rate_bps), l.delay_ns, p.mtu, l.limit_packets, l.limit_bytes, l.link_header, network)
    for node, target, via in p.routes:
        h.AddRoute(node, target, via)
    for c, w in enumerate(p.wifis):
        for n, x, y, motion in zip(w.nodes, w.xs, w.ys, w.motions or [], strict=False):
            if motion is None:
                continue
            if motion[0] == "velocity":
                h.SetNodeVelocity(n, x, y, motion[1], motion[2])
            else:
                points = motion[1]
                h.SetNodeWaypoints(n, x, y, std.vector["int64_t"]([t for t, _, _ in points]), std.vector["double"]([a for _, a, _ in points]),
                                   std.vector["double"]([b for _, _, b in points]))
        h.AddWifiChannel(w.standard, w.data_mode, w.control_mode, w.rts_threshold, w.retry_limit, std.vector["uint32_t"](w.queue_limits), w.ber, w.tx_range,
                         w.cs_range, WIFI_PROP_DELAY_NS, std.vector["int"](w.nodes), std.vector["double"](w.xs), std.vector["double"](w.ys), w.network,
                         w.relay_hints, w.slot_ns, std.vector["int"]([int(fq is not None) for fq in w.fq_codel]), w.width_mhz, w.short_gi,
                         w.ampdu_max_bytes, w.streams, RATE_CONTROL[w.rate_control])
        if w.radio is not None:
            r = w.radio
            h.SetWifiRadio(c, r["exponent"], r["reference_distance_m"], r["reference_loss_db"], r["tx_power_dbm"], r["noise_figure_db"], r["cca_threshold_dbm"],
                           r["fading"] == "rayleigh")
        for k, fq in enumerate(w.fq_codel):
            if fq is not None:
                h.SetStationFqCoDel(c, k, fq.limit, fq.target_ns, fq.interval_ns, fq.ecn, fq.quantum, fq.flows, fq.drop_batch, FQ_PERTURBATION)
    for node, dest, mask, gateway, kind, index in p.host_routes:
        h.AddRouteVia(node, dest, mask, gateway, kind, index)
    for i, l in enumerate(p.links):
        for k, d in enumerate(l.dirs):
            if d is None:
                continue
            packets = std.vector["uint32_t"](d.packets)
            starts = std.vector["int64_t"]([s for s, _ in d.outages])
            ends = std.vector["int64_t"]([e for _, e in d.outages])
            f = h.SetImpairment(2 * i + k, d.data_only, d.model, *d.params, packets, starts, ends)
            if d.random_outages is not None:
                mean, duration, exponential, start = d.random_outages
                h.AddRandomOutages(f, mean, duration, exponential, start, p.duration_ns)
    strings = std.vector["std::string"]
    for f in p.flows:
        if isinstance(f, TcpFlowPlan):
            h.AddTcpFlow(f.src, f.dst, f.type_id, strings(f.cc_attrs), strings(f.socket_attrs), strings(f.rtt_attrs), f.pacing, f.limit_bytes, f.start_ns, f.stop_ns,
                         f.recovery_type)
        else:
            h.AddCbrFlow(f.src, f.dst, f.packet_bytes, f.interval_ns, f.start_ns, f.stop_ns)
