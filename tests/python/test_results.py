"""Result: metrics as dicts and DataFrames; traces when asked for."""

from __future__ import annotations

import json

import pytest

import wtcp

FLOW_COLUMNS = [
    "id", "name", "kind", "cc", "src", "dst", "goodput_bps", "throughput_bps", "delivered_bytes", "segments_sent",
    "retransmitted_segments", "unnecessary_retransmissions", "fast_retransmits", "timeouts", "max_backoff",
    "fr_congestion", "fr_wireless", "fr_spurious", "to_congestion", "to_wireless", "to_spurious",
    "verdict_congestion", "verdict_wireless", "verdict_none", "mean_srtt_s", "packets_received",
    "goodput_mbps", "throughput_mbps",
]  # fmt: skip
TRACE_COLUMNS = {
    "flows": ["time", "flow", "cwnd", "ssthresh", "srtt", "rto", "snd_una", "snd_nxt", "in_recovery", "backoff", "delivered"],
    "cc": ["time", "flow", "name", "value"],
    "queues": ["time", "dir", "link", "packets", "bytes"],
    "losses": ["time", "flow", "timeout", "seq", "cause", "verdict"],
    "drops": ["time", "dir", "link", "flow", "kind", "seq", "cause"],
}


@pytest.fixture
def result(reference) -> wtcp.Result:
    return reference.run(seed=1)


def test_flow_frame_has_flattened_counters_and_mbps(result):
    flows = result.flows
    assert set(FLOW_COLUMNS) <= set(flows.columns)
    assert len(flows) == len(result.raw["flows"]) == 1
    row, raw = flows.iloc[0], result.raw["flows"][0]
    assert row["goodput_mbps"] == pytest.approx(raw["goodput_bps"] / 1e6)
    assert row["fr_wireless"] == raw["fast_retransmit_causes"]["wireless"]
    assert row["to_congestion"] == raw["timeout_causes"]["congestion"]
    assert row["verdict_none"] == raw["loss_verdicts"]["none"]
    assert row["fr_congestion"] + row["fr_wireless"] + row["fr_spurious"] == row["fast_retransmits"]


def test_confusion_matrix_rows_are_the_causes_and_columns_the_verdicts():
    # Veno classifies every loss, so the matrix has something in it at 2 % loss.
    two_hop = wtcp.load(wtcp.builtin_scenario_path("two-hop-wireless")).set("run.duration_s", 60.0)
    flows = two_hop.set("flows.0.cc", "veno").set("links.1.ab.loss.rate", 0.02).run(seed=2).flows
    row = flows.iloc[0]
    causes, verdicts = ("congestion", "wireless", "spurious"), ("congestion", "wireless", "none")
    for cause in causes:
        assert sum(row[f"cm_{cause}_{v}"] for v in verdicts) == row[f"fr_{cause}"] + row[f"to_{cause}"]
    for v in verdicts:
        assert sum(row[f"cm_{c}_{v}"] for c in causes) == row[f"verdict_{v}"]
    assert row["cm_wireless_wireless"] > 0


def test_drop_frame_has_one_row_per_link_direction(result):
    drops = result.drops
    assert list(drops.columns) == ["link", "from", "to", "queue", "channel", "outage", "tx_packets", "arq_retries", "retry_limit_drops", "sojourn_mean_ms", "sojourn_p95_ms"]
    assert len(drops) == len(result.raw["drops"]) == 4  # two links, two directions each
    assert drops["channel"].sum() > 0  # 1 % loss on the wireless hop


def test_summary_warnings_and_json(result):
    summary = result.summary
    assert set(summary) >= {"seed", "replication", "jain_fairness", "events", "sim_seconds", "wall_seconds", "warnings"}
    assert summary["seed"] == 1 and summary["events"] > 0
    assert result.warnings == []
    assert json.loads(result.to_json()) == result.raw
    assert "reference-simple2" in repr(result)


def test_no_traces_unless_asked(reference):
    assert reference.run().traces is None
    assert reference.set("trace.enabled", True).run(trace=False).traces is None


def test_traces_when_asked(reference, tmp_path):
    result = reference.run(trace=True)
    traces = result.traces
    assert traces is not None
    for table, columns in TRACE_COLUMNS.items():
        frame = getattr(traces, table)
        assert set(columns) <= set(frame.columns), table
    assert len(traces.flows) > 0 and len(traces.queues) > 0 and len(traces.drops) > 0
    assert set(traces.queues["link"]) == set(traces.dir_names)
    assert set(traces.drops["link"]) == {"wireless:BS->D"}
    assert set(traces.drops["cause"]) == {"channel"}
    written = traces.to_csv(tmp_path / "traces")
    assert sorted(p.name for p in written) == sorted(f"{t}.csv" for t in TRACE_COLUMNS)
    assert all(p.stat().st_size > 0 for p in written)


def test_trace_interval_sets_the_sampling(reference):
    fine = reference.run(trace_interval_ms=10.0).traces
    coarse = reference.run(trace_interval_ms=100.0).traces
    assert fine is not None and coarse is not None
    assert len(fine.flows) > 5 * len(coarse.flows)
    assert reference.set("trace.enabled", True).run().traces is not None


def test_zero_progress_gives_zero_goodput_and_a_warning(reference):
    result = reference.set("links.1.ab.loss.rate", 1.0).run()
    assert result.flows.loc[0, "goodput_bps"] == 0
    assert result.flows.loc[0, "timeouts"] > 0
    assert result.warnings


def test_wifi_station_statistics_come_back_as_a_dataframe():
    r = wtcp.load(wtcp.builtin_scenario_path("wifi-one-hop")).set("run.duration_s", 10).run()
    assert list(r.wifi["node"]) == ["AP", "STA"]
    assert (r.wifi["successes"] > 0).all()
    plain = wtcp.load(wtcp.builtin_scenario_path("reference-simple2")).set("run.duration_s", 5).run()
    assert plain.wifi.empty
