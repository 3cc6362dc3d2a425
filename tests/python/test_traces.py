"""Capacity traces from Python and the `wtcp trace` command: generation, loading, summaries,
errors, and trace files found beside the scenario that names them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wtcp
from wtcp import traces
from conftest import run_cli

MARKOV = {"model": "markov", "rates_mbps": [2.0, 12.0], "mean_holding_s": [1.0, 3.0], "duration_s": 30.0, "seed": 5}


def test_a_constant_step_model_is_evenly_spaced_opportunities():
    t = traces.generate({"model": "steps", "steps": [[1.0, 12.0]], "duration_s": 1.0})
    assert t.kind == "opportunities"
    assert t.times_ms.tolist() == list(range(1, 1001)), "one 1500-byte opportunity per ms at 12 Mb/s"
    s = t.summary(bin_s=0.1)
    assert s["mean_mbps"] == pytest.approx(12.0) and s["outage_share"] == 0.0 and s["opportunities"] == 1000


def test_generated_traces_round_trip_through_a_mahimahi_file(tmp_path: Path):
    t = traces.generate(MARKOV)
    path = tmp_path / "m.trace"
    path.write_text(t.to_mahimahi())
    again = traces.load(path)
    assert np.array_equal(again.times_ms, t.times_ms)
    assert again.period_s == 30.0
    # The model's mean: between its two rates, weighted toward the longer-held 12 Mb/s.
    assert 2.0 < t.mean_mbps() < 12.0


def test_the_same_seed_gives_the_same_trace_and_the_table_text_is_accepted():
    text = '{ model = "markov", rates_mbps = [2.0, 12.0], mean_holding_s = [1.0, 3.0], duration_s = 30.0, seed = 5 }'
    assert np.array_equal(traces.generate(MARKOV).times_ms, traces.generate(text).times_ms)
    unseeded = {k: v for k, v in MARKOV.items() if k != "seed"}
    assert not np.array_equal(traces.generate(unseeded, seed=1).times_ms, traces.generate(unseeded, seed=2).times_ms)


def test_a_csv_series_summarises_its_steps(tmp_path: Path):
    path = tmp_path / "r.csv"
    path.write_text("time_s,rate_mbps\n0,4\n1,0\n2,0\n")
    t = traces.load(path, "csv")
    s = t.summary(bin_s=0.5)
    assert (s["mean_mbps"], s["outage_share"], s["period_s"]) == (2.0, 0.5, 2.0)
    lin = traces.load(path, "csv", "linear")
    assert lin.mean_mbps() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "spec, field",
    [
        ({"model": "markov", "rates_mbps": [1.0], "duration_s": 5.0}, "capacity.rates_mbps"),
        ({"model": "steps", "steps": [[1.0, 2.0]], "duration_s": 1.0, "sigma_mbps": 1.0}, "capacity.sigma_mbps"),
        ({"model": "random_walk", "start_mbps": 5.0, "min_mbps": 6.0, "max_mbps": 4.0, "sigma_mbps": 1.0, "step_s": 0.1, "duration_s": 5.0}, "capacity.max_mbps"),
        ({"model": "on_off", "on_mbps": 5.0, "mean_on_s": 1.0, "mean_off_s": 0.0, "duration_s": 5.0}, "capacity.mean_off_s"),
        ({"model": "weather", "duration_s": 5.0}, "capacity"),
    ],
)
def test_bad_specs_raise_a_value_error_naming_the_field(spec, field):
    with pytest.raises(wtcp.ScenarioError) as info:
        traces.generate(spec)
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(field), str(info.value)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=200), st.floats(0.01, 2.0))
def test_binned_rates_carry_every_opportunity_once(ms, bin_s):
    """Whatever the bins, their capacity adds up to 1500 bytes per opportunity."""
    ms = sorted(ms)
    if ms[-1] == 0:
        ms[-1] = 1
    t = traces.Trace("opportunities", times_ms=np.array(ms))
    starts, mbps = t.rate(bin_s)
    widths = np.minimum(starts + bin_s, t.period_s) - starts
    assert np.sum(mbps * widths) * 1e6 / 8 == pytest.approx(1500 * len(ms))


def test_cli_generates_summarises_and_plots(tmp_path: Path):
    out = tmp_path / "g.trace"
    spec = '{ model = "on_off", on_mbps = 12.0, mean_on_s = 2.0, mean_off_s = 0.5, duration_s = 20.0, seed = 2 }'
    done = run_cli("trace", "generate", spec, "--out", str(out))
    assert done.returncode == 0, done.stderr
    stdout = run_cli("trace", "generate", spec)
    assert stdout.stdout == out.read_text()
    summary = run_cli("trace", "summary", str(out), "--json")
    assert summary.returncode == 0, summary.stderr
    s = json.loads(summary.stdout)
    assert 0.0 < s["outage_share"] < 0.5 and s["mean_mbps"] < 12.0
    png = tmp_path / "g.png"
    assert run_cli("trace", "plot", str(out), "--out", str(png)).returncode == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_errors_exit_2_with_the_field_or_the_file_and_line(tmp_path: Path):
    done = run_cli("trace", "generate", '{ model = "markov", rates_mbps = [1] , duration_s = 5.0 }')
    assert done.returncode == 2 and "capacity.rates_mbps" in done.stderr and "Traceback" not in done.stderr
    bad = tmp_path / "bad.trace"
    bad.write_text("1\n5\n3\n")
    done = run_cli("trace", "summary", str(bad))
    assert done.returncode == 2 and "line 3" in done.stderr and str(bad) in done.stderr
    target = tmp_path / "elsewhere.png"
    link = tmp_path / "link.png"
    link.symlink_to(target)
    good = tmp_path / "one.trace"
    good.write_text("1\n")
    done = run_cli("trace", "plot", str(good), "--out", str(link))
    assert done.returncode == 2 and not target.exists(), done.stderr


def test_a_scenario_finds_its_trace_beside_it_from_any_directory(tmp_path: Path, monkeypatch):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "one.trace").write_text("1\n")
    text = wtcp.builtin_scenario_path("cellular-trace").read_text()
    text = text.replace('ab = { capacity = { trace = "traces/lte-markov.trace" } }', 'ab = { capacity = { trace = "traces/one.trace" } }')
    text = text.replace('ba = { capacity = { trace = "traces/uplink-walk.trace" } }', "")
    (tmp_path / "cell.toml").write_text(text)
    elsewhere = tmp_path / "run-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sc = wtcp.Scenario.from_file(tmp_path / "cell.toml").set("run.duration_s", 20.0).set("flows.0.cc", "newreno")
    assert sc.document["links"][1]["ab"]["capacity"]["trace"] == os.fspath(tmp_path / "traces" / "one.trace")
    goodput = sc.run().flows["goodput_bps"].iloc[0]
    # The file `1` is 12 Mb/s of 1500-byte IP packets: a flow that keeps the base
    # station's queue from running dry (NewReno, 200 packets of buffer) gets 12 Mb/s times
    # the payload share, within 1 %.
    ceiling = 12e6 * 1448 / 1500
    assert goodput == pytest.approx(ceiling, rel=0.01)


def test_the_shipped_cellular_scenario_runs_and_traces_the_capacity(tmp_path: Path):
    sc = wtcp.load(wtcp.builtin_scenario_path("cellular-trace")).with_overrides({"run.duration_s": 20.0, "trace.enabled": True, "trace.interval_ms": 100.0})
    res = sc.run()
    q = res.traces.queues
    down = q[q["link"] == "cellular:BS->phone"]
    mean = traces.load(wtcp.builtin_scenario_path("cellular-trace").parent / "traces" / "lte-markov.trace").rate(0.1)[1][:200].mean()
    assert down["capacity_mbps"].mean() == pytest.approx(mean, rel=0.05)
    assert 0 < res.flows["goodput_bps"].iloc[0] < mean * 1e6


def test_a_trace_study_stores_delays_and_draws_pantheons_figure(tmp_path: Path):
    """The README's study in reduced form: algorithms over traces, a trace file and the
    bottleneck's discipline as sweep axes; the store holds each flow's delay percentiles,
    the delay-throughput figure is drawn from them, and `wtcp report` shows it."""
    from wtcp.htmlreport import store_report
    from wtcp.sweep import InlineExecutor, load_sweep, open_store, run_sweep

    tr = wtcp.builtin_scenario_path("cellular-trace").parent / "traces"
    sweep = load_sweep({"scenario": "cellular-trace", "algorithms": ["cubic", "vegas"], "replications": 1, "set": {"run.duration_s": 10.0},
                        "grid": {"links.1.ab.capacity.trace": [str(tr / "lte-markov.trace"), str(tr / "wifi-fades.trace")],
                                 "links.1.queue.discipline": ["droptail", "codel"]}})
    assert run_sweep(sweep, tmp_path / "s.duckdb", InlineExecutor()).done == 8
    store = open_store(tmp_path / "s.duckdb")
    flows = store.flows()
    assert (flows["delay_p50_ms"] <= flows["delay_p95_ms"]).all() and (flows["delay_p95_ms"] <= flows["delay_p99_ms"]).all()
    p95 = flows.groupby(["algorithm", "links_1_queue_discipline"])["delay_p95_ms"].mean()
    # With DropTail, Vegas keeps the cellular queue short and CUBIC fills it: a delay gap
    # of several times. CoDel at the bottleneck takes most of CUBIC's queueing delay away.
    assert p95["vegas", "droptail"] * 3 < p95["cubic", "droptail"], p95
    assert p95["cubic", "codel"] * 2 < p95["cubic", "droptail"], p95
    fig = store.plot_delay_throughput(tmp_path / "dt.png", where={"links.1.queue.discipline": "codel"})
    assert (tmp_path / "dt.png").stat().st_size > 1000
    assert fig.axes[0].get_xscale() == "log" and fig.axes[0].xaxis_inverted()
    with pytest.raises(ValueError, match="delay_p42_ms"):
        store.plot_delay_throughput(delay="delay_p42_ms")
    store.close()
    page = store_report(tmp_path / "s.duckdb", tmp_path / "report.html").read_text()
    assert "throughput against p95 one-way delay" in page and page.count("<figure>") >= 2


def test_a_sweep_file_finds_its_trace_files_beside_it(tmp_path: Path, monkeypatch):
    """Relative trace paths in a sweep file resolve from the sweep file's folder, as its
    scenario does, in both the path form and the table form."""
    from wtcp.sweep import load_sweep

    (tmp_path / "study" / "traces").mkdir(parents=True)
    for name in ("one.trace", "two.trace"):
        (tmp_path / "study" / "traces" / name).write_text("1\n")
    (tmp_path / "study" / "s.toml").write_text(
        'scenario = "cellular-trace"\n[set]\n"run.duration_s" = 6.0\n"links.1.ba.capacity" = { trace = "traces/two.trace" }\n'
        '[grid]\n"links.1.ab.capacity.trace" = ["traces/one.trace", "traces/two.trace"]\n'
    )
    monkeypatch.chdir(tmp_path)
    sweep = load_sweep(tmp_path / "study" / "s.toml")
    where = tmp_path / "study" / "traces"
    assert sweep.grid["links.1.ab.capacity.trace"] == [os.fspath(where / "one.trace"), os.fspath(where / "two.trace")]
    assert sweep.fixed["links.1.ba.capacity.trace"] == os.fspath(where / "two.trace")  # a table is read key by key
    runs = list(sweep.runs())
    assert len(runs) == 2 and all(r.error is None for r in runs), [r.error for r in runs]


def test_wtcp_run_prints_delays_only_when_recorded():
    done = run_cli("run", "cellular-trace", "--set", "run.duration_s=10")
    assert done.returncode == 0, done.stderr
    assert "delays (ms; metrics.delays)" in done.stdout and "queueing delay per link direction" in done.stdout
    off = run_cli("run", "cellular-trace", "--set", "run.duration_s=10", "--set", "metrics.delays=false")
    assert off.returncode == 0 and "delays (ms" not in off.stdout
