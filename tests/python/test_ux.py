"""First-use friction: fields by name, built-in scenarios by name, sweep dry runs,
pruning failed runs, 80-column tables, one unit for every rate."""

from __future__ import annotations

import pytest

import wtcp
from wtcp.sweep import SweepError, load_sweep

from conftest import run_cli


@pytest.fixture(scope="module")
def two_hop() -> wtcp.Scenario:
    return wtcp.load("two-hop-wireless")


# --- 1. paths by name ---


@pytest.mark.parametrize(
    ("by_name", "by_index"),
    [
        ("links.wireless.ab.loss.rate", "links.1.ab.loss.rate"),
        ("flows.bulk.cc", "flows.0.cc"),
    ],
)
def test_a_name_addresses_the_same_element_as_its_index(two_hop, by_name, by_index):
    value = {"cc": "vegas"}.get(by_name.rsplit(".", 1)[1], 0.03)
    named = two_hop.set(by_name, value)
    assert named.document == two_hop.set(by_index, value).document
    assert named.overrides == ((by_index, wtcp.scenario.to_toml_value(value, by_index)),)


def test_nodes_by_name(two_hop):
    from wtcp.fieldpath import resolve_path

    assert resolve_path(two_hop.document, "nodes.BS.name") == "nodes.1.name"
    assert resolve_path(two_hop.document, "nodes.2") == "nodes.2"


def test_names_follow_earlier_overrides(two_hop):
    sc = two_hop.with_overrides({"flows.bulk.name": "main", "flows.main.cc": "vegas"})
    assert sc.document["flows"][0]["name"] == "main"
    assert sc.document["flows"][0]["cc"] == "vegas"


def test_an_unknown_name_lists_the_close_matches(two_hop):
    with pytest.raises(wtcp.ScenarioError) as e:
        two_hop.set("links.wireles.ab.loss.rate", 0.1)
    assert e.value.path == "links"
    assert "unknown name `wireles`" in str(e.value)
    assert "did you mean `wireless`" in str(e.value)
    assert "names: wired, wireless" in str(e.value)


def test_an_unknown_field_lists_the_close_matches(two_hop):
    with pytest.raises(wtcp.ScenarioError, match="did you mean `links`"):
        two_hop.set("lnks.0.rate_mbps", 1)
    with pytest.raises(wtcp.ScenarioError, match=r"flows\.0\.ccc: unknown field `ccc`; did you mean `cc`"):
        two_hop.set("flows.bulk.ccc", "vegas")


def test_run_set_takes_names():
    proc = run_cli("run", "two-hop-wireless", "--json", "--set", "run.duration_s=40", "--set", "flows.bulk.cc=\"vegas\"")
    assert proc.returncode == 0, proc.stderr
    assert '"cc":"vegas"' in proc.stdout.replace(" ", "")
    proc = run_cli("run", "two-hop-wireless", "--set", "links.wirless.rate_mbps=3")
    assert proc.returncode == 2
    assert "did you mean `wireless`" in proc.stderr


def test_a_sweep_grid_takes_names():
    sweep = load_sweep({"scenario": "two-hop-wireless", "set": {"run.duration_s": 40}, "grid": {"links.wireless.ab.loss.rate": [0.0, 0.02]}})
    runs = list(sweep.runs())
    assert [r.error for r in runs] == [None, None]
    rates = [wtcp.Scenario.from_toml(r.toml).document["links"][1]["ab"]["loss"]["rate"] for r in runs]
    assert rates == [0.0, 0.02]


def test_a_sweep_with_an_unknown_name_is_rejected_at_load(tmp_path):
    with pytest.raises(SweepError, match="grid.links.wireles.ab.loss.rate: links: unknown name `wireles`; did you mean `wireless`"):
        load_sweep({"scenario": "two-hop-wireless", "grid": {"links.wireles.ab.loss.rate": [0.01]}})
    file = tmp_path / "bad.toml"
    file.write_text('scenario = "two-hop-wireless"\n[grid]\n"flows.bulk.cx" = ["vegas"]\n')
    proc = run_cli("sweep", str(file), "--workers", "1")
    assert proc.returncode == 2
    assert "unknown field `cx`" in proc.stderr
    assert not (tmp_path / "bad.duckdb").exists()  # nothing stored, no run started


def test_a_name_and_its_index_are_one_path_in_a_sweep():
    with pytest.raises(SweepError, match="already given in grid as `links.wireless.ab.loss.rate`"):
        load_sweep({"scenario": "two-hop-wireless", "grid": {"links.wireless.ab.loss.rate": [0.01], "links.1.ab.loss.rate": [0.02]}})


def test_a_flow_with_count_is_one_element_with_one_name(two_hop):
    sc = two_hop.with_overrides({"flows.bulk.count": 3, "flows.bulk.cc": "vegas"})
    assert sc.document["flows"][0]["count"] == 3
    assert sc.document["flows"][0]["cc"] == "vegas"
    assert sc.overrides[1][0] == "flows.0.cc"


# --- 2. built-in scenarios by name ---


def test_run_takes_a_builtin_name_and_a_file_of_that_name_wins(tmp_path, monkeypatch):
    proc = run_cli("run", "two-hop-wireless", "--json", "--set", "run.duration_s=40")
    assert proc.returncode == 0, proc.stderr
    assert '"scenario":"two-hop-wireless"' in proc.stdout.replace(" ", "")
    text = wtcp.builtin_scenario_path("two-hop-wireless").read_text().replace('name = "two-hop-wireless"', 'name = "mine"')
    (tmp_path / "two-hop-wireless").write_text(text)
    monkeypatch.chdir(tmp_path)
    proc = run_cli("run", "two-hop-wireless", "--json", "--set", "run.duration_s=40")
    assert proc.returncode == 0, proc.stderr
    assert '"scenario":"mine"' in proc.stdout.replace(" ", "")


def test_run_of_an_unknown_name_lists_the_builtins():
    proc = run_cli("run", "two-hop-wirelss")
    assert proc.returncode == 2
    assert "no scenario file two-hop-wirelss and no built-in scenario" in proc.stderr
    assert "two-hop-wireless" in proc.stderr


def test_scenarios_lists_every_builtin_with_its_description():
    proc = run_cli("scenarios")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for name, description, _ in wtcp.scenario.builtin_scenarios():
        assert description
        line = next(l for l in lines if l.startswith(name + " "))
        assert description.split()[0] in line


# --- 3. dry runs and pruning ---

SWEEP_TOML = """name = "s"
scenario = "two-hop-wireless"
algorithms = ["newreno", "vegas"]
replications = 2
[set]
"run.duration_s" = 40
[grid]
"links.wireless.ab.loss.rate" = [0.0, 0.01, -1.0]
"""


def test_dry_run_counts_and_prune_removes_failed_runs(tmp_path):
    from wtcp.sweep import dry_run, open_store

    file = tmp_path / "s.toml"
    file.write_text(SWEEP_TOML)
    proc = run_cli("sweep", str(file), "--dry-run")
    assert proc.returncode == 2, proc.stderr  # invalid points: listed, and a non-zero status
    assert "4 of 12 runs are invalid points" in proc.stderr and "invalid (4 runs, e.g." in proc.stdout
    assert "12 runs: 3 x 2 x 2" in proc.stdout
    assert "links.wireless.ab.loss.rate: 0.0, 0.01, -1.0" in proc.stdout
    assert "algorithm: newreno, vegas" in proc.stdout
    assert "0 already stored, 12 to run" in proc.stdout
    assert not (tmp_path / "s.duckdb").exists()

    assert run_cli("sweep", str(file), "--workers", "1", "--quiet").returncode == 1  # 4 invalid points
    proc = run_cli("sweep", str(file), "--dry-run")
    assert "8 already stored, 4 to run" in proc.stdout
    plan = dry_run(load_sweep(file), tmp_path / "s.duckdb")
    assert (plan.total, plan.stored, plan.invalid) == (12, 8, 4)

    proc = run_cli("results", str(tmp_path / "s.duckdb"), "--prune-failed")
    assert proc.returncode == 0, proc.stderr
    assert "removed 4 failed runs" in proc.stderr
    with open_store(tmp_path / "s.duckdb") as store:
        runs = store.runs()
        assert len(runs) == 8 and set(runs["status"]) == {"done"}


def test_store_prune_failed_in_python(tmp_path):
    from wtcp.sweep import InlineExecutor, Store, run_sweep

    sweep = load_sweep({"name": "p", "scenario": "two-hop-wireless", "set": {"run.duration_s": 40}, "grid": {"flows.bulk.cc": ["vegas", "nosuch"]}})
    with Store(tmp_path / "p.duckdb") as store:
        outcome = run_sweep(sweep, store, InlineExecutor())
        assert (outcome.done, outcome.failed) == (1, 1)
        assert store.prune_failed() == 1
        assert store.prune_failed() == 0
        assert list(store.runs()["status"]) == ["done"]


# --- 4. tables in an 80-column terminal ---


def render80(draw) -> str:
    from rich.console import Console

    console = Console(width=80, record=True, file=open("/dev/null", "w"), highlight=False)
    draw(console)
    return console.export_text()


def assert_fits(text: str, cells) -> None:
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "…" not in text
    words = {w for line in lines for w in line.replace("│", " ").replace("┃", " ").split()}
    for cell in cells:
        assert cell in words, f"{cell!r} missing or split"


@pytest.mark.parametrize("name", ["dumbbell-reverse-udp", "wifi-one-hop", "two-hop-wireless"])
def test_run_tables_fit_80_columns_with_every_number_whole(name):
    from wtcp import report

    sc = wtcp.load(name)
    sc = sc.set("run.duration_s", sc.document["run"].get("measure_from_s", 0) + 5)
    metrics = sc.run().raw
    text = render80(lambda c: report.print_run(c, metrics))
    cells = [cell for row in report.flow_rows(metrics) for cell in row[3:]]
    cells += [cell for row in report.drop_rows(metrics) for cell in row[2:]]
    cells += [str(w[c]) for w in metrics.get("wifi", []) for c in report.WIFI_COLUMNS]
    assert_fits(text, cells)


def test_a_wide_goodput_table_is_transposed_and_split_to_fit():
    from wtcp import report

    algorithms = [a["name"] for a in wtcp.algorithms()]
    loss = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10]
    columns = {a: [1.903 - 0.0137 * i * j for j in range(len(loss))] for i, a in enumerate(algorithms)}
    text = render80(lambda c: report.print_tables(c, report.goodput_tables(80, "goodput (Mb/s)", loss, columns)))
    assert_fits(text, [f"{v:.3f}" for vs in columns.values() for v in vs] + algorithms + [f"{x:g}" for x in loss])
    assert "part 2 of" in text


def test_results_table_fits_80_columns(tmp_path):
    import os
    import subprocess
    import sys

    from wtcp.sweep import InlineExecutor, Store, run_sweep

    sweep = load_sweep({"name": "a-sweep-with-a-rather-long-name-for-a-narrow-terminal-window", "scenario": "two-hop-wireless", "set": {"run.duration_s": 40}})
    with Store(tmp_path / "r.duckdb") as store:
        run_sweep(sweep, store, InlineExecutor())
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run([sys.executable, "-m", "wtcp.cli", "results", str(tmp_path / "r.duckdb")], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert_fits(proc.stdout, [sweep.name, "40"])


# --- 5. one unit for every rate ---


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    from wtcp.sweep import InlineExecutor, Store, run_sweep

    path = tmp_path_factory.mktemp("units") / "u.duckdb"
    sweep = load_sweep({"name": "u", "scenario": "two-hop-wireless", "set": {"run.duration_s": 40}, "grid": {"links.wireless.ab.loss.rate": [0.0, 0.02]}, "replications": 2})
    with Store(path) as store:
        run_sweep(sweep, store, InlineExecutor())
    return path


def test_goodput_mbps_in_the_store_as_in_a_result(small_store):
    from wtcp.sweep import open_store

    with open_store(small_store) as store:
        flows = store.flows()
        assert (flows["goodput_mbps"] == flows["goodput_bps"] / 1e6).all()
        assert (flows["throughput_mbps"] == flows["throughput_bps"] / 1e6).all()
        mbps = store.summary("goodput_mbps")
        bps = store.summary("goodput_bps")
        assert list(mbps["mean"]) == pytest.approx(list(bps["mean"] / 1e6), rel=1e-12)
        assert list(mbps["n"]) == [2, 2]
    result = wtcp.load("two-hop-wireless").set("run.duration_s", 40).run()
    assert set(RATES) <= set(result.flows.columns) and set(RATES) <= set(flows.columns)


RATES = ("goodput_bps", "goodput_mbps", "throughput_bps", "throughput_mbps")


def test_goodput_mbps_in_claims(small_store):
    from wtcp.reproduce.measure import per_replication, with_derived
    from wtcp.sweep import open_store

    with open_store(small_store) as store:
        flows = with_derived(store.flows())
    selection = {"links.wireless.ab.loss.rate": 0.02}
    mbps = per_replication(flows, "goodput_mbps", selection)
    bps = per_replication(flows, "goodput_bps", selection)
    assert list(mbps) == pytest.approx(list(bps / 1e6), rel=1e-12)


def test_export_has_both_units(small_store, tmp_path):
    import pandas as pd

    from wtcp.sweep import open_store

    with open_store(small_store) as store:
        store.export(tmp_path, "csv")
    flows = pd.read_csv(tmp_path / "flows.csv")
    assert (flows["goodput_mbps"] == flows["goodput_bps"] / 1e6).all()


def test_an_unknown_metric_lists_the_valid_ones(small_store):
    from wtcp.sweep import open_store

    with open_store(small_store) as store:
        with pytest.raises(KeyError) as e:
            store.summary("goodput_mbs")
    message = str(e.value)
    assert "no metric `goodput_mbs`; did you mean `goodput_mbps`" in message
    for metric in ("goodput_bps", "goodput_mbps", "throughput_mbps", "timeouts", "jain_fairness"):
        assert metric in message
    proc = run_cli("report", str(small_store), "--metric", "goodput_mbs", "--out", str(small_store.parent / "r.html"))
    assert proc.returncode == 2
    assert "did you mean `goodput_mbps`" in proc.stderr and "Traceback" not in proc.stderr


# --- 6. the README covers every command ---


def test_readme_has_an_example_of_every_command():
    from pathlib import Path

    import click

    from wtcp.cli import cli

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("### Every command"):]
    table = table[: table.index("From Python")]
    commands = cli.list_commands(click.Context(cli))
    assert set(commands) >= {"run", "sweep", "results", "reproduce", "report", "algorithms", "demo", "crosscheck", "validate", "scenarios"}
    for name in commands:
        row = next(line for line in table.splitlines() if line.startswith(f"| `wtcp {name}` |"))
        assert f"`wtcp {name}" in row.rstrip(" |").rsplit("|", 1)[1], name
    assert "docs/scenarios.md" in table and "docs/sweeps.md" in table


# --- 7. plain scripts and short errors ---


def test_a_script_without_a_main_guard_runs_once(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "plain.py"
    script.write_text(
        "import sys\n"
        "print('top level', file=sys.stderr, flush=True)\n"
        "from wtcp.sweep import ProcessPoolExecutor, load_sweep, run_sweep\n"
        "s = load_sweep({'name': 'g', 'scenario': 'two-hop-wireless', 'set': {'run.duration_s': 40}, 'grid': {'flows.bulk.cc': ['vegas', 'reno', 'newreno']}})\n"
        "ex = ProcessPoolExecutor(2)\n"
        f"print(run_sweep(s, {str(tmp_path / 'g.duckdb')!r}, ex).line())\n"
        "ex.close()\n"
    )
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("top level") == 1, proc.stderr
    assert "3 runs: 3 done, 0 skipped, 0 failed" in proc.stdout


def test_error_messages_are_cut_short():
    from wtcp.cli import MAX_ERROR_CHARS, brief

    assert brief("short") == "short"
    long = brief("x" * 10_000)
    assert len(long) < MAX_ERROR_CHARS + 50 and long.endswith("(8000 more characters)")


def test_a_claims_unknown_metric_lists_the_valid_ones():
    import pandas as pd

    from wtcp.reproduce.measure import per_replication
    from wtcp.sweep.store import UnknownMetric

    frame = pd.DataFrame({"key": ["a", "b"], "replication": [0, 1], "goodput_mbps": [1.0, 2.0], "cc": ["reno", "reno"]})
    with pytest.raises(UnknownMetric) as info:
        per_replication(frame, "goodput_mbs", {})
    assert "did you mean `goodput_mbps`" in str(info.value) and "cc" not in info.value.valid
