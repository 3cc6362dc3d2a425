"""Sweeps: expansion, executors, the DuckDB store, the `sweep` and `results` commands."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("duckdb")

import wtcp
from wtcp.sweep import InlineExecutor, ProcessPoolExecutor, Store, Sweep, SweepError, load_sweep, open_store, run_sweep, t975
from wtcp.sweep.spec import stream_of

from conftest import stored_results, wait_for_committed_runs

# Short runs: 20 s of simulated time, measured from 2 s.
SHORT = '[set]\n"run.duration_s" = 20.0\n"run.measure_from_s" = 2.0\n'
REPO = Path(__file__).resolve().parents[2]


def cli_module() -> str:
    return "wtcp.cli"


def run_wtcp(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", cli_module(), *args], capture_output=True, text=True, env=env, timeout=timeout)


def write_sweep(tmp_path: Path, body: str, name: str = "s") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    return path


SMALL = f"""
name = "small"
scenario = "two-hop-wireless"
algorithms = ["newreno", "westwoodplus"]
replications = 2
{SHORT}
[grid]
"links.1.ab.loss.rate" = [0.0, 0.01, 0.03]
"""


def test_expansion_counts_and_seeds(tmp_path: Path) -> None:
    body = f"""
scenario = "two-hop-wireless"
algorithms = ["newreno", "vegas"]
replications = 3
seed = 7
points = [{{ "tcp.delayed_ack" = true }}, {{ "tcp.delayed_ack" = false }}]
{SHORT}
[grid]
"links.1.ab.loss.rate" = [0.0, 0.01, 0.02]
links.0.delay_ms = [5.0, 10.0]

[[zip]]
"links.1.rate_mbps" = [1.0, 2.0]
"links.1.delay_ms" = [1.0, 5.0]
"""
    sweep = Sweep.from_file(write_sweep(tmp_path, body))
    runs = list(sweep.runs())
    assert len(runs) == sweep.size() == 3 * 2 * 2 * 2 * 2 * 3
    assert len({r.key for r in runs}) == len(runs)
    assert all(r.error is None and r.seed == 7 for r in runs)
    # Distinct random streams for every (point, replication); algorithms share them.
    streams = {}
    for r in runs:
        streams.setdefault((tuple(sorted(r.params.items())), r.replication), set()).add(r.stream)
    assert all(len(s) == 1 for s in streams.values())
    assert len({next(iter(s)) for s in streams.values()}) == len(streams) == 24 * 3
    # The engine sees them: run.seed / run.replication in the resolved document.
    doc = __import__("tomllib").loads(runs[0].toml)
    assert doc["run"]["seed"] == 7 and doc["run"]["replication"] == runs[0].stream
    assert doc["run"]["duration_s"] == 20.0 and doc["links"][0]["delay_ms"] == 5.0
    assert runs[0].stream == stream_of('{"links.0.delay_ms":5.0,"links.1.ab.loss.rate":0.0,"links.1.delay_ms":1.0,"links.1.rate_mbps":1.0,"tcp.delayed_ack":true}', 0)


def test_sweep_from_dict_and_algorithm_flows() -> None:
    sweep = Sweep.from_dict({"scenario": "two-hop-wireless", "algorithms": ["cubic"], "algorithm_flows": ["bulk"], "set": {"run": {"duration_s": 20.0, "measure_from_s": 2.0}}})
    (run,) = list(sweep.runs())
    doc = __import__("tomllib").loads(run.toml)
    assert doc["flows"][0]["cc"] == "cubic" and run.algorithm == "cubic"


def test_algorithm_params_reach_only_their_algorithm() -> None:
    sweep = Sweep.from_dict({"scenario": "two-hop-wireless", "algorithms": ["westwood", "reno"], "algorithm_params": {"westwood": {"flavour": "ns2"}},
                             "set": {"run": {"duration_s": 5.0, "measure_from_s": 1.0}}})
    docs = {run.algorithm: __import__("tomllib").loads(run.toml) for run in sweep.runs()}
    assert docs["westwood"]["flows"][0]["cc_params"] == {"flavour": "ns2"}
    assert docs["reno"]["flows"][0].get("cc_params", {}) == {}


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ('scenario = "two-hop-wireless"\nalgorithms = ["reno"]\n[algorithm_params]\nvegas = { alpha = 1 }\n', "algorithm_params.vegas"),
        ('scenario = "two-hop-wireless"\nalgorithms = ["westwood"]\n[algorithm_params]\nwestwood = { flavor = "ns2" }\n', "algorithm_params.westwood"),
        ('scenario = "two-hop-wireless"\ngrdi = {}\n', "grdi"),
        ('scenario = "two-hop-wireless"\n[grid]\n"links.1.ab.loss.rte" = [0.1]\n', "grid.links.1.ab.loss.rte"),
        ('scenario = "two-hop-wireless"\n[set]\n"run.duratoin_s" = 3\n', "set.run.duratoin_s"),
        ('scenario = "two-hop-wireless"\nalgorithms = ["renoo"]\n', "algorithms.0"),
        ('scenario = "two-hop-wireless"\n[grid]\n"run.seed" = [1, 2]\n', "grid.run.seed"),
        ('scenario = "no-such-scenario"\n', "scenario"),
    ],
)
def test_bad_sweep_files_exit_2_with_the_path(tmp_path: Path, body: str, path: str) -> None:
    file = write_sweep(tmp_path, body)
    with pytest.raises(SweepError) as err:
        Sweep.from_file(file)
    assert err.value.path == path
    proc = run_wtcp("sweep", str(file), "--store", str(tmp_path / "x.duckdb"))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and path in proc.stderr


def test_inline_and_process_pool_store_identical_metrics(tmp_path: Path) -> None:
    sweep = Sweep.from_file(write_sweep(tmp_path, SMALL))
    one = run_sweep(sweep, tmp_path / "one.duckdb", InlineExecutor())
    pool = run_sweep(sweep, tmp_path / "pool.duckdb", ProcessPoolExecutor(2))
    assert one.line() == pool.line() == "12 runs: 12 done, 0 skipped, 0 failed"
    runs1, flows1 = stored_results(tmp_path / "one.duckdb")
    runs2, flows2 = stored_results(tmp_path / "pool.duckdb")
    assert runs1 == runs2 and flows1 == flows2
    assert len(flows1) == 12 and {f["cc"] for f in flows1} == {"newreno", "westwoodplus"}
    # The stored metrics are those of a plain run of the same scenario.
    (run,) = [r for r in sweep.runs() if r.algorithm == "newreno" and r.params["links.1.ab.loss.rate"] == 0.01 and r.replication == 1]
    direct = wtcp.Scenario.from_toml(run.toml).run().raw["flows"][0]
    (stored,) = [f for f in flows1 if f["key"] == run.key]
    assert stored["goodput_bps"] == direct["goodput_bps"] and stored["timeouts"] == direct["timeouts"]


def test_cli_rerun_skips_everything_and_results_export(tmp_path: Path) -> None:
    file = write_sweep(tmp_path, SMALL)
    first = run_wtcp("sweep", str(file), "--workers", "2")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().splitlines() == ["12 runs: 12 done, 0 skipped, 0 failed"]
    assert (tmp_path / "small.duckdb").is_file()  # named after the sweep, next to it
    again = run_wtcp("sweep", str(file))
    assert again.returncode == 0 and again.stdout.strip().splitlines() == ["12 runs: 0 done, 12 skipped, 0 failed"]
    listing = run_wtcp("results", str(tmp_path / "small.duckdb"), "--export", "parquet", "--out", str(tmp_path / "out"))
    assert listing.returncode == 0, listing.stderr
    assert "small" in listing.stdout and "12" in listing.stdout
    import pyarrow.parquet as pq

    runs = pq.read_table(tmp_path / "out" / "runs.parquet")
    flows = pq.read_table(tmp_path / "out" / "flows.parquet")
    assert runs.num_rows == 12 and flows.num_rows == 12
    assert {"key", "params", "links_1_ab_loss_rate", "wtcp_version", "events", "sim_seconds"} <= set(runs.column_names)
    assert run_wtcp("results", str(tmp_path / "nothing.duckdb")).returncode == 2


def test_failing_point_is_recorded_and_exit_1(tmp_path: Path) -> None:
    body = f'name = "bad"\nscenario = "two-hop-wireless"\nreplications = 2\n{SHORT}\n[grid]\n"links.1.ab.loss.rate" = [0.01, 2.0]\n'
    file = write_sweep(tmp_path, body)
    proc = run_wtcp("sweep", str(file), "--workers", "2")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip().splitlines() == ["4 runs: 2 done, 0 skipped, 2 failed"]
    assert "probability" in proc.stderr
    with open_store(tmp_path / "bad.duckdb") as st:
        runs = st.runs()
        failed = runs[runs.status == "failed"]
        assert len(failed) == 2 and set(failed.links_1_ab_loss_rate) == {2.0}
        assert all("must lie in [0, 1]" in e for e in failed.error)
        assert len(st.flows()) == 2
    again = run_wtcp("sweep", str(file))
    assert again.returncode == 1 and again.stdout.strip() == "4 runs: 0 done, 2 skipped, 2 failed"


def test_sigkill_mid_sweep_then_restart(tmp_path: Path) -> None:
    # Full 200-s runs (about 10 ms each): a sweep of a few seconds.
    body = 'name = "long"\nscenario = "two-hop-wireless"\nreplications = 30\nalgorithms = ["newreno", "westwoodplus", "njplus", "dynamic"]\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01, 0.02, 0.03]\n'
    file = write_sweep(tmp_path, body)
    store = tmp_path / "long.duckdb"
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", cli_module(), "sweep", str(file), "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    # Kill once some results are committed (a reader sees them while the sweep writes).
    wait_for_committed_runs(store, proc)
    assert proc.poll() is None, "the sweep finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker processes
    proc.wait()
    restart = run_wtcp("sweep", str(file), "--workers", "2")
    assert restart.returncode == 0, restart.stderr
    total, rest = restart.stdout.strip().split(" runs: ")
    done, skipped, failed = (int(part.split()[0]) for part in rest.split(", "))
    assert int(total) == 480 and failed == 0 and done + skipped == 480
    assert 0 < skipped < 480
    with open_store(store) as st:
        runs = st.runs()
        assert len(runs) == 480 and runs.key.is_unique and (runs.status == "done").all()
        flows = st.flows()
        assert len(flows) == 480 and flows.key.is_unique
    assert run_wtcp("sweep", str(file)).stdout.strip() == "480 runs: 0 done, 480 skipped, 0 failed"


def test_summary_confidence_intervals_on_a_hand_made_store(tmp_path: Path) -> None:
    path = tmp_path / "hand.duckdb"
    values = {("newreno", 0.01): [1.0, 2.0, 3.0], ("newreno", 0.02): [5.0, 5.0], ("vegas", 0.01): [4.0]}
    records = []
    for (alg, loss), goodputs in values.items():
        for r, g in enumerate(goodputs):
            key = f"{alg}-{loss}-{r}"
            records.append({"key": key, "sweep": "hand", "params": {"loss": loss}, "algorithm": alg, "seed": 1, "replication": r, "status": "done", "flows": [{"id": 0, "name": "bulk", "cc": alg, "goodput_bps": g}]})
    with Store(path) as st:
        names = st.ensure_param_columns({"loss": [0.01, 0.02]})
        st.write(records, names)
    with open_store(path) as st:
        summary = st.summary("goodput_bps").set_index(["algorithm", "loss"])
    row = summary.loc[("newreno", 0.01)]
    assert row.n == 3 and row["mean"] == 2.0 and row["std"] == 1.0
    half = 4.303 / math.sqrt(3)  # t_{0.975, 2} * s / sqrt(n)
    assert row.ci_low == pytest.approx(2.0 - half) and row.ci_high == pytest.approx(2.0 + half)
    row = summary.loc[("newreno", 0.02)]
    assert row.n == 2 and row.ci_low == row.ci_high == 5.0  # zero spread
    row = summary.loc[("vegas", 0.01)]
    assert row.n == 1 and math.isnan(row.ci_low)  # one replication: no interval
    assert t975(1) == 12.706 and t975(30) == 2.042 and t975(31) == 1.96 and math.isnan(t975(0))


def test_reading_runs_by_key_gives_the_rows_the_whole_table_has_for_them(tmp_path: Path) -> None:
    """`runs(keys=...)` and `flows(keys=...)` (what `wtcp reproduce` reads after each
    sweep) are the whole tables' rows of those runs, in the same order; failed runs have
    no flows either way, and no keys give no rows."""
    path = tmp_path / "keys.duckdb"
    records = []
    for sweep in ("a", "b"):
        for r in range(3):
            key = f"{sweep}{r}"
            status = "failed" if key == "b1" else "done"
            flows = [{"id": i, "name": f"f{i}", "cc": "reno", "goodput_bps": 10.0 * r + i} for i in range(2)] if status == "done" else []
            records.append({"key": key, "sweep": sweep, "params": {"n": r}, "algorithm": "reno", "seed": 1, "replication": 0, "status": status, "flows": flows})
    with Store(path) as st:
        st.write(records, st.ensure_param_columns({"n": [0, 1, 2]}))
    keys = ["b2", "a1", "b1"]
    with open_store(path) as st:
        all_runs, all_flows = st.runs(), st.flows()
        runs, flows = st.runs(keys=keys), st.flows(keys=keys)
        assert st.runs(keys=[]).empty and st.flows(keys=[]).empty
        assert list(st.runs("b", keys=["a1", "b2"]).key) == ["b2"]
    expected = all_runs[all_runs.key.isin(keys)].reset_index(drop=True)
    assert list(runs.key) == ["a1", "b1", "b2"] and runs.equals(expected)
    expected = all_flows[all_flows.key.isin(keys)].reset_index(drop=True)
    assert list(zip(flows.key, flows.flow_id)) == [("a1", 0), ("a1", 1), ("b2", 0), ("b2", 1)]
    assert list(flows.columns) == list(all_flows.columns) and flows.astype(object).equals(expected.astype(object))


def test_dask_local_cluster_gives_the_same_results(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from wtcp.sweep import DaskExecutor

    sweep = Sweep.from_file(write_sweep(tmp_path, SMALL))
    run_sweep(sweep, tmp_path / "one.duckdb", InlineExecutor())
    executor = DaskExecutor(local_workers=2)
    try:
        outcome = run_sweep(sweep, tmp_path / "dask.duckdb", executor)
    finally:
        executor.close()
    assert outcome.line() == "12 runs: 12 done, 0 skipped, 0 failed"
    assert stored_results(tmp_path / "one.duckdb") == stored_results(tmp_path / "dask.duckdb")


def test_a_dask_worker_killed_mid_sweep_costs_no_result(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    import threading

    from wtcp.sweep import DaskExecutor

    # 16 runs of about 0.3 s each on two worker processes; one worker is SIGKILLed while
    # runs are in flight. The nanny restarts it, Dask reschedules the lost batch.
    body = SMALL.replace('"run.duration_s" = 20.0', '"run.duration_s" = 3000.0').replace("[0.0, 0.01, 0.03]", "[0.0, 0.01, 0.02, 0.03]")
    sweep = Sweep.from_file(write_sweep(tmp_path, body))
    executor = DaskExecutor(local_workers=2)
    killed = []

    def kill_one_worker() -> None:
        time.sleep(1.0)
        pids = executor._client.run(os.getpid)
        pid = sorted(pids.values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_one_worker)
    try:
        killer.start()
        outcome = run_sweep(sweep, tmp_path / "killed.duckdb", executor)
    finally:
        killer.join()
        executor.close()
    assert killed, "no worker was killed"
    assert outcome.line() == "16 runs: 16 done, 0 skipped, 0 failed"
    with open_store(tmp_path / "killed.duckdb") as st:
        runs = st.runs()
        assert len(runs) == 16 and runs.key.is_unique and (runs.status == "done").all()


def test_example_sweep_parses() -> None:
    sweep = load_sweep(REPO / "sweeps" / "loss-vs-goodput.toml")
    assert sweep.size() == 7 * 4 * 3 and sweep.name == "loss-vs-goodput"
    assert sweep.algorithms == ["newreno", "westwoodplus", "njplus", "dynamic"]


class FlakyExecutor(InlineExecutor):
    """Every batch's first submission fails as if its worker died; a second one works
    (`dead` batches fail for good)."""

    def __init__(self, dead: int = 0):
        self.seen: set = set()
        self.recovered = 0
        self.dead = dead

    def submit(self, batch):
        from concurrent.futures import Future

        ident = tuple(k for k, _ in batch)
        if ident in self.seen and self.dead <= 0:
            return super().submit(batch)
        if ident in self.seen:
            self.dead -= 1
        self.seen.add(ident)
        fut: Future = Future()
        fut.set_exception(RuntimeError("worker died"))
        return fut

    def recover(self) -> None:
        self.recovered += 1


def test_batches_of_dead_workers_are_resubmitted(tmp_path: Path) -> None:
    sweep = Sweep.from_file(write_sweep(tmp_path, SMALL))
    flaky = FlakyExecutor()
    outcome = run_sweep(sweep, tmp_path / "flaky.duckdb", flaky)
    assert outcome.line() == "12 runs: 12 done, 0 skipped, 0 failed" and flaky.recovered > 0
    # A batch that keeps failing is recorded as failed; the rest of the sweep still runs.
    always = FlakyExecutor(dead=10_000)
    outcome = run_sweep(sweep, tmp_path / "dead.duckdb", always, resubmits=1)
    assert outcome.line() == "12 runs: 0 done, 0 skipped, 12 failed"
    with open_store(tmp_path / "dead.duckdb") as st:
        assert (st.runs().error.str.startswith("worker failed: RuntimeError: worker died")).all()


def test_traces_are_stored_beside_the_runs_when_asked(tmp_path: Path) -> None:
    body = SMALL.replace('"run.measure_from_s" = 2.0', '"run.measure_from_s" = 2.0\n"trace.enabled" = true\n"trace.interval_ms" = 100.0')
    sweep = Sweep.from_file(write_sweep(tmp_path, body))
    outcome = run_sweep(sweep, tmp_path / "traced.duckdb", InlineExecutor())
    assert outcome.line() == "12 runs: 12 done, 0 skipped, 0 failed"
    with open_store(tmp_path / "traced.duckdb") as st:
        key = st.runs().key.iloc[0]
        flows = st.traces("flows", key)
        # 20 s sampled every 100 ms: 201 samples of the one TCP flow.
        assert len(flows) == 201 and {"time", "cwnd", "ssthresh", "srtt"} <= set(flows.columns)
        assert set(st.traces("queues").key) == set(st.runs().key)
        assert "link" in st.traces("queues").columns
    untraced = Sweep.from_file(write_sweep(tmp_path, SMALL, name="plain"))
    run_sweep(untraced, tmp_path / "plain.duckdb", InlineExecutor())
    with open_store(tmp_path / "plain.duckdb") as st:
        assert st.traces("flows").empty


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="scans /proc for the worker processes")
def test_workers_exit_when_the_sweep_is_killed(tmp_path: Path) -> None:
    """SIGKILL of the sweep alone (not its process group): the pool's workers, whose parent
    is the fork server, must not live on."""
    body = 'name = "orphans"\nscenario = "two-hop-wireless"\nreplications = 40\nalgorithms = ["newreno", "westwoodplus"]\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01, 0.02]\n'
    file = write_sweep(tmp_path, body)
    mark = f"WTCP_ORPHAN_TEST_{os.getpid()}_{time.monotonic_ns()}"
    env = {**os.environ, mark: "1"}
    proc = subprocess.Popen([sys.executable, "-m", cli_module(), "sweep", str(file), "--workers", "2", "--quiet"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def marked() -> list[int]:
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != proc.pid:
                try:
                    if mark.encode() in (entry / "environ").read_bytes():
                        pids.append(int(entry.name))
                except OSError:
                    pass
        return pids

    deadline = time.monotonic() + 60
    while len(marked()) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None and len(marked()) >= 2, "the workers never started"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while marked() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = marked()
    for pid in left:  # do not leave them behind even if the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} worker processes outlived the sweep"


def test_a_set_that_only_some_points_mend_fails_those_points_not_the_sweep(tmp_path: Path) -> None:
    # `[set]` alone ends the run when the flow starts (1 s); the grid moves the start
    # earlier for one point (it runs) and later for the other (its run fails, with why).
    body = ('name = "mend"\nscenario = "two-hop-wireless"\nreplications = 1\n'
            '[set]\n"run.duration_s" = 1.0\n"run.measure_from_s" = 0.1\n[grid]\n"flows.0.start_s" = [0.5, 1.5]\n')
    file = write_sweep(tmp_path, body)
    runs = list(load_sweep(file).runs())
    assert [r.error is None for r in runs] == [True, False]
    assert "flows.0.start_s" in runs[1].error
    proc = run_wtcp("sweep", str(file), "--workers", "1")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.strip().splitlines() == ["2 runs: 1 done, 0 skipped, 1 failed"]


def test_a_dry_run_lists_why_points_are_invalid_and_exits_2(tmp_path):
    from conftest import run_cli

    file = tmp_path / "inv.toml"
    file.write_text('name = "inv"\nscenario = "reference-simple2"\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01, 5]\n', encoding="utf-8")
    proc = run_cli("sweep", str(file), "--dry-run")
    assert proc.returncode == 2
    assert "invalid (1 run, e.g. {links.1.ab.loss.rate=5}): links.1.ab.loss.rate: is 5; a probability must lie in [0, 1] (5 % is 0.05)" in proc.stdout
    assert "1 of 3 runs are invalid points" in proc.stderr
    assert not (tmp_path / "inv.duckdb").exists()


def test_a_scenario_given_to_sweep_and_a_sweep_given_to_run_say_so(tmp_path):
    from conftest import reference_path, run_cli

    proc = run_cli("sweep", str(reference_path()))
    assert proc.returncode == 2 and "this looks like a scenario file" in proc.stderr and "wtcp run FILE" in proc.stderr
    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "s"\nscenario = "reference-simple2"\n', encoding="utf-8")
    proc = run_cli("run", str(sweep))
    assert proc.returncode == 2 and "run it with `wtcp sweep FILE`" in proc.stderr
