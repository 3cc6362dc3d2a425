"""Sweep expansion: each run's store key is the hash of its resolved scenario document, the
document `tomllib` reads from the run's TOML; the expansion takes that document from the
core (`_core.resolve_document`) instead of parsing the text again, and must give the same
keys, texts and documents."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wtcp import ScenarioError, _core
from wtcp.scenario import Scenario, builtin_scenario_path
from wtcp.sweep import Sweep
from wtcp.sweep.spec import ENGINE_KEY, canonical, run_key

TWO_HOP = builtin_scenario_path("two-hop-wireless").read_text(encoding="utf-8")

SWEEPS = {
    # The benchmark's sweep (python/wtcp/bench.py), shortened.
    "grid": {
        "scenario": "two-hop-wireless",
        "algorithms": ["newreno", "westwoodplus", "cubic", "njplus", "dynamic"],
        "replications": 3,
        "seed": 7,
        "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0, "flows.0.start_s": 0.0},
        "grid": {"links.1.ab.loss.rate": [0.0, 0.005, 0.01]},
    },
    # Names in paths, a zip group, points, algorithm parameters, an invalid point.
    "mixed": {
        "scenario": "two-hop-wireless",
        "name": "mixed \u00e9\u6f22",
        "algorithms": ["westwood", "cubic"],
        "algorithm_params": {"westwood": {"flavour": "ns2"}},
        "set": {"run.duration_s": 20.0, "run.measure_from_s": 2.0},
        "zip": [{"links.wireless.ab.loss.rate": [0.0, 0.02], "links.wired.delay_ms": [1.0, 2.5]}],
        "points": [{"flows.bulk.start_s": 0.5}, {"flows.bulk.start_s": 30.0}],
    },
    # `[set]` that only the points mend (applied with each point).
    "mended": {
        "scenario": "two-hop-wireless",
        "set": {"run.duration_s": 10.0},
        "grid": {"run.measure_from_s": [1.0, 2.0, 50.0]},
    },
}


def old_identity(toml: str) -> dict[str, Any]:
    """The document a run's key hashed before: its TOML text parsed by `tomllib`."""
    return tomllib.loads(toml)


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_every_run_key_is_the_hash_of_the_document_its_toml_holds(name: str) -> None:
    sweep = Sweep.from_dict(SWEEPS[name])
    runs = list(sweep.runs())
    assert len(runs) == sweep.size()
    valid = [r for r in runs if r.toml is not None]
    assert valid
    for run in valid:
        doc = old_identity(run.toml)
        assert run.key == run_key(doc, run.seed, run.replication, _core.__version__)
        assert run.sim_seconds == float(doc["run"]["duration_s"])
        assert doc["run"]["seed"] == run.seed and doc["run"]["replication"] == run.stream
    if name == "mended":
        assert sum(r.error is not None for r in runs) == 1  # measure_from_s 50 > 10 s


def test_run_texts_are_those_of_with_overrides() -> None:
    """The run's TOML is the text `Scenario.with_overrides` resolves to, override for override."""
    sweep = Sweep.from_dict(SWEEPS["mixed"])
    base = sweep.base.with_overrides(sweep.fixed)
    for run in sweep.runs():
        overrides = {**sweep.algorithm_overrides(run.algorithm), **run.params, "run.seed": run.seed, "run.replication": run.stream}
        try:
            expected = base.with_overrides(overrides)._resolved_toml
        except ScenarioError as e:
            assert run.toml is None and run.error == str(e)
            continue
        assert run.toml == expected


def test_an_engine_axis_keeps_the_wtcp_key_and_wraps_the_other() -> None:
    from wtcp.ns3.translate import matching

    matched = matching(Scenario.from_file(builtin_scenario_path("reference-simple2")).document)
    doc = {"scenario": "reference-simple2", "set": {"run.duration_s": 4.0, **matched}, "grid": {ENGINE_KEY: ["wtcp", "ns3"]}}
    runs = list(Sweep.from_dict(doc).runs())
    by_engine = {r.engine: r for r in runs}
    assert set(by_engine) == {"wtcp", "ns3"} and all(r.error is None for r in runs)
    for engine, run in by_engine.items():
        identity: Any = old_identity(run.toml)
        if engine != "wtcp":
            identity = {"engine": engine, "scenario": identity}
        assert run.key == run_key(identity, run.seed, run.replication, _core.__version__)


def same_document(a: Any, b: Any) -> bool:
    """Equal values of equal types, NaN equal to NaN (as the key's JSON text has it)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(sorted(a)) == list(sorted(b)) and all(same_document(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_document(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def toml_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}" for c in text) + '"'


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(st.characters(exclude_categories=["Cs"]), max_size=40),
    description=st.text(st.characters(exclude_categories=["Cs"]), max_size=40),
    loss=st.floats(min_value=0.0, max_value=1.0),
    delay=st.floats(min_value=0.0, max_value=1e4, allow_subnormal=True),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
)
def test_the_core_gives_the_document_tomllib_reads_from_the_text(name: str, description: str, loss: float, delay: float, seed: int) -> None:
    overrides = [
        ("name", toml_string(name)),
        ("description", toml_string(description)),
        ("links.1.ab.loss.rate", repr(loss)),
        ("links.0.delay_ms", repr(delay)),
        ("run.seed", str(seed)),
    ]
    text, doc = _core.resolve_document(TWO_HOP, "toml", overrides)
    assert text == _core.resolve(TWO_HOP, "toml", overrides)
    parsed = tomllib.loads(text)
    assert same_document(doc, parsed)
    assert canonical(doc) == canonical(parsed)
    assert doc["name"] == name and doc["links"][1]["ab"]["loss"]["rate"] == loss


@pytest.mark.parametrize("overrides", [
    *([("links.0.delay_ms", v)] for v in ("-0.0", "0.0", "5e-324", "0.1")),
    *([("trace.interval_ms", v)] for v in ("1e16", "123456789012345678.0", "1e300")),
    [("flows.0.cc", '"westwood"'), ("flows.0.cc_params", '{ flavour = "ns2" }')],
    *([("name", toml_string(v))] for v in ("a\r\nb", "\n", "a\nb\r\n", "'''", '"""', "\r", 'x\r\n\r\ny"""z', "\t\x7f\x00", "\u2028\ufeff")),
])
def test_edge_values_come_through_as_tomllib_reads_them(overrides: list[tuple[str, str]]) -> None:
    """Signed zeros, subnormals, huge floats, inline tables and strings with line breaks,
    quotes and control characters (which the text carries escaped or in multi-line
    strings, where tomllib would turn a raw CR LF into LF)."""
    text, doc = _core.resolve_document(TWO_HOP, "toml", overrides)
    parsed = tomllib.loads(text)
    assert same_document(doc, parsed) and canonical(doc) == canonical(parsed)


def test_a_remembered_path_never_hides_a_renamed_element() -> None:
    """Overrides that rename an element before a path names it resolve against the renamed
    document, every time (the paths of one call are not reused for another's values)."""
    sc = Scenario.from_toml(TWO_HOP)
    _, doc = sc._with_overrides_to_read({"links.1.name": "wireless", "links.wireless.delay_ms": 3.0})
    assert doc["links"][1]["delay_ms"] == 3.0
    with pytest.raises(ScenarioError, match="unknown name `wireless`"):
        sc._with_overrides_to_read({"links.1.name": "radio", "links.wireless.delay_ms": 3.0})
    # Paths that rename nothing are resolved once and reused with other values.
    for rate in (0.0, 0.01, 0.02):
        out, doc = sc._with_overrides_to_read({"links.wireless.ab.loss.rate": rate})
        assert doc["links"][1]["ab"]["loss"]["rate"] == rate
        assert doc == out.document == sc.set("links.wireless.ab.loss.rate", rate).document
