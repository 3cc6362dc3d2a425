"""The result store: one DuckDB file, tidy tables `runs` and `flows`, keyed by run key.

Every batch of results is written in one transaction, so a killed sweep leaves each run
either complete (its `runs` row and all its `flows` rows) or absent.

Reading while a sweep writes. DuckDB lets one process open a file for writing, and a
reader's shared lock keeps the writer out, so nothing holds the file between operations:
the writer (`Store(path)`) opens it for each batch it commits (`queue` gathers results
and commits them about once a second, `flush` at the end) and closes it again, which
folds the write-ahead log into the file; a reader (`open_store`) opens it read-only for
each call (or each `session()`), sees every batch committed before, and closes it. A
writer that finds the file held by a reader keeps its batch and tries again at the next
one. One writer at a time is kept by `<store>.lock`, held with `flock` for as long as a
writable `Store` is open and removed when it closes.

Schema versions (`meta` table): 1, the layout without `meta`; 2, `meta` added (rows
`schema_version`, `created_by`, `written_by`: the store's layout and the wtcp versions
that created it and last opened it for writing). Older stores are read as they are and
upgraded when opened for writing; a store of a newer schema is refused with both versions.

Every DuckDB error (a store locked by another process, a file that is not a DuckDB
database, a corrupt or truncated one, a database that is not a wtcp store) is raised as a
`StoreError` naming the file.
"""

from __future__ import annotations

import functools
import json
import math
import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

RUN_COLUMNS = {
    "key": "VARCHAR PRIMARY KEY",
    "sweep": "VARCHAR",
    "params": "VARCHAR",
    "engine": "VARCHAR",
    "algorithm": "VARCHAR",
    "seed": "BIGINT",
    "replication": "INTEGER",
    "stream": "BIGINT",
    "status": "VARCHAR",
    "error": "VARCHAR",
    "wall_seconds": "DOUBLE",
    "events": "BIGINT",
    "sim_seconds": "DOUBLE",
    "jain_fairness": "DOUBLE",
    "peak_packets": "BIGINT",
    "warnings": "VARCHAR",
    "wtcp_version": "VARCHAR",
    "platform": "VARCHAR",
    "host": "VARCHAR",
    "created": "TIMESTAMPTZ",
}
RUN_PARAMS_AT = list(RUN_COLUMNS).index("params")
FLOW_FIXED = {"key": "VARCHAR", "flow_id": "INTEGER"}
# The columns every store has had: a `runs` table without them is not a wtcp store's.
REQUIRED_RUN_COLUMNS = ("key", "sweep", "params", "algorithm", "seed", "replication", "status", "error")
STORE_RULE = "a result store written by `wtcp sweep` or `wtcp reproduce`"

# The layout of a store (see the module's docstring); `MIGRATIONS[v]` upgrades v to v + 1.
SCHEMA_VERSION = 2
META_TABLE = "meta"

# Batches a writer gathers before it commits them (`Store.queue`): at most this long since
# the last commit, this many runs, or this many rows (flows and trace samples). A commit
# opens and closes the file (25-40 ms of CPU here, whatever it writes), so after the first
# commit the interval stretches to keep that to `COMMIT_SHARE` of the time, up to
# `FLUSH_MAX_S`.
FLUSH_EVERY_S = 1.0
FLUSH_RUNS = 2000
FLUSH_ROWS = 200_000
COMMIT_SHARE = 0.01
FLUSH_MAX_S = 10.0
STORED_KEYS_MAX = 200_000  # keys a writer remembers to spare its commits the DELETEs
# How long an operation waits for the file while another process holds it: a reader's
# query (`READER_WAIT_S`), a sweep's commit (`WRITER_WAIT_S`, its writer known from
# `<store>.lock`), a process that is neither (`FOREIGN_WAIT_S`: then it is reported as
# locked). The last commit of a sweep waits `FINAL_FLUSH_WAIT_S` for readers to let go.
READER_WAIT_S = 5.0
WRITER_WAIT_S = 60.0
FOREIGN_WAIT_S = 0.5
FINAL_FLUSH_WAIT_S = 600.0


# Rates are stored in bit/s (as the simulator reports them); each also reads in Mb/s, as
# `Result.flows`, the CLI tables and claims give it.
RATE_COLUMNS = {"goodput_mbps": "goodput_bps", "throughput_mbps": "throughput_bps"}


def _run_filter(table: str, sweep: str | None, keys: Iterable[str] | None, *conditions: str) -> tuple[str, list[Any]]:
    """A WHERE clause on the `runs` columns (prefixed `table`) and its parameters: the
    `conditions`, the sweep `sweep`, the run keys `keys` (filtered in the query: a store
    holds every sweep's rows, and a reader of a few runs need not load them all)."""
    terms, params = list(conditions), []
    if sweep is not None:
        terms.append(f"{table}sweep = ?")
        params.append(sweep)
    if keys is not None:
        terms.append(f"{table}key IN (SELECT unnest(?::VARCHAR[]))")
        params.append(list(keys))
    return (" WHERE " + " AND ".join(terms) if terms else ""), params


def with_rate_units(flows: pd.DataFrame) -> pd.DataFrame:
    """`flows` with `goodput_mbps` and `throughput_mbps` beside the bit/s columns."""
    for mbps, bps in RATE_COLUMNS.items():
        if bps in flows.columns and mbps not in flows.columns:
            flows.insert(flows.columns.get_loc(bps) + 1, mbps, flows[bps] / 1e6)
    return flows


class UnknownColumn(ValueError):
    """A grouping column the table does not have; the message lists those it has (a swept
    path's column replaces dots with `_`: `flows_0_cc_params_beta`)."""

    def __init__(self, column: str, valid: Iterable[str]):
        import difflib

        valid = sorted(set(valid))
        guess = column.replace(".", "_")
        close = difflib.get_close_matches(guess, valid, n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else ""
        self.column = column
        self.message = f"no column `{column}` to group by{hint} (columns: {', '.join(valid)})"
        super().__init__(self.message)


class UnknownMetric(KeyError):
    """A metric that is neither a flows nor a runs column; the message lists the valid ones."""

    def __init__(self, metric: str, valid: Iterable[str]):
        import difflib

        valid = sorted(set(valid))
        close = difflib.get_close_matches(metric, valid, n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else ""
        self.metric = metric
        self.valid = valid
        self.message = f"no metric `{metric}`{hint} (metrics: {', '.join(valid)})"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


def numeric_columns(frame: pd.DataFrame, skip: Iterable[str] = ()) -> list[str]:
    import pandas as pd

    skip = set(skip)
    return [c for c in frame.columns if c not in skip and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


class StoreError(ValueError):
    """A result store that cannot be opened, read or written: `.path` (the file) and
    `.reason` (locked by another process, not a DuckDB file, corrupt, not a wtcp store)."""

    def __init__(self, path: str | os.PathLike[str], reason: str, locked: bool = False, newer: bool = False):
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason
        self.locked = locked  # another process holds the store's lock
        self.newer = newer  # written by a newer wtcp, in a schema this one does not know


def is_lock_error(e: Exception) -> bool:
    text = str(e)
    return "Could not set lock" in text or "Conflicting lock" in text


def is_busy_error(e: Exception) -> bool:
    """The file is held by another process, or by a connection of this process opened
    the other way (read-only against read-write): worth trying again shortly."""
    return is_lock_error(e) or "different configuration than existing connections" in str(e)


def wtcp_version() -> str:
    from wtcp import _core

    return str(_core.__version__)


# --- one writer at a time: <store>.lock ---

try:
    import fcntl
except ImportError:  # Windows: no flock; DuckDB's own lock still keeps two writers apart
    fcntl = None  # type: ignore[assignment]


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The file a process writing the store `path` holds locked (removed when it closes)."""
    return Path(f"{os.fspath(path)}.lock")


def _holder_pid(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
    except OSError:
        return "unknown"


def writer_pid(path: str | os.PathLike[str]) -> str | None:
    """The PID of the process writing the store `path` (a `wtcp sweep`), or None."""
    if fcntl is None:
        return None
    try:
        fd = os.open(lock_path(path), os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _holder_pid(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class WriterLock:
    """`<store>.lock` held with `flock` (released by the kernel if the process dies), its
    text the holder's PID. A second writer is refused with that PID; readers only look."""

    def __init__(self, store: Path, wait_s: float = 0.5):
        self.path = lock_path(store)
        self.fd: int | None = None
        if fcntl is None:
            return
        deadline = time.monotonic() + wait_s  # past a reader's glance (`writer_pid`)
        while True:
            try:
                # O_NOFOLLOW: a link planted at the lock's name is refused, not truncated.
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except OSError as e:
                if self.path.is_symlink():
                    raise StoreError(store, f"cannot be opened for writing: its lock file {self.path} is a symbolic link (refused: wtcp does not write through links; remove it)") from None
                raise StoreError(store, f"cannot be opened for writing: cannot create its lock file {self.path} ({e.strerror or e})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                pid = _holder_pid(fd)
                os.close(fd)
                if time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                raise StoreError(store, f"is locked by another process (PID {pid}), a `wtcp sweep` (or another writer) writing it; wait for it to finish, "
                                 "or read it meanwhile (`wtcp results`, `wtcp report`, `wtcp.open_store`)", locked=True) from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # not a lock file its last holder removed after we opened it
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                self.fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        if self.fd is not None:
            try:
                os.unlink(self.path)  # before unlocking: a waiting writer then retries on a new file
            except FileNotFoundError:
                pass
            os.close(self.fd)
            self.fd = None


def connect(path: Path, read_only: bool, wait_s: float | None = None, name: Path | None = None) -> Any:
    """A DuckDB connection to the store `path`, trying again while another process holds
    the file: up to `wait_s`, or by default `WRITER_WAIT_S` if a sweep writes the store
    (it lets go within a commit) and `FOREIGN_WAIT_S` otherwise. `StoreError` (naming
    `name`, default `path`) if it fails."""
    import duckdb

    start = time.monotonic()
    pause = 0.005
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as e:
            if is_busy_error(e):
                limit = wait_s
                if limit is None:
                    limit = WRITER_WAIT_S if writer_pid(path) is not None else FOREIGN_WAIT_S
                if time.monotonic() - start + pause <= limit:
                    time.sleep(pause)
                    pause = min(pause * 2, 0.1)
                    continue
            raise StoreError(name or path, describe_duckdb_error(e), locked=is_busy_error(e)) from e


def describe_duckdb_error(e: Exception) -> str:
    """What a DuckDB error means for a store, for a user."""
    text = str(e).strip()
    if is_lock_error(e):
        pid = re.search(r"PID (\d+)", text)
        holder = f" (PID {pid.group(1)})" if pid else ""
        return (f"is locked by another process{holder}, such as a `wtcp sweep` writing it; wait for it to finish, "
                "or read a snapshot (`wtcp results STORE --copy COPY.duckdb`)")
    if "different configuration than existing connections" in text:
        return ("is open in this process in the other mode (read-only against read-write) by another DuckDB connection; "
                "close that connection, or use the store through wtcp alone")
    if "not a valid DuckDB database file" in text:
        return f"is not a DuckDB database file (empty, or another kind of file); allowed: {STORE_RULE}"
    if "Corrupt database" in text or "Could not read enough bytes" in text or "checksum" in text:
        return f"is damaged (corrupt or truncated; DuckDB says: {text}); allowed: {STORE_RULE}"
    if "No space left on device" in text or "ENOSPC" in text or "disk is full" in text.lower():
        return "cannot be written: no space left on the device holding it (nothing of the last commit was stored; free space and run the same command again)"
    kind = type(e).__name__
    return f"cannot be used (DuckDB {kind}: {text})"


def _store_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run `method` in a session (one connection, opened for it unless one is open) and
    raise any DuckDB error of it as a `StoreError` naming the store."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        import duckdb

        try:
            with self.session():
                return method(self, *args, **kwargs)
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None  # Ctrl-C during a query
        except duckdb.Error as e:
            raise StoreError(self.path, describe_duckdb_error(e), locked=is_lock_error(e)) from e

    return wrapper

# t_{0.975, df} for df = 1..30; beyond 30 the normal quantile 1.96 is used.
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)


def t975(df: int) -> float:
    """Two-sided 95 % Student-t quantile (table for df <= 30, 1.96 beyond; NaN for df < 1)."""
    if df < 1:
        return math.nan
    return T975[df - 1] if df <= len(T975) else 1.96


def param_column(path: str) -> str:
    """Column name of a swept path: `links.1.ab.loss.rate` -> `links_1_ab_loss_rate`
    (prefixed with `param_` if that clashes with a fixed column)."""
    name = re.sub(r"[^0-9A-Za-z_]", "_", path)
    if name in RUN_COLUMNS or name[:1].isdigit():
        name = f"param_{name}"
    return name


def _sql_type(values: Iterable[Any]) -> str:
    values = [v for v in values if v is not None]
    if values and all(isinstance(v, bool) for v in values):
        return "BOOLEAN"
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "DOUBLE" if any(isinstance(v, float) for v in values) else "BIGINT"
    return "VARCHAR"


def _cell(value: Any, sql_type: str) -> Any:
    if value is None:
        return None
    if sql_type == "VARCHAR" and not isinstance(value, str):
        return json.dumps(value, sort_keys=True)
    return value


def insert_rows(con: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Insert `rows` (values in `columns` order; None is NULL) as one statement that
    binds each column as a list and unnests the lists side by side. No DataFrame is built
    and pandas is not imported: for a sweep's small batches both cost more than the insert
    (measured: 100 rows of 64 columns in 5 ms, against 12 ms through an object-typed
    DataFrame and 54 ms as a multi-row VALUES statement)."""
    if not rows:
        return
    names = ", ".join(_quote(c) for c in columns)
    unnested = ", ".join(f"unnest(?) AS {_quote(c)}" for c in columns)
    con.execute(f"INSERT INTO {_quote(table)} ({names}) SELECT {unnested}", [list(values) for values in zip(*rows)])


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Store:
    """A DuckDB result store. `Store(path)` opens (creating) it for writing;
    `Store(path, read_only=True)` for reading (see `open_store`). Neither keeps the file
    open: each call opens it and closes it again (`session()` keeps one connection, one
    consistent view, for several calls). DuckDB errors are raised as `StoreError`."""

    def __init__(self, path: str | os.PathLike[str], read_only: bool = False):
        self.path = Path(path)  # the store errors name
        self.file = Path(path)  # the file opened (a snapshot's, see `readable_store`)
        self.read_only = read_only
        self._con: Any = None
        self._lock: WriterLock | None = None
        self._pending: list[tuple[list[dict[str, Any]], dict[str, str]]] = []
        self._pending_runs = 0
        self._pending_rows = 0
        self._last_flush = time.monotonic()
        self._commit_s = 0.0  # CPU time the last commit took to open and close the file
        self._columns: dict[str, dict[str, str]] = {}
        # The trace tables, once a commit has looked (one writer at a time: only this
        # store's commits add any while it is open).
        self._trace_tables: set[str] | None = None
        # A store this writer has just made holds no runs: the set-up a sweep asks for
        # (`begin_sweep`) waits here for the first commit, saving a connection.
        self._fresh = False
        self._deferred: list[Callable[[], None]] = []
        # The keys this writer has committed to a store it made (None: a store it opened,
        # or more than `STORED_KEYS_MAX`): runs none of which is stored need no DELETE.
        self._stored: set[str] | None = None
        if self.path.exists() and not self.path.is_file():
            # A FIFO, a device or a folder: DuckDB would block reading a FIFO for ever.
            kind = "a folder" if self.path.is_dir() else "not a regular file (a FIFO, a socket or a device)"
            raise StoreError(self.path, f"is {kind}; allowed: a DuckDB store file, or a path where none exists yet")
        if read_only:
            if not self.path.exists():
                raise FileNotFoundError(2, "no such store", str(path))
            with self.session():
                self._check()
            return
        self._lock = WriterLock(self.path)
        try:
            if not self.path.exists():
                self._create()
                self._fresh = True
                self._stored = set()
            else:
                with self.session(wait_s=READER_WAIT_S):
                    self._open_for_writing()
        except BaseException:
            self._lock.release()
            raise

    # --- connections ---

    @contextmanager
    def session(self, wait_s: float | None = None) -> Iterator[Any]:
        """One connection for the calls made inside the block (re-entrant): they see one
        state of the store, and hold it, read-only or for writing, until the block ends."""
        if self._con is not None:
            yield self._con
            return
        self._con = connect(self.file, self.read_only, wait_s, name=self.path)
        try:
            self._run_deferred()
            yield self._con
        finally:
            con, self._con = self._con, None
            con.close()  # for a writer: the log is folded into the file (a checkpoint)

    @property
    def con(self) -> Any:
        """The connection of the current session."""
        if self._con is None:
            raise RuntimeError("the store is not open: use it inside `with store.session():` or through its methods")
        return self._con

    def close(self) -> None:
        """Commit what `queue` holds and, for a writer, let other writers in."""
        try:
            if self._pending or self._deferred:
                self.flush()
        finally:
            if self._lock is not None:
                self._lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        lock = getattr(self, "_lock", None)
        if lock is not None:
            try:
                lock.release()  # a writer dropped without close(): let other writers in
            except Exception:  # noqa: BLE001 - at interpreter exit
                pass

    # --- schema ---

    def _create(self) -> None:
        """Make a new store in a temporary file, then move it into place: a reader never
        sees a half-made store."""
        import duckdb

        tmp = self.path.with_name(f".{self.path.name}.new-{os.getpid()}")
        for f in (tmp, wal_path(tmp)):
            f.unlink(missing_ok=True)
        try:
            con = duckdb.connect(str(tmp))
            try:
                self._con = con
                self._create_tables()
                self._write_meta(created=True)
                self._columns = self._tables_columns(("runs", "flows"))
            finally:
                self._con = None
                con.close()
            os.replace(tmp, self.path)
        except duckdb.Error as e:
            raise StoreError(self.path, describe_duckdb_error(e)) from e
        except OSError as e:
            raise StoreError(self.path, f"cannot be created ({e.strerror or e})") from None
        finally:
            for f in (tmp, wal_path(tmp)):
                f.unlink(missing_ok=True)

    def _create_tables(self) -> None:
        cols = ", ".join(f"{_quote(k)} {t}" for k, t in RUN_COLUMNS.items())
        self.con.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols})")
        self.con.execute("CREATE TABLE IF NOT EXISTS flows (key VARCHAR, flow_id INTEGER, PRIMARY KEY (key, flow_id))")

    @_store_errors
    def _check(self) -> int:
        """Refuse what is not a store this wtcp can read; returns its schema version."""
        empty = self._check_is_store(self.read_only)
        version = 0 if empty else self.meta()["schema_version"]
        if version > SCHEMA_VERSION:
            by = self.meta().get("written_by")
            raise StoreError(self.path, f"was written by {f'wtcp {by}' if by else 'a newer wtcp'} in store schema version {version}; this wtcp ({wtcp_version()}) "
                             f"reads and writes schema versions 1 to {SCHEMA_VERSION}: use {f'wtcp {by} or newer' if by else 'a newer wtcp'}", newer=True)
        return version

    @_store_errors
    def _open_for_writing(self) -> None:
        version = self._check()
        # Every value read once (DuckDB checks each block's checksum as it reads it): a
        # damaged store is refused before a sweep adds to it or counts its runs as done.
        damaged = self._unreadable_tables()
        if damaged:
            raise StoreError(self.path, f"is damaged: {'; '.join(damaged)}; allowed: {STORE_RULE} (`wtcp results STORE --check` lists the damage)")
        if version == 0:  # an empty DuckDB database: made a store
            self._create_tables()
            self._write_meta(created=True)
        else:
            while version < SCHEMA_VERSION:
                self.con.execute("BEGIN TRANSACTION")
                try:
                    MIGRATIONS[version](self)
                    self.con.execute(f"INSERT OR REPLACE INTO {META_TABLE} VALUES ('schema_version', ?)", [str(version + 1)])
                    self.con.execute("COMMIT")
                except BaseException:
                    self.con.execute("ROLLBACK")
                    raise
                version += 1
            self._write_meta(created=False)
        self._columns = self._tables_columns(("runs", "flows"))
        # Stores written by older versions (before engines, ...) get the new columns.
        self.ensure_columns("runs", {k: t for k, t in RUN_COLUMNS.items() if k != "key"})

    def _write_meta(self, created: bool) -> None:
        self.con.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (name VARCHAR PRIMARY KEY, value VARCHAR)")
        rows = [("schema_version", str(SCHEMA_VERSION)), ("written_by", wtcp_version())]
        if created:
            rows.append(("created_by", wtcp_version()))
        values = ", ".join("(?, ?)" for _ in rows)
        self.con.execute(f"INSERT OR REPLACE INTO {META_TABLE} VALUES {values}", [v for row in rows for v in row])

    @_store_errors
    def meta(self) -> dict[str, Any]:
        """`schema_version` (1 for a store without a `meta` table), `created_by` and
        `written_by` (wtcp versions; None if not recorded)."""
        out: dict[str, Any] = {"schema_version": 1, "created_by": None, "written_by": None}
        if META_TABLE not in self._tables():
            return out
        rows = dict(self.con.execute(f"SELECT name, value FROM {META_TABLE}").fetchall())
        out.update({k: v for k, v in rows.items() if k != "schema_version"})
        text = rows.get("schema_version")
        if text is None or not str(text).isdigit() or int(text) < 1:
            raise StoreError(self.path, f"is a DuckDB database but not a wtcp result store (`{META_TABLE}` has schema_version {text!r}, not a whole number >= 1); allowed: {STORE_RULE}")
        out["schema_version"] = int(text)
        return out

    def _tables(self) -> dict[str, str]:
        return {name: kind for name, kind in self.con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall()}

    def _check_is_store(self, read_only: bool) -> bool:
        """Refuse a DuckDB database that is not a wtcp store (an empty one is made one,
        unless opened for reading). True if it is empty."""
        tables = self._tables()
        if "runs" not in tables:
            if read_only or tables:
                what = f"it has the tables {', '.join(sorted(tables))}" if tables else "it is empty"
                raise StoreError(self.path, f"is a DuckDB database but not a wtcp result store (no `runs` table; {what}); allowed: {STORE_RULE}")
            return True
        problems = []
        for table, required in (("runs", REQUIRED_RUN_COLUMNS), ("flows", ("key", "flow_id")), (META_TABLE, ("name", "value"))):
            if tables.get(table, "BASE TABLE") != "BASE TABLE":
                problems.append(f"`{table}` is a {tables[table].lower()}")
            elif table in tables:
                have = self._table_columns(table)
                missing = [c for c in required if c not in have]
                if missing:
                    problems.append(f"`{table}` has no column {', '.join(missing)}")
        if problems:
            raise StoreError(self.path, f"is a DuckDB database but not a wtcp result store ({'; '.join(problems)}); allowed: {STORE_RULE}")
        return False

    def _table_columns(self, table: str) -> dict[str, str]:
        """Column name -> type of `table` ({} if there is no such table). (`pragma_table_info`
        takes a tenth of the time of `information_schema.columns`.)"""
        import duckdb

        try:
            rows = self.con.execute("SELECT name, type FROM pragma_table_info(?)", [table]).fetchall()
        except duckdb.CatalogException:
            return {}
        return {name: dtype for name, dtype in rows}

    def _tables_columns(self, tables: Sequence[str]) -> dict[str, dict[str, str]]:
        return {t: self._table_columns(t) for t in tables}

    @_store_errors
    def ensure_columns(self, table: str, types: dict[str, str]) -> None:
        have = self._columns[table]
        for name, sql_type in types.items():
            if name not in have:
                self.con.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {_quote(name)} {sql_type}")
                have[name] = sql_type

    @_store_errors
    def ensure_param_columns(self, params: dict[str, list[Any]]) -> dict[str, str]:
        """Add one `runs` column per swept path; returns path -> column name."""
        names = {path: param_column(path) for path in params}
        self.ensure_columns("runs", {names[p]: _sql_type(v) for p, v in params.items()})
        return names

    def begin_sweep(self, sweep: str, definition: str, scenario: str, params: dict[str, list[Any]]) -> tuple[dict[str, str], set[str]]:
        """A sweep's set-up in one session: its parameter columns (`ensure_param_columns`)
        and definition (`record_definition`); returns the columns' names and the keys of
        the runs already done. On a store this writer has just made (no runs yet), the
        set-up is written with the first commit (or at `flush`/`close`)."""
        names = {path: param_column(path) for path in params}
        if self._fresh and self._con is None and not self.read_only:
            self._deferred.append(lambda: self.ensure_param_columns(params))
            self._deferred.append(lambda: self.record_definition(sweep, definition, scenario))
            return names, set()
        with self.session():
            self.ensure_param_columns(params)
            self.record_definition(sweep, definition, scenario)
            return names, self.done_keys()

    def _run_deferred(self) -> None:
        """Write the deferred set-up (`begin_sweep`) in the current connection."""
        while self._deferred:
            self._deferred[0]()
            self._deferred.pop(0)

    # --- reading keys ---

    @_store_errors
    def done_keys(self, keys: Sequence[str] | None = None) -> set[str]:
        """Keys of runs stored as done with their flow rows (failed runs, and done runs
        whose flow rows are gone, are run again)."""
        return {k for (k,) in self.con.execute("SELECT key FROM runs r WHERE status = 'done' AND EXISTS (SELECT 1 FROM flows f WHERE f.key = r.key)").fetchall()}

    def _unreadable_tables(self) -> list[str]:
        """Tables of the open connection one of whose values cannot be read, with why."""
        import duckdb

        out = []
        tables = [t for (t,) in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        for table in sorted(tables):
            try:
                # Every value hashed, so every block is read and checked (nothing converted
                # to Python objects).
                self.con.execute(f"SELECT count(*), sum(hash(COLUMNS(*))) FROM {_quote(table)}").fetchall()
            except duckdb.Error as e:
                out.append(f"table {table}: cannot be read: {describe_duckdb_error(e)}")
        return out

    def check(self) -> list[str]:
        """Verify the whole store: every table read to its last row (DuckDB checks each
        block as it reads it, so damaged data shows here), and every run stored as done has
        its flow rows. Returns what is damaged, one line each ([] for a sound store)."""
        import duckdb

        problems: list[str] = []
        try:
            with self.session():
                problems += self._unreadable_tables()
                tables = [t for (t,) in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
                if "runs" in tables and "flows" in tables:
                    orphans = self.con.execute(
                        "SELECT count(*), min(key) FROM runs r WHERE status = 'done' AND NOT EXISTS (SELECT 1 FROM flows f WHERE f.key = r.key)"
                    ).fetchone()
                    if orphans and orphans[0]:
                        problems.append(f"{orphans[0]} run(s) stored as done have no flow rows (e.g. key {orphans[1]}): `wtcp sweep` runs them again")
        except duckdb.Error as e:
            problems.append(describe_duckdb_error(e))
        return problems

    # --- writing ---

    def write(self, records: Sequence[dict[str, Any]], param_names: dict[str, str]) -> None:
        """Store results now, in one transaction (with whatever `queue` holds). A record:
        the `runs` fields, `params` (dict) and `flows` (list of flattened per-flow dicts)."""
        if records:
            self._add(records, param_names)
        self.flush(wait_s=READER_WAIT_S)

    def queue(self, records: Sequence[dict[str, Any]], param_names: dict[str, str]) -> bool:
        """Gather results and commit them, in one transaction, once `commit_interval()`
        has passed since the last commit or `FLUSH_RUNS` runs or `FLUSH_ROWS` rows wait; if
        a reader holds the file just then, keep them for the next call (once four times as
        many wait, wait for the reader). Returns True if they are committed. (A process
        killed before then loses them: they are run again.)"""
        self._add(records, param_names)
        due = time.monotonic() - self._last_flush >= self.commit_interval() or self._pending_runs >= FLUSH_RUNS or self._pending_rows >= FLUSH_ROWS
        if not due:
            return False
        crowded = self._pending_runs >= 4 * FLUSH_RUNS or self._pending_rows >= 4 * FLUSH_ROWS
        return self.flush(wait_s=FINAL_FLUSH_WAIT_S if crowded else 0.0)

    def commit_interval(self) -> float:
        """Seconds `queue` lets pass between commits: `FLUSH_EVERY_S`, or longer when the
        fixed cost of the last commit, the CPU time it took to open and close the file
        (DuckDB's start-up and checkpoint), was more than `COMMIT_SHARE` of that (at most
        `FLUSH_MAX_S`). (Writing the rows costs the same however they are grouped: it does
        not count.)"""
        return min(FLUSH_MAX_S, max(FLUSH_EVERY_S, self._commit_s / COMMIT_SHARE))

    def _add(self, records: Sequence[dict[str, Any]], param_names: dict[str, str]) -> None:
        if self.read_only:
            raise StoreError(self.path, "is open for reading; allowed: `Store(path)` to write it")
        if not records:
            return
        self._pending.append((list(records), dict(param_names)))
        self._pending_runs += len(records)
        for rec in records:
            self._pending_rows += len(rec.get("flows") or ()) + sum(len(next(iter(cols.values()), ())) for cols in (rec.get("traces") or {}).values())

    def pending(self) -> int:
        """Runs `queue` holds, not yet committed."""
        return self._pending_runs

    def flush(self, wait_s: float | None = FINAL_FLUSH_WAIT_S) -> bool:
        """Commit what `queue` holds, in one transaction. `wait_s`: how long to wait for
        readers to let go of the file (0: try once, and keep the results if they hold it).
        Returns True if nothing is left to commit."""
        if not self._pending and not self._deferred:
            self._last_flush = time.monotonic()
            return True
        if self._con is None:
            start = time.process_time()  # (waiting for a reader costs none)
            try:
                con = connect(self.file, False, wait_s, name=self.path)
            except StoreError as e:
                if e.locked and wait_s == 0:
                    return False
                raise
            self._con = con
            opened = time.process_time()
            try:
                self._commit_pending()
            finally:
                self._con = None
                closing = time.process_time()
                con.close()
                self._commit_s = time.process_time() - closing + opened - start
        else:
            self._commit_pending()
        return True

    @_store_errors
    def _commit_pending(self) -> None:
        batches = self._pending
        con = self.con
        # Batches with the same parameter columns (every batch of a sweep) go in together:
        # one DELETE and one INSERT per table per commit.
        merged: list[tuple[list[dict[str, Any]], dict[str, str]]] = []
        for records, names in batches:
            if merged and merged[-1][1] == names:
                merged[-1][0].extend(records)
            else:
                merged.append((list(records), names))
        # New flow columns in the same transaction (one transaction for all of them is
        # half the cost of one each); the known columns as they were if it rolls back.
        known = {t: dict(c) for t, c in self._columns.items()}
        traces = None if self._trace_tables is None else set(self._trace_tables)
        deferred = list(self._deferred)
        con.execute("BEGIN TRANSACTION")
        try:
            self._run_deferred()
            for records, _ in merged:
                self._ensure_flow_columns(records)
            for records, names in merged:
                self._insert(records, names)
            con.execute("COMMIT")
        except BaseException:
            self._columns, self._trace_tables, self._deferred = known, traces, deferred
            # A failed COMMIT (a full disk) may have ended the transaction already: the
            # rollback's own error must not hide the cause.
            with contextlib.suppress(Exception):
                con.execute("ROLLBACK")
            raise
        self._fresh = False
        if self._stored is not None:
            self._stored.update(rec["key"] for records, _ in merged for rec in records)
            if len(self._stored) > STORED_KEYS_MAX:
                self._stored = None
        self._pending = []
        self._pending_runs = self._pending_rows = 0
        self._last_flush = time.monotonic()

    def _ensure_flow_columns(self, records: Sequence[dict[str, Any]]) -> None:
        have = self._columns["flows"].keys()
        flow_types: dict[str, str] = {}
        for rec in records:
            for row in rec.get("flows", []):
                if not row.keys() - have - {"id"}:
                    continue  # (most rows: no new column; `id` is stored as `flow_id`)
                for k, v in row.items():
                    if k not in have and (k not in flow_types or flow_types[k] == "VARCHAR?"):
                        flow_types[k] = _flow_type(v)
        flow_types = {k: ("DOUBLE" if t == "VARCHAR?" else t) for k, t in flow_types.items() if k not in ("id",)}
        self.ensure_columns("flows", flow_types)

    def _insert(self, records: Sequence[dict[str, Any]], param_names: dict[str, str]) -> None:
        """Replace the rows of `records`' runs (inside the caller's transaction)."""
        con = self.con
        run_cols = [c for c in RUN_COLUMNS] + sorted(set(param_names.values()))
        keys = [rec["key"] for rec in records]
        replace = self._stored is None or not self._stored.isdisjoint(keys)
        if replace:
            placeholders = ", ".join("?" for _ in keys)
            con.execute(f"DELETE FROM flows WHERE key IN ({placeholders})", keys)
            con.execute(f"DELETE FROM runs WHERE key IN ({placeholders})", keys)
        fixed = [c for c in RUN_COLUMNS if c != "params"]
        param_cols = sorted({col: path for path, col in param_names.items()}.items())
        run_types = self._columns["runs"]
        rows = []
        for rec in records:
            params = rec["params"]
            row = [rec.get(c) for c in fixed]
            row.insert(RUN_PARAMS_AT, json.dumps(params, sort_keys=True))
            row += [_cell(params.get(path), run_types.get(col, "VARCHAR")) for col, path in param_cols]
            rows.append(row)
        insert_rows(con, "runs", run_cols, rows)
        fcols = self._columns["flows"]
        texts = {k for k, t in fcols.items() if t == "VARCHAR"}  # (only these need `_cell`)
        frows = []
        flow_cols: dict[str, None] = {"key": None, "flow_id": None}  # in order of appearance
        for rec in records:
            for row in rec.get("flows", []):
                values = {k: (_cell(v, "VARCHAR") if k in texts else v) for k, v in row.items() if k in fcols}
                values["key"] = rec["key"]
                values["flow_id"] = row["id"]
                if values.keys() - flow_cols.keys():
                    flow_cols.update(dict.fromkeys(values))
                frows.append(values)
        columns = list(flow_cols)
        insert_rows(con, "flows", columns, [[values.get(c) for c in columns] for values in frows])
        self._write_traces(records, keys if replace else [])

    def _write_traces(self, records: Sequence[dict[str, Any]], keys: Sequence[str]) -> None:
        """Trace tables `trace_flows`, `trace_cc`, `trace_queues`, `trace_losses`,
        `trace_drops`, one row per sample or event with the run's `key` (inside the
        caller's transaction); the rows of `keys` deleted first."""
        con = self.con
        if self._trace_tables is None:
            self._trace_tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'trace_%'").fetchall()}
        existing = self._trace_tables
        placeholders = ", ".join("?" for _ in keys)
        for table in sorted(existing) if keys else ():
            con.execute(f"DELETE FROM {table} WHERE key IN ({placeholders})", list(keys))
        if not any(rec.get("traces") for rec in records):
            return
        import pandas as pd

        for rec in records:
            for name, columns in (rec.get("traces") or {}).items():
                df = pd.DataFrame({k: list(v) for k, v in columns.items()})
                if df.empty:
                    continue  # an empty frame has no column types to create a table from
                df.insert(0, "key", rec["key"])
                table = f"trace_{name}"
                con.register("_new_trace", df)
                if table not in existing:
                    con.execute(f"CREATE TABLE {table} AS SELECT * FROM _new_trace LIMIT 0")
                    existing.add(table)
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _new_trace")
                con.unregister("_new_trace")

    @_store_errors
    def record_definition(self, sweep: str, definition: str, scenario: str) -> None:
        """Keep what a sweep was (its factors as text and its base scenario) for reports."""
        self.con.execute("CREATE TABLE IF NOT EXISTS sweep_defs (sweep VARCHAR PRIMARY KEY, definition VARCHAR, scenario VARCHAR)")
        self.con.execute("INSERT OR REPLACE INTO sweep_defs VALUES (?, ?, ?)", [sweep, definition, scenario])

    @_store_errors
    def definitions(self) -> dict[str, dict[str, str]]:
        """sweep name -> {definition, scenario} as recorded by `record_definition`."""
        tables = {r[0] for r in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if "sweep_defs" not in tables:
            return {}
        rows = self.con.execute("SELECT sweep, definition, scenario FROM sweep_defs").fetchall()
        return {name: {"definition": d, "scenario": sc} for name, d, sc in rows}

    @_store_errors
    def traces(self, table: str = "flows", key: str | None = None) -> pd.DataFrame:
        """A stored trace table (`flows`, `cc`, `queues`, `losses`, `drops`) of every traced
        run, or of the run `key`; empty if no run was traced."""
        name = f"trace_{table}"
        tables = {r[0] for r in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if name not in tables:
            import pandas as pd

            return pd.DataFrame()
        if key is None:
            return self._df(f"SELECT * FROM {name}")
        return self._df(f"SELECT * FROM {name} WHERE key = ?", [key])

    # --- reading ---

    def _df(self, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        import warnings

        with warnings.catch_warnings():
            # DuckDB's pandas conversion still passes `inplace`, deprecated in pandas 3.1.
            warnings.filterwarnings("ignore", message=".*inplace.*")
            return self.con.execute(sql, list(params)).df()

    @_store_errors
    def runs(self, sweep: str | None = None, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The `runs` table (optionally of one sweep, or only the runs `keys`), one row per
        run."""
        where, params = _run_filter("", sweep, keys)
        return self._df(f"SELECT * FROM runs{where} ORDER BY sweep, key", params)

    @_store_errors
    def flows(self, sweep: str | None = None, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The `flows` table joined with its run's sweep, parameters, algorithm and
        replication (done runs only; optionally of one sweep, or of the runs `keys`), one
        row per flow per run."""
        engine = ["engine"] if "engine" in self._table_columns("runs") else []
        run_cols = ["sweep", "params", *engine, "algorithm", "seed", "replication"] + self.param_columns()
        select = ", ".join(f"r.{_quote(c)}" for c in run_cols)
        where, params = _run_filter("r.", sweep, keys, "r.status = 'done'")
        sql = f"SELECT f.*, {select} FROM flows f JOIN runs r USING (key){where} ORDER BY r.sweep, f.key, f.flow_id"
        return with_rate_units(self._df(sql, params))

    @_store_errors
    def param_columns(self) -> list[str]:
        return [c for c in self._table_columns("runs") if c not in RUN_COLUMNS]

    @_store_errors
    def sweeps(self) -> pd.DataFrame:
        """One row per sweep: runs stored, done, failed, simulated and wall seconds."""
        return self._df(
            "SELECT sweep, count(*) AS runs, count(*) FILTER (WHERE status = 'done') AS done, "
            "count(*) FILTER (WHERE status = 'failed') AS failed, sum(sim_seconds) AS sim_seconds, "
            "sum(wall_seconds) AS wall_seconds FROM runs GROUP BY sweep ORDER BY sweep"
        )

    @_store_errors
    def summary(self, metric: str = "goodput_bps", by: Sequence[str] | None = None, sweep: str | None = None) -> pd.DataFrame:
        """Mean of `metric` with a Student-t 95 % confidence interval across replications.

        `metric` is a `flows` column (one value per flow per run) or a `runs` column.
        Default grouping: sweep, the swept-parameter columns, engine, algorithm and (for
        flow metrics) flow name. Columns: the groups, n, mean, std, ci_low, ci_high.
        Rates read in bit/s or Mb/s (`goodput_bps`, `goodput_mbps`); an unknown metric
        raises `UnknownMetric` (a KeyError) listing the valid ones, an unknown column in `by`
        `UnknownColumn` (a ValueError) listing the columns."""
        flows = self.flows(sweep)
        if metric in flows.columns:
            table = flows
            default_by = ["sweep", *self.param_columns(), "engine", "algorithm", "name"]
        else:
            table = self.runs(sweep)
            table = table[table["status"] == "done"]
            if metric not in table.columns:
                fixed = ("key", "flow_id", "id", "seed", "replication", "stream", *self.param_columns())
                raise UnknownMetric(metric, numeric_columns(flows, fixed) + numeric_columns(table, fixed) + list(RATE_COLUMNS))
            default_by = ["sweep", *self.param_columns(), "engine", "algorithm"]
        for column in by or ():
            if column not in table.columns:
                raise UnknownColumn(column, table.columns)
        return summarize(table, metric, list(by) if by is not None else default_by)

    @_store_errors
    def plot(self, x: str, y: str, hue: str | None = "cc", path: str | os.PathLike[str] | None = None, *, sweep: str | None = None,
             where: dict[str, Any] | None = None, kind: str | None = "tcp", flows: str = "mean", ci: str | None = "band",
             title: str | None = None) -> Figure:
        """`y` (a flows or runs column, or a derived metric such as `goodput_mbps`) against
        `x` (a swept path such as `links.1.ab.loss.rate`, or a column), one series per `hue`
        (`cc`, `algorithm`, `flow`, a swept path, or None): each run's flows of one series
        aggregated by `flows` ("mean" or "sum"), then the mean over replications with the
        95 % Student-t interval of `summarize` as a band or bars (`ci`), drawn only where
        there are two or more replications. `sweep` and `where` (as in the reproduce specs:
        `{"flow": "bulk", "tcp.sack": True}`) select runs; `kind` the flows (None: all).
        Returns the matplotlib Figure; writes `path` if given (.png, .svg, or both for a
        path without a suffix). `wtcp.plot.PlotError` (a ValueError) if a point would mix
        runs that differ in something the figure does not show."""
        from wtcp.plot import plot_store

        return plot_store(self, x, y, hue, path, sweep=sweep, where=where, kind=kind, flows=flows, ci=ci, title=title)

    @_store_errors
    def plot_delay_throughput(self, path: str | os.PathLike[str] | None = None, *, sweep: str | None = None, where: dict[str, Any] | None = None,
                              delay: str = "delay_p95_ms", throughput: str = "goodput_mbps", hue: str = "algorithm", kind: str | None = "tcp",
                              title: str | None = None) -> Figure:
        """Throughput against one-way delay as Pantheon draws it: a point per run, per
        algorithm (`hue`) the mean with its 95 % interval on both axes, delay on an
        inverted log axis. See `wtcp.plot.plot_delay_throughput`."""
        from wtcp.plot import plot_delay_throughput

        return plot_delay_throughput(self, path, sweep=sweep, where=where, delay=delay, throughput=throughput, hue=hue, kind=kind, title=title)

    @_store_errors
    def prune_failed(self, sweep: str | None = None) -> int:
        """Delete the failed runs (of every sweep, or of `sweep`) with their rows in the
        other tables, in one transaction; returns how many runs were removed. (A sweep
        tries failed runs again anyway; this clears them from the tables and counts.)"""
        where = "status = 'failed'" + (" AND sweep = ?" if sweep is not None else "")
        args = [sweep] if sweep is not None else []
        keys = [k for (k,) in self.con.execute(f"SELECT key FROM runs WHERE {where}", args).fetchall()]
        if not keys:
            return 0
        tables = [r[0] for r in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute("CREATE TEMP TABLE _prune AS SELECT key FROM runs WHERE " + where, args)
            for table in ["flows", *sorted(t for t in tables if t.startswith("trace_"))]:
                if table in tables:
                    self.con.execute(f"DELETE FROM {_quote(table)} WHERE key IN (SELECT key FROM _prune)")
            self.con.execute("DELETE FROM runs WHERE key IN (SELECT key FROM _prune)")
            self.con.execute("DROP TABLE _prune")
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        return len(keys)

    @_store_errors
    def export(self, directory: str | os.PathLike[str], fmt: str = "parquet") -> list[Path]:
        """Write `runs` and `flows` as Parquet or CSV files into `directory`."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        paths = []
        for table in ("runs", "flows"):
            path = out / f"{table}.{fmt}"
            option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
            literal = str(path).replace("'", "''")
            have = self._table_columns(table)
            rates = "".join(f", {_quote(bps)} / 1e6 AS {_quote(mbps)}" for mbps, bps in RATE_COLUMNS.items() if bps in have and mbps not in have)
            self.con.execute(f"COPY (SELECT *{rates} FROM {table} ORDER BY key) TO '{literal}' ({option})")
            paths.append(path)
        return paths


def _add_meta_table(store: Store) -> None:
    """Schema 1 -> 2: the `meta` table (the caller sets `schema_version` in the same
    transaction; `written_by` once the upgrades are done)."""
    store.con.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (name VARCHAR PRIMARY KEY, value VARCHAR)")
    store.con.execute(f"INSERT OR REPLACE INTO {META_TABLE} VALUES ('upgraded_from', '1')")


MIGRATIONS: dict[int, Callable[[Store], None]] = {1: _add_meta_table}


def _flow_type(value: Any) -> str:
    if value is None:
        return "VARCHAR?"  # unknown yet: becomes DOUBLE unless another row tells
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT"
    if isinstance(value, float):
        return "DOUBLE"
    return "VARCHAR"


def summarize(table: pd.DataFrame, metric: str, by: Sequence[str]) -> pd.DataFrame:
    """Group `table` by `by` (columns that are all-null are dropped from the grouping) and
    give n, mean, std (sample), and the Student-t 95 % interval mean +- t * std / sqrt(n)."""
    import pandas as pd

    by = [c for c in by if c in table.columns and not table[c].isna().all()]
    values = pd.to_numeric(table[metric], errors="coerce")
    frame = table[by].copy() if by else pd.DataFrame(index=table.index)
    frame["_v"] = values
    if by:
        grouped = frame.groupby(by, dropna=False, sort=True)["_v"]
        out = grouped.agg(n="count", mean="mean", std="std").reset_index()
    else:
        out = pd.DataFrame({"n": [values.count()], "mean": [values.mean()], "std": [values.std()]})
    half = [t975(int(n) - 1) * s / math.sqrt(n) if n > 1 else math.nan for n, s in zip(out["n"], out["std"])]
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    out.insert(len(by), "metric", metric)
    return out


def open_store(path: str | os.PathLike[str]) -> Store:
    """Open a sweep result store for reading: `.runs()`, `.flows()`, `.summary(...)`,
    `.sweeps()`, `.export(...)`. It holds no lock: each call reads the runs committed
    until then, also while a `wtcp sweep` writes the store, which it never holds up for
    longer than the call. A store that another program keeps open for writing cannot be
    read (`StoreError` with `.locked`); `readable_store` reads a copy of it instead."""
    return Store(path, read_only=True)


def wal_path(path: str | os.PathLike[str]) -> Path:
    """The write-ahead log of the store `path`: committed results not yet in the file."""
    return Path(f"{os.fspath(path)}.wal")


def _file_state(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def copy_store(source: str | os.PathLike[str], dest: str | os.PathLike[str], attempts: int = 50) -> Path:
    """Copy the result store `source` to `dest` as one self-contained file; returns `dest`.

    Works while another process writes the store: a `wtcp sweep` is kept from committing
    while the file is copied (it holds its results until the next commit); a store that
    another program holds open for writing is copied with its write-ahead log
    `<store>.wal` (the results committed since DuckDB last wrote them into the file),
    again until neither changed during the copy. The copy is then checkpointed, so `dest`
    holds every result committed before the copy and needs no `.wal` of its own. (A plain
    `cp` of the store file alone misses the log's results.) `StoreError` if the source is
    not a store or keeps changing."""
    import duckdb

    src, dst = Path(source), Path(dest)
    if not src.is_file():
        raise FileNotFoundError(2, "no such store", str(src))
    if dst.exists() and dst.resolve() == src.resolve():
        raise StoreError(dst, "is the store being copied; allowed: another file")
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".wtcp-copy-", dir=dst.parent))
    hold = None
    try:
        # Held read-only, the store cannot change while it is copied (a sweep's commit
        # waits); a file another program holds for writing is copied until it stays the same.
        try:
            hold = connect(src, read_only=True)
        except StoreError:
            pass
        copy = tmp / "store.duckdb"
        for attempt in range(attempts):
            before = (_file_state(src), _file_state(wal_path(src)))
            shutil.copyfile(src, copy)
            wal_path(copy).unlink(missing_ok=True)
            try:
                shutil.copyfile(wal_path(src), wal_path(copy))
            except FileNotFoundError:
                pass
            if (_file_state(src), _file_state(wal_path(src))) == before:
                break
            time.sleep(min(0.02 * (attempt + 1), 0.5))  # a commit or checkpoint was under way
        else:
            raise StoreError(src, f"kept changing while it was copied ({attempts} tries); try again, or once the process writing it has finished")
        try:
            con = duckdb.connect(str(copy))  # replays the copied log into the copy ...
            try:
                con.execute("CHECKPOINT")  # ... and writes it into the file
            finally:
                con.close()
            Store(copy, read_only=True).close()
        except duckdb.Error as e:
            raise StoreError(src, describe_duckdb_error(e)) from e
        except StoreError as e:
            raise StoreError(src, e.reason) from e
        wal_path(dst).unlink(missing_ok=True)  # a stale log would be replayed into the copy
        os.replace(copy, dst)
    finally:
        if hold is not None:
            hold.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return dst


@contextmanager
def readable_store(path: str | os.PathLike[str]) -> Iterator[tuple[Store, str | None]]:
    """`(store, note)`: the store opened for reading, in one session (one state of it for
    the whole block, held read-only: a sweep writing it commits once the block ends); if
    another program holds it for writing, a snapshot of it (`copy_store` into a temporary
    folder), with a note saying so."""
    try:
        store = open_store(path)
        note = None
        tmp = None
    except StoreError as e:
        if not e.locked:
            raise
        tmp = tempfile.TemporaryDirectory(prefix="wtcp-snapshot-")
        try:
            store = open_store(copy_store(path, Path(tmp.name) / "snapshot.duckdb"))
        except BaseException:
            tmp.cleanup()
            raise
        store.path = Path(path)  # errors name the store, not its snapshot
        note = f"{os.fspath(path)} is being written by another process: read from a snapshot of the results committed so far"
    try:
        with store.session():
            yield store, note
    finally:
        store.close()
        if tmp is not None:
            tmp.cleanup()
