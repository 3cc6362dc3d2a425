"""Stopping runs: Ctrl-C in `wtcp run`, `Scenario.run` and sweeps; the progress line of a
long run; per-run time and memory limits in sweeps; a run that kills its worker process
failing alone. Long runs here would take minutes or hours if they were not stopped, so a
test that waits for them fails by its time bound instead of passing slowly."""

from __future__ import annotations

import _thread
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import wtcp
from wtcp.sweep import InlineExecutor, Sweep, SweepInterrupted, open_store, run_sweep

from conftest import reference_path, wait_for_committed_runs, without_wall

pytest.importorskip("duckdb")

# reference-simple2 simulates about 10^4 s per wall second: unstopped, this is about 15 min.
NEVER_ENDS = 1e7
LONG_TEXT = "10000000"


def long_run() -> wtcp.Scenario:
    return wtcp.load(reference_path()).set("run.duration_s", NEVER_ENDS)


def interrupt_main_after(seconds: float) -> threading.Timer:
    """SIGINT's effect on the main thread (KeyboardInterrupt at its next signal check)."""
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


def wtcp_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "wtcp.cli", *args]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_simulating(proc: subprocess.Popen, cpu_s: float = 1.0, limit_s: float = 60) -> None:
    """Until the process has used `cpu_s` of CPU time: starting wtcp takes about 0.2 s, so
    by then it is in the simulation (and not importing, where Ctrl-C means a traceback)."""
    deadline = time.monotonic() + limit_s
    while cpu_seconds(proc.pid) < cpu_s:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never got going"
        time.sleep(0.05)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")


# --- the Python API ---


def test_a_control_changes_nothing_and_shows_the_end(reference):
    control = wtcp.RunControl(timeout_s=600, memory_limit_mb=4096)
    with_control = reference.run(control=control)
    assert without_wall(with_control.to_json()) == without_wall(reference.run().to_json())
    assert control.sim_seconds == control.duration_seconds == reference.document["run"]["duration_s"]
    assert control.events == with_control.raw["events"] and not control.stop_requested
    assert 0 < control.peak_heap_mb < 64


def test_stop_from_another_thread_ends_a_run_at_once():
    control = wtcp.RunControl()
    threading.Timer(0.3, control.stop).start()
    start = time.perf_counter()
    with pytest.raises(wtcp.RunStopped) as info:
        long_run().run(control=control)
    assert time.perf_counter() - start < 2.0
    e = info.value
    assert e.reason == "stopped" and e.duration_seconds == NEVER_ENDS and 0 < e.sim_seconds < 1e5 and e.events > 0
    assert str(e) == f"stopped at simulated t = {e.sim_seconds:.1f} s of {LONG_TEXT} s"


def test_keyboard_interrupt_stops_a_run_within_a_fraction_of_a_second():
    timer = interrupt_main_after(0.3)
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        long_run().run()
    timer.join()
    assert time.perf_counter() - start < 1.3  # 0.3 s, then the stop


def test_a_signal_handler_that_raises_stops_the_run_with_its_exception():
    def on_alarm(signum, frame):
        raise TimeoutError("alarm")

    old = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(TimeoutError, match="alarm"):
            long_run().run()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def unbudgeted(monkeypatch):
    """The pre-run resource estimate would refuse the deliberately hungry runs below
    (terabytes of trace rows); huge budgets let them start, so that the run-time limits
    are what stop them (workers inherit the environment)."""
    monkeypatch.setenv("WTCP_MEMORY_BUDGET_GIB", "1e9")
    monkeypatch.setenv("WTCP_EVENT_BUDGET", "1e18")


def test_a_run_past_its_time_or_memory_limit_raises_run_stopped(unbudgeted):
    start = time.perf_counter()
    with pytest.raises(wtcp.RunStopped) as info:
        long_run().run(control=wtcp.RunControl(timeout_s=0.3))
    assert time.perf_counter() - start < 1.5
    assert info.value.reason == "timeout"
    assert re.fullmatch(rf"exceeded the 0\.3 s run timeout at simulated t = \d+\.\d s of {LONG_TEXT} s", str(info.value))
    # A trace sample every microsecond: hundreds of MB per simulated second.
    control = wtcp.RunControl(memory_limit_mb=20)
    with pytest.raises(wtcp.RunStopped) as info:
        long_run().run(trace_interval_ms=0.001, control=control)
    assert info.value.reason == "memory" and info.value.sim_seconds < 10
    assert re.fullmatch(rf"exceeded the 20 MB memory limit at simulated t = \d+\.\d s of {LONG_TEXT} s \((\d+) MB held\)", str(info.value))
    assert control.peak_heap_mb > 20


@pytest.mark.parametrize("kwargs", [{"timeout_s": 0}, {"timeout_s": -1.0}, {"memory_limit_mb": float("nan")}, {"memory_limit_mb": float("inf")}])
def test_limits_must_be_positive(kwargs):
    with pytest.raises(ValueError, match="must be a positive number"):
        wtcp.RunControl(**kwargs)


def test_a_control_is_for_the_wtcp_engine(reference):
    with pytest.raises(ValueError, match="control applies to engine=\"wtcp\" only"):
        reference.run(engine="ns3", control=wtcp.RunControl())


# --- wtcp run ---


@needs_proc
def test_ctrl_c_ends_wtcp_run_with_one_line_and_status_130():
    proc = subprocess.Popen(wtcp_command("run", str(reference_path()), "--set", f"run.duration_s={NEVER_ENDS}"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until_simulating(proc)
    proc.send_signal(signal.SIGINT)
    start = time.perf_counter()
    out, err = proc.communicate(timeout=30)
    assert time.perf_counter() - start < 2.0
    assert proc.returncode == 130 and out == ""
    assert re.fullmatch(rf"interrupted at simulated t = \d+\.\d s of {LONG_TEXT} s\n", err), err


def read_until(fd: int, pattern: bytes, limit_s: float) -> bytes:
    buf = b""
    deadline = time.monotonic() + limit_s
    while pattern not in buf and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                buf += os.read(fd, 65536)
            except OSError:  # the other end closed
                break
    return buf


def on_a_terminal(*args: str) -> tuple[subprocess.Popen, int]:
    """`wtcp ARGS` with its stderr on a pseudo-terminal (stdout a pipe)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(wtcp_command(*args), stdout=subprocess.PIPE, stderr=slave, env={**os.environ, "COLUMNS": "160"})
    os.close(slave)
    return proc, master


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_a_long_run_shows_its_progress_on_a_terminal_and_stops_on_ctrl_c():
    proc, master = on_a_terminal("run", str(reference_path()), "--set", f"run.duration_s={NEVER_ENDS}")
    try:
        shown = read_until(master, b"s simulated", 20)
        assert re.search(rb"\d+\.\d / 10000000 s simulated +\d+\.\d M events/s", shown), shown[-500:]
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        rest = read_until(master, b"interrupted", 5)
    finally:
        os.close(master)
    assert proc.returncode == 130 and out == b""
    assert re.search(rb"\ninterrupted at simulated t = \d+\.\d s of 10000000 s\r\n$", rest), rest[-300:]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_never_reaches_json_stdout():
    # Several seconds of wall time: well past the 1 s after which the progress line shows.
    # The terminal is read all along, as a real one is: an unread pseudo-terminal fills
    # (about 64 KiB) and then blocks the progress thread's writes, so the run could not end.
    proc, master = on_a_terminal("run", str(reference_path()), "--set", "run.duration_s=80000", "--json")
    shown = bytearray()
    reader = threading.Thread(target=lambda: shown.extend(read_until(master, b"\x00never", 600)), daemon=True)
    reader.start()
    try:
        out, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join()  # ends when the run's end closes the terminal's other side
        os.close(master)
    assert proc.returncode == 0 and b"/ 80000 s simulated" in shown
    import json

    assert json.loads(out)["sim_seconds"] == 80000


# --- sweeps ---


def write_sweep(tmp_path: Path, body: str, name: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nscenario = "two-hop-wireless"\n{body}', encoding="utf-8")
    return path


def test_run_timeout_fails_the_slow_run_alone_with_the_reason(tmp_path):
    file = write_sweep(tmp_path, 'replications = 2\n[set]\n"run.measure_from_s" = 2.0\n[grid]\n"run.duration_s" = [20.0, 1e7]\n', "slow")
    proc = subprocess.run(wtcp_command("sweep", str(file), "--workers", "2", "--run-timeout", "1"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout.strip() == "4 runs: 2 done, 0 skipped, 2 failed", proc.stderr
    with open_store(tmp_path / "slow.duckdb") as st:
        runs = st.runs()
        slow = runs[runs.run_duration_s > 20]
        assert (slow.status == "failed").all() and (runs[runs.run_duration_s == 20].status == "done").all()
        for error, wall in zip(slow.error, slow.wall_seconds):
            assert re.fullmatch(r"exceeded the 1 s run timeout at simulated t = \d+\.\d s of 10000000 s", error)
            assert 1.0 <= wall < 3.0
        assert len(st.flows()) == 2
    assert "exceeded the 1 s run timeout" in proc.stderr


def test_run_memory_fails_the_hungry_run_alone_with_the_reason(tmp_path, unbudgeted):
    body = 'replications = 2\n[set]\n"run.duration_s" = 20.0\n"run.measure_from_s" = 2.0\n"trace.enabled" = true\n[grid]\n"trace.interval_ms" = [100.0, 0.001]\n'
    sweep = Sweep.from_file(write_sweep(tmp_path, body, "hungry"))
    outcome = run_sweep(sweep, tmp_path / "hungry.duckdb", InlineExecutor(), run_memory_mb=32)
    assert outcome.line() == "4 runs: 2 done, 0 skipped, 2 failed"
    with open_store(tmp_path / "hungry.duckdb") as st:
        runs = st.runs()
        hungry = runs[runs.trace_interval_ms < 1]
        assert (hungry.status == "failed").all() and (runs[runs.trace_interval_ms == 100].status == "done").all()
        assert all(re.fullmatch(r"exceeded the 32 MB memory limit at simulated t = \d+\.\d s of 20 s \(\d+ MB held\)", e) for e in hungry.error)
        assert len(st.traces("flows")) == 2 * 201


@pytest.mark.parametrize("value", [0, -1, float("nan"), "1"])
def test_sweep_limits_must_be_positive_numbers(tmp_path, value):
    sweep = Sweep.from_file(write_sweep(tmp_path, "", "bad"))
    with pytest.raises(ValueError, match="run_timeout_s must be a positive number"):
        run_sweep(sweep, tmp_path / "bad.duckdb", InlineExecutor(), run_timeout_s=value)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc/self/status")
def test_a_run_that_kills_its_worker_fails_alone(tmp_path, unbudgeted):
    from cancel_helpers import CappedPool

    # 2 x 12 short runs, and 2 runs that trace every microsecond for an hour: with no
    # memory limit they grow until the workers' 300 MB of spare address space runs out,
    # an allocation fails and the worker aborts (as an out-of-memory death).
    intervals = [100.0 + i for i in range(12)]
    intervals.insert(8, 0.001)
    durations = [3600.0 if i < 1 else 20.0 for i in intervals]
    body = f'replications = 2\n[set]\n"run.measure_from_s" = 2.0\n"trace.enabled" = true\n[[zip]]\n"trace.interval_ms" = {intervals}\n"run.duration_s" = {durations}\n'
    sweep = Sweep.from_file(write_sweep(tmp_path, body, "dies"))

    class Recording(CappedPool):
        def __init__(self):
            super().__init__(2, cap_mb=300)
            self.batches: list[list[str]] = []

        def batch_call(self, batch):
            self.batches.append([job[0] for job in batch])
            return super().batch_call(batch)

    pool = Recording()
    try:
        outcome = run_sweep(sweep, tmp_path / "dies.duckdb", pool, resubmits=0)
    finally:
        pool.close()
    assert outcome.line() == "26 runs: 24 done, 0 skipped, 2 failed"
    with open_store(tmp_path / "dies.duckdb") as st:
        runs = st.runs()
        dead = runs[runs.status == "failed"]
        assert sorted(dead.trace_interval_ms) == [0.001, 0.001]
        assert list(dead.error) == ["the worker process died (signal 6: SIGABRT)"] * 2
        dead_keys = set(dead.key)
    # The dying runs shared batches with others, which were run again and stored.
    assert any(dead_keys & set(b) and len(b) > 1 for b in pool.batches), pool.batches


def test_keyboard_interrupt_in_an_inline_sweep_keeps_the_finished_runs(tmp_path):
    body = 'replications = 3\n[set]\n"run.measure_from_s" = 2.0\n[grid]\n"run.duration_s" = [20.0, 1e7]\n'
    sweep = Sweep.from_file(write_sweep(tmp_path, body, "inline"))
    timer = interrupt_main_after(1.0)
    start = time.perf_counter()
    with pytest.raises(SweepInterrupted) as info:
        run_sweep(sweep, tmp_path / "inline.duckdb", InlineExecutor())
    timer.join()
    assert time.perf_counter() - start < 2.0
    assert (info.value.stored, info.value.total) == (3, 6)
    with open_store(tmp_path / "inline.duckdb") as st:
        runs = st.runs()
        assert len(runs) == 3 and (runs.status == "done").all() and (runs.run_duration_s == 20).all()
        assert len(st.flows()) == 3


@needs_proc
def test_ctrl_c_ends_a_sweep_with_one_line_and_the_store_resumable(tmp_path):
    # 600 runs of 200 s (about 10 ms each): a sweep of several seconds on two workers, so
    # that it outlasts the store's first commits (one a second).
    body = 'replications = 50\nalgorithms = ["newreno", "westwoodplus", "njplus", "dynamic"]\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01, 0.03]\n'
    file = write_sweep(tmp_path, body, "ctrlc")
    store = tmp_path / "ctrlc.duckdb"
    mark = f"WTCP_CTRLC_TEST_{os.getpid()}_{time.monotonic_ns()}"
    proc = subprocess.Popen(wtcp_command("sweep", str(file), "--workers", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, mark: "1"}, start_new_session=True)
    # Interrupt once some results are committed (a reader sees them while the sweep writes).
    wait_for_committed_runs(store, proc)
    assert proc.poll() is None, "the sweep finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the sweep and its workers
    start = time.perf_counter()
    out, err = proc.communicate(timeout=60)
    assert time.perf_counter() - start < 3.0
    assert proc.returncode == 130 and out == ""
    found = re.fullmatch(r"interrupted after storing (\d+) of 600 runs; the same command resumes the sweep\n", err)
    assert found, err
    stored = int(found.group(1))
    # No worker outlives the sweep.
    left = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _has_mark(p, mark)]
    assert not left
    with open_store(store) as st:
        runs = st.runs()
        assert len(runs) == stored > 0 and (runs.status == "done").all() and len(st.flows()) == stored
    again = subprocess.run(wtcp_command("sweep", str(file), "--workers", "2"), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout.strip() == f"600 runs: {600 - stored} done, {stored} skipped, 0 failed"


def _has_mark(proc_dir: Path, mark: str) -> bool:
    try:
        return mark.encode() in (proc_dir / "environ").read_bytes()
    except OSError:
        return False


def test_a_run_that_cannot_stop_itself_is_ended_by_the_watchdog_and_fails_alone(tmp_path, monkeypatch):
    import wtcp.sweep.runner as runner
    from cancel_helpers import StuckPool

    # The run of 9 s never reaches the engine's poll; the others finish at once. The grace
    # past the timeout is shortened so that the test does not wait 10 s.
    monkeypatch.setattr(runner, "watchdog_grace", lambda timeout_s: 0.5)
    body = '[set]\n"run.measure_from_s" = 1.0\n[grid]\n"run.duration_s" = [5.0, 6.0, 9.0, 7.0]\n'
    sweep = Sweep.from_file(write_sweep(tmp_path, body, "stuck"))
    pool = StuckPool(2, stuck_duration_s=9.0)
    try:
        outcome = run_sweep(sweep, tmp_path / "stuck.duckdb", pool, run_timeout_s=1.0)
    finally:
        pool.close()
    assert outcome.line() == "4 runs: 3 done, 0 skipped, 1 failed"
    with open_store(tmp_path / "stuck.duckdb") as st:
        runs = st.runs()
        [error] = list(runs[runs.status == "failed"].error)
        assert error.startswith("ended by the sweep's watchdog") and "past its 1 s run timeout" in error


def test_runs_finished_before_a_long_one_are_committed_while_it_runs_and_survive_a_sigkill(tmp_path):
    # Three runs of seconds and one of a month of simulated time: the three are committed
    # within a commit interval, though no run finishes after them, and a SIGKILL of the
    # sweep then loses none of them.
    file = write_sweep(tmp_path, '[set]\n"run.measure_from_s" = 1.0\n[grid]\n"run.duration_s" = [5.0, 6.0, 7.0, 3e6]\n', "tail")
    store = tmp_path / "tail.duckdb"
    proc = subprocess.Popen(wtcp_command("sweep", str(file), "--workers", "2", "--quiet"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        done = 0
        while done < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
            try:
                with open_store(store) as st:
                    done = int((st.runs().status == "done").sum())
            except (FileNotFoundError, ValueError):
                pass
        assert proc.poll() is None, "the long run must still be running"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with open_store(store) as st:
        assert int((st.runs().status == "done").sum()) == 3
