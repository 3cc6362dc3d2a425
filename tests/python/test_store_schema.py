"""The result store's schema version: recorded in `meta`, older stores read and upgraded,
stores of a newer schema refused with both versions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from wtcp import _core
from wtcp.sweep import InlineExecutor, Store, StoreError, Sweep, open_store, run_sweep
from wtcp.sweep.store import MIGRATIONS, SCHEMA_VERSION

FIXTURE = Path(__file__).parent / "fixtures" / "store-v1"
SHORT = {"run.duration_s": 3.0, "run.measure_from_s": 1.0}
# The sweep the schema-1 fixture holds (written by wtcp 0.1.0): 2 algorithms x 3 loss
# rates, of which 2.0 is an invalid point (2 failed runs); and "v1t", one traced run.
V1_SWEEP = {"name": "v1", "scenario": "reference-simple2", "algorithms": ["newreno", "westwoodplus"], "set": SHORT, "grid": {"links.1.ab.loss.rate": [0.0, 0.01, 2.0]}}
V1_VERSION = "0.1.0"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "wtcp.cli", *args], capture_output=True, text=True, env=env, timeout=120)


def v1_store(path: Path) -> Path:
    """A store in the layout wtcp 0.1.0 wrote (schema 1: no `meta`), from the tables it
    wrote (`EXPORT DATABASE` of a store it made; the trace tables cut to 20 rows)."""
    con = duckdb.connect(str(path))
    con.execute((FIXTURE / "schema.sql").read_text())
    for csv in sorted(FIXTURE.glob("*.csv")):
        con.execute(f"COPY {csv.stem} FROM '{csv}' (FORMAT CSV, HEADER)")
    con.close()
    return path


def tables(path: Path) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    finally:
        con.close()


def test_a_new_store_records_its_schema_and_the_wtcp_versions(tmp_path, monkeypatch):
    path = tmp_path / "s.duckdb"
    run_sweep(Sweep.from_dict({"scenario": "reference-simple2", "name": "s", "set": SHORT}), path, InlineExecutor())
    con = duckdb.connect(str(path), read_only=True)
    rows = dict(con.execute("SELECT name, value FROM meta").fetchall())
    con.close()
    assert rows == {"schema_version": str(SCHEMA_VERSION), "created_by": _core.__version__, "written_by": _core.__version__}
    assert open_store(path).meta() == {"schema_version": SCHEMA_VERSION, "created_by": _core.__version__, "written_by": _core.__version__}
    # Opening it for writing with another version records that one as the last writer.
    monkeypatch.setattr("wtcp.sweep.store.wtcp_version", lambda: "9.8.7")
    Store(path).close()
    assert open_store(path).meta() == {"schema_version": SCHEMA_VERSION, "created_by": _core.__version__, "written_by": "9.8.7"}


def test_a_schema_1_store_is_read_as_it_is(tmp_path):
    path = v1_store(tmp_path / "v1.duckdb")
    before = path.read_bytes()
    st = open_store(path)
    assert st.meta() == {"schema_version": 1, "created_by": None, "written_by": None}
    runs = st.runs()
    assert len(runs) == 7 and set(runs.sweep) == {"v1", "v1t"} and sorted(runs.status) == ["done"] * 5 + ["failed"] * 2
    assert len(st.flows()) == 5 and "goodput_mbps" in st.flows().columns
    summary = st.summary("goodput_mbps", sweep="v1")
    assert sorted(summary.n) == [1, 1, 1, 1] and (summary["mean"] > 0).all()
    assert set(st.definitions()) == {"v1", "v1t"}
    assert len(st.traces("flows")) == 20 and len(st.traces("queues")) == 20
    assert list(st.sweeps().sweep) == ["v1", "v1t"]
    assert path.read_bytes() == before and "meta" not in tables(path)  # reading changes nothing
    listing = run_cli("results", str(path))
    assert listing.returncode == 0, listing.stderr
    assert "v1t" in listing.stdout and path.read_bytes() == before


def test_a_schema_1_store_is_upgraded_and_its_sweep_resumed(tmp_path):
    path = v1_store(tmp_path / "v1.duckdb")
    old = open_store(path).runs().set_index("key")
    sweep = Sweep.from_dict(V1_SWEEP)
    keys = {run.key for run in sweep.runs()}
    outcome = run_sweep(sweep, path, InlineExecutor())
    # The keys hold the wtcp version: runs of the fixture's version are found and skipped.
    if _core.__version__ == V1_VERSION:
        assert keys <= set(old.index)
        assert (outcome.total, outcome.done, outcome.skipped, outcome.failed) == (6, 0, 4, 2)  # the invalid points are tried again
    st = open_store(path)
    assert st.meta() == {"schema_version": SCHEMA_VERSION, "created_by": None, "written_by": _core.__version__, "upgraded_from": "1"}
    runs = st.runs().set_index("key")
    assert runs.index.is_unique and set(old.index) <= set(runs.index)
    assert (runs.loc[list(keys), "sweep"] == "v1").all()
    kept = old.index[old.status == "done"]
    assert runs.loc[kept, "created"].equals(old.loc[kept, "created"])  # the stored runs are untouched
    assert len(st.traces("flows")) == 20  # the trace tables stay
    flows = st.flows()
    assert flows.key.is_unique and set(flows.key) == set(runs.index[runs.status == "done"])


def newer_store(tmp_path: Path) -> Path:
    path = tmp_path / "newer.duckdb"
    run_sweep(Sweep.from_dict({"scenario": "reference-simple2", "name": "s", "set": SHORT}), path, InlineExecutor())
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99' WHERE name = 'schema_version'")
    con.execute("UPDATE meta SET value = '7.0.0' WHERE name = 'written_by'")
    con.close()
    return path


def test_a_store_of_a_newer_schema_is_refused_with_both_versions(tmp_path):
    path = newer_store(tmp_path)
    before = path.read_bytes()
    for open_it in (open_store, Store):
        with pytest.raises(StoreError) as info:
            open_it(path)
        e = info.value
        assert isinstance(e, ValueError) and e.newer and e.path == str(path)
        assert e.reason == (f"was written by wtcp 7.0.0 in store schema version 99; this wtcp ({_core.__version__}) reads and writes "
                            f"schema versions 1 to {SCHEMA_VERSION}: use wtcp 7.0.0 or newer")
    assert path.read_bytes() == before and not Path(f"{path}.lock").exists()


@pytest.mark.parametrize("command", ["results", "report", "sweep"])
def test_a_store_of_a_newer_schema_exits_2_from_every_command(tmp_path, command):
    path = newer_store(tmp_path)
    before = path.read_bytes()
    if command == "sweep":
        sweep = tmp_path / "s.toml"
        sweep.write_text('scenario = "reference-simple2"\n[set]\n"run.duration_s" = 3.0\n', encoding="utf-8")
        proc = run_cli("sweep", str(sweep), "--workers", "1", "--quiet", "--store", str(path))
    else:
        proc = run_cli(command, str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {path}: was written by wtcp 7.0.0 in store schema version 99; this wtcp ({_core.__version__})")
    assert path.read_bytes() == before


@pytest.mark.parametrize("value", ["two", "0", None])
def test_a_meta_table_without_a_schema_version_is_not_a_store(tmp_path, value):
    path = newer_store(tmp_path)
    con = duckdb.connect(str(path))
    if value is None:
        con.execute("DELETE FROM meta WHERE name = 'schema_version'")
    else:
        con.execute("UPDATE meta SET value = ? WHERE name = 'schema_version'", [value])
    con.close()
    with pytest.raises(StoreError) as info:
        open_store(path)
    assert "not a wtcp result store (`meta` has schema_version" in info.value.reason


def test_an_upgrade_that_fails_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    path = v1_store(tmp_path / "v1.duckdb")

    def broken(store):
        store.con.execute("CREATE TABLE meta (name VARCHAR PRIMARY KEY, value VARCHAR)")
        store.con.execute("SELECT * FROM no_such_table")

    monkeypatch.setitem(MIGRATIONS, 1, broken)
    with pytest.raises(StoreError):
        Store(path)
    assert "meta" not in tables(path) and not Path(f"{path}.lock").exists()
    monkeypatch.undo()
    assert open_store(path).meta()["schema_version"] == 1 and len(open_store(path).runs()) == 7
    Store(path).close()
    assert open_store(path).meta()["schema_version"] == SCHEMA_VERSION
