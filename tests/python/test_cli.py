"""The `wtcp` command, run as a subprocess."""

from __future__ import annotations

import csv
import json

import pytest

import wtcp
from conftest import SHORT_DURATION_S, reference_path, run_cli

SHORT = ("--set", f"run.duration_s={SHORT_DURATION_S}")
CAUSES = {"congestion", "wireless", "spurious"}
FLOW_KEYS = {
    "id", "cc", "goodput_bps", "throughput_bps", "segments_sent", "retransmitted_segments", "unnecessary_retransmissions",
    "fast_retransmits", "timeouts", "max_backoff", "fast_retransmit_causes", "timeout_causes",
}  # fmt: skip
TOP_KEYS = {"seed", "flows", "jain_fairness", "drops", "events", "sim_seconds", "wall_seconds"}


def run_json(*args: str) -> dict:
    done = run_cli("run", str(reference_path()), *SHORT, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_version():
    done = run_cli("--version")
    assert done.returncode == 0
    assert wtcp.__version__ in done.stdout


def test_run_prints_a_table_of_flows_drops_and_totals():
    done = run_cli("run", str(reference_path()), *SHORT)
    assert done.returncode == 0, done.stderr
    for text in ("bulk", "newreno", "goodput Mb/s", "FR c/w/s", "RTO c/w/s", "wireless", "events", "Jain fairness"):
        assert text in done.stdout, text
    assert done.stderr == ""


def test_json_output_is_one_object_with_the_required_keys():
    metrics = run_json()
    assert TOP_KEYS <= set(metrics)
    for flow in metrics["flows"]:
        assert FLOW_KEYS <= set(flow)
        assert set(flow["fast_retransmit_causes"]) >= CAUSES
        assert set(flow["timeout_causes"]) >= CAUSES
    assert metrics["sim_seconds"] == SHORT_DURATION_S


def test_set_and_seed_change_the_results():
    base = run_json()
    lossless = run_json("--set", "links.1.ab.loss.rate=0")
    reno = run_json("--set", "flows.0.cc=reno")
    reseeded = run_json("--seed", "9")
    assert lossless["flows"][0]["goodput_bps"] > base["flows"][0]["goodput_bps"]
    assert lossless["flows"][0]["fast_retransmit_causes"]["wireless"] == 0
    assert lossless["flows"][0]["timeout_causes"]["wireless"] == 0
    assert reno["flows"][0]["cc"] == "reno"
    assert reseeded["seed"] == 9 and reseeded["flows"] != base["flows"]


def test_trace_writes_csv_files(tmp_path):
    out = tmp_path / "traces"
    done = run_cli("run", str(reference_path()), *SHORT, "--json", "--trace", str(out))
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    assert str(out) in done.stderr
    for name in ("flows", "cc", "queues", "losses", "drops"):
        with open(out / f"{name}.csv", newline="") as f:
            header = next(csv.reader(f))
        assert "time" in header, name
    with open(out / "queues.csv", newline="") as f:
        assert "link" in next(csv.reader(f))


def test_zero_progress_is_a_warning_not_an_error():
    done = run_cli("run", str(reference_path()), *SHORT, "--set", "links.1.ab.loss.rate=1.0", "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["flows"][0]["goodput_bps"] == 0
    assert done.stderr.startswith("warning:")


@pytest.fixture
def broken_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[run\nduration_s = 1\n")
    return path


BAD_SETS = {
    "loss above one": (["--set", "links.1.ab.loss.rate=1.5"], "links.1.ab.loss.rate: "),
    "unknown key": (["--set", "run.durration_s=5"], "run.durration_s: "),
    "unknown algorithm": (["--set", "flows.0.cc=no-such-algorithm"], "flows.0.cc: "),
    "negative seed": (["--seed", "-1"], "run.seed: "),
}


@pytest.mark.parametrize("args, path", BAD_SETS.values(), ids=BAD_SETS.keys())
def test_scenario_errors_name_file_and_path(args, path):
    done = run_cli("run", str(reference_path()), "--json", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"error: {reference_path()}: {path}")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "no-such-file.toml"],
        ["run", "REFERENCE", "--set", "no-equals-sign"],
        ["run", "REFERENCE", "--seed", "many"],
        ["run", "REFERENCE", "--no-such-option"],
        ["run", "BROKEN"],
        ["run", "DIRECTORY"],
        ["no-such-command"],
    ],
    ids=["missing file", "set without =", "seed not a number", "unknown option", "TOML syntax", "directory", "unknown command"],
)
def test_bad_input_exits_2_without_a_traceback(args, broken_toml, tmp_path):
    replacements = {"REFERENCE": str(reference_path()), "BROKEN": str(broken_toml), "DIRECTORY": str(tmp_path)}
    done = run_cli(*(replacements.get(a, a) for a in args))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr


def test_toml_syntax_error_names_the_file(broken_toml):
    done = run_cli("run", str(broken_toml))
    assert done.stderr.startswith(f"error: {broken_toml}: TOML syntax error")


def test_algorithms_lists_every_algorithm():
    done = run_cli("algorithms")
    assert done.returncode == 0
    for algorithm in wtcp.algorithms():
        assert algorithm["name"] in done.stdout
        for param in algorithm["params"]:
            assert param["name"] in done.stdout
    assert "reno" in done.stdout and "newreno" in done.stdout


def test_algorithms_json():
    done = run_cli("algorithms", "--json")
    assert done.returncode == 0
    listed = json.loads(done.stdout)
    assert listed == wtcp.algorithms()
    assert {"reno", "newreno"} <= {a["name"] for a in listed}


def test_quick_demo_writes_plot_and_csv(tmp_path):
    out = tmp_path / "demo"
    done = run_cli("demo", "--quick", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "goodput-vs-loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(out / "goodput-vs-loss.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    names = [a["name"] for a in wtcp.algorithms()]
    assert list(rows[0]) == ["loss_percent", *names]
    assert float(rows[0]["loss_percent"]) == 0.0 and float(rows[-1]["loss_percent"]) == 5.0
    for name in names:
        assert name in done.stdout
        assert float(rows[0][name]) > float(rows[-1][name]) > 0


def test_no_arguments_prints_help():
    done = run_cli()
    assert done.returncode == 0
    assert "demo" in done.stdout and "algorithms" in done.stdout


def test_internal_errors_exit_1_with_a_short_message(monkeypatch, capsys):
    from wtcp import cli
    from wtcp.scenario import Scenario

    def fail(self, **kwargs):
        raise wtcp.SimulationError("internal simulator error: invariant broken")

    monkeypatch.setattr(Scenario, "run", fail)
    assert cli.main(["run", str(reference_path())]) == 1
    err = capsys.readouterr().err
    assert err.startswith("internal error: ") and "Traceback" not in err


def test_unwritable_output_is_a_user_error(monkeypatch, capsys, tmp_path):
    from wtcp import cli
    from wtcp.result import TraceWriter

    def refuse(self, tables):
        raise PermissionError(13, "Permission denied", str(self.directory))

    # `--trace DIR` streams the traces through a TraceWriter during the run.
    monkeypatch.setattr(TraceWriter, "__call__", refuse)
    assert cli.main(["run", str(reference_path()), *SHORT, "--json", "--trace", str(tmp_path / "t")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 't'}: Permission denied")


def test_wtcp_run_imports_only_what_a_run_needs():
    """`wtcp run` loads no sweep, store, reproduction, cross-check or ns-3 code (nor
    pandas, DuckDB or matplotlib): the other commands are imported when named."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from wtcp.cli import main\n"
        f"status = main(['run', {str(reference_path())!r}, '--json', '--set', 'run.duration_s={SHORT_DURATION_S}'])\n"
        "assert status == 0, status\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stdout.strip().splitlines()[-1].split())
    assert "wtcp.scenario" in modules
    unwanted = {m for m in modules if m.split(".")[0] in ("pandas", "duckdb", "matplotlib") or m.startswith(("wtcp.sweep", "wtcp.reproduce", "wtcp.crosscheck", "wtcp.validate", "wtcp.ns3", "wtcp.demo", "wtcp.htmlreport"))}
    assert not unwanted, sorted(unwanted)


def test_every_command_is_listed_and_runs_its_help():
    from wtcp.cli import LAZY_COMMANDS

    out = run_cli("--help").stdout
    for name in ("run", "scenarios", "algorithms", "demo", *LAZY_COMMANDS):
        assert f"  {name} " in out, name
        proc = run_cli(name, "--help")
        assert proc.returncode == 0 and proc.stdout.startswith(f"Usage: wtcp {name}"), (name, proc.stderr)
