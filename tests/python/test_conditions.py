"""A scheme run outside its paper's conditions says so: in the result, on `wtcp run`'s and
`wtcp sweep`'s stderr, and in the demo's figure title (crates/wtcp-engine/src/scenario/
conditions.rs decides; these tests check that every front end carries it)."""

from __future__ import annotations

import pandas as pd
from conftest import run_cli

import wtcp
from wtcp.demo import goodput_figure, outside_by_algorithm, outside_conditions

SHORT = ["--set", "run.duration_s=3"]


def test_a_run_without_its_papers_conditions_warns_and_stores_it():
    result = wtcp.load("reference-simple2").with_overrides({"run.duration_s": 3.0, "flows.0.cc": "njplus"}).run()
    assert any("njplus runs without tcp.timestamps" in w for w in result.warnings)
    assert any("no congestion-warning queue" in w for w in result.warnings)
    done = run_cli("run", "reference-simple2", *SHORT, "--set", "flows.0.cc=ewr")
    assert done.returncode == 0, done.stderr
    assert "ewr runs with delayed ACKs" in done.stderr


def test_a_run_within_its_papers_conditions_does_not_warn():
    result = wtcp.load("njplus-two-hop").with_overrides({"run.duration_s": 3.0, "flows.0.cc": "njplus"}).run()
    assert result.warnings == []


def test_a_sweep_prints_each_distinct_warning_once_with_its_run_count(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text('scenario = "reference-simple2"\n[set]\n"run.duration_s" = 3.0\n"flows.0.cc" = "clap"\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01]\n')
    done = run_cli("sweep", str(sweep), "--store", str(tmp_path / "s.duckdb"), "--quiet")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning (2 runs):")]
    assert len(lines) == 1 and "no MAC retry-limit hint" in lines[0]


def test_the_demo_names_the_schemes_run_outside_their_conditions():
    warnings = ["flow `bulk`: ewr runs with delayed ACKs; its paper's rule (b) counts one ACK per segment", "flow `bulk`: some of their segments were lost on the path"]
    assert outside_conditions("ewr", warnings) == [warnings[0].split(": ", 1)[1]]
    assert outside_conditions("reno", warnings) == []
    sweep = pd.DataFrame({"algorithm": ["ewr", "reno"], "loss_percent": [0.0, 0.0], "seed": [1, 1], "goodput_mbps": [1.0, 1.9],
                          "outside": ["; ".join(outside_conditions("ewr", warnings)), ""]})
    assert list(outside_by_algorithm(sweep)) == ["ewr"]
    wide = sweep.pivot_table(index="loss_percent", columns="algorithm", values="goodput_mbps")[["ewr", "reno"]]
    fig = goodput_figure(wide, "demo", sweep)
    assert "outside their papers' conditions (see `wtcp demo` output): ewr" in fig._suptitle.get_text()
