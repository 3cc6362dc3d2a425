"""Mutated scenarios give a clean error or a run that completes, never anything else.

The mutator and its harness are in `fuzzing.py` (bases: every shipped scenario and the first
run of every sweep; mutations: extremes, wrong types, unknown keys, removed keys, deep
nesting, duplicated elements, out-of-range algorithm parameters). Here a few hundred seeded
cases run through the Python API and a few through the CLI, each in a worker process with
a memory limit and a time limit; `make fuzz` runs 100 000 of them.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

API_CASES = 400
CLI_CASES = 15
TIME_LIMIT_S = 30.0


@pytest.fixture(scope="module")
def worker():
    import multiprocessing as mp

    fuzzing.load_bases()
    w = fuzzing.Worker(mp.get_context("fork"))
    yield w
    w.close()


def check(worker, case) -> None:
    outcome, detail = worker.run(case, TIME_LIMIT_S)
    assert outcome in fuzzing.GOOD, f"{outcome} for {case['base']} with {case['mutations']!r}:\n{detail}"


def draw_case(data, cli: bool):
    fuzzing.load_bases()
    ch = fuzzing.DataChooser(data)
    return fuzzing.make_case(ch.index(len(fuzzing.BASES)), ch, cli=cli)


def test_every_base_resolves_and_runs_unmutated(worker):
    fuzzing.load_bases()
    assert len(fuzzing.BASES) >= 10  # the shipped scenarios and the sweeps' first runs
    for name, doc in fuzzing.BASES:
        case = {"base": name, "doc": fuzzing.shorten(doc), "short": fuzzing.shorten(doc), "mutations": [], "cli": False}
        assert worker.run(case, TIME_LIMIT_S) == ("ok", ""), name


@settings(max_examples=API_CASES, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_scenarios_through_the_api(worker, data):
    check(worker, draw_case(data, cli=False))


@settings(max_examples=CLI_CASES, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_scenarios_through_the_cli(worker, data):
    case = draw_case(data, cli=True)
    if "#" in case["base"]:
        case = {**case, "cli": False}  # a sweep's run has no file of its own
    check(worker, case)


@pytest.mark.parametrize(
    "mutations, outcome",
    [
        ([("replace", "flows.0.cc_params.alpha", float("nan"))], "nonsense"),
        ([("replace", "links.0.rate_mbps", -1.0)], "nonsense"),
        ([("replace", "wifi.0.stations.0.x", -1.0)], None),
        ([("replace", "tcp.initial_ssthresh_segments", float("inf"))], None),
    ],
)
def test_the_nonsense_oracle(mutations, outcome):
    doc = {"flows": [{"cc_params": {"alpha": float("nan")}}], "links": [{"rate_mbps": -1.0}], "wifi": [{"stations": [{"x": -1.0}]}], "tcp": {"initial_ssthresh_segments": float("inf")}}
    found = fuzzing.nonsense(mutations, doc)
    assert (found is not None) == (outcome == "nonsense"), found


def test_a_crash_and_a_hang_are_caught_as_failures(worker):
    # The harness itself: a worker that dies, and one that does not answer in time.
    import os
    import signal

    case = {"base": "x", "doc": {}, "short": {}, "mutations": [], "cli": False, "sleep": 5.0}
    worker.submit(case, 5.0)
    os.kill(worker.proc.pid, signal.SIGKILL)
    assert worker.collect(5.0)[0] == "crash"
    assert worker.run(case, 0.5)[0] == "hang"
    # The restarted worker runs the next case.
    assert worker.run({"base": "x", "doc": {"run": 1}, "short": {}, "mutations": [], "cli": False})[0] == "error"
