"""How a sweep's writer commits: the set-up of a new store goes in with its first commit,
a commit that fails leaves the next one whole, and commits are spaced so that they take a
bounded share of the sweep's time."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("duckdb")

from wtcp.sweep import InlineExecutor, Store, Sweep, open_store, run_sweep
from wtcp.sweep import store as store_module
from wtcp.sweep.runner import run_batch
from wtcp.sweep.store import COMMIT_SHARE, FLUSH_EVERY_S, FLUSH_MAX_S

SWEEP = {
    "name": "c",
    "scenario": "two-hop-wireless",
    "algorithms": ["newreno", "cubic"],
    "set": {"run.duration_s": 10.0, "run.measure_from_s": 1.0},
    "grid": {"links.1.ab.loss.rate": [0.0, 0.02]},
}


def records(sweep: Sweep) -> list[dict]:
    """The sweep's results as the runner hands them to the store."""
    runs = list(sweep.runs())
    out = run_batch([(r.key, r.toml) for r in runs])
    for rec, run in zip(out, runs):
        rec.update(sweep=sweep.name, params=run.params, algorithm=run.algorithm, seed=run.seed, replication=run.replication, stream=run.stream)
    return out


def test_a_new_store_gets_the_sweep_set_up_even_without_a_run(tmp_path: Path) -> None:
    sweep = Sweep.from_dict(SWEEP)
    path = tmp_path / "new.duckdb"
    st = Store(path)
    names, done = st.begin_sweep(sweep.name, sweep.definition(), sweep.base._resolved_toml, {"links.1.ab.loss.rate": [0.0, 0.02]})
    assert names == {"links.1.ab.loss.rate": "links_1_ab_loss_rate"} and done == set()
    st.close()  # nothing was run (Ctrl-C before the first result)
    with open_store(path) as reader:
        assert "links_1_ab_loss_rate" in reader.param_columns()
        assert reader.definitions()["c"]["scenario"] == sweep.base._resolved_toml
        assert len(reader.runs()) == 0


def test_a_sweep_into_a_new_store_then_resumed(tmp_path: Path) -> None:
    sweep = Sweep.from_dict(SWEEP)
    path = tmp_path / "s.duckdb"
    assert run_sweep(sweep, path, InlineExecutor()).line() == "4 runs: 4 done, 0 skipped, 0 failed"
    with open_store(path) as reader:
        assert sorted(reader.runs().links_1_ab_loss_rate) == [0.0, 0.0, 0.02, 0.02]
        assert set(reader.definitions()) == {"c"}
    assert run_sweep(sweep, path, InlineExecutor()).line() == "4 runs: 0 done, 4 skipped, 0 failed"


def test_a_failed_commit_leaves_the_next_one_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first commit adds the flow columns; when it fails after that (and rolls back),
    the next commit adds them again and stores every run with every column."""
    sweep = Sweep.from_dict(SWEEP)
    recs = records(sweep)
    st = Store(tmp_path / "f.duckdb")
    names, _ = st.begin_sweep(sweep.name, sweep.definition(), sweep.base._resolved_toml, {"links.1.ab.loss.rate": [0.0, 0.02]})
    real = store_module.insert_rows

    def failing(con, table, columns, rows):
        if table == "flows":
            raise RuntimeError("disk full")
        return real(con, table, columns, rows)

    monkeypatch.setattr(store_module, "insert_rows", failing)
    st.queue(recs[:2], names)
    with pytest.raises(RuntimeError, match="disk full"):
        st.flush()
    monkeypatch.setattr(store_module, "insert_rows", real)
    st.queue(recs[2:], names)
    assert st.flush() and st.pending() == 0
    st.close()
    with open_store(tmp_path / "f.duckdb") as reader:
        runs, flows = reader.runs(), reader.flows()
    assert sorted(runs.key) == sorted(r["key"] for r in recs) and set(flows.key) == set(runs.key)
    assert flows.goodput_bps.notna().all() and (flows.cc.isin(["newreno", "cubic"])).all()
    assert "links_1_ab_loss_rate" in runs.columns


@pytest.mark.parametrize("commit_s, interval", [(0.0, FLUSH_EVERY_S), (0.005, FLUSH_EVERY_S), (0.02, 0.02 / COMMIT_SHARE), (0.05, 0.05 / COMMIT_SHARE), (5.0, FLUSH_MAX_S)])
def test_commits_take_a_bounded_share_of_the_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commit_s: float, interval: float) -> None:
    """About once a second; a commit whose opening and closing of the file cost more
    stretches the interval so that they take at most COMMIT_SHARE of the time, up to
    FLUSH_MAX_S between commits. Writing the rows does not count (it costs the same
    however the rows are grouped)."""
    sweep = Sweep.from_dict(SWEEP)
    recs = records(sweep)
    st = Store(tmp_path / "i.duckdb")
    assert st.commit_interval() == FLUSH_EVERY_S  # the first commit after a second
    names, _ = st.begin_sweep(sweep.name, sweep.definition(), sweep.base._resolved_toml, {})
    # The CPU clock: before opening, once open, before closing (after 3 s of writing), closed.
    clock = iter([100.0, 100.0 + commit_s / 2, 103.0 + commit_s / 2, 103.0 + commit_s])
    monkeypatch.setattr(store_module.time, "process_time", lambda: next(clock))
    st.queue(recs[:1], names)
    assert st.flush()
    monkeypatch.undo()
    assert st.commit_interval() == pytest.approx(interval)
    # Not due before the interval has passed since the commit, due after it.
    now = st._last_flush
    monkeypatch.setattr(store_module.time, "monotonic", lambda: now + interval * 0.99)
    assert not st.queue(recs[1:2], names)
    monkeypatch.setattr(store_module.time, "monotonic", lambda: now + interval * 1.01)
    assert st.queue(recs[2:3], names)
    monkeypatch.undo()
    st.close()


def test_a_run_stored_again_in_a_new_store_replaces_its_rows(tmp_path: Path) -> None:
    """In a store this writer made, new runs are written without looking for old rows;
    a run stored again (failed, then done; in a later commit) still replaces its rows."""
    sweep = Sweep.from_dict(SWEEP)
    recs = records(sweep)
    st = Store(tmp_path / "r.duckdb")
    names, _ = st.begin_sweep(sweep.name, sweep.definition(), sweep.base._resolved_toml, {"links.1.ab.loss.rate": [0.0, 0.02]})
    failed = {**recs[0], "status": "failed", "error": "worker died", "flows": []}
    st.queue([failed, recs[1]], names)
    assert st.flush()
    st.queue([recs[0], recs[2], {**recs[1], "events": -1}], names)
    assert st.flush()
    st.close()
    with open_store(tmp_path / "r.duckdb") as reader:
        runs, flows = reader.runs(), reader.flows()
    assert sorted(runs.key) == sorted(r["key"] for r in recs[:3])
    assert (runs.status == "done").all() and (runs[runs.key == recs[1]["key"]].events == -1).all()
    assert sorted(flows.key) == sorted(r["key"] for r in recs[:3])  # one flow each, none twice
