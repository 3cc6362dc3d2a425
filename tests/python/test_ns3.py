"""ns-3 as a second engine: translation refusals, the engine recorded in the output, the
translation's mechanisms pinned one by one, and a small cross-check against wtcp.

Refusals happen before ns-3 is imported, so those tests run without it. The others need
the `ns3` package (`make test` installs it; set WTCP_REQUIRE_NS3=1 to fail rather than
skip without it) and share one import per session (about 8 s).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

import wtcp
import wtcp.cli
from conftest import reference_path, run_cli, without_wall
from wtcp.crosscheck import crosscheck, format_table
from wtcp.ns3 import Ns3TranslationError, Ns3Unavailable, plan
from wtcp.ns3 import run as ns3_run
from wtcp.ns3.translate import TCP_DEFAULTS

LOSS = "links.1.ab.loss.rate"
# What ns-3 fixes, matched in the reference scenario (the translator refuses wtcp's
# defaults here: ns-3 always opens the connection, clears the backoff on new ACKs, grows on
# the ACK that ends recovery, halves the pipe, cuts ssthresh on every timeout, recovers
# without SACK from invented SACKs, times RTTs from its own history and grows CUBIC only
# while cwnd-limited).
MATCHED = {"tcp.handshake": True, "tcp.backoff_reset": "new_ack", "tcp.recovery_exit_growth": True, "tcp.timeout_count_reset": "every_timeout", "tcp.reno_sack": True,
           "tcp.loss_exit_credit": "above_recovery_point", "tcp.rtt_sampling": "ns3", "tcp.cwnd_limited": "ns3", "tcp.ts_recent": "ns3", "tcp.quick_acks_at_start": 1, "tcp.handshake_ack": True, "tcp.receive_window": "whole_buffer", "flows.0.cc_params.halve": "pipe"}
MATCHED_SETS = ["--set", "tcp.handshake=true", "--set", 'tcp.backoff_reset="new_ack"', "--set", "tcp.recovery_exit_growth=true", "--set",
                'tcp.timeout_count_reset="every_timeout"', "--set", "tcp.reno_sack=true", "--set", 'tcp.loss_exit_credit="above_recovery_point"', "--set",
                'tcp.rtt_sampling="ns3"', "--set", 'tcp.cwnd_limited="ns3"', "--set", 'tcp.ts_recent="ns3"', "--set", "tcp.quick_acks_at_start=1", "--set", "tcp.handshake_ack=true", "--set", 'tcp.receive_window="whole_buffer"', "--set", 'flows.0.cc_params.halve="pipe"']




@pytest.fixture(scope="session")
def simple2() -> wtcp.Scenario:
    """The reference scenario matched to ns-3 (`MATCHED`)."""
    return wtcp.load(reference_path()).with_overrides(MATCHED)


def short(sc: wtcp.Scenario, seconds: float = 6.0) -> wtcp.Scenario:
    return sc.with_overrides({"run.duration_s": seconds})


# --- refusals (no ns-3 needed) ---

REFUSED = {
    "no PPP header": ({"links.0.link_header_bytes": 0}, "links.0.link_header_bytes"),
    "RED queue": ({"links.1.queue": {"discipline": "red", "limit_packets": 100}}, "links.1.queue.discipline"),
    "CoDel queue": ({"links.1.queue": {"discipline": "codel", "limit_packets": 100, "target_ms": 5.0}}, "links.1.queue.discipline"),
    "PIE queue": ({"links.1.queue": {"discipline": "pie", "limit_packets": 100, "t_update_ms": 15.0}}, "links.1.queue.discipline"),
    "ABC queue": ({"links.1.queue": {"discipline": "abc", "limit_packets": 100, "delay_threshold_ms": 20.0}}, "links.1.queue.discipline"),
    "ABC": ({"flows.0.cc": "abc", "flows.0.cc_params": {}}, "flows.0.cc"),
    "ARQ": ({"links.1.ab.arq": {"retry_limit": 3}}, "links.1.ab.arq"),
    "a capacity trace": ({"links.1.ab.capacity": {"model": "steps", "steps": [[1.0, 2.0]], "duration_s": 1.0}}, "links.1.ab.capacity"),
    "delay spikes": ({"links.1.ab.delay_spikes": [{"start_s": 2.0, "duration_s": 1.0, "extra_delay_ms": 50.0}]}, "links.1.ab.delay_spikes"),
    "Reno": ({"flows.0.cc": "reno", "flows.0.cc_params": {}}, "flows.0.cc"),
    "an algorithm ns-3 lacks": ({"flows.0.cc": "taichung", "flows.0.cc_params": {}}, "flows.0.cc"),
    "the kernel's own algorithm": ({"flows.0.cc": "kernel:cubic", "flows.0.cc_params": {}}, "flows.0.cc"),
    "Vegas with the paper's structure": ({"flows.0.cc": "vegas", "flows.0.cc_params": {"model": "paper"}}, "flows.0.cc_params.model"),
    "Veno (paired only)": ({"flows.0.cc": "veno", "flows.0.cc_params": {}}, "flows.0.cc"),
    "a parameter ns-3 has not": ({"flows.0.cc_params": {"halve": "pipe", "byte_counting": True}}, "flows.0.cc_params.byte_counting"),
    # Under the rfc profile: the ns-3 engine runs a scenario that names none with ns3's.
    "NewReno halving FlightSize (wtcp's default)": ({"profile": "rfc", "tcp.reno_sack": True, "tcp.loss_exit_credit": "above_recovery_point", "tcp.cwnd_limited": "ns3", "tcp.ts_recent": "ns3", "tcp.quick_acks_at_start": 1, "tcp.handshake_ack": True, "tcp.receive_window": "whole_buffer", "flows.0.cc_params": {}}, "flows.0.cc_params.halve"),
    "NewReno halving cwnd": ({"flows.0.cc_params": {"halve": "cwnd"}}, "flows.0.cc_params.halve"),
    "CUBIC with HyStart++": ({"profile": "rfc", "tcp.reno_sack": True, "tcp.loss_exit_credit": "above_recovery_point", "tcp.cwnd_limited": "ns3", "tcp.ts_recent": "ns3", "tcp.quick_acks_at_start": 1, "tcp.handshake_ack": True, "tcp.receive_window": "whole_buffer", "flows.0.cc": "cubic", "flows.0.cc_params": {"reduce": "cwnd"}}, "flows.0.cc_params.hystart"),
    "CUBIC reducing FlightSize": ({"profile": "rfc", "tcp.reno_sack": True, "tcp.loss_exit_credit": "above_recovery_point", "tcp.cwnd_limited": "ns3", "tcp.ts_recent": "ns3", "tcp.quick_acks_at_start": 1, "tcp.handshake_ack": True, "tcp.receive_window": "whole_buffer", "flows.0.cc": "cubic", "flows.0.cc_params": {"hystart": False}}, "flows.0.cc_params.reduce"),
    "CUBIC with RFC 5681 slow start": ({"flows.0.cc": "cubic", "flows.0.cc_params": {"slow_start": "rfc5681"}}, "flows.0.cc_params.slow_start"),
    "Westwood+ Linux filter": ({"flows.0.cc": "westwoodplus", "flows.0.cc_params": {"filter": "linux"}}, "flows.0.cc_params.filter"),
    "RFC 6298 backoff": ({"tcp.backoff_reset": "rtt_sample"}, "tcp.backoff_reset"),
    "no growth on the recovery-ending ACK": ({"tcp.recovery_exit_growth": False}, "tcp.recovery_exit_growth"),
    "PRR on FlightSize": ({"tcp.sack": True, "tcp.recovery": "prr", "tcp.prr_recover_fs": "flight_size"}, "tcp.prr_recover_fs"),
    "PRR without ns-3's duplicate-ACK credit": ({"tcp.sack": True, "tcp.recovery": "prr", "tcp.prr_dupack_credit": False}, "tcp.prr_dupack_credit"),
    "RFC 5681 timeout runs": ({"tcp.timeout_count_reset": "new_ack"}, "tcp.timeout_count_reset"),
    "RFC 5681 credit of the ACK leaving CA_LOSS": ({"tcp.sack": True, "tcp.recovery": "prr", "tcp.loss_exit_credit": "delivered"}, "tcp.loss_exit_credit"),
    "RFC 7323 TS.Recent": ({"tcp.ts_recent": "rfc7323"}, "tcp.ts_recent"),
    "delayed ACKs from the first segment": ({"tcp.quick_acks_at_start": 0}, "tcp.quick_acks_at_start"),
    "no pure ACK in the handshake": ({"tcp.handshake_ack": False}, "tcp.handshake_ack"),
    "a window shrunk by out-of-order data": ({"tcp.receive_window": "free_space"}, "tcp.receive_window"),
    "RFC 5681 growth whatever limits the flow": ({"tcp.cwnd_limited": "assumed"}, "tcp.cwnd_limited"),
    "RFC 5681 inflation without SACK": ({"tcp.sack": False, "tcp.recovery": "classic", "tcp.reno_sack": False}, "tcp.reno_sack"),
    "no handshake": ({"tcp.handshake": False}, "tcp.handshake"),
    "no handshake, per flow": ({"flows.0.tcp": {"handshake": False}}, "flows.0.tcp.handshake"),
    "on/off": ({"flows.0.on_off": {"on_s": 1.0, "off_s": 1.0}}, "flows.0.on_off"),
    "F-RTO": ({"tcp.frto": True, "tcp.reno_sack": False}, "tcp.frto"),
    "per-flow F-RTO": ({"flows.0.tcp": {"frto": True, "reno_sack": False}}, "flows.0.tcp.frto"),
    "slow-but-steady timer": ({"tcp.partial_ack_timer": "slow_but_steady"}, "tcp.partial_ack_timer"),
    "RACK": ({"tcp.sack": True, "tcp.loss_detection": "rack"}, "tcp.loss_detection"),
    "RTO re-armed by the head's retransmission": ({"tcp.rearm_rto_on_head_retransmit": True}, "tcp.rearm_rto_on_head_retransmit"),
    "RTO cap": ({"tcp.rto_max_s": 30.0}, "tcp.rto_max_s"),
    "header size": ({"tcp.header_bytes": 52}, "tcp.header_bytes"),
    "one RTT sample per RTT": ({"tcp.rtt_sampling": "one_per_rtt"}, "tcp.rtt_sampling"),
    "fractional initial window": ({"tcp.initial_cwnd_segments": 2.5}, "tcp.initial_cwnd_segments"),
    "ECN": ({"tcp.ecn": True}, "tcp.ecn"),
    "traces": ({"trace.enabled": True}, "trace.enabled"),
    "seed 0": ({"run.seed": 0}, "run.seed"),
}


@pytest.mark.parametrize("overrides, path", REFUSED.values(), ids=REFUSED.keys())
def test_untranslatable_fields_are_refused_with_their_path(simple2, overrides, path):
    sc = simple2.with_overrides(overrides)  # valid for wtcp: the core accepted it
    with pytest.raises(wtcp.ScenarioError) as info:
        sc.run(engine="ns3")
    error = info.value
    assert isinstance(error, Ns3TranslationError)
    assert error.path == path
    assert str(error) == f"{path}: {error.reason}"
    assert "allowed:" in error.reason


@pytest.mark.parametrize("pairing", [None, "ns3::TcpLinuxReno"])
def test_the_kernels_own_algorithm_is_refused_as_such_even_when_paired(simple2, pairing):
    doc = simple2.with_overrides({"flows.0.cc": "kernel:cubic", "flows.0.cc_params": {}}).document
    with pytest.raises(Ns3TranslationError) as info:
        plan(doc, pairing) if pairing else plan(doc)
    assert info.value.path == "flows.0.cc" and "only the linux engine runs" in info.value.reason


def test_wtcp_defaults_are_explicit_parameters_and_pass(simple2):
    """A parameter written out at wtcp's default is not a request ns-3 cannot meet."""
    plan(simple2.with_overrides({"flows.0.cc_params": {"halve": "pipe", "byte_counting": False}}).document)


def test_a_default_ns3_cannot_match_is_refused_with_the_value_that_matches():
    with pytest.raises(Ns3TranslationError) as info:
        plan(wtcp.load(reference_path()).with_overrides({"tcp.handshake": True, "tcp.backoff_reset": "new_ack", "tcp.recovery_exit_growth": True,
                                                         "tcp.timeout_count_reset": "every_timeout", "tcp.reno_sack": True,
                                                         "tcp.loss_exit_credit": "above_recovery_point", "tcp.rtt_sampling": "ns3",
                                                         "tcp.cwnd_limited": "ns3", "tcp.ts_recent": "ns3", "tcp.quick_acks_at_start": 1, "tcp.handshake_ack": True, "tcp.receive_window": "whole_buffer"}).document)
    assert info.value.path == "flows.0.cc_params.halve"
    assert "(wtcp's default)" in info.value.reason and 'allowed: "pipe"' in info.value.reason


def test_matching_is_the_ns3_profile_unless_the_scenario_names_one():
    from wtcp.ns3.translate import matching

    sc = wtcp.load(reference_path())
    assert matching(sc.document) == {"profile": "ns3"}
    matched = sc.with_overrides(matching(sc.document)).document
    for path, value in MATCHED.items():
        table = matched
        for part in path.split("."):
            table = table[int(part)] if isinstance(table, list) else table[part]
        assert table == value, path
    # A value the scenario states stays (and the translator refuses it), and a scenario
    # with a profile of its own is not matched.
    stated = sc.with_overrides({"tcp.handshake": False, **matching(sc.document)})
    assert stated.document["tcp"]["handshake"] is False
    assert matching(sc.with_overrides({"profile": "rfc"}).document) == {}


def test_a_pairing_translates_vegas_thresholds_and_refuses_what_ns3_cannot_take(simple2):
    """Paired with ns-3's TcpVegas, wtcp's alpha/beta/gamma still set its attributes
    (ns-3's defaults 2/4/1 are not the paper's 1/3/1)."""
    sc = simple2.with_overrides({"flows.0.cc": "vegas", "flows.0.cc_params": {}})
    [flow] = plan(sc.document, "ns3::TcpVegas").flows
    assert flow.type_id == "ns3::TcpVegas" and flow.cc_attrs == ["Alpha=1", "Beta=3", "Gamma=1"]
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.with_overrides({"flows.0.cc_params": {"alpha": 1.5}}).document, "ns3::TcpVegas")
    assert info.value.path == "flows.0.cc_params.alpha"


def test_vegas_on_the_ns3_profile_translates_to_tcpvegas_with_its_thresholds():
    """The ns3 profile runs wtcp's Vegas as TcpVegas (model, RTT input, round minimum, loss
    cut) with ns-3's thresholds 2/4/1, so `--engine ns3` takes it without pairing."""
    sc = wtcp.load(reference_path()).with_overrides({"profile": "ns3", "flows.0.cc": "vegas", "flows.0.cc_params": {}})
    [flow] = plan(sc.document).flows
    assert flow.type_id == "ns3::TcpVegas" and flow.cc_attrs == ["Alpha=2", "Beta=4", "Gamma=1"]
    with pytest.raises(Ns3TranslationError) as info:
        plan(sc.with_overrides({"flows.0.cc_params": {"rtt": "sample"}}).document)
    assert info.value.path == "flows.0.cc_params.rtt" and 'allowed: "smoothed"' in info.value.reason


def test_refusal_exits_2_from_the_cli():
    done = run_cli("run", str(reference_path()), "--engine", "ns3", *MATCHED_SETS, "--set", "flows.0.cc=reno", "--set", "flows.0.cc_params={}")
    assert done.returncode == 2
    assert "flows.0.cc" in done.stderr and "allowed" in done.stderr
    done = run_cli("crosscheck", str(reference_path()), "--algorithms", "newreno,taichung")
    assert done.returncode == 2
    assert "flows.0.cc" in done.stderr


def test_missing_ns3_package_is_a_usage_error(monkeypatch, simple2):
    monkeypatch.setattr(ns3_run, "_loaded", None)
    monkeypatch.setattr(ns3_run, "available", lambda: False)
    with pytest.raises(Ns3Unavailable, match="wtcp\\[ns3\\]"):
        simple2.run(engine="ns3")
    assert wtcp.cli.main(["run", str(reference_path()), "--engine", "ns3"]) == 2


def test_an_ns3_wheel_that_cannot_load_is_a_usage_error(monkeypatch, simple2):
    def broken(*_: object) -> None:
        raise ModuleNotFoundError("ns3 (the ns-3 3.44 wheel's libraries)")

    monkeypatch.setattr(ns3_run, "_loaded", None)
    monkeypatch.setattr(ns3_run, "available", lambda: True)
    monkeypatch.setattr(ns3_run, "load_ns3", broken)
    with pytest.raises(Ns3Unavailable, match="cannot load ns-3 3.44 .*wheel's libraries"):
        simple2.run(engine="ns3")
    assert wtcp.cli.main(["run", str(reference_path()), "--engine", "ns3"]) == 2


def test_the_translator_uses_the_cores_tcp_defaults(simple2):
    """TCP_DEFAULTS (Python) against the core's defaults (Rust): the reference scenario
    at 1 % loss with no [tcp] table must run exactly as with TCP_DEFAULTS written out.
    (A default that did not change this run, such as ecn_echo without ECN, is not tested.)"""
    doc = simple2.with_overrides({"run.duration_s": 31.0}).document
    doc.pop("tcp")
    implicit = wtcp.Scenario.from_dict(doc).run()
    doc["tcp"] = dict(TCP_DEFAULTS)
    explicit = wtcp.Scenario.from_dict(doc).run()
    assert without_wall(implicit.to_json()) == without_wall(explicit.to_json())
    assert implicit.flows["fast_retransmits"][0] > 0


# --- the engine recorded in the output ---


def test_native_runs_record_their_engine(simple2):
    result = short(simple2).run()
    assert result.engine == "wtcp"
    assert json.loads(result.to_json())["engine"] == "wtcp"


def test_ns3_runs_return_the_same_schema_and_record_their_engine(ns3, simple2):
    sc = short(simple2)
    native, other = sc.run(), sc.run(engine="ns3")
    assert other.engine == "ns3" and other.summary["engine"] == "ns3"
    assert json.loads(other.to_json())["engine"] == "ns3"
    assert set(native.raw) <= set(other.raw)
    assert set(native.raw["flows"][0]) == set(other.raw["flows"][0])
    assert list(native.flows.columns) == list(other.flows.columns)
    assert list(native.drops.columns) == list(other.drops.columns)
    assert other.flows["goodput_mbps"][0] > 1.0
    assert "engine ns3" in CliRunner().invoke(wtcp.cli.cli, ["run", str(reference_path()), "--set", "run.duration_s=3", *MATCHED_SETS, "--engine", "ns3"]).output


def test_ns3_is_loaded_with_the_harness_modules_and_the_libraries_build_symbols(ns3):
    """wtcp.ns3.modules parses the nine modules the harness includes, not the wheel's 42,
    with the preprocessor symbols the libraries were built with (the wheel's CMake export),
    so cppyy's view of a class has the members the library gives it."""
    import cppyy

    from wtcp.ns3.modules import MODULES, build_definitions, wheel_prefix

    cmake = next(wheel_prefix().glob("lib*/cmake/ns3/ns3Targets.cmake")).read_text(encoding="utf-8")
    symbols = build_definitions(cmake)
    assert {"NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE", "HAVE_GSL"} <= set(symbols)
    with pytest.raises(ModuleNotFoundError, match="ns3::lte-nope"):
        build_definitions(cmake, (*MODULES, "lte-nope"))
    # HAVE_GSL declares these; NS3_LOG_ENABLE adds a member to UdpClient (296 -> 328 bytes).
    assert hasattr(cppyy.gbl.ns3.DsssErrorRateModel, "SymbolErrorProb16Cck")
    assert cppyy.gbl.gInterpreter.ProcessLine("NS3_LOG_ENABLE + NS3_ASSERT_ENABLE;") == 2
    # Headers of modules the harness does not use are not parsed (the LTE module's helper).
    assert not hasattr(cppyy.gbl.ns3, "LteHelper")


def test_a_run_does_not_depend_on_what_the_process_ran_before(ns3, simple2):
    sc = short(simple2, 11.0)
    first = sc.run(engine="ns3", seed=4)
    short(simple2).with_overrides({LOSS: 0.05}).run(engine="ns3", seed=9)
    again = sc.run(engine="ns3", seed=4)
    assert without_wall(first.to_json()) == without_wall(again.to_json())
    assert without_wall(sc.run(engine="ns3", seed=5).to_json()) != without_wall(first.to_json())


# --- the translation's mechanisms ---


def test_data_only_loss_spares_the_acks(ns3, simple2):
    """Loss on the ACK direction D -> BS: with `loss_applies_to = "data"` nothing is lost
    (no data goes that way); with "all" ACKs are."""
    sc = short(simple2).with_overrides({LOSS: 0.0, "links.1.ba.loss": {"model": "uniform", "rate": 0.3}})
    data_only = sc.set("links.1.ba.loss_applies_to", "data").run(engine="ns3")
    every = sc.set("links.1.ba.loss_applies_to", "all").run(engine="ns3")
    assert data_only.drops["channel"].sum() == 0
    acks = every.drops.set_index(["from", "to"]).loc[("D", "BS")]
    # Every ACK frame is exposed: about 30 % of those sent are lost (binomial, 5 sigma).
    n = acks["tx_packets"]
    assert abs(acks["channel"] / n - 0.3) < 5 * math.sqrt(0.3 * 0.7 / n)


def test_list_loss_drops_exactly_the_listed_data_packets(ns3, simple2):
    sc = short(simple2).with_overrides({"links.1.ab.loss": {"model": "list", "packets": [30, 60, 61]}})
    for engine in ("wtcp", "ns3"):
        result = sc.run(engine=engine)
        assert result.drops["channel"].sum() == 3, engine
        assert result.flows["fr_wireless"][0] + result.flows["to_wireless"][0] >= 2, engine


def test_a_byte_limit_is_counted_as_wtcp_counts_it(ns3, simple2):
    """Ten 1040-byte data packets: limit_bytes = 10400 must behave exactly as
    limit_packets = 10 (wtcp counts IP bytes, without the 2-byte PPP header)."""
    sc = short(simple2, 8.0).with_overrides({LOSS: 0.0})
    packets = sc.set("links.1.queue", {"limit_packets": 10}).run(engine="ns3")
    nbytes = sc.set("links.1.queue", {"limit_bytes": 10400}).run(engine="ns3")
    one_less = sc.set("links.1.queue", {"limit_bytes": 10399}).run(engine="ns3")
    assert packets.drops["queue"].sum() > 0
    assert without_wall(packets.to_json()) == without_wall(nbytes.to_json())
    assert without_wall(one_less.to_json()) != without_wall(nbytes.to_json())


def test_an_outage_drops_data_as_outage_not_channel(ns3, simple2):
    sc = short(simple2).with_overrides({LOSS: 0.0, "links.1.ab.outages": [{"start_s": 3.0, "duration_s": 0.5}]})
    result = sc.run(engine="ns3")
    wireless = result.drops.set_index(["from", "to"]).loc[("BS", "D")]
    assert wireless["outage"] > 0 and wireless["channel"] == 0
    assert result.flows["to_wireless"][0] + result.flows["fr_wireless"][0] >= 1


def test_stop_ends_the_supply_of_new_data(ns3, simple2):
    """wtcp's stop_s: no new data after the stop (ns-3's send buffer still holds up to
    1 MiB the application wrote; it must not go out)."""
    # ssthresh 20 segments: no loss before the stop, and a window far below the send buffer,
    # so ns-3's socket holds most of 1 MiB unsent at the stop.
    sc = simple2.with_overrides({LOSS: 0.0, "tcp.initial_ssthresh_segments": 20, "run.duration_s": 12.0, "run.measure_from_s": 6.0, "flows.0.stop_s": 5.0})
    for engine in ("wtcp", "ns3"):
        result = sc.run(engine=engine)
        assert result.flows["goodput_bps"][0] == 0.0, engine
        assert 0.5e6 < result.flows["delivered_bytes"][0] < 4 * 2e6 / 8, engine
        assert result.flows["retransmitted_segments"][0] == 0, engine


def test_a_transfer_size_is_delivered_exactly(ns3, simple2):
    sc = short(simple2).with_overrides({"flows.0.bytes": 123456})
    for engine in ("wtcp", "ns3"):
        assert sc.run(engine=engine).flows["delivered_bytes"][0] == 123456, engine


def test_cbr_flows_send_at_wtcps_rate(ns3, simple2):
    cbr = {"kind": "cbr", "name": "udp", "src": "S", "dst": "D", "rate_mbps": 0.5, "packet_bytes": 512, "start_s": 1.0, "count": 2, "start_stagger_s": 0.5}
    sc = short(simple2, 11.0).with_overrides({LOSS: 0.0, "flows.0": cbr})
    native, other = sc.run(), sc.run(engine="ns3")
    assert list(other.flows["name"]) == ["udp-1", "udp-2"]
    for col in ("segments_sent", "packets_received", "delivered_bytes", "goodput_bps"):
        assert list(native.flows[col]) == list(other.flows[col]), col


def test_routes_cross_several_hops(ns3, simple2):
    """A node E behind S: E -> D crosses three links along the static routes, and the
    ACKs find their way back."""
    extra = {"nodes.3": {"name": "E"}, "links.2": {"a": "E", "b": "S", "rate_mbps": 100.0, "delay_ms": 1.0, "link_header_bytes": 2}, "flows.0.src": "E"}
    result = short(simple2).with_overrides(extra).run(engine="ns3")
    assert result.flows["goodput_mbps"][0] > 1.0
    assert result.drops.set_index(["from", "to"]).loc[("E", "S"), "tx_packets"] > 500


# --- sweeps and the cross-check ---


def test_engine_is_a_sweep_axis(ns3, tmp_path: Path):
    from wtcp.sweep import InlineExecutor, load_sweep, open_store, run_sweep

    sweep = load_sweep({"scenario": str(reference_path()), "set": {"run.duration_s": 4.0, **MATCHED}, "grid": {"engine": ["wtcp", "ns3"], LOSS: [0.0, 0.02]}})
    outcome = run_sweep(sweep, tmp_path / "s.duckdb", InlineExecutor())
    assert outcome.done == 4
    runs = open_store(tmp_path / "s.duckdb").runs()
    assert sorted(runs["engine"]) == ["ns3", "ns3", "wtcp", "wtcp"]
    # The engine is not part of a point's random streams.
    assert runs.groupby("links_1_ab_loss_rate")["stream"].nunique().eq(1).all()


def test_refused_points_of_a_sweep_are_failed_runs():
    from wtcp.sweep import load_sweep

    sweep = load_sweep({"scenario": str(reference_path()), "set": {"engine": "ns3", **MATCHED}, "grid": {"flows.0.cc": ["newreno", "reno"]}})
    errors = {r.params["flows.0.cc"]: r.error for r in sweep.runs()}
    assert errors["newreno"] is None and "flows.0.cc" in errors["reno"]
    with pytest.raises(ValueError, match="grid.engine.1"):
        load_sweep({"scenario": str(reference_path()), "grid": {"engine": ["wtcp", "ns2"]}})


def test_crosscheck_newreno_on_the_reference_scenario(ns3, simple2):
    """wtcp against ns-3 on simple2, NewReno, 0 and 1 % loss, seed 1, the full 200 s (a
    shorter run is dominated by the start-up overshoot, which the two recover from
    differently). The band is the reference's own criterion (shared/reference/
    ns3-reference.md: "A well-built NewReno should land within about 10 % of these
    goodputs"); known modelling differences (ns-3 halves its pipe estimate plus one
    segment rather than FlightSize, and without SACK retransmits segments the receiver
    already holds after a timeout) account for a few percent, one seed's noise for 2-3 %."""
    rows = crosscheck(simple2, [{LOSS: 0.0}, {LOSS: 0.01}], ["newreno"], [1])
    for row in rows:
        assert abs(row.diff_percent()) < 10.0, (row.point, row.wtcp, row.ns3)
        assert row.ns3.timeouts[0] <= 10 and row.wtcp.timeouts[0] <= 10
    lossless, lossy = rows
    assert lossy.ns3.mean("goodput_mbps") < lossless.ns3.mean("goodput_mbps")
    lines = format_table("title", rows, [LOSS])
    assert all(len(line) <= 80 for line in lines)
    assert any("newreno" in line and "rate=0.01" in line for line in lines)
    assert not math.isnan(rows[1].diff_percent())


def test_both_engines_count_throughput_where_the_source_puts_it_on_the_wire(ns3):
    # 5 Mb/s of CBR offered to a 2 Mb/s first link: what the source's queue refuses is
    # counted by neither engine.
    sc = wtcp.load(reference_path()).with_overrides(
        {"run.duration_s": 10.0, "links.0.rate_mbps": 2.0, "flows.0": {"name": "cbr", "kind": "cbr", "src": "S", "dst": "D", "rate_mbps": 5.0, "packet_bytes": 512}}
    )
    rates = [sc.run(engine=e, seed=1).raw["flows"][0]["throughput_bps"] for e in ("wtcp", "ns3")]
    for r in rates:
        assert 0.9 * 2e6 <= r <= 2e6, rates
    assert abs(rates[0] - rates[1]) <= 0.01 * rates[1], rates


def test_with_the_same_packets_lost_newreno_with_sack_matches_ns3_to_the_segment(ns3):
    """The `ns3` profile reproduces ns-3's TCP packet for packet when both engines lose the
    same packets: simple2, NewReno with SACK and PRR (ns-3's defaults), 1000 of the first
    20 000 data packets on the lossy hop lost by a list (the nth packet the model sees, so
    the same packets for as long as the engines send the same sequence), 60 s. This holds
    with ns-3's first ACK, handshake ACK, advertised window and PRR's entering ACK matched;
    it is what the random-loss grid cannot show, since the engines draw losses apart."""
    import random

    lost = sorted(random.Random(7).sample(range(1, 20001), 1000))
    sc = wtcp.load(reference_path()).with_overrides(
        {"profile": "ns3", "run.duration_s": 61.0, "links.1.ab.loss": {"model": "list", "packets": lost}}
    )
    w, n = (sc.run(engine=e, seed=1).raw["flows"][0] for e in ("wtcp", "ns3"))
    assert abs(w["goodput_bps"] - n["goodput_bps"]) <= 0.005 * n["goodput_bps"], (w["goodput_bps"], n["goodput_bps"])
    assert abs(w["retransmitted_segments"] - n["retransmitted_segments"]) <= 2
    assert w["timeouts"] == n["timeouts"] and abs(w["fast_retransmits"] - n["fast_retransmits"]) <= 2
