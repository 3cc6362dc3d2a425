"""The demo's pieces: finding the wireless loss, switching algorithms, sweeping, plotting."""

from __future__ import annotations

import pytest

import wtcp
from wtcp import demo
from conftest import demo_path, run_cli


@pytest.fixture(scope="module")
def demo_scenario() -> wtcp.Scenario:
    return wtcp.load(demo_path()).set("run.duration_s", 60.0)


def test_the_wireless_loss_is_found_by_link_name(demo_scenario):
    path = demo.wireless_loss_path(demo_scenario)
    index = int(path.split(".")[1])
    assert path == f"links.{index}.ab.loss"
    assert demo_scenario.document["links"][index]["name"] == "wireless"
    lossy = demo.with_uniform_loss(demo_scenario, path, 0.04)
    assert lossy.document["links"][index]["ab"]["loss"] == {"model": "uniform", "rate": 0.04}


def test_a_scenario_without_a_wireless_link_is_an_error(demo_scenario):
    renamed = demo_scenario.set("links.1.name", "radio")
    with pytest.raises(wtcp.ScenarioError) as info:
        demo.wireless_loss_path(renamed)
    assert info.value.path == "links"
    assert "radio" in info.value.reason


def test_with_algorithm_switches_every_tcp_flow(demo_scenario):
    two = demo_scenario.set("flows.1", {"name": "second", "src": "S", "dst": "D", "cc_params": {"byte_counting": True}})
    switched = demo.with_algorithm(two, "reno")
    assert [f["cc"] for f in switched.document["flows"]] == ["reno", "reno"]
    assert all(f["cc_params"] == {} for f in switched.document["flows"])


def test_sweep_has_every_combination_and_goodput_falls_with_loss(demo_scenario):
    names = [a["name"] for a in wtcp.algorithms()]
    sweep = demo.goodput_sweep(demo_scenario, names, [0.0, 5.0], [1, 2], workers=2)
    assert len(sweep) == len(names) * 2 * 2
    assert list(sweep.columns) == ["algorithm", "loss_percent", "seed", "goodput_mbps", "outside"]
    wide = demo.mean_goodput(sweep, names)
    assert list(wide.columns) == names
    assert list(wide.index) == [0.0, 5.0]
    assert (wide.loc[0.0] > wide.loc[5.0]).all()


def test_plot_is_a_png(demo_scenario, tmp_path):
    sweep = demo.goodput_sweep(demo_scenario, ["newreno"], [0.0, 2.0], [1])
    path = demo.plot_goodput(demo.mean_goodput(sweep, ["newreno"]), tmp_path / "plot.png", "title")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_run_demo_writes_both_files(demo_scenario, tmp_path):
    wide, paths = demo.run_demo(tmp_path, quick=True, scenario=demo_scenario)
    assert [p.name for p in paths] == [demo.PLOT_FILE, demo.CSV_FILE]
    assert all(p.is_file() for p in paths)
    assert list(wide.index) == list(demo.QUICK_LOSS_PERCENT)
    assert demo.demo_size(quick=True) == len(wtcp.algorithms()) * len(demo.QUICK_LOSS_PERCENT)


def test_the_demo_runs_only_the_algorithms_asked_for(tmp_path):
    done = run_cli("demo", "--quick", "--algorithms", "newreno,cubic", "--out", str(tmp_path / "d"))
    assert done.returncode == 0, done.stderr
    header = (tmp_path / "d" / "goodput-vs-loss.csv").read_text().splitlines()[0].split(",")
    assert header == ["loss_percent", "newreno", "cubic"]


def test_an_unknown_demo_algorithm_exits_2_with_a_suggestion(tmp_path):
    done = run_cli("demo", "--quick", "--algorithms", "newreno,westwod", "--out", str(tmp_path / "d"))
    assert done.returncode == 2
    assert "--algorithms: unknown algorithm `westwod` (did you mean westwood or westwoodplus?)" in done.stderr
    assert not (tmp_path / "d").exists()
