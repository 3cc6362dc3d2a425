"""Running a sweep: executors (in-process, process pool, Dask) behind one small interface,
batching, storing each result as it arrives, and progress reporting."""

from __future__ import annotations

import math
import os
import platform
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from wtcp import _core
from wtcp.result import flatten_flow
from wtcp.sweep.spec import Run, Sweep
from wtcp.sweep.store import Store

# A job: (key, resolved scenario TOML), or (key, TOML, engine) for an engine other than
# wtcp ("ns3").
# A batch: a list of jobs, run one after another.
Job = tuple[str, ...]

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


def run_batch(jobs: Sequence[Job]) -> list[dict[str, Any]]:
    """Run a batch in this process; one record per job. A run's own error (invalid
    combination, simulator failure) is caught and returned as a failed record."""
    from wtcp.errors import ScenarioError, SimulationError

    import json

    from wtcp.ns3 import Ns3Unavailable

    host = platform.node()
    plat = platform.platform()
    out = []
    for job in jobs:
        key, toml = job[0], job[1]
        engine = job[2] if len(job) > 2 else "wtcp"
        t0 = time.perf_counter()
        rec: dict[str, Any] = {"key": key, "engine": engine, "platform": plat, "host": host, "wtcp_version": _core.__version__}
        try:
            if engine == "ns3":
                # One ns-3 import per worker process (wtcp.ns3.run caches it).
                import tomllib

                from wtcp.ns3 import run_document

                metrics_json, traces = run_document(tomllib.loads(toml)), None
            else:
                # Traces only when the sweep asks for them (`[set] "trace.enabled" = true`).
                metrics_json, traces = _core.run(toml, "toml", [])

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
        except (ScenarioError, SimulationError, Ns3Unavailable) as e:
            rec.update(status="failed", error=f"{type(e).__name__}: {e}", flows=[])
        except Exception as e:  # noqa: BLE001 - any failure of one run must not stop the sweep
            rec.update(status="failed", error=f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}", flows=[])
        rec["wall_seconds"] = time.perf_counter() - t0
        out.append(rec)
    return out


class Executor(Protocol):
    """What the runner needs from an executor."""

    workers: int

    def submit(self, batch: Sequence[Job]) -> Any:
        """Start `run_batch(batch)`; return a future (`.result()` gives the records)."""

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        """Yield futures as they finish."""

    def recover(self) -> None:
        """Called after a future failed without a result (a worker died): make the
        executor usable again (e.g. start a new pool)."""

    def close(self) -> None: ...


class InlineExecutor:
    """Runs every batch in this process at submission (`--workers 1`)."""

    workers = 1

    def submit(self, batch: Sequence[Job]) -> Any:
        from concurrent.futures import Future

        fut: Future = Future()
        try:
            fut.set_result(run_batch(batch))
        except BaseException as e:  # noqa: BLE001
            fut.set_exception(e)
        return fut

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        yield from list(futures)

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


class ProcessPoolExecutor:
    """A local `concurrent.futures.ProcessPoolExecutor` of `workers` processes."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or os.cpu_count() or 1
        self._pool = self._new_pool()

    def _new_pool(self) -> Any:
        import concurrent.futures
        import multiprocessing

        # forkserver/spawn: no inherited DuckDB handles or threads in the workers. The
        # workers watch the sweep's process and exit when it is gone (a SIGKILL of the sweep
        # would otherwise leave them running).
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        return concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context(method), initializer=watch_parent, initargs=(os.getpid(),)
        )

    def submit(self, batch: Sequence[Job]) -> Any:
        return self._pool.submit(run_batch, list(batch))

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        import concurrent.futures

        return concurrent.futures.as_completed(list(futures))

    def recover(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            self._pool.submit(int, 0).result()
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


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
        return self._client.submit(run_batch, list(batch), pure=False, retries=self.retries)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[Any]:
        from dask.distributed import as_completed

        return iter(as_completed(list(futures)))

    def recover(self) -> None:
        pass

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


def run_sweep(
    sweep: Sweep,
    store: Store | str | os.PathLike[str],
    executor: Executor | None = None,
    on_update: Callable[[Progress], None] | None = None,
    resubmits: int = 2,
) -> Outcome:
    """Run the runs of `sweep` missing from `store`; store each result as it arrives."""
    own_store = not isinstance(store, Store)
    st = Store(store) if own_store else store
    own_executor = executor is None
    ex = executor or ProcessPoolExecutor()
    try:
        return _run(sweep, st, ex, on_update, resubmits)
    finally:
        if own_executor:
            ex.close()
        if own_store:
            st.close()


def _run(sweep: Sweep, st: Store, ex: Executor, on_update: Callable[[Progress], None] | None, resubmits: int) -> Outcome:
    runs = list(sweep.runs())
    outcome = Outcome(total=len(runs), errors=[])
    params = {p: [] for p in sweep.swept_paths()}
    for run in runs:
        for p in params:
            params[p].append(run.params.get(p))
    names = st.ensure_param_columns(params)
    st.record_definition(sweep.name, sweep.definition(), sweep.base._resolved_toml)
    done = st.done_keys()
    by_key: dict[str, Run] = {}
    todo: list[Run] = []
    invalid: list[dict[str, Any]] = []
    for run in runs:
        if run.key in done or run.key in by_key:
            outcome.skipped += 1
            continue
        by_key[run.key] = run
        if run.error is not None:
            invalid.append({"key": run.key, "engine": run.engine, "status": "failed", "error": f"ScenarioError: {run.error}", "flows": [], "wtcp_version": _core.__version__, "platform": platform.platform(), "host": platform.node()})
        else:
            todo.append(run)
    progress = Progress(total=len(runs) - outcome.skipped, started=time.perf_counter())

    def store_records(records: list[dict[str, Any]]) -> None:
        now = datetime.now(timezone.utc)
        full = []
        for rec in records:
            run = by_key[rec["key"]]
            full.append({**rec, "sweep": sweep.name, "params": run.params, "algorithm": run.algorithm, "seed": run.seed, "replication": run.replication, "stream": run.stream, "created": now})
            if rec["status"] == "done":
                outcome.done += 1
                progress.sim_seconds += rec.get("sim_seconds") or 0.0
            else:
                outcome.failed += 1
                outcome.errors.append((run, rec.get("error") or ""))
        st.write(full, names)
        progress.finished += len(records)
        if on_update is not None:
            on_update(progress)

    if invalid:
        store_records(invalid)

    # First a small probe batch per worker to estimate the run time, then sized batches.
    queue: list[Job] = [(run.key, run.toml) if run.engine == "wtcp" else (run.key, run.toml, run.engine) for run in todo]
    pos = 0
    inflight: dict[Any, tuple[list[Job], int]] = {}
    est: float | None = None

    def next_batch() -> list[Job]:
        nonlocal pos
        size = batch_size(len(queue) - pos, ex.workers, est) if est is not None else 1
        batch = queue[pos : pos + size]
        pos += len(batch)
        return batch

    def fill() -> None:
        while pos < len(queue) and len(inflight) < ex.workers * 2:
            batch = next_batch()
            inflight[ex.submit(batch)] = (batch, 0)

    fill()
    while inflight:
        for fut in ex.as_completed(list(inflight)):
            batch, attempts = inflight.pop(fut)
            try:
                records = fut.result()
            except Exception as e:  # noqa: BLE001 - the worker died or the executor failed
                ex.recover()
                if attempts < resubmits:
                    inflight[ex.submit(batch)] = (batch, attempts + 1)
                else:
                    store_records([{"key": k, "status": "failed", "error": f"worker failed: {type(e).__name__}: {e}", "flows": []} for k, *_ in batch])
                    fill()
                break
            walls = [r["wall_seconds"] for r in records if r.get("wall_seconds")]
            if walls:
                mean = sum(walls) / len(walls)
                est = mean if est is None else 0.7 * est + 0.3 * mean
            store_records(records)
            fill()
            break  # re-enter as_completed with the refreshed set of futures
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
