"""802.11 in the ns-3 engine: what the translator refuses and why, the routes it builds,
and the same channel in both engines (saturation throughput pins frame timing; a TCP
download and the MAC counters compare whole runs). ns-3 runs need the `ns3` package
(the `ns3` fixture)."""

from __future__ import annotations

import math

import pytest

import wtcp
from conftest import run_cli
from wtcp.ns3 import Ns3TranslationError, plan
from wtcp.ns3.wifi import control_answer_kbps


def one_hop(without: tuple[str, ...] = (), **overrides) -> wtcp.Scenario:
    """wifi-one-hop under the ns3 profile, with ns-3's control rate for 11 Mb/s, minus the
    channel fields `without`."""
    doc = wtcp.load(wtcp.builtin_scenario_path("wifi-one-hop")).document
    for key in without:
        del doc["wifi"][0][key]
    return wtcp.Scenario.from_dict(doc).with_overrides({"profile": "ns3", "wifi.0.basic_rate_mbps": 11.0, **overrides})


def saturated(phy: str, rate: float, basic: float, senders: int = 1) -> wtcp.Scenario:
    """`senders` stations blasting UDP at 1.2 x the data rate to one receiver, 3 s measured."""
    return wtcp.Scenario.from_dict({
        "name": f"saturated-{phy}",
        "profile": "ns3",
        "run": {"duration_s": 4.0, "measure_from_s": 1.0},
        "nodes": [{"name": "R"}] + [{"name": f"S{i}"} for i in range(senders)],
        "wifi": [{"phy": phy, "data_rate_mbps": rate, "basic_rate_mbps": basic,
                  "stations": [{"node": "R", "x": 0.0}] + [{"node": f"S{i}", "x": 10.0, "y": float(i)} for i in range(senders)]}],
        "flows": [{"kind": "cbr", "src": f"S{i}", "dst": "R", "rate_mbps": rate * 1.2, "packet_bytes": 1472} for i in range(senders)],
    })


def saturated_modern(channel: dict, senders: int, rate: float) -> wtcp.Scenario:
    """`senders` stations blasting UDP at `rate` Mb/s each to one receiver over an 802.11n
    or 802.11ac `channel` (its PHY settings), 3 s measured."""
    return wtcp.Scenario.from_dict({
        "name": f"saturated-{channel['phy']}",
        "profile": "ns3",
        "run": {"duration_s": 4.0, "measure_from_s": 1.0},
        "nodes": [{"name": "R"}] + [{"name": f"S{i}"} for i in range(senders)],
        "wifi": [{**channel, "stations": [{"node": "R", "x": 0.0}] + [{"node": f"S{i}", "x": 10.0, "y": float(i)} for i in range(senders)]}],
        "flows": [{"kind": "cbr", "src": f"S{i}", "dst": "R", "rate_mbps": rate, "packet_bytes": 1472} for i in range(senders)],
    })


def saturated_n(mcs: int, width: int, short_gi: bool, senders: int = 1, rate: float = 80.0, aggregation: bool = False) -> wtcp.Scenario:
    """`saturated_modern` on 802.11n at HT MCS `mcs`."""
    return saturated_modern({"phy": "n", "mcs": mcs, "channel_width_mhz": width, "short_gi": short_gi, "aggregation": aggregation}, senders, rate)


def saturated_ac(mcs: int, width: int, streams: int, short_gi: bool, rate: float, senders: int = 1, aggregation: bool = True) -> wtcp.Scenario:
    """`saturated_modern` on 802.11ac at VHT MCS `mcs` on `streams` spatial streams."""
    return saturated_modern({"phy": "ac", "mcs": mcs, "channel_width_mhz": width, "spatial_streams": streams, "short_gi": short_gi,
                             "aggregation": aggregation}, senders, rate)


# --- refusals (no ns-3 needed) ---

REFUSED = {
    # ns-3 answers an 11 Mb/s frame at 11 Mb/s: all four 802.11b rates are basic there.
    "the control rate of the file": ({"wifi.0.basic_rate_mbps": 1.0}, "wifi.0.basic_rate_mbps", "allowed: 11"),
    "wtcp's own DCF rules": ({"profile": "rfc", "links.0.link_header_bytes": 2}, "wifi.0.backoff_rule", 'allowed: "idle_slots_only"'),
    "no LLC/SNAP header": ({"wifi.0.llc_snap_bytes": 0}, "wifi.0.llc_snap_bytes", "allowed: 8"),
    "802.11's CW reset after a give-up": ({"wifi.0.cw_after_give_up": "reset"}, "wifi.0.cw_after_give_up", 'allowed: "kept"'),
    "separate retry counts": ({"wifi.0.retry_count": "separate"}, "wifi.0.retry_count", 'allowed: "combined"'),
    "802.11's backoff on arrival": ({"wifi.0.arrival_backoff": "unless_idle_ifs"}, "wifi.0.arrival_backoff", 'allowed: "if_busy"'),
    "the slot grid after a timeout": ({"wifi.0.after_timeout": "slot_grid"}, "wifi.0.after_timeout", 'allowed: "difs"'),
    # ns-3 resets an RTS's NAV when no data follows (NavResetTimeout); wtcp does not.
    "RTS/CTS": ({"wifi.0.rts_threshold_bytes": 500}, "wifi.0.rts_threshold_bytes", "allowed: leave it out"),
    "an AQM interface queue other than FQ-CoDel": ({"wifi.0.queue_packets": None, "wifi.0.queue": {"discipline": "pie"}}, "wifi.0.queue.discipline", 'allowed: "droptail", "fq_codel"'),
    "an ABC interface queue": ({"wifi.0.queue_packets": None, "wifi.0.queue": {"discipline": "abc", "eta": 0.95}}, "wifi.0.queue.discipline", 'allowed: "droptail", "fq_codel"'),
    "a station's AQM queue": ({"wifi.0.stations.0.queue": {"discipline": "codel"}}, "wifi.0.stations.0.queue.discipline", 'allowed: "droptail", "fq_codel"'),
    "a queue in bytes": ({"wifi.0.queue_packets": None, "wifi.0.queue": {"limit_bytes": 30000}}, "wifi.0.queue.limit_bytes", "allowed: limit_packets"),
    "packets above the 802.11 MTU": ({"tcp.mss_bytes": 2300}, "flows", "2296 bytes"),
}


@pytest.mark.parametrize("overrides, path, allowed", REFUSED.values(), ids=REFUSED.keys())
def test_what_ns3_cannot_match_is_refused_with_its_path_and_the_value_that_matches(overrides, path, allowed):
    without = tuple(k.rsplit(".", 1)[1] for k, v in overrides.items() if v is None)
    sc = one_hop(without, **{k: v for k, v in overrides.items() if v is not None})
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.document)
    assert info.value.path == path
    assert allowed in info.value.reason


def test_802_11ac_needs_ns3s_vht_sig_b_and_gets_its_streams():
    sc = saturated_ac(7, 80, 2, False, 300.0).with_overrides({"wifi.0.vht_sig_b": "sent"})
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.document)
    assert info.value.path == "wifi.0.vht_sig_b"
    assert 'allowed: "omitted"' in info.value.reason
    w = plan(saturated_ac(7, 80, 2, False, 300.0).document).wifis[0]
    assert (w.data_mode, w.streams, w.standard, w.width_mhz) == ("VhtMcs7", 2, 4, 80)


def test_802_11n_short_gi_needs_ns3s_unrounded_symbols():
    sc = saturated_n(7, 20, True).with_overrides({"wifi.0.short_gi_txtime": "standard"})
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.document)
    assert info.value.path == "wifi.0.short_gi_txtime"
    assert 'allowed: "unrounded"' in info.value.reason


@pytest.mark.parametrize("aggregation, overrides, path, allowed", [
    ({"ampdu_max_frames": 32}, None, "wifi.0.aggregation.ampdu_max_frames", "allowed: 64"),
    (True, {"wifi.0.queue": {"discipline": "fq_codel"}}, "wifi.0.aggregation", "allowed: false, or DropTail queues"),
    (True, {"wifi.0.ber": 1e-6}, "wifi.0.ber", "allowed: 0, or aggregation = false"),
])
def test_802_11n_aggregation_ns3_cannot_match_is_refused(aggregation, overrides, path, allowed):
    sc = saturated_n(7, 20, False, aggregation=aggregation)
    if overrides is not None:
        sc = sc.with_overrides(overrides)
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.document)
    assert info.value.path == path
    assert allowed in info.value.reason
    # Off, or at ns-3's bounds, it translates.
    assert plan(saturated_n(7, 20, False, aggregation={"ampdu_max_bytes": 30000}).document).wifis[0].ampdu_max_bytes == 30000
    assert plan(saturated_n(7, 20, False, aggregation=False).document).wifis[0].ampdu_max_bytes == 0


def document_file(sc: wtcp.Scenario, tmp_path) -> str:
    """The scenario's document as a TOML file (top-level keys, inline tables)."""
    from wtcp.toml_text import to_toml_value

    path = tmp_path / "scenario.toml"
    path.write_text("".join(f"{k} = {to_toml_value(v)}\n" for k, v in sc.document.items()), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("overrides, path, allowed", REFUSED.values(), ids=REFUSED.keys())
def test_the_cli_exits_2_on_every_refusal_naming_the_field(overrides, path, allowed, tmp_path):
    without = tuple(k.rsplit(".", 1)[1] for k, v in overrides.items() if v is None)
    sc = one_hop(without, **{k: v for k, v in overrides.items() if v is not None})
    done = run_cli("run", document_file(sc, tmp_path), "--engine", "ns3")
    assert done.returncode == 2, done.stderr
    assert f"{path}:" in done.stderr and allowed in done.stderr and "Traceback" not in done.stderr


def test_802_11g_needs_the_eifs_ns3_gives_it_and_a_node_has_one_position():
    g = one_hop(**{"wifi.0.phy": "g", "wifi.0.data_rate_mbps": 54.0, "wifi.0.basic_rate_mbps": 24.0, "wifi.0.eifs": "lowest_mandatory"})
    with pytest.raises(Ns3TranslationError) as info:
        plan(g.document)
    assert info.value.path == "wifi.0.eifs" and "1 Mb/s DSSS" in info.value.reason
    second = {"phy": "b", "data_rate_mbps": 11.0, "basic_rate_mbps": 11.0, "stations": [{"node": "AP", "x": 5.0, "y": 0.0}, {"node": "S", "x": 0.0, "y": 0.0}]}
    with pytest.raises(Ns3TranslationError) as info:
        plan(one_hop(**{"wifi.1": second}).document)
    assert info.value.path == "wifi.1.stations.0" and "one position" in info.value.reason


def test_the_control_rate_is_ns3s_answer_to_the_data_rate():
    # The highest of the basic rates (the PHY's mandatory ones) not above the frame's.
    assert [control_answer_kbps("b", k) for k in (1000, 2000, 5500, 11000)] == [1000, 2000, 5500, 11000]
    assert [control_answer_kbps("g", k) for k in (6000, 9000, 12000, 18000, 24000, 54000)] == [6000, 6000, 12000, 12000, 24000, 24000]
    p = plan(one_hop().document).wifis[0]
    assert (p.data_mode, p.control_mode, p.retry_limit) == ("DsssRate11Mbps", "DsssRate11Mbps", 7)


def test_a_chain_is_routed_hop_by_hop_as_wtcp_routes_it():
    chain = wtcp.load(wtcp.builtin_scenario_path("chain-4hop")).with_overrides({"profile": "ns3", "wifi.0.basic_rate_mbps": 11.0, "flows.0.cc": "newreno"})
    p = plan(chain.document)
    w = p.wifis[0]
    routes = {(node, dest): gateway for node, dest, _, gateway, kind, _ in p.host_routes if kind == 1}
    # N0 reaches N4 through N1, N2 through N3; N4 answers through N3.
    assert routes[(0, w.address(4))] == w.address(1)
    assert routes[(2, w.address(4))] == w.address(3)
    assert routes[(4, w.address(0))] == w.address(3)
    # Neighbours in range are on the channel's subnet: no route of their own.
    assert (0, w.address(1)) not in routes


def test_a_wired_cycle_takes_the_edge_wtcp_lists_first():
    """S - A - D and S - D: wtcp sends S's packets for D over the direct link (one hop),
    and with two equal paths it takes the link listed first."""
    doc = {
        "run": {"duration_s": 1.0},
        "nodes": [{"name": "S"}, {"name": "A"}, {"name": "B"}, {"name": "D"}],
        "links": [
            {"a": "S", "b": "A", "rate_mbps": 10.0, "delay_ms": 1.0, "link_header_bytes": 2},
            {"a": "S", "b": "B", "rate_mbps": 10.0, "delay_ms": 1.0, "link_header_bytes": 2},
            {"a": "A", "b": "D", "rate_mbps": 10.0, "delay_ms": 1.0, "link_header_bytes": 2},
            {"a": "B", "b": "D", "rate_mbps": 10.0, "delay_ms": 1.0, "link_header_bytes": 2},
        ],
        "flows": [{"src": "S", "dst": "D"}],
    }
    p = plan(wtcp.Scenario.from_dict(doc).with_overrides({"profile": "ns3"}).document)
    assert not p.routes
    via = {(node, dest): (kind, index) for node, dest, _, _, kind, index in p.host_routes}
    d_on_link2 = (10 << 24) + 4 * 2 + 2
    assert via[(0, d_on_link2)] == (0, 0), "S -> D: through A, the first-listed link"
    assert via[(3, (10 << 24) + 1)] == (0, 2), "D -> S: through A too"


# --- both engines ---

@pytest.mark.parametrize("phy, rate, basic", [("b", 11.0, 11.0), ("g", 54.0, 24.0), ("g", 6.0, 6.0), ("a", 54.0, 24.0)])
def test_one_saturated_station_gets_the_same_throughput_in_both_engines(ns3, phy, rate, basic):
    """One sender, no contention: throughput is set by the airtimes (LLC/SNAP, MAC header,
    preamble, ACK rate), SIFS, DIFS, the slot and the mean backoff. Measured: -0.19 %
    (b 11), -0.07 % (g and a 54), 0.00 % (g 6); one 1472-byte packet is 0.05-0.2 %."""
    sc = saturated(phy, rate, basic)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    g_ours, g_theirs = ours.flows.goodput_bps.sum(), theirs.flows.goodput_bps.sum()
    assert g_ours == pytest.approx(g_theirs, rel=0.005)
    # The excess is refused by the full interface queue in both.
    assert ours.wifi.queue_drops.sum() == pytest.approx(theirs.wifi.queue_drops.sum(), rel=0.01)
    assert theirs.wifi.retry_limit_drops.sum() == 0


def test_five_contending_stations_share_the_channel_alike(ns3):
    """Saturated contention (collisions, backoff doubling, idle-slot counting):
    measured +0.57 % at 802.11g 54 Mb/s, collisions 3465 against 3449 retries."""
    sc = saturated("g", 54.0, 24.0, senders=5)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.02)
    assert ours.wifi.retries.sum() == pytest.approx(theirs.wifi.retries.sum(), rel=0.1)


@pytest.mark.parametrize("mcs, width, short_gi, rate", [(7, 20, False, 80.0), (0, 20, False, 8.0), (15, 40, True, 350.0)])
def test_one_saturated_802_11n_station_gets_the_same_throughput_in_both_engines(ns3, mcs, width, short_gi, rate):
    """HT-mixed PPDUs, QoS data, best-effort EDCA, the ACK at the control response rate, no
    aggregation. Measured: -0.03 % (MCS 7), 0.00 % (MCS 0), -0.05 % (MCS 15, 40 MHz, short
    GI with ns-3's unrounded symbols, the ns3 profile's); at MCS 7 with the short GI -0.13 %
    unrounded and -1.00 % with 802.11's rounding to 4 us symbols."""
    sc = saturated_n(mcs, width, short_gi, rate=rate)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.005)


def test_five_contending_802_11n_stations_share_the_channel_alike(ns3):
    """Measured -0.43 % at MCS 7, 20 MHz; retries 3458 against 3834 (-9.8 %, why untested),
    held to the 802.11g test's bound."""
    sc = saturated_n(7, 20, False, senders=5)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.02)
    assert ours.wifi.retries.sum() == pytest.approx(theirs.wifi.retries.sum(), rel=0.1)


@pytest.mark.parametrize("mcs, width, short_gi, rate", [(7, 20, False, 80.0), (0, 20, False, 8.0), (15, 40, True, 350.0)])
def test_one_saturated_802_11n_station_aggregating_gets_the_same_throughput_in_both_engines(ns3, mcs, width, short_gi, rate):
    """A-MPDUs as long as the HT-mixed PPDU's 5484 us (28 MPDUs at MCS 7, 2 at MCS 0) or the
    65535 octets (42 at MCS 15, 40 MHz) allow, each answered by a Block Ack. Measured: -0.09 % (MCS 7), -0.20 %
    (MCS 0), +0.07 % (MCS 15); ns-3's ADDBA exchange at the start is not modelled."""
    sc = saturated_n(mcs, width, short_gi, rate=rate, aggregation=True)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.005)
    # As many channel accesses (each one A-MPDU) in both.
    assert ours.wifi.attempts.sum() == pytest.approx(theirs.wifi.attempts.sum(), rel=0.01)


@pytest.mark.parametrize("mcs, width, streams, short_gi, rate, aggregation", [
    (0, 20, 1, False, 8.0, True), (7, 20, 1, False, 80.0, True), (9, 80, 2, True, 900.0, True), (9, 80, 2, False, 900.0, False)])
def test_one_saturated_802_11ac_station_gets_the_same_throughput_in_both_engines(ns3, mcs, width, streams, short_gi, rate, aggregation):
    """VHT single-user PPDUs (ns-3's without VHT-SIG-B, the ns3 profile's), every MPDU in an
    A-MPDU or an S-MPDU. Measured: -0.20 % (MCS 0), -0.09 % (MCS 7), +0.11 % (MCS 9, 80
    MHz, 2 streams, short GI: 617.9 Mb/s), 0.00 % (the same without aggregation)."""
    sc = saturated_ac(mcs, width, streams, short_gi, rate, aggregation=aggregation)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.005)
    assert ours.wifi.attempts.sum() == pytest.approx(theirs.wifi.attempts.sum(), rel=0.01)


def test_five_contending_802_11ac_stations_share_the_channel_alike(ns3):
    """MCS 8, 40 MHz, 2 streams: measured +0.95 %, retries 28570 against 30257 (-5.6 %)."""
    sc = saturated_ac(8, 40, 2, False, 400.0, senders=5)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.02)
    assert ours.wifi.retries.sum() == pytest.approx(theirs.wifi.retries.sum(), rel=0.1)


def test_five_contending_802_11n_stations_aggregating_share_the_channel_alike(ns3):
    """Collided A-MPDUs get no Block Ack and go again. Measured -0.40 %, retries 6305
    against 6110 (+3.2 %). With ns-3's default BlockAckReq after a missed Block Ack (which
    the ns-3 engine turns off, as wtcp sends none) ns-3 gave 48.69 against 51.54 Mb/s."""
    sc = saturated_n(7, 20, False, senders=5, aggregation=True)
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.02)
    assert ours.wifi.retries.sum() == pytest.approx(theirs.wifi.retries.sum(), rel=0.1)


def log_distance(sc: wtcp.Scenario, **channel) -> wtcp.Scenario:
    """`sc` under the radio model (`channel.model = "log_distance"` with `channel`)."""
    return sc.with_overrides({"wifi.0.channel": {"model": "log_distance", **channel}})


RADIO_REFUSED = {
    "shadowing": ({"shadowing_sigma_db": 4.0}, "wifi.0.channel.shadowing_sigma_db", "allowed: 0"),
    "Rician fading": ({"fading": "rician", "rician_k_db": 6.0}, "wifi.0.channel.fading", 'allowed: "none" or "rayleigh"'),
}


@pytest.mark.parametrize("channel, path, allowed", RADIO_REFUSED.values(), ids=RADIO_REFUSED.keys())
def test_what_ns3s_propagation_lacks_is_refused(channel, path, allowed):
    with pytest.raises(Ns3TranslationError) as info:
        plan(log_distance(saturated_n(7, 20, False), **channel).document)
    assert info.value.path == path
    assert allowed in info.value.reason


def test_a_moving_station_needs_the_radio_model_and_one_channel_in_ns3():
    moving = {"wifi.0.stations.1.velocity": [1.0, 0.0]}
    with pytest.raises(Ns3TranslationError) as info:
        plan(saturated_n(7, 20, False).with_overrides(moving).document)
    assert info.value.path == "wifi.0.stations.1.velocity"
    assert "log_distance" in info.value.reason
    # A node on two channels may not move on either, whichever is listed first.
    doc = log_distance(saturated_n(7, 20, False)).document
    second = {**doc["wifi"][0], "name": "second", "stations": [{"node": "R", "x": 0.0}, {"node": "S0", "x": 10.0}]}
    for first_moves in (True, False):
        channels = [dict(doc["wifi"][0], stations=[dict(s) for s in doc["wifi"][0]["stations"]]), dict(second, stations=[dict(s) for s in second["stations"]])]
        channels[0 if first_moves else 1]["stations"][1]["velocity"] = [1.0, 0.0]
        with pytest.raises(Ns3TranslationError) as info:
            plan({**doc, "wifi": channels})
        assert "one mobility model" in info.value.reason, first_moves


def test_the_radio_model_reaches_ns3_resolved_with_one_antenna_per_stream():
    w = plan(log_distance(saturated_n(7, 20, False), exponent=3.5).document).wifis[0]
    assert w.radio["exponent"] == 3.5
    # Free space at 1 m and 5.15 GHz (ns-3's LogDistancePropagationLossModel default).
    assert w.radio["reference_loss_db"] == pytest.approx(46.68, abs=0.01)
    assert w.streams == 1
    assert plan(log_distance(saturated_n(15, 20, False)).document).wifis[0].streams == 2
    moving = log_distance(saturated_n(7, 20, False)).with_overrides({"wifi.0.stations.1.velocity": [1.0, 0.5], "wifi.0.stations.0.waypoints": [[2.0, 3.0, 4.0]]})
    assert plan(moving.document).wifis[0].motions == [("waypoints", [(2_000_000_000, 3.0, 4.0)]), ("velocity", 1.0, 0.5)]


# Saturated UDP over 802.11n MCS 7 at distances across its cliff (1530-byte MPDUs fail
# between 20 and 23 m at the defaults); the NIST error model in both engines.
@pytest.mark.parametrize("distance, aggregation", [(20.0, False), (21.0, False), (22.0, True), (15.0, True)])
def test_a_link_across_its_snr_cliff_carries_the_same_in_both_engines(ns3, distance, aggregation):
    """Measured: 20 m -0.1 %, 21 m +0.1 %, 22 m with A-MPDUs -0.7 % (21.6 Mb/s of 58 at
    15 m), 15 m -0.1 %; before the ns-3 engine gave an MCS 0-7 station one antenna (it had
    two: ns-3 adds their 3 dB of SNR) the 22 m point was -63.8 %."""
    sc = log_distance(saturated_n(7, 20, False, aggregation=aggregation)).with_overrides({"wifi.0.stations.1.x": distance})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert theirs.flows.goodput_bps.sum() > 5e6
    assert ours.flows.goodput_bps.sum() == pytest.approx(theirs.flows.goodput_bps.sum(), rel=0.03)


@pytest.mark.parametrize("phy, distance", [("a", 23.0), ("g", 38.0)])
def test_802_11a_and_g_at_54_mbps_near_their_cliff_agree(ns3, phy, distance):
    """Legacy OFDM data frames under the radio model (802.11g's free-space L0 at 2.4 GHz,
    6.6 dB below 5 GHz's, moves its cliff from ~23 to ~37 m): measured 802.11a 23 m +1.0 %
    (24 m -2.2 %), 802.11g 38 m +1.8 % (36 m 0.0 %)."""
    sc = saturated(phy, 54.0, 24.0).with_overrides({"wifi.0.channel": {"model": "log_distance"}, "wifi.0.stations.1.x": distance})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert 10e6 < theirs.flows.goodput_bps[0] < 28e6, "the point should sit on the cliff"
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.04)


def test_beyond_the_cliff_nothing_arrives_in_either_engine(ns3):
    sc = log_distance(saturated_n(7, 20, False)).with_overrides({"wifi.0.stations.1.x": 24.0})
    assert sc.run().flows.goodput_bps.sum() < 0.01e6
    assert sc.run(engine="ns3").flows.goodput_bps.sum() < 0.01e6


@pytest.mark.parametrize("case", ["rayleigh", "velocity", "waypoints", "hidden", "ht-two-streams", "vht-two-streams", "ideal-rayleigh"])
def test_fading_motion_and_hidden_stations_agree_with_ns3(ns3, case):
    """Rayleigh fading (ns-3: Nakagami m = 1) at 8 m, MCS 7 with A-MPDUs: +1.7 % and -1.0 %
    over seeds 1 and 2; a station driving away at 3 m/s from 15 m: -0.3 %, +1.2 %; one
    walking from 10 to 30 m between 2 and 3 s: -0.1 %, 0.0 %. Two stations hidden from each
    other (53 m apart), A at 5 m from the receiver and B at 48 m, beyond MCS 4's reach: A's
    goodput -1.0 %, +1.4 %, A's failed frames 280 against 270. Before a receiver could detect a new
    preamble over the energy of a frame it was not locked onto (ns-3's CCA_BUSY state does),
    A's failed frames were 958 and its goodput -13.8 %. Two spatial streams (two antennas in
    ns-3): 802.11n MCS 15 at 18 m 0.0 %, +0.1 %; 802.11ac MCS 8, 40 MHz at 12 m +0.4 %, -0.7 %.
    Ideal rate control under Rayleigh fading at 20 m with A-MPDUs: +1.0 % (seed 1; +0.05 %
    without aggregation)."""
    base = saturated_n(7, 20, False, aggregation=True)
    sc = {
        "rayleigh": log_distance(base, fading="rayleigh").with_overrides({"wifi.0.stations.1.x": 8.0}),
        "velocity": log_distance(base).with_overrides({"wifi.0.stations.1.x": 15.0, "wifi.0.stations.1.velocity": [3.0, 0.0]}),
        "waypoints": log_distance(base).with_overrides({"wifi.0.stations.1.x": 10.0, "wifi.0.stations.1.waypoints": [[2.0, 10.0, 0.0], [3.0, 30.0, 0.0]]}),
        "hidden": log_distance(saturated_n(4, 20, False, senders=2)).with_overrides({"wifi.0.stations.1.x": 5.0, "wifi.0.stations.2.x": -48.0, "wifi.0.stations.2.y": 0.0}),
        "ht-two-streams": log_distance(saturated_n(15, 20, False, rate=200.0, aggregation=True)).with_overrides({"wifi.0.stations.1.x": 18.0}),
        "vht-two-streams": log_distance(saturated_ac(8, 40, 2, False, 400.0)).with_overrides({"wifi.0.stations.1.x": 12.0}),
        "ideal-rayleigh": saturated_modern({"phy": "n", "channel_width_mhz": 20, "aggregation": True, "rate_control": "ideal",
                                            "channel": {"model": "log_distance", "fading": "rayleigh"}}, 1, 80.0).with_overrides({"wifi.0.stations.1.x": 20.0}),
    }[case]
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert theirs.flows.goodput_bps[0] > 5e6
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.04)
    if case == "hidden":
        assert ours.wifi.collisions[1] == pytest.approx(theirs.wifi.collisions[1], rel=0.25)
        assert ours.flows.goodput_bps[1] == theirs.flows.goodput_bps[1] == 0


@pytest.mark.parametrize("distance, aggregation", [(22.0, False), (36.0, False), (50.0, False), (22.0, True), (42.0, True)])
def test_ideal_rate_control_picks_as_ns3s_ideal_manager(ns3, distance, aggregation):
    """rate_control = "ideal" against ns-3's IdealWifiManager, one saturated 802.11n station:
    measured within 0.2 % at 5, 15, 22, 30, 36, 42 and 50 m with and without A-MPDUs (MCS 7
    down to MCS 1), the same channel accesses to within 0.1 %."""
    sc = saturated_modern({"phy": "n", "channel_width_mhz": 20, "aggregation": aggregation, "rate_control": "ideal", "channel": {"model": "log_distance"}}, 1, 80.0)
    sc = sc.with_overrides({"wifi.0.stations.1.x": distance})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.01)
    assert ours.wifi.attempts[1] == pytest.approx(theirs.wifi.attempts[1], rel=0.01)


def test_an_80_mhz_ppdu_needs_6_db_more_to_be_heard_in_both_engines(ns3):
    """802.11ac at 80 MHz under "ideal": 25 m 106.81 against 106.77 Mb/s; at 33 m the data
    PPDUs arrive below -76 dBm (802.11-2016 21.3.18.5.3, ns-3's RxSensitivity scaled by the
    width) and nothing gets through in either engine, where the 20 MHz ACKs still would."""
    sc = saturated_modern({"phy": "ac", "channel_width_mhz": 80, "rate_control": "ideal", "channel": {"model": "log_distance"}}, 1, 500.0)
    near, far = (sc.with_overrides({"wifi.0.stations.1.x": d}) for d in (25.0, 33.0))
    assert near.run().flows.goodput_bps[0] == pytest.approx(near.run(engine="ns3").flows.goodput_bps[0], rel=0.01)
    assert far.run().flows.goodput_bps[0] == far.run(engine="ns3").flows.goodput_bps[0] == 0


@pytest.mark.parametrize("distance, aggregation", [(22.0, False), (50.0, False), (30.0, True), (42.0, True)])
def test_minstrel_ht_agrees_with_ns3s_minstrel_ht(ns3, distance, aggregation):
    """rate_control = "minstrel_ht" (Linux 6.18's design) against ns-3's MinstrelHtWifiManager
    (Linux's design of about 2013: EWMA statistics, sampling every 16 + 2 x A-MPDU length
    frames), one saturated 802.11n station. Measured at 5, 22, 30, 36, 42 and 50 m: without
    A-MPDUs 0.0 to +5.0 %, with them -1.2 to +0.2 %; the suite's criterion, 10 %, holds
    them. (Before a chain's retries resent only the probe's MPDU, as hardware retries do,
    wtcp was 24-27 % low with A-MPDUs from 30 m out.)"""
    sc = saturated_modern({"phy": "n", "channel_width_mhz": 20, "aggregation": aggregation, "rate_control": "minstrel_ht", "channel": {"model": "log_distance"}}, 1, 80.0)
    sc = sc.with_overrides({"wifi.0.stations.1.x": distance})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert theirs.flows.goodput_bps[0] > 10e6
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.10)


@pytest.mark.parametrize("rate_control", ["ideal", "minstrel_ht"])
def test_rate_control_on_two_vht_streams_is_refused(rate_control):
    sc = saturated_modern({"phy": "ac", "channel_width_mhz": 40, "spatial_streams": 2, "rate_control": rate_control, "channel": {"model": "log_distance"}}, 1, 300.0)
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.document)
    assert info.value.path == "wifi.0.rate_control"
    assert "allowed: spatial_streams = 1" in info.value.reason


def test_a_tcp_download_over_aggregating_802_11n_agrees(ns3):
    """wifi-one-hop at MCS 7 with A-MPDUs (20 s): measured 39.64 against 38.49 Mb/s
    (+3.0 %, why untested; 18875 channel accesses against 14769). At MCS 3 the engines
    differ by -18.2 %, from the queue: ns-3 keeps the MPDUs in flight in its MAC queue,
    which the ns-3 engine sizes 64 above wtcp's limit, so its AP buffers more and wtcp's
    flow alone times out once; with wtcp's queue at 103 packets the difference is +0.13 %."""
    doc = wtcp.load(wtcp.builtin_scenario_path("wifi-one-hop")).document
    w = doc["wifi"][0]
    del w["data_rate_mbps"], w["basic_rate_mbps"]
    w.update({"phy": "n", "mcs": 7, "aggregation": True})
    sc = wtcp.Scenario.from_dict(doc).with_overrides({"profile": "ns3", "run.duration_s": 20.0})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.05)


def test_a_tcp_download_through_an_access_point_agrees(ns3):
    """wifi-one-hop (20 s): measured 5.328 against 5.329 Mb/s (-0.03 %); with wtcp's own
    arrival backoff and slot grid after a timeout -1.32 % (each alone -0.74 and -0.21 %)."""
    sc = one_hop(**{"run.duration_s": 20.0})
    ours, theirs = sc.run(), sc.run(engine="ns3")
    assert ours.flows.goodput_bps[0] == pytest.approx(theirs.flows.goodput_bps[0], rel=0.05)
    assert list(theirs.wifi.node) == ["AP", "STA"]
    ap = theirs.wifi.set_index("node").loc["AP"]
    # Every access is acknowledged or still counted as a retry; TCP data is what the AP sends.
    assert ap.attempts == ap.successes + ap.retries + ap.retry_limit_drops + ap.gave_up_after_delivery
    assert ap.successes > 4000 and math.isclose(theirs.raw["flows"][0]["mac_hints"], 0)


def test_an_access_point_with_fq_codel_runs_in_ns3_with_its_drops_counted(ns3):
    """wifi-aqm: FQ-CoDel at the access point becomes ns-3's FqCoDelQueueDisc above a
    WifiMacQueue holding only the frame in service; its drops are the AP's queue drops.
    Measured (`wtcp crosscheck wifi-aqm --seeds 3`): CUBIC 20.04 against 23.26 Mb/s
    (-13.8 %); wtcp with `tcp.prr_dupack_credit = false` 23.24 (docs/model.md)."""
    sc = wtcp.load(wtcp.builtin_scenario_path("wifi-aqm")).with_overrides({"profile": "ns3", "run.duration_s": 12.0})
    r = sc.run(engine="ns3")
    ap = r.wifi.set_index("node").loc["AP"]
    assert ap.queue_drops > 0
    assert r.flows.set_index("name").loc["voice"].goodput_bps == pytest.approx(64_000, rel=0.01)
    assert any("metrics.delays" in w for w in r.raw["warnings"])
    assert r.raw["flows"][0]["delay_p95_ms"] is None
