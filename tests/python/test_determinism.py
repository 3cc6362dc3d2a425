"""Runs are deterministic: a seed and a replication fix every number."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from conftest import without_wall


def test_same_seed_gives_identical_metrics(reference):
    first = reference.run(seed=3).to_json()
    second = reference.run(seed=3).to_json()
    assert without_wall(first) == without_wall(second)


def test_different_replication_gives_different_metrics(reference):
    a = without_wall(reference.run(seed=3, replication=0).to_json())
    b = without_wall(reference.run(seed=3, replication=1).to_json())
    assert (a["seed"], a["replication"], b["replication"]) == (3, 0, 1)
    assert a["flows"] != b["flows"]


def test_different_seed_gives_different_metrics(reference):
    a = without_wall(reference.run(seed=1).to_json())
    b = without_wall(reference.run(seed=2).to_json())
    assert a["flows"] != b["flows"]


def test_run_arguments_equal_document_overrides(reference):
    by_argument = reference.run(seed=4, replication=2)
    by_override = reference.with_overrides({"run.seed": 4, "run.replication": 2}).run()
    assert without_wall(by_argument.to_json()) == without_wall(by_override.to_json())


def test_concurrent_runs_match_sequential_runs(reference):
    seeds = list(range(1, 9))
    sequential = [without_wall(reference.run(seed=s).to_json()) for s in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(lambda s: without_wall(reference.run(seed=s).to_json()), seeds))
    assert concurrent == sequential


def test_tracing_does_not_change_the_outcome(reference):
    plain = without_wall(reference.run(seed=5).to_json())
    traced = without_wall(reference.run(seed=5, trace=True).to_json())
    plain.pop("events"), traced.pop("events")  # sampling adds events of its own
    assert plain == traced
