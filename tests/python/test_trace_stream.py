"""Traces streamed to a directory (`Scenario.run(trace_dir=...)`, `wtcp run --trace DIR`):
the same files as the in-memory traces, in bounded memory."""

from __future__ import annotations

import pytest

import wtcp
from wtcp import _core
from wtcp.result import TRACE_TABLES

from conftest import without_wall

# Three TCP flows and ten link directions: a 1 ms sample is 13 rows.
SCENARIO = "dumbbell-reverse-udp"


def dumbbell(duration_s: float) -> wtcp.Scenario:
    return wtcp.load(wtcp.builtin_scenario_path(SCENARIO)).with_overrides({"run.duration_s": duration_s})


def test_streamed_files_equal_the_in_memory_traces(tmp_path):
    sc = dumbbell(60.0)
    whole = sc.run(trace=True, trace_interval_ms=1)
    whole.traces.to_csv(tmp_path / "memory")
    streamed = sc.run(trace_interval_ms=1, trace_dir=tmp_path / "streamed")
    assert streamed.traces is None
    assert without_wall(streamed.to_json()) == without_wall(whole.to_json())
    rows = sum(len(getattr(whole.traces, t)) for t in TRACE_TABLES)
    # Several chunks, so that the appending is what is compared.
    assert rows > 5 * _core.TRACE_CHUNK_ROWS
    for t in TRACE_TABLES:
        assert (tmp_path / "streamed" / f"{t}.csv").read_bytes() == (tmp_path / "memory" / f"{t}.csv").read_bytes(), t


def peak_heap_mb(sc: wtcp.Scenario, **kw) -> float:
    control = wtcp.RunControl()
    sc.run(trace_interval_ms=2, control=control, **kw)
    return control.peak_heap_mb


def test_streamed_trace_memory_does_not_grow_with_duration(tmp_path):
    short = peak_heap_mb(dumbbell(40.0), trace_dir=tmp_path / "short")
    long = peak_heap_mb(dumbbell(400.0), trace_dir=tmp_path / "long")
    held = peak_heap_mb(dumbbell(400.0), trace=True)
    # 400 s at 2 ms is 2.6e6 rows: held in memory, 156 MB (measured). Streamed, the run
    # holds one chunk of about TRACE_CHUNK_ROWS rows (65536 rows of at most 16 columns of
    # 8 bytes is 8 MiB), in columns grown by doubling, so up to twice that: measured
    # 3.3 MB at 40 s and 5.0 MB at 400 s.
    assert held > 100
    assert long < 16
    assert long < 2 * short


def test_an_exception_in_the_sink_stops_the_run():
    chunks = []

    def sink(tables):
        chunks.append(len(tables["flows"]["time"]))
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        _core.run(dumbbell(60.0).with_overrides({"trace.enabled": True, "trace.interval_ms": 1})._resolved_toml, "toml", [], None, sink)
    assert len(chunks) == 1


def test_the_last_chunk_comes_after_the_run(tmp_path):
    # A run shorter than a chunk: one chunk, at the end, with every row.
    sc = dumbbell(40.0).with_overrides({"trace.interval_ms": 100})
    chunks = []
    _, traces = _core.run(sc.with_overrides({"trace.enabled": True})._resolved_toml, "toml", [], None, chunks.append)
    assert traces is None
    whole = sc.run(trace=True)
    assert len(chunks) == 1
    assert list(chunks[0]["flows"]["time"]) == list(whole.traces.flows["time"])


def test_streamed_traces_are_budgeted_on_disk(tmp_path):
    # 200 s every 1 us: 2e8 samples of 5 rows, over the memory budget held whole and
    # over the disk budget streamed; each refusal names its budget before the run starts.
    sc = wtcp.load(wtcp.builtin_scenario_path("two-hop-wireless"))
    with pytest.raises(wtcp.ScenarioError, match="memory budget"):
        sc.run(trace_interval_ms=0.001)
    with pytest.raises(wtcp.ScenarioError, match="disk budget") as refused:
        sc.run(trace_interval_ms=0.001, trace_dir=tmp_path / "t")
    assert "WTCP_DISK_BUDGET_GIB" in str(refused.value)
