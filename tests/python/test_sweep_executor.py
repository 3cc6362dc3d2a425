"""Where a sweep's runs execute by default: in this process while the runs left are short
work, on a process pool of all cores once they would outweigh starting it
(`AutoExecutor`); an explicit choice (`--workers N`) is kept."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

import pytest

pytest.importorskip("duckdb")

from wtcp.sweep import AutoExecutor, InlineExecutor, ProcessPoolExecutor, Sweep, run_sweep
from wtcp.sweep import runner
from wtcp.sweep.cli import make_executor

from conftest import stored_results

SMALL = {
    "name": "small",
    "scenario": "two-hop-wireless",
    "algorithms": ["newreno", "westwoodplus"],
    "replications": 3,
    "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0},
    "grid": {"links.1.ab.loss.rate": [0.0, 0.01, 0.03]},
}


def test_a_short_sweep_runs_in_this_process(tmp_path: Path) -> None:
    ex = AutoExecutor(workers=2)
    try:
        outcome = run_sweep(Sweep.from_dict(SMALL), tmp_path / "s.duckdb", ex)
    finally:
        ex.close()
    assert outcome.line() == "18 runs: 18 done, 0 skipped, 0 failed"
    assert not ex.pool_started  # 18 runs of a few ms: no worker was started


def test_a_long_sweep_moves_to_the_pool_and_stores_what_one_process_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sweep = Sweep.from_dict(SMALL)
    run_sweep(sweep, tmp_path / "inline.duckdb", InlineExecutor())
    monkeypatch.setattr(runner, "POOL_MIN_WORK_S", 0.0)  # any work left outweighs the pool
    ex = AutoExecutor(workers=2)
    try:
        outcome = run_sweep(sweep, tmp_path / "auto.duckdb", ex)
        assert ex.pool_started and ex.workers == 2
        # The pool stays for the next sweep of the same executor.
        again = run_sweep(Sweep.from_dict({**SMALL, "name": "again", "seed": 2}), tmp_path / "auto.duckdb", ex)
    finally:
        ex.close()
    assert outcome.line() == "18 runs: 18 done, 0 skipped, 0 failed"
    assert again.line() == "18 runs: 18 done, 0 skipped, 0 failed"
    inline_runs, inline_flows = stored_results(tmp_path / "inline.duckdb")
    auto_runs, auto_flows = stored_results(tmp_path / "auto.duckdb")
    first = {r["key"] for r in inline_runs}
    assert [r for r in auto_runs if r["key"] in first] == inline_runs
    assert [f for f in auto_flows if f["key"] in first] == inline_flows


@pytest.mark.parametrize("runs_left, run_s, starts", [(100, 0.01, False), (100, 0.019, False), (100, 0.021, True), (1, 2.5, True), (0, 10.0, False)])
def test_the_pool_starts_once_the_runs_left_outweigh_starting_it(monkeypatch: pytest.MonkeyPatch, runs_left: int, run_s: float, starts: bool) -> None:
    started: list[int] = []

    class Pool:
        def __init__(self, workers: int):
            started.append(workers)
            self.workers = workers

    monkeypatch.setattr(runner, "ProcessPoolExecutor", Pool)
    ex = AutoExecutor(workers=4)
    ex.plan(runs_left, None)  # no estimate yet: nothing to go on
    assert not started
    ex.plan(runs_left, run_s)
    assert started == ([4] if starts else [])
    assert ex.workers == (4 if starts else 1)
    ex.plan(runs_left, run_s)  # one pool, once
    assert len(started) <= 1


def test_one_core_never_starts_a_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "ProcessPoolExecutor", lambda workers: pytest.fail("a pool on one core"))
    ex = AutoExecutor(workers=1)
    ex.plan(10**6, 1.0)
    assert not ex.pool_started


def test_explicit_choices_are_kept() -> None:
    assert isinstance(make_executor(None, None, None), AutoExecutor)
    assert isinstance(make_executor(1, None, None), InlineExecutor)
    pool = make_executor(3, None, None)
    try:
        assert isinstance(pool, ProcessPoolExecutor) and pool.workers == 3
    finally:
        pool.close()


def test_pool_workers_take_the_environment_the_sweep_has_when_it_starts_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a fork server, workers would have the environment of the process's first pool;
    a budget set since (`WTCP_MEMORY_BUDGET_GIB`) must reach a new pool's workers, and a
    variable removed since must not."""
    import os

    first = ProcessPoolExecutor(1)  # (starts the fork server, if not yet)
    try:
        first._pool.submit(int, 0).result()
    finally:
        first.close()
    monkeypatch.setenv("WTCP_MEMORY_BUDGET_GIB", "123")
    monkeypatch.delenv("HOME", raising=False)
    pool = ProcessPoolExecutor(1)
    try:
        assert pool._pool.submit(os.getenv, "WTCP_MEMORY_BUDGET_GIB").result() == "123"
        assert pool._pool.submit(os.getenv, "HOME").result() is None
    finally:
        pool.close()


@pytest.mark.parametrize("option", [["--dask-local", "2"], ["--dask", "tcp://127.0.0.1:1"]])
def test_dask_options_without_dask_installed_exit_2_naming_the_extra(tmp_path, option):
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "s"\nscenario = "reference-simple2"\n[set]\n"run.duration_s" = 3.0\n')
    # Dask made unimportable, as on an installation without the `dask` extra.
    script = (
        "import sys; sys.modules['dask'] = None; sys.modules['dask.distributed'] = None\n"
        f"from wtcp import cli; sys.exit(cli.main(['sweep', {str(sweep)!r}, *{option!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "needs Dask" in done.stderr and "wtcp[dask]" in done.stderr and "Traceback" not in done.stderr


def test_runs_are_planned_as_they_are_needed_not_all_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A sweep of 40 runs: when the first batch is submitted, only it has been planned (the
    # plans of a huge sweep are never held at once).
    sweep = Sweep.from_dict({"name": "lazy", "scenario": "reference-simple2", "replications": 40, "set": {"run.duration_s": 3.0}})
    produced = {"n": 0}
    original = Sweep.runs

    def counting_runs(self):
        for run in original(self):
            produced["n"] += 1
            yield run

    monkeypatch.setattr(Sweep, "runs", counting_runs)
    seen_at_submit: list[int] = []

    class Watching(InlineExecutor):
        def submit(self, batch):
            seen_at_submit.append(produced["n"])
            return super().submit(batch)

    outcome = run_sweep(sweep, tmp_path / "lazy.duckdb", Watching())
    assert outcome.line() == "40 runs: 40 done, 0 skipped, 0 failed"
    assert seen_at_submit[0] == 1, seen_at_submit
    assert seen_at_submit == sorted(seen_at_submit) and seen_at_submit[-1] == 40
