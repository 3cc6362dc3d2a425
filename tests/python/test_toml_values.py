"""Python values become TOML value text that reads back as the same value."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wtcp
from wtcp.toml_text import to_toml_value

tomllib = pytest.importorskip("tomllib")

I64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
SCALARS = st.one_of(st.text(), I64, st.floats(), st.booleans())
KEYS = st.text(min_size=1, max_size=12)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)
TRICKY_TEXT = st.text(alphabet=st.sampled_from(['"', "\\", "'", "\n", "\t", "\x00", "\x7f", "é", "漢", "🚀", "a", " ", "=", "{", "]"]))


def same(a, b) -> bool:
    """Equality in which nan equals nan."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@given(VALUES)
def test_any_value_reads_back_as_toml(value):
    parsed = tomllib.loads(f"v = {to_toml_value(value)}")["v"]
    assert same(parsed, list(value) if isinstance(value, tuple) else value)


@given(st.one_of(TRICKY_TEXT, st.text()))
def test_strings_round_trip_through_the_core(reference, text):
    document = reference.set("description", text).document
    assert document["description"] == text


@settings(max_examples=50)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1), delay=st.floats(min_value=0, max_value=1e6), timestamps=st.booleans())
def test_numbers_and_bools_round_trip_through_the_core(reference, seed, delay, timestamps):
    document = reference.with_overrides({"run.seed": seed, "links.0.delay_ms": delay, "tcp.timestamps": timestamps}).document
    assert document["run"]["seed"] == seed
    assert document["links"][0]["delay_ms"] == delay
    assert document["tcp"]["timestamps"] is timestamps


OUTAGES = st.lists(
    st.fixed_dictionaries({"start_s": st.floats(min_value=0, max_value=1e6), "duration_s": st.floats(min_value=1e-3, max_value=1e3)}),
    max_size=4,
)
PACKET_LISTS = st.lists(st.integers(min_value=1, max_value=2**63 - 1), max_size=6)


@settings(max_examples=50)
@given(outages=OUTAGES, packets=PACKET_LISTS, flow_name=TRICKY_TEXT.filter(lambda s: s.strip()))
def test_nested_lists_and_tables_round_trip_through_the_core(reference, outages, packets, flow_name):
    sc = reference.with_overrides(
        {
            "links.1.ba": {"outages": outages, "loss": {"model": "list", "packets": packets}},
            "flows.0.name": flow_name,
            "metrics.fairness_flows": [flow_name],
        }
    )
    document = sc.document
    assert document["links"][1]["ba"] == {"outages": outages, "loss": {"model": "list", "packets": packets}}
    assert document["flows"][0]["name"] == flow_name
    assert document["metrics"]["fairness_flows"] == [flow_name]


def test_scalars_render_as_expected():
    assert to_toml_value(True) == "true"
    assert to_toml_value(False) == "false"
    assert to_toml_value(3) == "3"
    assert to_toml_value(0.25) == "0.25"
    assert to_toml_value(float("inf")) == "inf"
    assert to_toml_value(float("-inf")) == "-inf"
    assert to_toml_value(float("nan")) == "nan"
    assert to_toml_value('a "b" \\c') == '"a \\"b\\" \\\\c"'
    assert to_toml_value([1, [2.5, "x"]]) == '[1, [2.5, "x"]]'
    assert to_toml_value({"model": "uniform", "rate": 0.1, "odd key": 1}) == '{ model = "uniform", rate = 0.1, "odd key" = 1 }'
    assert to_toml_value({}) == "{}"


@pytest.mark.parametrize("value", [None, object(), 2**64, {1: 2}, "\ud800"])
def test_unrepresentable_values_are_scenario_errors(value):
    with pytest.raises(wtcp.ScenarioError) as info:
        to_toml_value(value, "some.path")
    assert info.value.path == "some.path"
