"""The Python API: constructors, overrides, documents, module-level helpers."""

from __future__ import annotations

import math

import pytest

import wtcp
from conftest import SHORT_DURATION_S, demo_path, reference_path, without_wall


def test_package_exports_the_public_names():
    for name in ("Scenario", "Result", "run", "load", "algorithms", "builtin_scenario_path", "ScenarioError", "SimulationError", "__version__"):
        assert hasattr(wtcp, name), name
    assert isinstance(wtcp.__version__, str) and wtcp.__version__
    assert issubclass(wtcp.ScenarioError, ValueError)
    assert issubclass(wtcp.SimulationError, RuntimeError)


def test_file_toml_and_dict_constructors_give_the_same_metrics(reference_text):
    overrides = {"run.duration_s": SHORT_DURATION_S}
    from_file = wtcp.Scenario.from_file(reference_path()).with_overrides(overrides)
    from_toml = wtcp.Scenario.from_toml(reference_text).with_overrides(overrides)
    from_dict = wtcp.Scenario.from_dict(from_file.document)
    assert from_file.document == from_toml.document == from_dict.document
    expected = without_wall(from_file.run().to_json())
    assert without_wall(from_toml.run().to_json()) == expected
    assert without_wall(from_dict.run().to_json()) == expected


def test_load_and_module_level_run_accept_paths_scenarios_and_dicts(reference):
    expected = without_wall(reference.run(seed=2).to_json())
    assert without_wall(wtcp.run(reference, seed=2).to_json()) == expected
    assert without_wall(wtcp.run(reference.document, seed=2).to_json()) == expected
    full = wtcp.run(str(reference_path()), seed=2)
    assert full.raw["sim_seconds"] == wtcp.load(reference_path()).document["run"]["duration_s"]


def test_set_returns_a_new_scenario_and_leaves_the_original_alone(reference):
    lossless = reference.set("links.1.ab.loss.rate", 0.0)
    assert lossless is not reference
    assert reference.document["links"][1]["ab"]["loss"]["rate"] == 0.01
    assert lossless.document["links"][1]["ab"]["loss"]["rate"] == 0.0
    assert lossless.overrides[-1] == ("links.1.ab.loss.rate", "0.0")


def test_overrides_equal_editing_the_document(reference):
    overridden = reference.with_overrides(
        {"links.1.ab.loss": {"model": "uniform", "rate": 0.03}, "flows.0.cc": "reno", "tcp.delayed_ack": False}
    )
    document = reference.document
    document["links"][1]["ab"]["loss"] = {"model": "uniform", "rate": 0.03}
    document["flows"][0]["cc"] = "reno"
    document["tcp"]["delayed_ack"] = False
    edited = wtcp.Scenario.from_dict(document)
    assert overridden.document == edited.document
    assert without_wall(overridden.run().to_json()) == without_wall(edited.run().to_json())


def test_overrides_equal_editing_the_toml_text(reference_text):
    edited = reference_text.replace("rate = 0.01", "rate = 0.04").replace("duration_s = 201.0", f"duration_s = {SHORT_DURATION_S}")
    assert edited != reference_text
    a = wtcp.Scenario.from_toml(edited)
    b = wtcp.Scenario.from_toml(reference_text).with_overrides({"links.1.ab.loss.rate": 0.04, "run.duration_s": SHORT_DURATION_S})
    assert without_wall(a.run().to_json()) == without_wall(b.run().to_json())


def test_text_overrides_take_bare_words_as_strings(reference):
    sc = reference.with_text_overrides([("flows.0.cc", "reno"), ("links.1.ab.loss.rate", "0.02")])
    document = sc.document
    assert document["flows"][0]["cc"] == "reno"
    assert document["links"][1]["ab"]["loss"]["rate"] == 0.02


def test_an_index_one_past_the_end_appends(reference):
    sc = reference.set("flows.1", {"name": "second", "src": "S", "dst": "D", "cc": "reno", "start_s": 2.0})
    result = sc.run()
    assert list(result.flows["name"]) == ["bulk", "second"]
    assert list(result.flows["cc"]) == ["newreno", "reno"]


def test_dict_with_none_is_rejected_naming_the_path(reference):
    document = reference.document
    document["links"][1]["ab"]["loss"]["rate"] = None
    with pytest.raises(wtcp.ScenarioError) as info:
        wtcp.Scenario.from_dict(document)
    assert info.value.path == "links.1.ab.loss.rate"
    assert "None" in info.value.reason


def test_dict_with_a_non_mapping_is_rejected():
    with pytest.raises(wtcp.ScenarioError):
        wtcp.Scenario.from_dict(["not", "a", "dict"])


def test_infinite_values_pass_through_dicts_and_overrides(reference, reference_text):
    document = reference.document
    document["tcp"]["initial_ssthresh_segments"] = math.inf
    from_dict = wtcp.Scenario.from_dict(document)
    from_set = reference.set("tcp.initial_ssthresh_segments", math.inf)
    from_toml = wtcp.Scenario.from_toml(reference_text.replace("[tcp]\n", "[tcp]\ninitial_ssthresh_segments = inf\n")).set(
        "run.duration_s", SHORT_DURATION_S
    )
    expected = without_wall(from_toml.run().to_json())
    assert without_wall(from_dict.run().to_json()) == expected
    assert without_wall(from_set.run().to_json()) == expected


def test_nan_reaches_the_checks_and_is_rejected(reference):
    with pytest.raises(wtcp.ScenarioError) as info:
        reference.set("links.1.ab.loss.rate", math.nan)
    assert info.value.path == "links.1.ab.loss.rate"


def test_invalid_override_paths_are_scenario_errors(reference):
    for path in ("", "links..rate_mbps", "run."):
        with pytest.raises(wtcp.ScenarioError):
            reference.set(path, 1)


def test_numpy_scalars_are_accepted(reference):
    np = pytest.importorskip("numpy")
    sc = reference.with_overrides({"links.1.ab.loss.rate": np.float64(0.02), "run.seed": np.int64(7)})
    assert sc.document["links"][1]["ab"]["loss"]["rate"] == 0.02
    assert sc.document["run"]["seed"] == 7


def test_scenario_name_source_and_repr(reference):
    assert reference.name == "reference-simple2"
    assert reference.source == str(reference_path())
    assert "reference-simple2" in repr(reference)
    assert wtcp.Scenario.from_dict(reference.document).source is None


def test_builtin_scenario_paths():
    assert demo_path().is_file()
    assert wtcp.builtin_scenario_path("reference-simple2.toml") == reference_path()
    with pytest.raises(FileNotFoundError, match="reference-simple2"):
        wtcp.builtin_scenario_path("no-such-scenario")


def test_algorithms_describe_themselves():
    algorithms = wtcp.algorithms()
    names = [a["name"] for a in algorithms]
    assert {"reno", "newreno"} <= set(names)
    for algorithm in algorithms:
        assert algorithm["summary"] and algorithm["reference"]
        for param in algorithm["params"]:
            assert set(param) >= {"name", "unit", "default", "doc"}


@pytest.mark.parametrize("algorithm", [a["name"] for a in wtcp.algorithms()])
def test_every_algorithm_runs_and_delivers(reference, algorithm):
    result = reference.set("flows.0.cc", algorithm).run()
    assert result.flows.loc[0, "cc"] == algorithm
    assert result.flows.loc[0, "goodput_bps"] > 0
