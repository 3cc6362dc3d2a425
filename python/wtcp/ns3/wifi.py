"""`[[wifi]]` channels as ns-3 3.44 objects (the C++ side is wifi.cc).

A channel becomes non-QoS ad hoc stations (`AdhocWifiMac`, DCF: no beacons, no
association, as wtcp's stations), `ConstantRateWifiManager` at the channel's data rate,
and a `YansWifiChannel` whose propagation reproduces wtcp's range discs: stations within
`tx_range_m` receive each other, within `cs_range_m` only sense each other, and beyond
hear nothing (powers and thresholds in wifi.cc). Bit errors are drawn per frame at its
addressee as wtcp draws them (a `PostReceptionErrorModel`); the propagation delay is
wtcp's constant 1 us. ARP caches are filled before the run (wtcp has no ARP). Under
`channel = { model = "log_distance" }` the channel gets ns-3's LogDistancePropagationLossModel
(and Nakagami m = 1 for Rayleigh fading), NistErrorRateModel and wtcp's transmit power, noise
figure and detection threshold instead, an 802.11n station one antenna per stream, and a
moving station ns-3's ConstantVelocity or Waypoint mobility (docs/model.md, "Radio channel").

What ns-3 fixes and wtcp leaves open must be set to ns-3's value (the `ns3` profile sets
every one of them except the control rate, which depends on the data rate); anything else
is refused with the value that matches:
- the control rate (`basic_rate_mbps`): ns-3 answers with CTS and ACK at the highest rate
  of its basic rate set (the PHY's mandatory rates: all four 802.11b rates; 6, 12 and 24
  Mb/s for 802.11a/g) not above the eliciting frame's rate (wifi-remote-station-manager.cc
  :832-905 GetControlAnswerMode, 382-395 AddAllSupportedModes); the RTS would go at the
  ControlMode, set to the same rate;
- `backoff_rule`, `eifs_trigger`, `ack_timeout`, `eifs`, `llc_snap_bytes`, `retry_count`,
  `cw_after_give_up`, `arrival_backoff`, `after_timeout` (`MATCHED`, docs/profiles.md);
- an interface queue in packets: DropTail (`WifiMacQueue::MaxSize`, lifetime drops off) or
  FQ-CoDel (`FqCoDelQueueDisc` above a WifiMacQueue holding only the frame in service);
- no RTS/CTS: ns-3 resets an RTS's NAV when no data follows (NavResetTimeout), wtcp not.

Deviations that remain (docs/model.md, "802.11 in the ns-3 engine"): ns-3 senses a frame
4 us after it arrives (its preamble detection window) where wtcp senses it on arrival
(after the 1 us propagation delay); the error model here makes every overlap fatal for
OFDM, as wtcp's, but 802.11b's DSSS chunks keep ns-3's formulas (a 1 Mb/s PLCP header,
and a 1 Mb/s frame, survive an overlap that began after the preamble: ns-3 then defers
EIFS where wtcp defers DIFS).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from wtcp.ns3.refuse import known, refuse, toml_text

WIFI_KEYS = (
    "name", "phy", "data_rate_mbps", "basic_rate_mbps", "eifs", "rts_threshold_bytes", "short_retry_limit", "long_retry_limit", "queue_packets",
    "queue", "backoff_rule", "eifs_trigger", "ack_timeout", "llc_snap_bytes", "cw_after_give_up", "retry_count", "arrival_backoff", "after_timeout", "ber", "tx_range_m", "cs_range_m", "hint_delay_ms", "mac_hint",
    "mac_hint_relay_delay_ms", "stations", "mcs", "channel_width_mhz", "short_gi", "short_gi_txtime", "aggregation",
    "spatial_streams", "vht_sig_b", "channel", "rate_control",
)
STATION_KEYS = ("node", "x", "y", "queue", "velocity", "waypoints")
QUEUE_KEYS = ("discipline", "limit_packets", "limit_bytes", "target_ms", "interval_ms", "ecn", "quantum_bytes", "flows", "drop_batch", "eta", "delta_ms", "delay_threshold_ms", "rate_window_ms", "token_limit", "queue_delay")
# wtcp's queue defaults (scenario/resolve.rs, net/fq_codel.rs, net/codel.rs).
DEFAULT_QUEUE_PACKETS = 50
FQ_CODEL_DEFAULTS = {"limit_packets": 10240, "target_ms": 5.0, "interval_ms": 100.0, "ecn": True, "quantum_bytes": 1500, "flows": 1024, "drop_batch": 64}


@dataclass(frozen=True)
class FqCodelPlan:
    """An interface queue run as ns-3's FqCoDelQueueDisc (RFC 8290, as wtcp's): the disc
    holds what waits, the WifiMacQueue only the frame in service (flow control on)."""

    limit: int
    target_ns: int
    interval_ns: int
    ecn: bool
    quantum: int
    flows: int
    drop_batch: int

# ns-3's WifiModes by wtcp's rate (kb/s) and PHY.
MODES = {
    "b": {1000: "DsssRate1Mbps", 2000: "DsssRate2Mbps", 5500: "DsssRate5_5Mbps", 11000: "DsssRate11Mbps"},
    "g": {k * 1000: f"ErpOfdmRate{k}Mbps" for k in (6, 9, 12, 18, 24, 36, 48, 54)},
    "a": {k * 1000: f"OfdmRate{k}Mbps" for k in (6, 9, 12, 18, 24, 36, 48, 54)},
}
# ns-3's basic rate set: the PHY's mandatory modes (dsss-phy.cc:329-332: all four 802.11b
# rates; ofdm-phy.cc:494-501: 6, 12, 24; erp-ofdm-phy.cc:159-166: 802.11b's and ERP 6, 12,
# 24), of which an answer takes the highest not above the eliciting frame's rate.
BASIC_KBPS = {"b": (1000, 2000, 5500, 11000), "g": (6000, 12000, 24000), "a": (6000, 12000, 24000)}
STANDARD = {"b": 0, "g": 1, "a": 2, "n": 3, "ac": 4}
DEFAULT_RATES = {"b": (11.0, 1.0), "g": (54.0, 24.0), "a": (54.0, 24.0)}

# What wtcp's scenario must say where ns-3's behaviour is fixed: (value, ns-3's behaviour).
MATCHED: dict[str, tuple[Any, str]] = {
    "backoff_rule": ("idle_slots_only", "ns-3's ChannelAccessManager counts whole idle slots only (channel-access-manager.cc:744-758)"),
    "eifs_trigger": ("header_received", "ns-3 defers EIFS only after a reception whose PHY header succeeded (channel-access-manager.cc:664-666, 935-941)"),
    "ack_timeout": ("rx_start", "ns-3 waits SIFS + slot + the response's preamble and header, then for a response that began (frame-exchange-manager.cc:578-580)"),
    "llc_snap_bytes": (8, "ns-3's WifiNetDevice puts an 8-byte LLC/SNAP header before every packet (wifi-net-device.cc:587-589)"),
    "cw_after_give_up": ("kept", "ns-3's Txop sets the contention window from a station retry count that a give-up does not reset (txop.cc:377-399)"),
    "arrival_backoff": ("if_busy", "ns-3 sends a frame that finds no backoff pending and the medium not busy without a backoff, a DIFS after its arrival (channel-access-manager.cc:471-527)"),
    "after_timeout": ("difs", "ns-3 counts a DIFS from the end of an ACK or CTS timeout (channel-access-manager.cc:669-687)"),
    "retry_count": ("combined", "ns-3 counts every failed RTS and data frame of an MPDU against one limit, WifiMac::FrameRetryLimit (wifi-remote-station-manager.cc:1152-1170)"),
}
# The EIFS's ACK: 802.11b's 1 Mb/s DSSS in ns-3's 802.11g too (Configure80211g); the PHY's
# lowest mandatory rate otherwise, which both of wtcp's readings give for b and a.
EIFS_MATCHED = {"b": ("lowest_mandatory", "lowest_mandatory_dsss"), "a": ("lowest_mandatory", "lowest_mandatory_dsss"), "n": ("lowest_mandatory", "lowest_mandatory_dsss"),
                "ac": ("lowest_mandatory", "lowest_mandatory_dsss"),
                "g": ("lowest_mandatory_dsss",)}


@lru_cache(maxsize=1)
def wtcp_defaults() -> dict[str, Any]:
    """wtcp's built-in `[[wifi]]` defaults, from the `rfc` profile's table, which documents
    them (crates/wtcp-engine/tests/engine/profiles.rs checks it against the core)."""
    from wtcp.profiles import profile  # noqa: PLC0415 - the core, loaded on first use

    return {e["key"].removeprefix("wifi."): tomllib.loads(f"v = {e['value']}")["v"] for e in profile("rfc")["entries"] if e["key"].startswith("wifi.")}
NS3_RTS_NEVER = 4_692_480  # WifiRemoteStationManager::RtsCtsThreshold's largest value
MAX_IP_BYTES = 2296  # WifiNetDevice's MTU: 2304-byte MSDUs less the LLC/SNAP header
PROP_DELAY_NS = 1000  # wtcp's WifiConfig::prop_delay
NETWORK_BASE = (172 << 24) | (16 << 16)  # channel c: 172.(16 + c).0.0/16
MAX_STATIONS = 65533


@dataclass
class WifiPlan:
    name: str
    standard: int
    data_mode: str
    control_mode: str
    rts_threshold: int
    retry_limit: int
    queue_limits: list[int]  # per station
    fq_codel: list[FqCodelPlan | None]  # per station: None for DropTail
    ber: float
    tx_range: float
    cs_range: float
    nodes: list[int]
    xs: list[float]
    ys: list[float]
    network: int
    relay_hints: bool
    # The PHY's slot where ns-3's differs from wtcp's (0: ns-3's is wtcp's): wtcp's 802.11g
    # is an ERP-only BSS with the 9 us short slot (802.11-2012 19.4.4); ns-3's ad hoc
    # 802.11g keeps 802.11b's 20 us (wifi-phy.cc:903-913; only an access point switches).
    slot_ns: int = 0
    # 802.11n: the channel width (MHz) and the 400 ns guard interval.
    width_mhz: int = 20
    short_gi: bool = False
    # 802.11n and 802.11ac: the largest A-MPDU (ns-3's BE_MaxAmpduSize), 0: no aggregation.
    ampdu_max_bytes: int = 0
    # 802.11ac: spatial streams (the PHY's antennas and streams; 802.11n's MCS says them).
    streams: int = 2
    # channel.model = "log_distance": the resolved radio model (the core's wifi_radios).
    radio: dict[str, Any] | None = None
    # Per station: None (fixed), ("velocity", vx, vy) or ("waypoints", [(ns, x, y), ...]).
    motions: list[tuple[Any, ...] | None] | None = None
    # rate_control: "constant" (ConstantRateWifiManager), "ideal" (IdealWifiManager) or
    # "minstrel_ht" (MinstrelHtWifiManager).
    rate_control: str = "constant"

    def address(self, station: int) -> int:
        return self.network + 1 + station


def control_answer_kbps(phy: str, data_kbps: int) -> int:
    """ns-3's CTS/ACK rate for a frame at `data_kbps`: the highest basic rate not above it."""
    return max(k for k in BASIC_KBPS[phy] if k <= data_kbps)


def kbps(mbps: float) -> int:
    return int(round(mbps * 1000))


def _radio_plan(p: str, radio: dict[str, Any] | None) -> dict[str, Any] | None:
    """The radio model as ns-3 has it: log-distance loss, Rayleigh fading as Nakagami m = 1,
    NIST's OFDM error model; refused: what ns-3's propagation models lack."""
    if radio is None:
        return None
    if radio["shadowing_sigma_db"] > 0:
        raise refuse(f"{p}.channel.shadowing_sigma_db", f"is {radio['shadowing_sigma_db']:g}; ns-3's propagation models for a YansWifiChannel have no log-normal shadowing fixed per pair of stations; allowed: 0")
    if radio["fading"] == "rician":
        raise refuse(f"{p}.channel.fading", "is \"rician\"; ns-3's propagation models have no Rician fading (Nakagami's m only approximates it); allowed: \"none\" or \"rayleigh\" (NakagamiPropagationLossModel, m = 1)")
    return radio


def _motion_plan(sp: str, s: dict[str, Any]) -> tuple[Any, ...] | None:
    if "velocity" in s:
        vx, vy = s["velocity"]
        return ("velocity", float(vx), float(vy))
    if "waypoints" in s:
        return ("waypoints", [(round(float(t) * 1e9), float(x), float(y)) for t, x, y in s["waypoints"]])
    return None


def wifi_plan(i: int, w: dict[str, Any], index: dict[str, int], positions: dict[int, tuple[float, float, str, bool]], radio: dict[str, Any] | None = None) -> WifiPlan:
    """Translate channel `wifi.i` or refuse it. `positions` (node -> x, y, path, moves) is shared
    by the channels: an ns-3 node has one position (and one motion). `radio` is the
    channel's resolved radio model, if any."""
    p = f"wifi.{i}"
    known(w, WIFI_KEYS, p)
    radio = _radio_plan(p, radio)
    phy = w["phy"]
    streams = 2
    if phy in ("n", "ac"):
        # 802.11n and 802.11ac (wtcp's scenario checks the mode): ns-3's HtMcs and VhtMcs
        # modes, ACKs at ns-3's control answer rate, which follows the same rule (the highest
        # basic rate not above the non-HT reference rate); the control mode named here serves
        # RTS only. 802.11n's MCS 8-15 need two streams; an 802.11ac station gets as many
        # antennas and streams as the scenario's `spatial_streams`, which ns-3's constant
        # rate manager then uses.
        mcs, width, short_gi = int(w.get("mcs", 0 if w.get("rate_control", "constant") != "constant" else 7)), int(w.get("channel_width_mhz", 20)), bool(w.get("short_gi", False))
        data_mode, control_mode = f"{'Vht' if phy == 'ac' else 'Ht'}Mcs{mcs}", "OfdmRate24Mbps"
        if phy == "ac":
            streams = int(w.get("spatial_streams", 1))
            sig_b = w.get("vht_sig_b", wtcp_defaults()["vht_sig_b"])
            if sig_b != "omitted":
                default = "" if "vht_sig_b" in w else " (wtcp's default)"
                raise refuse(f"{p}.vht_sig_b", f"is {toml_text(sig_b)}{default}; ns-3 times a single-user VHT PPDU without VHT-SIG-B (vht-phy.cc GetSigBDuration); allowed: \"omitted\" (the ns3 profile sets it)")
        txtime = w.get("short_gi_txtime", wtcp_defaults()["short_gi_txtime"])
        if short_gi and txtime != "unrounded":
            default = "" if "short_gi_txtime" in w else " (wtcp's default)"
            raise refuse(f"{p}.short_gi_txtime", f"is {toml_text(txtime)}{default}; ns-3 times a short-GI PPDU's data symbols at 3.6 us each without 802.11's rounding to 4 us symbols (ht-phy.cc:339-340); allowed: \"unrounded\" (the ns3 profile sets it)")
        ampdu_max_bytes = _ampdu_plan(p, w)
    else:
        width, short_gi, ampdu_max_bytes = 20, False, 0
        data_default, basic_default = DEFAULT_RATES[phy]
        data = kbps(w.get("data_rate_mbps", data_default))
        basic = kbps(w.get("basic_rate_mbps", basic_default))
        data_mode, control_mode = MODES[phy][data], MODES[phy][basic]
    answer = 0 if phy in ("n", "ac") else control_answer_kbps(phy, data)
    if phy not in ("n", "ac") and basic != answer:
        given = "" if "basic_rate_mbps" in w else " (wtcp's default)"
        raise refuse(
            f"{p}.basic_rate_mbps",
            f"is {basic / 1000:g}{given}; ns-3 answers a {data / 1000:g} Mb/s frame with its ACK (and an RTS with its CTS) at the highest rate of its basic set "
            f"({', '.join(f'{k / 1000:g}' for k in BASIC_KBPS[phy])} Mb/s, the PHY's mandatory rates) not above it; allowed: {answer / 1000:g}",
        )
    for key, (value, why) in MATCHED.items():
        given = w.get(key, wtcp_defaults()[key])
        if given != value:
            default = "" if key in w else " (wtcp's default)"
            raise refuse(f"{p}.{key}", f"is {toml_text(given)}{default}; {why}; allowed: {toml_text(value)} (the ns3 profile sets it)")
    eifs = w.get("eifs", wtcp_defaults()["eifs"])
    if eifs not in EIFS_MATCHED[phy]:
        default = "" if "eifs" in w else " (wtcp's default)"
        allowed = " or ".join(toml_text(v) for v in EIFS_MATCHED[phy])
        held = "an ACK at 1 Mb/s DSSS (802.11b's ACK time, wifi-phy.cc:903-913)" if phy == "g" else "an ACK at the PHY's lowest mandatory rate (wifi-phy.cc:871-900)"
        raise refuse(f"{p}.eifs", f"is {toml_text(eifs)}{default}; ns-3's 802.11{phy} EIFS holds {held}; allowed: {allowed} (the ns3 profile sets it)")
    rts = w.get("rts_threshold_bytes")
    if rts is not None and rts < NS3_RTS_NEVER:
        raise refuse(f"{p}.rts_threshold_bytes", f"is {rts}; ns-3 clears a NAV set by an RTS when no frame follows its CTS in time (frame-exchange-manager.cc:1319-1346 NavResetTimeout), which wtcp's DCF does not model; allowed: leave it out (no RTS/CTS), or {NS3_RTS_NEVER}")
    short = int(w.get("short_retry_limit", wtcp_defaults()["short_retry_limit"]))
    channel_queue = w.get("queue")
    stated = w.get("queue_packets")
    if channel_queue is not None and channel_queue.get("limit_packets") is not None:
        stated = channel_queue["limit_packets"]
    stations = w["stations"]
    if len(stations) > MAX_STATIONS:
        raise refuse(f"{p}.stations", f"has {len(stations)} stations; the ns-3 engine addresses a channel's stations in one /16; allowed: up to {MAX_STATIONS}")
    nodes, xs, ys, limits, fqs, motions = [], [], [], [], [], []
    for k, s in enumerate(stations):
        sp = f"{p}.stations.{k}"
        known(s, STATION_KEYS, sp)
        n = index[s["node"]]
        x, y = float(s.get("x", 0.0)), float(s.get("y", 0.0))
        motion = _motion_plan(sp, s)
        if motion is not None and radio is None:
            key = "velocity" if "velocity" in s else "waypoints"
            raise refuse(f"{sp}.{key}", "moves a station of a range-disc channel, whose ranges the ns-3 engine fixes at the stations' first positions; allowed: a moving station with channel = { model = \"log_distance\" }")
        moved = positions[n][3] if n in positions else False
        if n in positions and (motion is not None or moved):
            raise refuse(sp, f"places `{s['node']}`, which {positions[n][2]} also places, and one of them moves it; an ns-3 node has one mobility model; allowed: a moving node on one channel only")
        motions.append(motion)
        if n in positions and positions[n][:2] != (x, y):
            raise refuse(sp, f"puts `{s['node']}` at ({x:g}, {y:g}), but {positions[n][2]} puts it at ({positions[n][0]:g}, {positions[n][1]:g}); an ns-3 node has one position; allowed: the same position on every channel")
        positions.setdefault(n, (x, y, sp, motion is not None))
        # wtcp: a station's own queue replaces the channel's; a limit it leaves out is the
        # channel's stated one, else the discipline's default.
        queue, qp = (s["queue"], f"{sp}.queue") if "queue" in s else (channel_queue, f"{p}.queue")
        limit, fq = _queue_plan(qp, queue, stated)
        limits.append(limit)
        fqs.append(fq)
        nodes.append(n)
        xs.append(x)
        ys.append(y)
    rate_control = w.get("rate_control", "constant")
    if radio is not None and phy == "n":
        # One antenna per spatial stream, as wtcp's receiver: ns-3 multiplies the SNR of an
        # AWGN channel by antennas / streams (interference-helper.cc:422-432), 3 dB for an
        # MCS 0-7 frame at two antennas. (Under rate control, MCS 0-7: one.)
        streams = 1 + mcs // 8
    if rate_control != "constant" and phy == "ac" and streams > 1:
        manager = "IdealWifiManager" if rate_control == "ideal" else "MinstrelHtWifiManager"
        raise refuse(f"{p}.rate_control", f"is {toml_text(rate_control)} with {streams} spatial streams; ns-3's {manager} also tries fewer streams than antennas, with the SNR gain of the spare antennas (interference-helper.cc:422-432), which wtcp does not model; allowed: spatial_streams = 1, or rate_control = \"constant\"")
    return WifiPlan(
        name=w.get("name", f"wifi{i}"),
        standard=STANDARD[phy],
        data_mode=data_mode,
        control_mode=control_mode,
        rts_threshold=NS3_RTS_NEVER,
        retry_limit=short,
        queue_limits=limits,
        fq_codel=fqs,
        ber=float(w.get("ber", 0.0)),
        tx_range=float(w.get("tx_range_m", 250.0)),
        cs_range=float(w.get("cs_range_m", 550.0)),
        nodes=nodes,
        xs=xs,
        ys=ys,
        network=NETWORK_BASE + (i << 16),
        relay_hints=w.get("mac_hint", "own") == "relay",
        slot_ns=9000 if phy == "g" else 0,
        width_mhz=width,
        short_gi=short_gi,
        ampdu_max_bytes=ampdu_max_bytes,
        streams=streams,
        radio=radio,
        motions=motions,
        rate_control=rate_control,
    )


def _ampdu_plan(p: str, w: dict[str, Any]) -> int:
    """An 802.11n or 802.11ac channel's largest A-MPDU for ns-3 (0: off), or a refusal."""
    a = w.get("aggregation", True)
    if a is False:
        return 0
    limits = a if isinstance(a, dict) else {}
    frames = int(limits.get("ampdu_max_frames", 64))
    if frames != 64:
        raise refuse(f"{p}.aggregation.ampdu_max_frames", f"is {frames}; ns-3 bounds an A-MPDU's MPDUs only by the Block Ack window (64 for HT, ht-frame-exchange-manager.cc:294-295), not on its own; allowed: 64")
    if float(w.get("ber", 0.0)) > 0:
        raise refuse(f"{p}.ber", f"is {w['ber']} with aggregation on; the ns-3 engine's bit-error model sees an A-MPDU's MPDUs by one MPDU's size and header (ns-3 starts every MPDU's reception at the PPDU's start), and ns-3 counts no retry for an MPDU a Block Ack reports missing, where wtcp gives it up after short_retry_limit transmissions; allowed: 0, or aggregation = false")
    queues = [s.get("queue") for s in w["stations"]] + [w.get("queue")]
    if any(q is not None and q.get("discipline", "droptail") != "droptail" for q in queues):
        raise refuse(f"{p}.aggregation", "is on with a queue discipline; ns-3 moves packets from the disc into its MAC queue as soon as there is room (flow control), so up to 64 bypass the disc, where wtcp's MAC takes them at its channel access; allowed: false, or DropTail queues")
    return int(limits.get("ampdu_max_bytes", 65535))


def _queue_plan(p: str, q: dict[str, Any] | None, stated: int | None) -> tuple[int, FqCodelPlan | None]:
    """A station's interface queue: its DropTail limit in packets, or FQ-CoDel."""
    if q is None:
        return int(stated or DEFAULT_QUEUE_PACKETS), None
    known(q, QUEUE_KEYS, p)
    if q.get("limit_bytes") is not None:
        raise refuse(f"{p}.limit_bytes", "ns-3's WifiMacQueue and queue discs are limited in packets here; allowed: limit_packets")
    discipline = q.get("discipline", "droptail")
    if discipline == "droptail":
        return int(q.get("limit_packets") or stated or DEFAULT_QUEUE_PACKETS), None
    if discipline != "fq_codel":
        raise refuse(f"{p}.discipline", f"is \"{discipline}\"; the ns-3 engine translates an 802.11 interface queue as DropTail (ns-3's WifiMacQueue) or FQ-CoDel (FqCoDelQueueDisc); allowed: \"droptail\", \"fq_codel\"")
    v = {k: q.get(k, d) for k, d in FQ_CODEL_DEFAULTS.items()}
    limit = int(q.get("limit_packets") or stated or FQ_CODEL_DEFAULTS["limit_packets"])
    fq = FqCodelPlan(limit, round(v["target_ms"] * 1e6), round(v["interval_ms"] * 1e6), bool(v["ecn"]), int(v["quantum_bytes"]), int(v["flows"]), int(v["drop_batch"]))
    return limit, fq
