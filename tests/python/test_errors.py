"""Malformed scenarios raise ScenarioError (a ValueError) naming the offending field."""

from __future__ import annotations

import pytest

import wtcp

MALFORMED = {
    "unknown key": ({"run.durration_s": 5.0}, "run.durration_s"),
    "wrong type": ({"links.0.rate_mbps": "fast"}, "links.0.rate_mbps"),
    "negative rate": ({"links.0.rate_mbps": -1.0}, "links.0.rate_mbps"),
    "loss above one": ({"links.1.ab.loss.rate": 1.5}, "links.1.ab.loss.rate"),
    "unknown node": ({"flows.0.src": "X"}, "flows.0.src"),
    "no route": ({"nodes.3": {"name": "Z"}, "flows.0.dst": "Z"}, "flows.0"),
    "start after stop": ({"flows.0.start_s": 5.0, "flows.0.stop_s": 3.0}, "flows.0.stop_s"),
    "unknown algorithm": ({"flows.0.cc": "no-such-algorithm"}, "flows.0.cc"),
    "unknown cc param": ({"flows.0.cc_params": {"no_such_param": 1}}, "flows.0.cc_params.no_such_param"),
    "negative seed": ({"run.seed": -1}, "run.seed"),
}


@pytest.mark.parametrize("overrides, path", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_field_is_reported_with_its_path(reference, overrides, path):
    with pytest.raises(ValueError) as info:
        reference.with_overrides(overrides)
    error = info.value
    assert isinstance(error, wtcp.ScenarioError)
    assert error.path == path
    assert error.reason
    assert str(error) == f"{path}: {error.reason}"


@pytest.mark.parametrize("overrides, path", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_dict_is_reported_with_its_path(reference, overrides, path):
    document = apply(reference.document, overrides)
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_dict(document)
    assert info.value.path == path


def apply(document: dict, overrides: dict) -> dict:
    """The overrides written into a document by hand (lists grow by one at the end)."""
    for dotted, value in overrides.items():
        *parents, last = dotted.split(".")
        node = document
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        if isinstance(node, list):
            index = int(last)
            node[index:index + 1] = [value]
        else:
            node[last] = value
    return document


def test_toml_syntax_error_is_a_scenario_error():
    with pytest.raises(ValueError) as info:
        wtcp.Scenario.from_toml("[run\nduration_s = 1")
    assert isinstance(info.value, wtcp.ScenarioError)
    assert info.value.path == ""
    assert "TOML" in info.value.reason


def test_missing_section_is_a_scenario_error():
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_toml('name = "empty"\n')
    assert "run" in info.value.reason


def test_errors_in_run_arguments_name_the_field(reference):
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.run(seed=-3)
    assert info.value.path == "run.seed"
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.run(trace_interval_ms=0.0)
    assert info.value.path == "trace.interval_ms"


def test_unreadable_file_is_an_os_error_that_lists_the_built_in_scenarios(tmp_path):
    with pytest.raises(OSError, match="built-in: .*two-hop-wireless"):
        wtcp.load(tmp_path / "missing.toml")


def test_a_built_in_scenario_loads_by_name():
    assert wtcp.load("two-hop-wireless").document == wtcp.load(wtcp.builtin_scenario_path("two-hop-wireless")).document
