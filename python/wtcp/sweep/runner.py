"""Running a sweep: executors (in-process, process pool, Dask) behind one small interface,
batching, storing each result as it arrives, and progress reporting.

Robustness: a run may carry limits (`RunLimits`: wall time, heap), enforced inside the
run by the engine's poll; a run that kills its worker process fails alone (the pool's
workers mark the run they are on, so the runner knows whose worker died and re-runs the
others); Ctrl-C stores what has finished, ends the workers and raises `SweepInterrupted`,
the store intact and the sweep resumable."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import multiprocessing.context as _mp_context
import os
import platform
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from wtcp import _core
from wtcp.result import flatten_flow
from wtcp.sweep.spec import Run, Sweep
from wtcp.sweep.store import Store, StoreError


class RunLimits(NamedTuple):
    """Limits of every run of a sweep (None: none). `timeout_s`: wall time of one run;
    `memory_mb`: heap the simulator may hold for one run (MB = 2^20 bytes). A run past
    either is stopped and stored as failed with the reason. They apply to the wtcp engine
    (an ns-3 run cannot be stopped from outside)."""

    timeout_s: float | None = None
    memory_mb: float | None = None


# A job: (key, resolved scenario TOML), or (key, TOML, engine) for an engine other than
# wtcp ("ns3"), or (key, TOML, engine, RunLimits) for a run with limits.
# A batch: a list of jobs, run one after another.
Job = tuple[Any, ...]


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C ended a sweep: the finished runs are stored, the store is intact, and
    running the sweep again resumes it. `stored`, `total`: runs stored by this call, and
    runs it had to run."""

    def __init__(self, stored: int, total: int):
        super().__init__(f"interrupted after storing {stored} of {total} runs; the same command resumes the sweep")
        self.stored = stored
        self.total = total

MAX_BATCH = 64
BATCH_TARGET_S = 0.25  # aim for batches of about this much wall time


TRACE_TABLES = ("flows", "cc", "queues", "losses", "drops")


def trace_tables(traces: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The core's trace dict as plain column dicts, link directions named (`link`)."""
    names = list(traces["dir_names"])
    tables = {t: dict(traces[t]) for t in TRACE_TABLES}
    for t in ("queues", "drops"):
        tables[t]["link"] = [names[int(d)] for d in tables[t]["dir"]]
    return tables


# In a pool worker: the file descriptor of the worker's marker, which holds the key of the
# run it is on (see `init_worker`).
_marker_fd: int | None = None
MARKER_BYTES = 64  # a run key is 32 hex digits


def _mark(key: str) -> None:
    if _marker_fd is not None:
        os.pwrite(_marker_fd, key.encode().ljust(MARKER_BYTES), 0)


def run_batch(jobs: Sequence[Job], algorithms: bytes | None = None) -> list[dict[str, Any]]:
    """Run a batch in this process; one record per job. A run's own error (invalid
    combination, simulator failure, a limit of `RunLimits`, an exception in an algorithm
    written in Python) is caught and returned as a failed record. KeyboardInterrupt
    propagates with the records of the runs finished before it as its `records`
    attribute. `algorithms`: the sweep's registered Python algorithms
    (`wtcp.algorithm.pickled_registrations`), registered here first."""
    from wtcp.algorithm import AlgorithmError, load_entry_points, register_pickled
    from wtcp.errors import RunStopped, ScenarioError, SimulationError

    from wtcp.ns3 import Ns3Unavailable

    load_entry_points()
    register_pickled(algorithms)

    host = platform.node()
    plat = platform.platform()
    out = []
    for job in jobs:
        key, toml = job[0], job[1]
        engine = job[2] if len(job) > 2 else "wtcp"
        limits = job[3] if len(job) > 3 else None
        _mark(key)
        t0 = time.perf_counter()
        rec: dict[str, Any] = {"key": key, "engine": engine, "platform": plat, "host": host, "wtcp_version": _core.__version__}
        try:
            if engine == "ns3":
                # One ns-3 import per worker process (wtcp.ns3.run caches it).
                import tomllib

                from wtcp.ns3 import run_document

                metrics_json, traces = run_document(tomllib.loads(toml)), None
            elif engine == "linux":
                # The kernel, in real time (the sweep runs these one at a time).
                metrics_json, traces = _core.run_linux(toml, "toml", [])
            else:
                # Traces only when the sweep asks for them (`[set] "trace.enabled" = true`).
                control = _core.RunControl(limits.timeout_s, limits.memory_mb) if limits else None
                metrics_json, traces = _core.run(toml, "toml", [], control)

            raw = json.loads(metrics_json)
            if traces is not None:
                rec["traces"] = trace_tables(traces)
            rec.update(
                status="done",
                events=raw.get("events"),
                sim_seconds=raw.get("sim_seconds"),
                jain_fairness=raw.get("jain_fairness"),
                peak_packets=raw.get("peak_packets"),
                warnings=json.dumps(raw.get("warnings", [])),
                flows=[flatten_flow(f) for f in raw["flows"]],
            )
        except RunStopped as e:
            # "exceeded the 30 s run timeout at simulated t = 12.3 s of 200 s"
            rec.update(status="failed", error=str(e), flows=[])
        except AlgorithmError as e:
            # The user's traceback is in the message (flow, hook, simulated time first).
            rec.update(status="failed", error=f"AlgorithmError: {e}", flows=[])
        except (ScenarioError, SimulationError, Ns3Unavailable, _core.LinuxEngineUnavailable, OSError) as e:
            rec.update(status="failed", error=f"{type(e).__name__}: {e}", flows=[])
        except KeyboardInterrupt as e:
            _mark("")
            e.records = out
            raise
        except Exception as e:  # noqa: BLE001 - any failure of one run must not stop the sweep
            rec.update(status="failed", error=f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}", flows=[])
        rec["wall_seconds"] = time.perf_counter() - t0
        out.append(rec)
    _mark("")
    return out


def sweep_algorithms(sweep: Sweep) -> set[str]:
    """Every algorithm name a sweep's runs may give a flow: its `algorithms`, the base
    scenario's and those a `flows.N.cc` of its tables sets."""
    names = set(sweep.algorithms)
    names.update(f["cc"] for f in sweep.base.document.get("flows", []) if isinstance(f.get("cc"), str))
    tables = [sweep.fixed, *sweep.points]
    lists = [sweep.grid, *sweep.zips]
    for path, value in [kv for t in tables for kv in t.items()] + [(p, v) for t in lists for p, vs in t.items() for v in vs]:
        if path.endswith(".cc") and isinstance(value, str):
            names.add(value)
    return names


def algorithms_of(jobs: Sequence[Job]) -> set[str]:
    """The algorithm names the jobs' scenarios give their flows."""
    import tomllib

    names = set()
    for job in jobs:
        for flow in tomllib.loads(job[1]).get("flows", []):
            if isinstance(flow.get("cc"), str):
                names.add(flow["cc"])
    return names


class Executor(Protocol):
    """What the runner needs from an executor."""

    workers: int

    def submit(self, batch: Sequence[Job]) -> Any:
        """Start `run_batch(batch)`; return a future (`.result()` gives the records)."""

    def as_completed(self, futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
        """Yield futures as they finish; raise `TimeoutError` if none finishes within
        `timeout` seconds (the runner then commits what is due and looks again)."""

    def recover(self) -> None:
        """Called after a future failed without a result (a worker died): make the
        executor usable again (e.g. start a new pool)."""

    def close(self) -> None: ...

    # Optional:
    # depth: batches to keep submitted (default: workers x 2).
    # plan(runs_left, est_run_s): told after each batch how many runs are left to submit
    #   and the mean wall time of a run so far (None until known); see `AutoExecutor`.
    # deaths(future) -> dict[str, str] | None: for a future that failed because worker
    #   processes died, the keys of the runs those workers were on, with the reason
    #   ("the worker process died (signal 9: SIGKILL)"); {} or None if not known.
    # cancel(futures): stop now (Ctrl-C): drop the futures, end the runs in flight.
    # watchdog(timeout_s): end every worker still on one run `WATCHDOG_GRACE` past the
    #   run timeout (a run that cannot stop itself, e.g. deadlocked); its run fails.


class InlineExecutor:
    """Runs every batch in this process at submission (`--workers 1`)."""

    workers = 1

    def submit(self, batch: Sequence[Job]) -> Any:
        from concurrent.futures import Future

        fut: Future = Future()
        try:
            fut.set_result(run_batch(batch))
        except (KeyboardInterrupt, SystemExit):
            raise  # Ctrl-C stops the sweep now, not after the next batch
        except BaseException as e:  # noqa: BLE001
            fut.set_exception(e)
        return fut

    def as_completed(self, futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
        yield from list(futures)  # (done at submission)

    def recover(self) -> None:
        pass

    def close(self) -> None:
        pass


def watch_parent(pid: int, period_s: float = 0.5) -> None:
    """Worker initialiser: a daemon thread that ends this process once `pid` (the sweep)
    no longer exists. A worker's own parent is the fork server, which outlives a killed
    sweep, so the sweep's pid is watched directly."""
    import threading

    def watch() -> None:
        while True:
            time.sleep(period_s)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass  # the pid exists (owned by someone else after reuse: keep going)

    threading.Thread(target=watch, name="wtcp-watch-parent", daemon=True).start()


def init_worker(pid: int, marker_dir: str | None = None, environ: dict[str, str] | None = None) -> None:
    """Pool worker initialiser: Ctrl-C is ignored (the sweep handles it and ends the
    workers), the sweep's process is watched (`watch_parent`), and, with `marker_dir`, the
    key of the run in progress is kept in the file `<marker_dir>/<pid>`, so that the sweep
    knows which run a worker that died was running. `environ`: the sweep's environment
    when it started the pool, which a worker takes (a fork server's workers would have the
    fork server's, that of the first pool of the process: budgets such as
    `WTCP_MEMORY_BUDGET_GIB` set since would not reach them)."""
    global _marker_fd
    if environ is not None and environ != os.environ:
        os.environ.clear()
        os.environ.update(environ)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent(pid)
    if marker_dir is not None:
        _marker_fd = os.open(os.path.join(marker_dir, str(os.getpid())), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def death_reason(exitcode: int) -> str:
    if exitcode < 0:
        try:
            name = f": {signal.Signals(-exitcode).name}"
        except ValueError:
            name = ""
        return f"the worker process died (signal {-exitcode}{name})"
    return f"the worker process died (exit code {exitcode})"


WORKER_NAME = "wtcp-sweep-worker"


def worker_context(method: str) -> Any:
    """A multiprocessing context for the sweep's workers that does not import the
    caller's `__main__` in them.

    Under forkserver and spawn, multiprocessing re-imports the main script in every new
    process (as `__mp_main__`), so a plain script calling `run_sweep` without an
    `if __name__ == "__main__":` guard would run again in each worker, and each would
    start a sweep of its own. The workers run only wtcp's functions, so they need none of
    the script: their processes are named `WORKER_NAME-N`, and for those the main module
    is left out of the data that prepares a new process. (A consequence: what a worker
    runs cannot be a function defined in the script, e.g. an executor subclass's
    `batch_call` target; define it in a module.)"""
    import multiprocessing
    from multiprocessing import spawn

    if not getattr(spawn.get_preparation_data, "_wtcp_no_main", False):
        original = spawn.get_preparation_data

        def get_preparation_data(name: str) -> dict[str, Any]:
            data = original(name)
            if str(name).startswith(WORKER_NAME):
                data.pop("init_main_from_path", None)
                data.pop("init_main_from_name", None)
            return data

        get_preparation_data._wtcp_no_main = True  # type: ignore[attr-defined]
        spawn.get_preparation_data = get_preparation_data
    base = multiprocessing.get_context(method)
    worker = {"forkserver": _ForkServerWorker, "spawn": _SpawnWorker}[method]
    return type(f"{type(base).__name__}ForWorkers", (type(base),), {"Process": worker})()


class _WorkerNaming:
    """A worker process named `WORKER_NAME-N` (see `worker_context`)."""

    _counter = itertools.count(1)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.name = f"{WORKER_NAME}-{next(_WorkerNaming._counter)}"


class _SpawnWorker(_WorkerNaming, _mp_context.SpawnProcess):
    pass


if hasattr(_mp_context, "ForkServerProcess"):

    class _ForkServerWorker(_WorkerNaming, _mp_context.ForkServerProcess):
        pass

else:  # Windows: no forkserver
    _ForkServerWorker = _SpawnWorker


class ProcessPoolExecutor:
    """A local `concurrent.futures.ProcessPoolExecutor` of `workers` processes.

    When a worker dies (killed by the kernel's out-of-memory killer, an aborted
    allocation, a signal), the pool breaks and every batch in flight fails with it.
    `recover` starts a new pool and reads which run each dead worker was on (from its
    marker file and exit code); `deaths(future)` tells the runner, which re-runs the other
    runs."""

    def __init__(self, workers: int | None = None):
        import tempfile
        import weakref

        self.workers = workers or os.cpu_count() or 1
        self._markers = tempfile.mkdtemp(prefix="wtcp-workers-")
        self._generation = 0  # pools started so far, minus one
        self._generation_of: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()  # future -> its pool
        self._deaths: dict[int, dict[str, str]] = {}  # generation -> {key: reason}
        self._watchdog_killed: dict[str, str] = {}  # key -> reason, for `_read_deaths`
        self._pool: Any = self._new_pool()

    def _new_pool(self) -> Any:
        import concurrent.futures
        import multiprocessing

        # forkserver/spawn: no inherited DuckDB handles or threads in the workers. The
        # workers watch the sweep's process and exit when it is gone (a SIGKILL of the sweep
        # would otherwise leave them running).
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        return concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=worker_context(method), initializer=init_worker, initargs=(os.getpid(), self._markers, dict(os.environ))
        )

    def batch_call(self, batch: Sequence[Job]) -> tuple[Callable[..., list[dict[str, Any]]], tuple[Any, ...]]:
        """The function a worker calls on a batch, and its arguments (a subclass may wrap
        `run_batch`; the function must be importable by the workers)."""
        from wtcp.algorithm import pickled_registrations

        return run_batch, (list(batch), pickled_registrations(algorithms_of(batch)))

    def submit(self, batch: Sequence[Job]) -> Any:
        if self._pool is None:  # after `cancel`
            self._pool = self._new_pool()
        from concurrent.futures.process import BrokenProcessPool

        fn, args = self.batch_call(batch)
        try:
            fut = self._pool.submit(fn, *args)
        except BrokenProcessPool:  # a worker died since the last look: a new pool
            self.recover()
            fut = self._pool.submit(fn, *args)
        self._generation_of[fut] = self._generation
        return fut

    def as_completed(self, futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
        import concurrent.futures

        # Ctrl-C waits for the end of the wait (at most `timeout`) and is raised then.
        # Raised inside it, as inside concurrent.futures.as_completed's generator, it can
        # land between a future's condition lock being taken and the `with` that releases
        # it: the lock stays held and the pool's result thread blocks on it. (A Ctrl-C'd
        # sweep hung once with that interrupt swallowed in the generator's clean-up at
        # `with f._condition`; 13 reruns did not repeat it, so that this was the cause
        # is inferred, untested.)
        with sigint_deferred():
            done, _ = concurrent.futures.wait(list(futures), timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED)
        if not done:
            raise TimeoutError
        return iter(list(done))

    def watchdog(self, timeout_s: float) -> None:
        """End (SIGKILL) every worker whose marker names one run for longer than
        `timeout_s` plus the grace: the run did not stop itself at its limit (a deadlock,
        a stuck allocation). The pool breaks; `recover` reads the run as timed out."""
        if self._pool is None:
            return
        now = time.time()
        overdue = timeout_s + watchdog_grace(timeout_s)
        for pid in list((getattr(self._pool, "_processes", None) or {}).keys()):
            marker = os.path.join(self._markers, str(pid))
            try:
                with open(marker, encoding="utf-8") as f:
                    key = f.read().strip()
                started = os.stat(marker).st_mtime
            except OSError:
                continue
            if key and now - started > overdue:
                self._watchdog_killed[key] = (
                    f"{WATCHDOG_REASON} {now - started:.0f} s after it started, past its {timeout_s:g} s run timeout "
                    "without stopping (a deadlocked or stuck run)"
                )
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def recover(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            self._pool.submit(int, 0).result()
        except BrokenProcessPool:
            old = self._pool
            processes = dict(getattr(old, "_processes", None) or {})
            old.shutdown(wait=True, cancel_futures=True)  # broken: its workers are ended
            self._deaths[self._generation] = self._read_deaths(processes)
            self._generation += 1
            self._pool = self._new_pool()

    def _read_deaths(self, processes: dict[int, Any]) -> dict[str, str]:
        """The runs the workers of a broken pool died on. The pool ends its remaining
        workers with SIGTERM once one died, so a worker ended by SIGTERM counts as a
        bystander."""
        deaths = {}
        for pid, proc in processes.items():
            proc.join(timeout=5)
            marker = os.path.join(self._markers, str(pid))
            try:
                with open(marker, encoding="utf-8") as f:
                    key = f.read().strip()
                os.unlink(marker)
            except OSError:
                key = ""
            code = proc.exitcode
            if key in self._watchdog_killed:
                deaths[key] = self._watchdog_killed.pop(key)
            elif key and code not in (None, 0, -signal.SIGTERM):
                deaths[key] = death_reason(code)
        return deaths

    def deaths(self, future: Any) -> dict[str, str] | None:
        generation = self._generation_of.get(future)
        return self._deaths.get(generation) if generation is not None else None

    def cancel(self, futures: Iterable[Any]) -> None:
        """Stop now: drop the pending batches and end the workers (their runs are lost)."""
        if self._pool is None:
            return
        for fut in futures:
            fut.cancel()
        for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
            proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None

    def close(self) -> None:
        import shutil

        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self._markers, ignore_errors=True)


# The default executor (`AutoExecutor`) starts a process pool once the runs left of a sweep
# are estimated at more than this much wall time in this process: starting the pool's
# workers (each importing wtcp) costs a few tenths of a second, so below that it does not
# pay off.
POOL_MIN_WORK_S = 2.0

# Seconds the runner waits for a batch before it commits what is due and runs the
# watchdog (a sweep whose last run is long must still commit the runs finished before it).
TICK_S = 0.5

# A run past its `--run-timeout` normally stops itself at the engine's next look at the
# clock; a worker still on it this much later is ended by the sweep (`watchdog`).
WATCHDOG_REASON = "ended by the sweep's watchdog"


def watchdog_grace(timeout_s: float) -> float:
    """Seconds past the run timeout before the watchdog ends a worker: 10 s, or a
    quarter of the timeout if that is longer."""
    return max(10.0, 0.25 * timeout_s)


class AutoExecutor:
    """The default executor: a sweep's runs start in this process, one at a time, and a
    process pool of `workers` (default: all cores) takes over once the runs left are
    estimated at more than `POOL_MIN_WORK_S` (runs left x the mean wall time of the runs
    so far); once started, the pool stays for the sweeps that follow. With one core the
    pool never starts. A small sweep thus costs no worker start-up, and a long one gets
    every core and the pool's isolation (a run that kills its worker fails alone) for all
    but its first runs. The runner tells it the estimate (`plan`)."""

    def __init__(self, workers: int | None = None):
        self.pool_workers = workers or os.cpu_count() or 1
        self._inline = InlineExecutor()
        self._pool: ProcessPoolExecutor | None = None

    @property
    def workers(self) -> int:
        return self._pool.workers if self._pool is not None else 1

    @property
    def depth(self) -> int:
        """Batches the runner keeps submitted: in this process one, so that the estimate
        is looked at after every batch."""
        return self._pool.workers * 2 if self._pool is not None else 1

    @property
    def pool_started(self) -> bool:
        return self._pool is not None

    def plan(self, runs_left: int, est_run_s: float | None) -> None:
        """Start the pool if the runs left will take more than `POOL_MIN_WORK_S` here."""
        if self._pool is None and self.pool_workers > 1 and est_run_s is not None and runs_left * est_run_s > POOL_MIN_WORK_S:
            self._pool = ProcessPoolExecutor(self.pool_workers)

    def submit(self, batch: Sequence[Job]) -> Any:
        return (self._pool or self._inline).submit(batch)

    def as_completed(self, futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
        # (the pool's `as_completed` takes the finished futures of in-process batches too)
        return (self._pool or self._inline).as_completed(futures, timeout)

    def start_pool(self) -> None:
        """Start the process pool now (with a run timeout: only a worker process can be
        ended when its run cannot stop itself), even with one core."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.pool_workers)

    def watchdog(self, timeout_s: float) -> None:
        if self._pool is not None:
            self._pool.watchdog(timeout_s)

    def recover(self) -> None:
        if self._pool is not None:
            self._pool.recover()

    def deaths(self, future: Any) -> dict[str, str] | None:
        return self._pool.deaths(future) if self._pool is not None else None

    def cancel(self, futures: Iterable[Any]) -> None:
        if self._pool is not None:
            self._pool.cancel(futures)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


class DaskExecutor:
    """Batches on a Dask cluster: `address` of a running scheduler, or `local_workers`
    worker processes of a `LocalCluster` started here. Dask retries a batch whose worker
    died (`retries`); the runner resubmits it if that is not enough."""

    def __init__(self, address: str | None = None, local_workers: int | None = None, retries: int = 2):
        from dask.distributed import Client, LocalCluster

        self._cluster = None
        if address is None:
            self._cluster = LocalCluster(n_workers=local_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            self._client = Client(address)
        self.retries = retries
        info = self._client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def submit(self, batch: Sequence[Job]) -> Any:
        from wtcp.algorithm import pickled_registrations

        return self._client.submit(run_batch, list(batch), pickled_registrations(algorithms_of(batch)), pure=False, retries=self.retries)

    def as_completed(self, futures: Iterable[Any], timeout: float | None = None) -> Iterator[Any]:
        from dask.distributed import wait

        # Dask's `wait` raises TimeoutError when none is done in time.
        done, _ = wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        return iter(list(done))

    def recover(self) -> None:
        pass

    def cancel(self, futures: Iterable[Any]) -> None:
        self._client.cancel(list(futures))

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


@dataclass
class Outcome:
    total: int = 0
    done: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[tuple[Run, str]] | None = None
    # Each distinct warning of the runs done now (a scheme outside its paper's
    # conditions, flows that delivered nothing), with the number of runs that gave it.
    warnings: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        return f"{self.total} runs: {self.done} done, {self.skipped} skipped, {self.failed} failed"


@dataclass
class Progress:
    """Counters the runner updates; `on_update(progress)` is called after each batch."""

    total: int
    finished: int = 0
    sim_seconds: float = 0.0
    started: float = 0.0

    def rate(self) -> float:
        dt = time.perf_counter() - self.started
        return self.finished / dt if dt > 0 else 0.0

    def sim_rate(self) -> float:
        dt = time.perf_counter() - self.started
        return self.sim_seconds / dt if dt > 0 else 0.0


def batch_size(pending: int, workers: int, est_run_s: float | None) -> int:
    """Enough runs per batch that a batch takes about BATCH_TARGET_S, but at least four
    batches per worker so the load stays balanced, at most MAX_BATCH."""
    by_balance = max(1, math.ceil(pending / (workers * 4)))
    by_time = MAX_BATCH if not est_run_s else max(1, int(BATCH_TARGET_S / est_run_s))
    return max(1, min(MAX_BATCH, by_balance, by_time))


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C while the block runs (a store write) and raise it right after. Only on
    the main thread with Python's default SIGINT handler; otherwise a no-op."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    pending: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if pending:
            raise KeyboardInterrupt


def run_sweep(
    sweep: Sweep,
    store: Store | str | os.PathLike[str],
    executor: Executor | None = None,
    on_update: Callable[[Progress], None] | None = None,
    resubmits: int = 2,
    run_timeout_s: float | None = None,
    run_memory_mb: float | None = None,
) -> Outcome:
    """Run the runs of `sweep` missing from `store`; store each result as it arrives.

    `executor`: where the runs execute; by default an `AutoExecutor`, which runs a short
    sweep in this process and starts a process pool of all cores for a long one.

    `run_timeout_s` and `run_memory_mb` limit every run (see `RunLimits`); a run past a
    limit is stored as failed with the reason. A run whose worker process dies is tried
    again up to `resubmits` times, alone, and then stored as failed; the runs that shared
    its batch are run again. Ctrl-C (KeyboardInterrupt) stores the runs finished so far,
    ends the runs in flight and raises `SweepInterrupted`; running the sweep again
    resumes it."""
    for name, value in (("run_timeout_s", run_timeout_s), ("run_memory_mb", run_memory_mb)):
        if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive number, not {value!r}")
    limits = RunLimits(run_timeout_s, run_memory_mb) if run_timeout_s is not None or run_memory_mb is not None else None
    sweep.check_size()  # before the store is made
    in_process_only = False
    if not isinstance(executor, InlineExecutor):
        # A Python algorithm the worker processes cannot receive: the default executor
        # keeps the sweep in this process; one that needs workers is refused before any run.
        from wtcp.algorithm import InvalidAlgorithm, pickled_registrations

        try:
            pickled_registrations(sweep_algorithms(sweep))
        except InvalidAlgorithm:
            if executor is not None or (limits is not None and limits.timeout_s is not None):
                raise
            in_process_only = True
    own_store = not isinstance(store, Store)
    st = Store(store) if own_store else store
    own_executor = executor is None
    ex = executor or AutoExecutor(1 if in_process_only else None)
    if limits is not None and limits.timeout_s is not None and isinstance(ex, AutoExecutor):
        ex.start_pool()  # only a worker process can be ended if a run cannot stop itself
    try:
        return _run(sweep, st, ex, on_update, resubmits, limits)
    finally:
        if own_executor:
            ex.close()
        if own_store:
            st.close()


def _job(run: Run, limits: RunLimits | None) -> Job:
    if run.engine != "wtcp":
        return (run.key, run.toml, run.engine)
    return (run.key, run.toml) if limits is None else (run.key, run.toml, run.engine, limits)


def _run(sweep: Sweep, st: Store, ex: Executor, on_update: Callable[[Progress], None] | None, resubmits: int, limits: RunLimits | None = None) -> Outcome:
    # The runs are planned as they are needed (`sweep.runs()` is a generator): only those
    # waiting or in flight are held, and the count comes from the axes (`Sweep.size`).
    total = sweep.size()
    outcome = Outcome(total=total, errors=[])
    names, done = st.begin_sweep(sweep.name, sweep.definition(), sweep.base._resolved_toml, sweep.param_values())
    by_key: dict[str, Run] = {}  # planned and not yet stored
    seen: set[str] = set()  # every key planned (a run repeated in the grid runs once)
    plans = sweep.runs()
    exhausted = False
    progress = Progress(total=total, started=time.perf_counter())

    def store_records(records: list[dict[str, Any]]) -> None:
        # Gathered and committed about once a second (`Store.queue`); the store is not held
        # open in between, so it can be read meanwhile. Ctrl-C waits until the records are
        # taken and counted.
        with sigint_deferred():
            now = datetime.now(timezone.utc)
            full = []
            for rec in records:
                run = by_key[rec["key"]]
                full.append({**rec, "sweep": sweep.name, "params": run.params, "algorithm": run.algorithm, "seed": run.seed, "replication": run.replication, "stream": run.stream, "created": now})
            st.queue(full, names)
            for rec in records:
                run = by_key.pop(rec["key"])
                if rec["status"] == "done":
                    outcome.done += 1
                    progress.sim_seconds += rec.get("sim_seconds") or 0.0
                    for w in json.loads(rec.get("warnings") or "[]"):
                        outcome.warnings[w] = outcome.warnings.get(w, 0) + 1
                else:
                    outcome.failed += 1
                    outcome.errors.append((run, rec.get("error") or ""))
            progress.finished += len(records)
        if on_update is not None:
            on_update(progress)

    def pull(n: int) -> list[Job]:
        """Up to `n` jobs from the plans: runs already stored or repeated are skipped, an
        invalid point is stored as failed as it comes."""
        nonlocal exhausted
        jobs: list[Job] = []
        invalid: list[dict[str, Any]] = []
        while len(jobs) < n and not exhausted:
            run = next(plans, None)
            if run is None:
                exhausted = True
                break
            if run.key in done or run.key in seen:
                outcome.skipped += 1
                progress.total -= 1
                continue
            seen.add(run.key)
            by_key[run.key] = run
            if run.error is not None:
                invalid.append({"key": run.key, "engine": run.engine, "status": "failed", "error": f"ScenarioError: {run.error}", "flows": [],
                                "wtcp_version": _core.__version__, "platform": platform.platform(), "host": platform.node()})
            else:
                jobs.append(_job(run, limits))
        if invalid:
            store_records(invalid)
        return jobs

    # First a small probe batch per worker to estimate the run time, then sized batches.
    inflight: dict[Any, tuple[list[Job], int]] = {}
    est: float | None = None

    def runs_left() -> int:
        return max(0, total - len(seen) - outcome.skipped)

    def next_batch() -> list[Job]:
        size = batch_size(runs_left(), ex.workers, est) if est is not None else 1
        return pull(max(1, size))

    def fill() -> None:
        while not exhausted and len(inflight) < getattr(ex, "depth", ex.workers * 2):
            batch = next_batch()
            if not batch:
                break
            inflight[ex.submit(batch)] = (batch, 0)

    def failed(jobs: Sequence[Job], error: str) -> list[dict[str, Any]]:
        return [{"key": job[0], "status": "failed", "error": error, "flows": []} for job in jobs]

    def on_lost_batch(fut: Any, batch: list[Job], attempts: int, error: Exception) -> None:
        """A batch ended without results: its worker died or the executor failed."""
        ex.recover()
        deaths_of = getattr(ex, "deaths", None)
        deaths = deaths_of(fut) if deaths_of is not None else None
        lost: list[dict[str, Any]] = []
        if deaths:
            # The executor knows whose worker died: that run is tried again alone; the
            # others (of this batch, or of batches that broke with the pool) run again as
            # they were.
            bystanders = [job for job in batch if job[0] not in deaths]
            if bystanders:
                inflight[ex.submit(bystanders)] = (bystanders, attempts)
            for job in batch:
                if job[0] in deaths:
                    if attempts < resubmits and not deaths[job[0]].startswith(WATCHDOG_REASON):
                        inflight[ex.submit([job])] = ([job], attempts + 1)
                    else:
                        lost.extend(failed([job], deaths[job[0]]))
        elif len(batch) > 1:
            # Not known which run it was: one run per task, so that it fails alone.
            for job in batch:
                inflight[ex.submit([job])] = ([job], attempts + 1)
        elif attempts < resubmits:
            inflight[ex.submit(batch)] = (batch, attempts + 1)
        else:
            lost.extend(failed(batch, f"worker failed: {type(error).__name__}: {error}"))
        if lost:
            store_records(lost)

    def commit() -> None:
        with sigint_deferred():
            st.flush()

    watchdog = getattr(ex, "watchdog", None) if limits is not None and limits.timeout_s is not None else None

    def tick() -> None:
        """No run finished for a while: commit what finished before (a long run in flight
        must not hold finished runs uncommitted) and end runs past their time limit."""
        with sigint_deferred():
            st.queue([], names)
        if watchdog is not None:
            watchdog(limits.timeout_s)  # type: ignore[union-attr]

    try:
        fill()
        while inflight:
            try:
                completed = ex.as_completed(list(inflight), timeout=TICK_S)
                fut = next(iter(completed))
            except TimeoutError:
                tick()
                continue
            for fut in [fut]:
                batch, attempts = inflight.pop(fut)
                try:
                    records = fut.result()
                except Exception as e:  # noqa: BLE001 - the worker died or the executor failed
                    on_lost_batch(fut, batch, attempts, e)
                    fill()
                    break
                walls = [r["wall_seconds"] for r in records if r.get("wall_seconds")]
                if walls:
                    mean = sum(walls) / len(walls)
                    est = mean if est is None else 0.7 * est + 0.3 * mean
                store_records(records)
                plan = getattr(ex, "plan", None)
                if plan is not None:
                    plan(runs_left(), est)
                fill()
                break  # re-enter as_completed with the refreshed set of futures
        commit()  # the last results (a Ctrl-C during it ends the sweep as below)
    except KeyboardInterrupt as interrupt:
        # Keep what finished (the runs of an in-process batch before the interrupt, the
        # batches done but not yet collected), end the rest, leave the store consistent.
        finished = list(getattr(interrupt, "records", None) or [])
        for fut in inflight:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                finished.extend(fut.result())
        cancel = getattr(ex, "cancel", None)
        if cancel is not None:
            cancel(list(inflight))
        if finished:
            store_records(finished)
        commit()
        raise SweepInterrupted(progress.finished, progress.total) from None
    except BaseException as e:
        if not isinstance(e, StoreError):  # (a store that failed is not tried twice)
            commit()  # what finished stays stored
        raise
    return outcome


def default_store_path(sweep: Sweep) -> Path:
    """`<sweep name>.duckdb` next to the sweep file (in the current directory for a sweep
    without a file). `SweepError` unless the name is one plain file name (`"../../x"`, an
    absolute path or `"a/b"` would put the store elsewhere; give the store's path then)."""
    from wtcp.paths import SAFE_NAME_RULE, inside, name_problem
    from wtcp.sweep.spec import SweepError

    base = sweep.source.parent if sweep.source is not None else Path.cwd()
    problem = name_problem(sweep.name)
    path = base / f"{sweep.name}.duckdb"
    if problem is None and not inside(base, path):
        problem = f"is {sweep.name!r}, which leads outside {base}"
    if problem is not None:
        raise SweepError("name", f"{problem}; allowed: {SAFE_NAME_RULE}, as it names the store <name>.duckdb (or give the store's path: --store)")
    return path


@dataclass
class DryRun:
    """What `run_sweep` would do: `total` runs, of which `stored` are already done in the
    store and `invalid` are points the scenario refuses (stored as failed runs); `axes`
    are (what varies, its values)."""

    total: int
    stored: int
    invalid: int
    axes: list[tuple[str, list[Any]]]
    # Why points are invalid: (the point's swept values, the scenario's error), one per
    # distinct error, with how many runs have it.
    reasons: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def to_run(self) -> int:
        return self.total - self.stored

    def lines(self) -> list[str]:
        out = [f"{self.total} runs: {' x '.join(str(len(v)) for _, v in self.axes) or '1'}"]
        for label, values in self.axes:
            out.append(f"  {label}: {', '.join(_value_text(v) for v in values)}")
        out.append(f"{self.stored} already stored, {self.to_run} to run" + (f" ({self.invalid} invalid points would be stored as failed)" if self.invalid else ""))
        for point, error, n in self.reasons[:MAX_REASONS]:
            out.append(f"  invalid ({n} run{'' if n == 1 else 's'}, e.g. {point}): {error}")
        if len(self.reasons) > MAX_REASONS:
            out.append(f"  ... {len(self.reasons) - MAX_REASONS} more kinds of invalid point")
        return out


MAX_REASONS = 10  # distinct reasons for invalid points a dry run lists


def _value_text(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_value_text(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_value_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def dry_run(sweep: Sweep, store: str | os.PathLike[str] | Store | None = None) -> DryRun:
    """Count a sweep's runs and how many `store` already holds, without running any
    (a store file that does not exist holds none and is not created)."""
    from wtcp.sweep.store import readable_store

    sweep.check_size()  # counted from the axes' lengths before anything is listed
    axes: list[tuple[str, list[Any]]] = [(path, list(values)) for path, values in sweep.grid.items()]
    for group in sweep.zips:
        axes.append((" + ".join(group), [tuple(vs) for vs in zip(*group.values())]))
    if sweep.points:
        axes.append((f"points ({', '.join(sorted({p for point in sweep.points for p in point}))})", [dict(p) for p in sweep.points]))
    if sweep.algorithms:
        axes.append(("algorithm", list(sweep.algorithms)))
    if sweep.replications > 1:
        axes.append(("replication", list(range(sweep.replications))))
    done: set[str] = set()
    if isinstance(store, Store):
        done = store.done_keys()
    elif store is not None and Path(store).is_file():
        with readable_store(store) as (st, _note):
            done = st.done_keys()
    # The plans one at a time (none is held): counted as they come.
    total = stored = invalid = 0
    reasons: dict[str, tuple[str, int]] = {}
    for r in sweep.runs():
        total += 1
        if r.key in done:
            stored += 1
        elif r.error is not None:
            invalid += 1
            point, n = reasons.get(r.error, (_value_text(r.params), 0))
            reasons[r.error] = (point, n + 1)
    return DryRun(total=total, stored=stored, invalid=invalid, axes=axes, reasons=[(p, e, n) for e, (p, n) in reasons.items()])
