"""Congestion control written in Python (`wtcp.Algorithm`): it goes through the same sender
as the built-ins (a Python NewReno's results are the built-in's, bit for bit), its
exceptions end one run with the user's traceback and leave a sweep going, its parameters
are checked like the built-ins', the contract suite runs on it, and every byte still
arrives exactly once whatever windows it chooses."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli, without_wall
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wtcp
from wtcp import ScenarioError
from wtcp.algorithm import AlgorithmError, ContractViolation, InvalidAlgorithm
from wtcp.reference_algorithms import PyNewReno

ROOT = Path(__file__).resolve().parents[2]
SIMPLE2 = wtcp.builtin_scenario_path("reference-simple2")
TWO_HOP = wtcp.builtin_scenario_path("two-hop-wireless")


@pytest.fixture(autouse=True)
def registered():
    wtcp.register(PyNewReno)
    yield
    for name in list(wtcp.registered()):
        wtcp.unregister(name)


def on_every_tcp_flow(sc: wtcp.Scenario, cc: str, params: dict | None = None) -> wtcp.Scenario:
    pairs: dict = {}
    for i, f in enumerate(sc.document.get("flows", [])):
        if "rate_mbps" not in f:
            pairs[f"flows.{i}.cc"] = cc
            if params is not None:
                pairs[f"flows.{i}.cc_params"] = params
    return sc.with_overrides(pairs)


def comparable(result: wtcp.Result, cc: str) -> dict:
    metrics = without_wall(result.to_json())
    for f in metrics["flows"]:
        if f["kind"] == "tcp":
            assert f["cc"] == cc
            f["cc"] = "-"
    return metrics


# --- the same sender -------------------------------------------------------------------


@pytest.mark.parametrize(
    "scenario, profile, params, seconds",
    [
        ("reference-simple2", None, None, 60),
        ("two-hop-wireless", None, None, 60),
        ("wifi-one-hop", "ns3", {"halve": "pipe", "ecn": True}, 30),
        ("dumbbell-reverse-udp", "ns2", {"halve": "cwnd", "ecn": False}, 60),
        ("wifi-aqm", None, None, 30),
    ],
)
def test_a_python_newreno_gives_the_builtin_results_bit_for_bit(scenario, profile, params, seconds):
    sc = wtcp.load(wtcp.builtin_scenario_path(scenario)).set("run.duration_s", seconds)
    if profile:
        sc = sc.set("profile", profile)
    rust = on_every_tcp_flow(sc, "newreno", params).run(trace_interval_ms=100)
    python = on_every_tcp_flow(sc, "py_newreno", params).run(trace_interval_ms=100)
    assert comparable(python, "py_newreno") == comparable(rust, "newreno")
    assert rust.flows["fast_retransmits"].sum() + rust.flows["timeouts"].sum() > 0  # the loss paths ran
    for table in ("flows", "queues", "losses", "drops"):
        a, b = getattr(rust.traces, table), getattr(python.traces, table)
        assert a.drop(columns=["cc"], errors="ignore").equals(b.drop(columns=["cc"], errors="ignore")), table


def test_the_python_algorithm_is_the_one_that_ran():
    # A Python NewReno that halves to a third differs: the sender did call it.
    class Third(PyNewReno):
        name = "third"

        def on_loss(self, loss, w, cx):
            w.ssthresh = max(cx.flight_size / 3.0, 2.0 * cx.mss)
            w.cwnd = w.ssthresh if loss.kind == "fast_retransmit" else float(cx.mss)

    wtcp.register(Third)
    sc = wtcp.load(SIMPLE2)
    assert sc.set("flows.0.cc", "third").run().flows.goodput_mbps[0] != sc.set("flows.0.cc", "py_newreno").run().flows.goodput_mbps[0]


class Traced(PyNewReno):
    name = "traced"

    def init(self, w, cx):
        super().init(w, cx)
        self.losses = 0

    def on_loss(self, loss, w, cx):
        super().on_loss(loss, w, cx)
        self.losses += 1
        return "wireless" if loss.kind == "timeout" else "congestion"

    def trace_vars(self):
        return {"losses": float(self.losses)}


def test_trace_vars_and_verdicts_reach_the_results():
    wtcp.register(Traced)
    r = wtcp.load(TWO_HOP).set("flows.0.cc", "traced").set("run.duration_s", 60).run(trace_interval_ms=500)
    cc = r.traces.cc
    assert set(cc["name"]) == {"losses"}
    assert cc["value"].is_monotonic_increasing and cc["value"].iloc[-1] > 0
    f = r.flows.iloc[0]
    assert f.verdict_congestion == f.fast_retransmits and f.verdict_wireless == f.timeouts


# --- failures end one run ---------------------------------------------------------------


class Raises(PyNewReno):
    name = "raises"
    params = {**PyNewReno.params, "after_s": 2.0}

    def on_ack(self, ack, w, cx):
        if cx.now > self.after_s * 1e9:
            return 1 / 0  # the user's bug
        super().on_ack(ack, w, cx)


def test_an_exception_ends_the_run_with_the_users_traceback_flow_and_time():
    wtcp.register(Raises)
    with pytest.raises(AlgorithmError) as info:
        wtcp.load(SIMPLE2).set("flows.0.cc", "raises").run()
    e = info.value
    assert (e.algorithm, e.flow, e.flow_name, e.hook) == ("raises", 0, "bulk", "on_ack")
    assert 2.0 < e.sim_seconds < 2.1
    assert isinstance(e.__cause__, ZeroDivisionError)
    assert "return 1 / 0  # the user's bug" in e.traceback and "ZeroDivisionError" in e.traceback
    assert str(e).startswith("algorithm `raises`, flow 0 `bulk`, on_ack at simulated t = 2.0")


@pytest.mark.parametrize(
    "body, says",
    [
        ("w.cwnd = math.nan", "left w.cwnd = NaN; allowed: a finite number of bytes > 0"),
        ("w.cwnd = -1.0", "left w.cwnd = -1; allowed"),
        ("w.ssthresh = 0.0", "left w.ssthresh = 0; allowed: bytes > 0"),
        ("w.pacing_rate = math.inf", "left w.pacing_rate = inf; allowed: None or a finite rate"),
        ("w.cwnd = 'big'", "TypeError"),
        ("pass", None),
    ],
)
def test_a_window_the_sender_cannot_take_ends_the_run(body, says):
    namespace = {"math": math, "PyNewReno": PyNewReno}
    exec(textwrap.dedent(f"""
        class Bad(PyNewReno):
            name = "bad"
            def on_ack(self, ack, w, cx):
                {body}
    """), namespace)
    wtcp.register(namespace["Bad"])
    if says is None:  # the control: the class runs when the body is harmless
        wtcp.load(SIMPLE2).set("flows.0.cc", "bad").run()
        return
    with pytest.raises(AlgorithmError, match="on_ack") as info:
        wtcp.load(SIMPLE2).set("flows.0.cc", "bad").run()
    assert says in str(info.value)


def test_a_loss_response_that_sets_no_ssthresh_ends_the_run():
    class NoSsthresh(PyNewReno):
        name = "no_ssthresh"

        def on_loss(self, loss, w, cx):
            w.cwnd = float(cx.mss)

    wtcp.register(NoSsthresh)
    with pytest.raises(AlgorithmError, match="on_loss at simulated .* left w.ssthresh = inf; allowed: a finite number of bytes > 0"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "no_ssthresh").run()


def test_an_unknown_verdict_and_a_failing_constructor_end_the_run():
    class Verdict(PyNewReno):
        name = "verdict"

        def on_loss(self, loss, w, cx):
            super().on_loss(loss, w, cx)
            return "maybe"

    class Init(PyNewReno):
        name = "init_fails"

        def __init__(self, **params):
            raise RuntimeError("no state for you")

    wtcp.register(Verdict)
    wtcp.register(Init)
    with pytest.raises(AlgorithmError, match='on_loss .* returned \'maybe\'; allowed: None, "none", "congestion", "wireless"'):
        wtcp.load(SIMPLE2).set("flows.0.cc", "verdict").run()
    with pytest.raises(AlgorithmError, match="__init__ at simulated t = 0.000000 s: raised RuntimeError: no state for you"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "init_fails").run()


def test_a_run_started_inside_a_hook_neither_sees_nor_erases_the_outer_runs_failure():
    # Flow 0 fails; flow 1's hook had started a whole run of its own before that (and
    # another after it would not run: no user code runs after a failure).
    class Nested(PyNewReno):
        name = "nested"
        params = {**PyNewReno.params, "fail": False}

        def on_ack(self, ack, w, cx):
            if self.fail and cx.now > 2e9:
                raise RuntimeError("flow 0 fails")
            if not self.fail and cx.now > 1.9e9 and not getattr(self, "ran", False):
                self.ran = True
                inner = wtcp.load(SIMPLE2).set("run.duration_s", 5).run()
                assert inner.flows.goodput_mbps[0] > 0
            super().on_ack(ack, w, cx)

    wtcp.register(Nested)
    doc = wtcp.load(TWO_HOP).document
    doc["flows"] = [
        {**doc["flows"][0], "name": "fails", "cc": "nested", "cc_params": {"fail": True}},
        {**doc["flows"][0], "name": "nests", "cc": "nested", "start_s": 0.0},
    ]
    doc["run"] = {"duration_s": 30.0}
    with pytest.raises(AlgorithmError, match="flow 0 `fails`, on_ack") as info:
        wtcp.Scenario.from_dict(doc).run()
    assert isinstance(info.value.__cause__, RuntimeError)


def test_ctrl_c_in_a_hook_is_a_keyboard_interrupt_not_an_algorithm_error():
    import signal
    import threading

    class Slow(PyNewReno):
        name = "slow"

        def on_ack(self, ack, w, cx):
            sum(range(2000))  # Python signal handlers run between bytecodes, here
            super().on_ack(ack, w, cx)

    wtcp.register(Slow)
    timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            wtcp.load(SIMPLE2).set("flows.0.cc", "slow").set("run.duration_s", 2000).run()
    finally:
        timer.cancel()


def test_ack_and_window_copies_are_snapshots():
    class Keeps(PyNewReno):
        name = "keeps"

        def init(self, w, cx):
            super().init(w, cx)
            self.prev = None
            self.same = self.rising = 0

        def on_ack(self, ack, w, cx):
            if self.prev is not None:
                self.same += ack is self.prev  # the object is rewritten in place ...
                self.rising += ack.ack >= self.prev.ack and ack.ack > 0
            self.prev = ack.copy()  # ... a copy keeps this ACK's values
            super().on_ack(ack, w, cx)

        def trace_vars(self):
            return {"same": float(self.same), "rising": float(self.rising)}

    wtcp.register(Keeps)
    r = wtcp.load(SIMPLE2).set("flows.0.cc", "keeps").set("run.duration_s", 20).run(trace_interval_ms=10_000)
    last = r.traces.cc.groupby("name").value.last()
    assert last["same"] == 0 and last["rising"] > 1000


def test_a_bad_value_for_the_shared_host_window_ends_the_run():
    class Host(PyNewReno):
        name = "host"

        def on_loss(self, loss, w, cx):
            super().on_loss(loss, w, cx)
            cx.host_initial_cwnd = math.nan

    wtcp.register(Host)
    with pytest.raises(AlgorithmError, match="left cx.host_initial_cwnd = NaN; allowed: None or a finite number of bytes > 0"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "host").run()


def test_a_trace_vars_failure_is_reported_at_its_simulated_time():
    class LateTrace(PyNewReno):
        name = "late_trace"

        def trace_vars(self):
            return {"x": 1.0} if self.recover == 0 else {"x": "not a number"}

    wtcp.register(LateTrace)
    with pytest.raises(AlgorithmError, match="trace_vars") as info:
        wtcp.load(SIMPLE2).set("flows.0.cc", "late_trace").run(trace_interval_ms=100)
    assert info.value.sim_seconds > 0.5


def test_congestion_marks_reach_on_signal_and_requests_reach_the_sender():
    # A CoDel bottleneck that marks (ECN) instead of dropping: the Python NewReno answers
    # each echo once per window, as the built-in does (bit for bit), and differently with
    # `ecn = false`.
    codel = {"discipline": "codel", "limit_packets": 100, "target_ms": 5, "interval_ms": 100, "ecn": True}
    sc = wtcp.load(TWO_HOP).with_overrides({"run.duration_s": 60, "tcp.ecn": True, "links.1.queue": codel, "links.1.ab.loss.rate": 0.0})
    rust = on_every_tcp_flow(sc, "newreno").run()
    python = on_every_tcp_flow(sc, "py_newreno").run()
    assert comparable(python, "py_newreno") == comparable(rust, "newreno")
    assert comparable(python, "py_newreno") != comparable(on_every_tcp_flow(sc, "py_newreno", {"ecn": False}).run(), "py_newreno")

    class Requests(PyNewReno):
        name = "requests"

        def on_loss(self, loss, w, cx):
            super().on_loss(loss, w, cx)
            if loss.kind == "timeout":
                cx.reset_rto_backoff()

        def on_ack(self, ack, w, cx):
            self.backoff = max(getattr(self, "backoff", 0), cx.rto_backoff)
            super().on_ack(ack, w, cx)

        def trace_vars(self):
            return {"max_backoff": float(getattr(self, "backoff", 0))}

    wtcp.register(Requests)
    lossy = wtcp.load(TWO_HOP).with_overrides({"links.1.ab.loss.rate": 0.3, "run.duration_s": 60})
    reset = lossy.set("flows.0.cc", "requests").run(trace_interval_ms=60_000)
    plain = lossy.set("flows.0.cc", "py_newreno").run()
    assert plain.flows.max_backoff[0] >= 2 and reset.flows.max_backoff[0] <= 1
    assert reset.traces.cc.value.max() <= 1


SWEEP_ALGORITHMS = """
import wtcp
from wtcp.reference_algorithms import PyNewReno

class SweepRaises(PyNewReno):
    name = "sweep_raises"
    def on_loss(self, loss, w, cx):
        raise ValueError("lost my way")
"""


@pytest.mark.parametrize("executor", ["inline", "pool", "dask"])
def test_a_sweep_stores_a_failed_run_and_goes_on(tmp_path, executor):
    pytest.importorskip("duckdb")
    from wtcp.sweep import InlineExecutor, ProcessPoolExecutor, Sweep, run_sweep

    if executor == "dask":
        pytest.importorskip("distributed")
        from wtcp.sweep import DaskExecutor

    # Defined in no importable module: the pool's workers get it by value (cloudpickle).
    namespace: dict = {}
    exec(SWEEP_ALGORITHMS, namespace)
    wtcp.register(namespace["SweepRaises"])
    sweep = Sweep.from_dict({
        "name": "py", "scenario": "two-hop-wireless", "algorithms": ["py_newreno", "sweep_raises", "newreno"],
        "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0}, "grid": {"links.1.ab.loss.rate": [0.01, 0.02]},
    })
    ex = {"inline": InlineExecutor, "pool": lambda: ProcessPoolExecutor(workers=2), "dask": lambda: DaskExecutor(local_workers=2)}[executor]()
    try:
        outcome = run_sweep(sweep, tmp_path / "s.duckdb", ex)
    finally:
        ex.close()
    assert outcome.line() == "6 runs: 4 done, 0 skipped, 2 failed"
    store = wtcp.open_store(tmp_path / "s.duckdb")
    runs = store.runs()
    failed = runs[runs.status == "failed"]
    assert len(failed) == 2
    for error in failed.error:
        assert error.startswith("AlgorithmError: algorithm `sweep_raises`, flow 0 `bulk`, on_loss at simulated t =")
        assert "Traceback (most recent call last):" in error and ", line 8, in on_loss\nValueError: lost my way" in error
    flows = store.flows()
    by = flows.groupby("cc").goodput_mbps.apply(sorted).to_dict()
    assert by["py_newreno"] == by["newreno"] and len(by["newreno"]) == 2  # the same runs, in a worker too


def test_a_sweep_reruns_the_runs_of_a_class_whose_code_changed(tmp_path):
    pytest.importorskip("duckdb")
    from wtcp.sweep import InlineExecutor, Sweep, run_sweep

    def define(divisor):
        namespace = {"PyNewReno": PyNewReno}
        exec(f"""
class Mine(PyNewReno):
    name = "mine"
    def on_loss(self, loss, w, cx):
        w.ssthresh = max(cx.flight_size / {divisor}, 2.0 * cx.mss)
        w.cwnd = w.ssthresh if loss.kind == "fast_retransmit" else float(cx.mss)
""", namespace)
        return wtcp.register(namespace["Mine"])

    spec = {"name": "mine", "scenario": "two-hop-wireless", "algorithms": ["mine", "newreno"], "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0}}
    define(2.0)
    first = run_sweep(Sweep.from_dict(spec), tmp_path / "s.duckdb", InlineExecutor())
    define(2.0)  # the same code again: its stored run is reused
    same = run_sweep(Sweep.from_dict(spec), tmp_path / "s.duckdb", InlineExecutor())
    define(8.0)  # other code under the same name: its run is new
    edited = run_sweep(Sweep.from_dict(spec), tmp_path / "s.duckdb", InlineExecutor())
    assert [o.line() for o in (first, same, edited)] == ["2 runs: 2 done, 0 skipped, 0 failed", "2 runs: 0 done, 2 skipped, 0 failed", "2 runs: 1 done, 1 skipped, 0 failed"]


def test_a_pool_sweep_sends_only_the_classes_it_runs():
    import threading

    from wtcp.algorithm import pickled_registrations

    class Locked(PyNewReno):
        name = "locked"
        lock = threading.Lock()

    wtcp.register(Locked)
    assert pickled_registrations(["newreno"]) is None
    assert pickled_registrations(["py_newreno", "newreno"]) is not None
    with pytest.raises(InvalidAlgorithm, match="cannot receive .*Locked.*allowed: a class cloudpickle can pickle"):
        pickled_registrations(["locked"])


# --- parameters and registration -------------------------------------------------------


def test_parameters_are_checked_before_the_run_and_reach_the_instance():
    class Beta(PyNewReno):
        name = "beta"
        params = {**PyNewReno.params, "beta": 0.5, "rounds": 3}

        def init(self, w, cx):
            super().init(w, cx)
            assert isinstance(self.beta, float) and self.beta == 2.0 and self.rounds == 3

    wtcp.register(Beta)
    sc = wtcp.load(SIMPLE2).set("flows.0.cc", "beta")
    sc.set("flows.0.cc_params", {"beta": 2}).run()  # an integer for a float parameter
    cases = [
        ({"betta": 0.5}, "", "unknown field `betta`; did you mean `beta`? (allowed: halve, ecn, beta, rounds) (algorithm `beta`)"),
        ({"beta": "x"}, "beta", 'is "x"; allowed: a finite number, default 0.5 (algorithm `beta`)'),
        ({"beta": math.inf}, "beta", "is inf; allowed: a finite number"),
        ({"rounds": 2.5}, "rounds", "is 2.5; allowed: a finite number (whole), default 3"),
        ({"ecn": 1}, "ecn", "is 1; allowed: a boolean, default true"),
        ({"halve": "all"}, "", "`halve` is 'all'; allowed: 'flight_size', 'cwnd', 'pipe' (algorithm `beta`)"),
    ]
    for params, key, says in cases:
        with pytest.raises(ScenarioError) as info:
            sc.set("flows.0.cc_params", params)
        assert info.value.path == "flows.0.cc_params" + (f".{key}" if key else ""), info.value
        assert says in str(info.value) and str(info.value).count("(algorithm `beta`)") <= 1


def test_an_unregistered_name_is_refused_with_the_registered_ones_listed():
    with pytest.raises(ScenarioError, match="unknown algorithm `py_newrenoo` \\(did you mean py_newreno\\?\\)"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "py_newrenoo")
    wtcp.unregister("py_newreno")
    with pytest.raises(ScenarioError, match="unknown algorithm `py_newreno`"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "py_newreno")


@pytest.mark.parametrize(
    "attrs, says",
    [
        ({"name": "cubic"}, "a built-in algorithm"),
        ({"name": "My-CC"}, "allowed: 1-40 lowercase letters"),
        ({"name": "class"}, "allowed: 1-40 lowercase letters"),
        ({"name": "ok", "recovery_style": "tahoe"}, "recovery_style is 'tahoe'; allowed: 'reno', 'newreno', 'fast_retransmit_only'"),
        ({"name": "ok", "params": {"x": [1]}}, "params['x'] is [1]; allowed: a bool, a finite number or a string"),
        ({"name": "ok", "params": {"x": math.nan}}, "allowed: a bool, a finite number or a string"),
        ({"name": "ok", "params": {"on_ack": 1.0}}, "the name of a method or of wtcp.Algorithm's attributes"),
    ],
)
def test_a_class_that_cannot_run_is_refused_at_registration(attrs, says):
    cls = type("Cls", (PyNewReno,), attrs)
    with pytest.raises(InvalidAlgorithm, match=None) as info:
        wtcp.register(cls)
    assert says in str(info.value)
    assert isinstance(info.value, ValueError)


def test_on_ack_and_on_loss_are_required():
    class NoLoss(wtcp.Algorithm):
        name = "noloss"

        def on_ack(self, ack, w, cx):
            pass

    with pytest.raises(InvalidAlgorithm, match="does not define on_loss"):
        wtcp.register(NoLoss)
    with pytest.raises(InvalidAlgorithm, match="not a subclass of wtcp.Algorithm"):
        wtcp.register(object)


def test_the_other_engines_refuse_a_python_algorithm_by_field():
    from wtcp.ns3.translate import plan

    sc = wtcp.load(SIMPLE2).set("flows.0.cc", "py_newreno")
    with pytest.raises(ScenarioError) as info:
        plan(sc.with_engine_profile("ns3")[0].document)
    assert info.value.path == "flows.0.cc" and "py_newreno" in str(info.value)
    try:
        sc.check_linux()
    except wtcp.LinuxEngineUnavailable:
        pytest.skip("no root, namespaces or TUN here")
    except ScenarioError as e:
        assert e.path == "flows.0.cc" and "registered from Python" in str(e)
    else:
        pytest.fail("the linux engine took a Python algorithm")


def test_algorithms_lists_a_registered_class_as_a_user_algorithm():
    listed = {a["name"]: a for a in wtcp.algorithms()}
    assert listed["py_newreno"]["user"] and not listed["newreno"]["user"]
    assert (listed["py_newreno"]["family"], listed["c2tcp"]["family"]) == ("Written in Python", "Today's baselines")
    assert [p["name"] for p in listed["py_newreno"]["params"]] == ["halve", "ecn"]


# --- the contract suite -----------------------------------------------------------------


def test_the_contract_suite_passes_a_python_newreno_and_catches_a_broken_one():
    checks = wtcp.check_algorithm(PyNewReno, days=1)
    assert [c.name for c in checks] == [
        "slow_start_grows_the_window", "a_timeout_collapses_the_window", "repeated_timeouts_hold_ssthresh",
        "the_window_stays_in_bounds", "duplicate_acks_alone_never_grow_the_window", "identical_input_gives_identical_behaviour",
    ]
    assert all(c.ok for c in checks)

    class GrowsOnDupacks(PyNewReno):
        name = "grows_on_dupacks"

        def on_ack(self, ack, w, cx):
            w.cwnd += cx.mss

    class Random(PyNewReno):
        name = "nondeterministic"

        def on_ack(self, ack, w, cx):
            w.cwnd = random.uniform(1, 100) * cx.mss

    checks = wtcp.check_algorithm(GrowsOnDupacks, days=1, strict=False)
    assert [c.name for c in checks if not c.ok] == ["duplicate_acks_alone_never_grow_the_window"]
    with pytest.raises(ContractViolation, match="identical_input_gives_identical_behaviour"):
        wtcp.check_algorithm(Random, days=1)


def test_the_contract_suite_reports_an_exception_as_a_failed_check():
    class Fails(PyNewReno):
        name = "fails"

        def on_loss(self, loss, w, cx):
            raise KeyError("ssthresh")

    checks = {c.name: c for c in wtcp.check_algorithm(Fails, days=1, strict=False)}
    assert checks["slow_start_grows_the_window"].ok
    failure = checks["a_timeout_collapses_the_window"].failure
    assert "on_loss" in failure and "KeyError: 'ssthresh'" in failure


# --- exactly once, whatever the algorithm does ----------------------------------------


class Chaos(wtcp.Algorithm):
    """Random windows and pacing from a seeded stream: an adversary for the sender."""

    name = "chaos"
    params = {"seed": 0}

    def init(self, w, cx):
        self.rng = random.Random(self.seed)

    def pick(self, w, cx, loss=False):
        r = self.rng
        w.cwnd = r.choice([0.01, 0.5, 1.0, 2.0, r.uniform(1, 64)]) * cx.mss
        finite = r.uniform(0.01, 64) * cx.mss
        w.ssthresh = finite if loss else r.choice([math.inf, finite])
        w.pacing_rate = r.choice([None, None, r.uniform(1e4, 1e7)])

    def on_ack(self, ack, w, cx):
        if self.rng.random() < 0.3:
            self.pick(w, cx)

    def on_loss(self, loss, w, cx):
        self.pick(w, cx, loss=True)
        return self.rng.choice([None, "congestion", "wireless"])

    def on_recovery_exit(self, w, cx):
        self.pick(w, cx)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**31),
    nbytes=st.integers(1, 300_000),
    loss=st.floats(0.0, 0.08),
    sack=st.booleans(),
    ack_loss=st.booleans(),
)
def test_every_byte_arrives_exactly_once_under_a_random_python_algorithm(seed, nbytes, loss, sack, ack_loss):
    wtcp.register(Chaos)
    sc = wtcp.load(TWO_HOP).with_overrides({
        "run.duration_s": 900.0, "run.measure_from_s": 0.0, "run.seed": seed % 1000,
        "flows.0.cc": "chaos", "flows.0.cc_params": {"seed": seed}, "flows.0.bytes": nbytes,
        "links.1.ab.loss.rate": loss, "links.1.ab.loss_applies_to": "all" if ack_loss else "data", "tcp.sack": sack,
    })
    first = sc.run()
    f = first.flows.iloc[0]
    assert f.delivered_bytes == nbytes
    assert f.unnecessary_retransmissions <= f.retransmitted_segments <= f.segments_sent
    assert math.isfinite(f.fct_s)
    assert without_wall(sc.run().to_json()) == without_wall(first.to_json())  # deterministic


# --- entry points and the command line --------------------------------------------------


PLUGIN = """
import wtcp
from wtcp.reference_algorithms import PyNewReno

class PlugNewReno(PyNewReno):
    name = "plug_newreno"
    summary = "[bold]markup[/bold] \\x1b[31m stays text"

class PlugRaises(PyNewReno):
    name = "plug_raises"
    def on_ack(self, ack, w, cx):
        raise RuntimeError("plug-in bug")
"""


def plugin_env(tmp_path: Path) -> dict:
    (tmp_path / "wtcp_plug.py").write_text(PLUGIN, encoding="utf-8")
    dist = tmp_path / "wtcp_plug-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: wtcp-plug\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[wtcp.algorithms]\nplug_newreno = wtcp_plug:PlugNewReno\nplug_raises = wtcp_plug:PlugRaises\n", encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}


def test_an_entry_point_algorithm_runs_from_the_command_line(tmp_path):
    env = plugin_env(tmp_path)
    cli = [sys.executable, "-m", "wtcp.cli"]
    listed = json.loads(subprocess.run([*cli, "algorithms", "--json"], env=env, capture_output=True, text=True, check=True).stdout)
    assert {a["name"]: a["user"] for a in listed}["plug_newreno"] is True
    shown = subprocess.run([*cli, "algorithms"], env={**env, "COLUMNS": "200"}, capture_output=True, text=True, check=True).stdout
    assert "[bold]markup[/bold] \\x1b[31m stays text" in shown and "\x1b" not in shown
    # Grouped by family, the classes written in Python last.
    headers = [line.split(" ─")[0] for line in shown.splitlines() if "──" in line]
    assert headers[0] == "Loss-based baselines" and headers[-1] == "Written in Python"
    assert shown.index("plug_newreno") > shown.index("Written in Python") > shown.index("c2tcp")
    ran = subprocess.run([*cli, "run", str(SIMPLE2), "--set", "flows.0.cc=plug_newreno", "--json"], env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["flows"][0]["cc"] == "plug_newreno"
    bad = subprocess.run([*cli, "run", str(SIMPLE2), "--set", "flows.0.cc=plug_raises"], env=env, capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: algorithm `plug_raises`, flow 0 `bulk`, on_ack at simulated t =")
    assert 'raise RuntimeError("plug-in bug")' in bad.stderr and "RuntimeError: plug-in bug" in bad.stderr


def test_without_the_plugin_the_command_line_names_the_field():
    r = run_cli("run", str(SIMPLE2), "--set", "flows.0.cc=plug_newreno")
    assert r.returncode == 2 and "flows.0.cc: unknown algorithm `plug_newreno`" in r.stderr


# --- the guide ----------------------------------------------------------------------------


def test_the_guides_python_example_runs(capsys):
    guide = (ROOT / "docs" / "new-algorithm.md").read_text(encoding="utf-8")
    section = guide.split("## In Python, without a rebuild", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/new-algorithm.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["newreno", "py_aimd"]
    assert all(float(line.split()[1]) > 0.5 for line in lines)
    with pytest.raises(ScenarioError, match="allowed: a > 0 and 0 < b < 1"):
        wtcp.load(TWO_HOP).set("flows.0.cc", "py_aimd").set("flows.0.cc_params", {"b": 1.5})


def test_the_readmes_python_example_runs(capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = [b for b in readme.split("```python\n")[1:] if "class Halver" in b]
    exec(compile(code.split("```", 1)[0], "README.md", "exec"), {})
    assert float(capsys.readouterr().out) > 0.5


# --- what a new user ran into -------------------------------------------------------------


def test_a_sweep_can_vary_a_parameter_of_the_algorithm_it_runs(tmp_path):
    pytest.importorskip("duckdb")
    from wtcp.sweep import InlineExecutor, Sweep, SweepError, run_sweep

    wtcp.register(type("Beta", (PyNewReno,), {"name": "beta_sweep", "params": {**PyNewReno.params, "beta": 0.5}}))
    spec = {"name": "b", "scenario": "two-hop-wireless", "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0}}
    sweep = Sweep.from_dict({**spec, "algorithms": ["beta_sweep", "newreno"], "grid": {"flows.0.cc_params.beta": [0.5, 0.25]}})
    outcome = run_sweep(sweep, tmp_path / "s.duckdb", InlineExecutor())
    # The Python class takes beta; NewReno's runs are invalid points with the reason.
    assert outcome.line() == "4 runs: 2 done, 0 skipped, 2 failed"
    assert all(r.algorithm == "newreno" and "unknown field `beta`" in e for r, e in outcome.errors)
    with pytest.raises(SweepError, match="grid.flows.0.cc_params.betta: .*unknown field `betta`; did you mean `beta`"):
        Sweep.from_dict({**spec, "algorithms": ["beta_sweep"], "grid": {"flows.0.cc_params.betta": [0.5]}})


def test_the_default_executor_keeps_an_unpicklable_class_in_this_process(tmp_path, monkeypatch):
    pytest.importorskip("duckdb")
    import threading

    from wtcp.sweep import ProcessPoolExecutor, Sweep, run_sweep, runner

    wtcp.register(type("Locked", (PyNewReno,), {"name": "locked_sweep", "lock": threading.Lock()}))
    sweep = Sweep.from_dict({"name": "l", "scenario": "two-hop-wireless", "algorithms": ["locked_sweep"], "replications": 3,
                             "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0}})
    monkeypatch.setattr(runner, "POOL_MIN_WORK_S", 0.0)  # any work would start the pool
    assert run_sweep(sweep, tmp_path / "s.duckdb").line() == "3 runs: 3 done, 0 skipped, 0 failed"
    with pytest.raises(InvalidAlgorithm, match="cannot receive .*InlineExecutor"):
        run_sweep(sweep, tmp_path / "t.duckdb", ProcessPoolExecutor(workers=2))


def test_an_entry_point_does_not_replace_a_class_registered_here(tmp_path, monkeypatch):
    import importlib.metadata

    from wtcp import algorithm

    plugin_env(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()

    class Mine(PyNewReno):
        name = "plug_newreno"

    wtcp.register(Mine)
    monkeypatch.setattr(algorithm, "_entry_points_loaded", False)
    with pytest.warns(UserWarning, match="entry point plug_newreno = wtcp_plug:PlugNewReno .* not loaded: a class named 'plug_newreno' is registered here"):
        algorithm.load_entry_points()
    assert wtcp.registered()["plug_newreno"] is Mine
    assert "plug_raises" in wtcp.registered()  # the other entry point did load
    assert importlib.metadata is not None


@pytest.mark.parametrize(
    "attrs, says",
    [
        ({"on_ack": None}, "coroutine or generator"),
        ({"timeout_collapses_window": "no"}, "timeout_collapses_window is 'no'; allowed: True or False"),
        ({"params": {"big": 10**30}}, "allowed: an integer of 64 bits"),
        ({"params": {"name": "x"}}, "the name of a method or of wtcp.Algorithm's attributes"),
    ],
)
def test_more_classes_that_cannot_run_are_refused_at_registration(attrs, says):
    if "on_ack" in attrs:
        async def on_ack(self, ack, w, cx):
            pass

        attrs = {"on_ack": on_ack}
    with pytest.raises(InvalidAlgorithm, match=None) as info:
        wtcp.register(type("Cls", (PyNewReno,), {"name": "ok", **attrs}))
    assert says in str(info.value)
    with pytest.raises(InvalidAlgorithm, match="wtcp.Algorithm itself cannot run"):
        wtcp.register(wtcp.Algorithm)


def test_a_check_params_answer_that_is_not_a_message_is_said_to_be_one():
    wtcp.register(type("Cp", (PyNewReno,), {"name": "cp", "check_params": classmethod(lambda cls, p: 42)}))
    with pytest.raises(ScenarioError, match="Cp.check_params returned 42; allowed: None or a message"):
        wtcp.load(SIMPLE2).set("flows.0.cc", "cp")


def test_the_hook_objects_print_as_python_values():
    seen = {}

    class Shows(PyNewReno):
        name = "shows"

        def on_loss(self, loss, w, cx):
            seen.setdefault("loss", repr(loss))
            super().on_loss(loss, w, cx)

        def on_ack(self, ack, w, cx):
            seen.setdefault("ack", repr(ack))
            seen.setdefault("w", repr(w))
            super().on_ack(ack, w, cx)

    wtcp.register(Shows)
    wtcp.load(SIMPLE2).set("flows.0.cc", "shows").run()
    assert seen["loss"].startswith("Loss(kind=\"fast_retransmit\"")
    assert "Some(" not in seen["ack"] + seen["w"] and "pacing_rate=None" in seen["w"] and "dup=False" in seen["ack"]


def test_a_summary_refuses_a_column_it_does_not_have(tmp_path):
    pytest.importorskip("duckdb")
    from wtcp.sweep import InlineExecutor, Sweep, run_sweep
    from wtcp.sweep.store import UnknownColumn

    sweep = Sweep.from_dict({"name": "s", "scenario": "two-hop-wireless", "algorithms": ["cubic"],
                             "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0}, "grid": {"flows.0.cc_params.beta": [0.5, 0.7]}})
    run_sweep(sweep, tmp_path / "s.duckdb", InlineExecutor())
    store = wtcp.open_store(tmp_path / "s.duckdb")
    assert len(store.summary("goodput_mbps", by=["algorithm", "flows_0_cc_params_beta"])) == 2
    with pytest.raises(UnknownColumn, match="no column `flows.0.cc_params.beta` to group by; did you mean `flows_0_cc_params_beta`"):
        store.summary("goodput_mbps", by=["algorithm", "flows.0.cc_params.beta"])


def test_a_nested_tables_documented_defaults_are_the_tables_own():
    c2tcp = {a["name"]: a for a in wtcp.algorithms()}["c2tcp"]
    nested = {p["name"]: p for p in next(p for p in c2tcp["params"] if p["name"] == "cubic")["params"]}
    assert (nested["reduce"]["default"], nested["growth_unit"]["default"], nested["alpha_switch"]["default"]) == ("cwnd", "segment", "false")
