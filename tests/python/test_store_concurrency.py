"""Reading a result store while a sweep writes it: readers (a held `open_store` object,
`wtcp results`) never stop the sweep, and see the runs committed so far; one writer at
a time."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("duckdb")

from wtcp.sweep import InlineExecutor, Store, StoreError, Sweep, copy_store, open_store, run_sweep
from wtcp.sweep.store import lock_path, wal_path

# In-process runs of a few ms (80 s of simulated time): a sweep of several seconds. The
# sweeps these tests start commit every 0.1 s (`sweep_command`), so a reader sees many
# partial states however fast the machine runs them.
RUNS = 2000
COMMIT_EVERY_S = 0.1
SWEEP = f"""
name = "c"
scenario = "reference-simple2"
replications = {RUNS}
[set]
"run.duration_s" = 80.0
"""
# A shorter sweep (a quarter) where a test needs only a writer at work for the length of
# two CLI calls or a 1.5 s read, or a few commits before it is killed.
SHORT_RUNS = 500
SHORT_SWEEP = SWEEP.replace(f"replications = {RUNS}", f"replications = {SHORT_RUNS}")


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "wtcp.cli", *args]


def env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200"}


def sweep_command(*args: str) -> list[str]:
    """`wtcp sweep ARGS...` with the store's commit interval fixed at `COMMIT_EVERY_S`."""
    launch = ("import sys; import wtcp.sweep.store as s; "
              f"s.FLUSH_EVERY_S = s.FLUSH_MAX_S = {COMMIT_EVERY_S}; "
              "from wtcp.cli import main; sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", launch, "sweep", *args]


def start_sweep(tmp_path: Path, store: Path, body: str = SWEEP) -> subprocess.Popen:
    file = tmp_path / "c.toml"
    file.write_text(body, encoding="utf-8")
    return subprocess.Popen(sweep_command(str(file), "--workers", "1", "--quiet", "--store", str(store)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())


def wait_for(condition, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"the sweep ended first: {proc.communicate()}"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def finish(proc: subprocess.Popen, total: int = RUNS, skipped: int = 0) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert out.strip() == f"{total} runs: {total - skipped} done, {skipped} skipped, 0 failed"


def check_complete(store: Path, total: int = RUNS) -> None:
    st = open_store(store)
    with st.session():
        runs, flows = st.runs(), st.flows()
    assert len(runs) == total and runs.key.is_unique and (runs.status == "done").all()
    assert len(flows) == total and set(flows.key) == set(runs.key)
    assert not lock_path(store).exists() and not wal_path(store).exists()  # one file again


def test_a_held_store_and_wtcp_results_read_a_growing_prefix_during_a_sweep(tmp_path):
    store = tmp_path / "c.duckdb"
    proc = start_sweep(tmp_path, store)
    wait_for(store.exists, proc)  # made whole, then moved into place
    reader = open_store(store)  # held for the whole sweep, as in a notebook
    seen: list[set[str]] = []
    listings: list[subprocess.Popen] = []
    copied: set[str] | None = None
    while proc.poll() is None:
        with reader.session():  # runs and flows of one state of the store
            runs, flows = reader.runs(), reader.flows()
        # A commit is whole: every stored run has its flow row, and no flow is stray.
        assert set(flows.key) == set(runs.key) and runs.key.is_unique
        seen.append(set(runs.key))
        if len(seen) in (3, 6):  # `wtcp results` in another process, while the sweep writes
            listings.append(subprocess.Popen(cli("results", str(store)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env()))
        if copied is None and seen[-1]:
            copy = copy_store(store, tmp_path / "copy.duckdb")
            assert not wal_path(copy).exists()  # one self-contained file
            copied = set(open_store(copy).runs().key)
            assert seen[-1] <= copied <= set(open_store(store).runs().key)  # what was committed then
        time.sleep(0.05)
    finish(proc)
    assert copied is not None and 0 < len(copied) < RUNS
    for listing in listings:
        out, err = listing.communicate(timeout=120)
        assert listing.returncode == 0 and err == "", err
        rows = [line.replace("│", " ").split() for line in out.splitlines() if line.strip(" │").startswith("c ")]
        assert "sweeps in c.duckdb" in out and len(rows) <= 1  # no row before the first commit
        assert all(0 < int(row[1]) <= RUNS for row in rows)
    final = set(open_store(store).runs().key)
    assert len(final) == RUNS
    # A prefix of the sweep: each look sees what the one before saw, and more.
    assert all(a <= b for a, b in zip(seen, seen[1:])) and seen[-1] <= final
    partial = [s for s in seen if 0 < len(s) < RUNS]
    assert len({len(s) for s in partial}) >= 2, f"the reader saw too few commits: {[len(s) for s in seen]}"
    assert len(listings) == 2
    check_complete(store)
    assert reader.runs().key.nunique() == RUNS  # the held reader sees the end too


def test_a_reader_opened_before_the_sweep_and_held_does_not_stop_it(tmp_path):
    store = tmp_path / "c.duckdb"
    first = Sweep.from_dict({"scenario": "reference-simple2", "name": "c", "replications": 10, "set": {"run.duration_s": 80.0}})
    run_sweep(first, store, InlineExecutor())  # the first 10 runs of the sweep below
    reader = open_store(store)
    assert len(reader.runs()) == 10
    results = subprocess.Popen(cli("results", str(store)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    proc = start_sweep(tmp_path, store, SHORT_SWEEP)
    # A long read (a session held for 1.5 s) while the sweep runs: the sweep keeps its
    # results and commits them once the reader lets go.
    wait_for(lambda: len(reader.runs()) > 10, proc)
    with reader.session():
        held = len(reader.runs())
        time.sleep(1.5)
        assert len(reader.runs()) == held  # one state for the whole session
    finish(proc, SHORT_RUNS, skipped=10)
    out, err = results.communicate(timeout=120)
    assert results.returncode == 0, err
    check_complete(store, SHORT_RUNS)
    assert len(reader.runs()) == SHORT_RUNS


def test_a_second_writer_is_refused_while_a_sweep_writes(tmp_path):
    store = tmp_path / "c.duckdb"
    proc = start_sweep(tmp_path, store, SHORT_SWEEP)
    wait_for(lock_path(store).exists, proc)
    wait_for(lambda: lock_path(store).read_text().strip() != "", proc)
    pid = lock_path(store).read_text().strip()
    assert pid == str(proc.pid)
    with pytest.raises(StoreError) as info:
        Store(store)
    assert info.value.locked and info.value.reason.startswith(f"is locked by another process (PID {proc.pid}), a `wtcp sweep`")
    second = subprocess.run(cli("sweep", str(tmp_path / "c.toml"), "--workers", "1", "--quiet", "--store", str(store)), capture_output=True, text=True, env=env(), timeout=120)
    assert second.returncode == 2 and "Traceback" not in second.stderr
    assert second.stderr.startswith(f"error: {store}: is locked by another process (PID {proc.pid})")
    prune = subprocess.run(cli("results", str(store), "--prune-failed"), capture_output=True, text=True, env=env(), timeout=120)
    assert prune.returncode == 2 and f"(PID {proc.pid})" in prune.stderr
    finish(proc, SHORT_RUNS)
    check_complete(store, SHORT_RUNS)
    with Store(store) as st:  # free again
        assert st.prune_failed() == 0


def test_a_sigkilled_writer_leaves_a_store_the_next_one_takes_over(tmp_path):
    store = tmp_path / "c.duckdb"
    proc = start_sweep(tmp_path, store, SHORT_SWEEP)
    wait_for(lambda: store.exists() and len(open_store(store).runs()) > 0, proc)
    proc.kill()
    proc.wait()
    assert lock_path(store).exists()  # left behind, but no longer locked
    reader = open_store(store)
    committed = set(reader.runs().key)
    assert 0 < len(committed) < SHORT_RUNS
    proc = start_sweep(tmp_path, store, SHORT_SWEEP)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    total, rest = out.strip().split(" runs: ")
    done, skipped, failed = (int(part.split()[0]) for part in rest.split(", "))
    assert (int(total), failed, done + skipped) == (SHORT_RUNS, 0, SHORT_RUNS) and skipped >= len(committed)
    check_complete(store, SHORT_RUNS)


def test_store_objects_hold_the_file_only_inside_a_call_or_session(tmp_path):
    store = tmp_path / "s.duckdb"
    run_sweep(Sweep.from_dict({"scenario": "reference-simple2", "name": "s", "set": {"run.duration_s": 3.0}}), store, InlineExecutor())
    script = "import duckdb, sys\nduckdb.connect(sys.argv[1], read_only=sys.argv[2] == 'ro').close()\n"

    def other_process_opens(mode: str) -> bool:
        return subprocess.run([sys.executable, "-c", script, str(store), mode], capture_output=True, timeout=60).returncode == 0

    reader = open_store(store)
    assert len(reader.runs()) == 1
    assert other_process_opens("rw")  # a held reader: nothing locked
    with reader.session():
        assert not other_process_opens("rw") and other_process_opens("ro")
    writer = Store(store)
    try:
        assert other_process_opens("ro")  # a held writer between commits: readable
        with writer.session():
            assert not other_process_opens("ro")
    finally:
        writer.close()
    assert not lock_path(store).exists()
