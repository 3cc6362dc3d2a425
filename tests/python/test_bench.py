"""The benchmark's scenarios build and run, and its output has the promised structure
(shortened runs; speed itself is never asserted)."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys

import pytest

import wtcp
from wtcp import bench
from wtcp.ns3 import available


def test_dumbbell_document_builds_a_runnable_scenario():
    document = bench.dumbbell_document(flows=5, rate_mbps=20.0, duration_s=3.0)
    starts = [f["start_s"] for f in document["flows"]]
    assert starts[0] == 0.0 and starts[-1] == 1.0 and starts == sorted(starts)
    assert next(link for link in document["links"] if link.get("name") == "bottleneck")["rate_mbps"] == 20.0
    result = wtcp.Scenario.from_dict(document).run()
    assert len(result.flows) == 5
    assert (result.flows["goodput_bps"] > 0).all()
    assert "bottleneck" in set(result.drops["link"])


def test_random_topology_is_connected_reproducible_and_runs():
    document = bench.random_topology_document(nodes=60, extra_links=20, flows=30, duration_s=1.0, seed=4)
    assert document == bench.random_topology_document(nodes=60, extra_links=20, flows=30, duration_s=1.0, seed=4)
    assert len(document["links"]) == 59 + 20
    # A spanning tree plus extra links: every node reaches node 0.
    adjacent: dict[str, set[str]] = {}
    for link in document["links"]:
        adjacent.setdefault(link["a"], set()).add(link["b"])
        adjacent.setdefault(link["b"], set()).add(link["a"])
    seen, todo = {"n0"}, ["n0"]
    while todo:
        for n in adjacent[todo.pop()] - seen:
            seen.add(n)
            todo.append(n)
    assert len(seen) == 60
    assert max(f["start_s"] for f in document["flows"]) == pytest.approx(0.5)
    result = wtcp.Scenario.from_dict(document).run()
    assert len(result.flows) == 30 and (result.flows["goodput_bps"] > 0).all()


def test_a_run_with_more_flows_takes_more_memory_per_run():
    small = bench.peak_rss_growth_kib(bench.dumbbell_document(flows=10, duration_s=2.0))
    large = bench.peak_rss_growth_kib(bench.dumbbell_document(flows=2000, duration_s=2.0))
    assert 0 < small < large


def test_short_dumbbell_starts_every_flow_within_the_run():
    document = bench.dumbbell_document(flows=10, duration_s=0.4)
    assert max(f["start_s"] for f in document["flows"]) == pytest.approx(0.2)
    wtcp.Scenario.from_dict(document)  # checked: a flow starting after the end is refused


def test_compared_cases_are_matched_to_ns3_in_both_engines():
    for name, scenario in bench.comparison_scenarios().items():
        sc, overrides = bench.matched(scenario, duration_scale=0.5)
        assert overrides["run.duration_s"] == scenario.document["run"]["duration_s"] * 0.5, name  # all start in the first 2 s
        assert sc.document["tcp"]["handshake"] is True, name
        assert all(f["cc_params"]["halve"] == "pipe" for f in sc.document["flows"] if f.get("cc", "newreno") == "newreno"), name


def test_no_hard_coded_ns3_figure():
    source = inspect.getsource(bench)
    assert not re.search(r"^NS3_\w+\s*=", source, re.MULTILINE)


def run_bench(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "wtcp.bench", "--quick", "--duration-scale", "0.01", *args], capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_output_without_ns3_lists_every_case_and_says_ns3_was_not_run():
    out = run_bench("--no-ns3")
    for case in ["simple2", "dumbbell-10", "lossy-hop-20", "wifi-n-aggregation", "wifi-distance", "wifi-minstrel", *(c.label for c in bench.SCALE)]:
        assert case in out
    assert "ns-3 not run: --no-ns3" in out
    # The Python NewReno ran every case with NewReno flows (all but the 802.11n one's
    # CUBIC) through the same sender: the built-in's results.
    assert "NewReno written in Python" in out and out.count("yes, bit for bit") == 3
    assert "median of 1" in out
    assert "ns/event" in out


@pytest.mark.skipif(not available(), reason="ns-3 (the ns3 package) is not installed")
def test_output_with_ns3_prints_the_measured_ratio():
    out = run_bench()
    # Each case: ns-3 with wtcp's trace sinks and ns-3 bare, both against wtcp; the bare
    # run is the same simulation (same events and goodput, checked by the bench).
    ratios = re.findall(r"│\s*(\d+)x\s*│", out)
    assert len(ratios) == 2 * len(bench.comparison_scenarios()), out
    assert "not the same run" not in out
    assert "ns-3 not run" not in out
