"""The generated algorithm documentation matches the registry and the module headers."""

import importlib.util
from pathlib import Path

from wtcp import _core

ROOT = Path(__file__).resolve().parents[2]


def load_generator():
    spec = importlib.util.spec_from_file_location("algorithms_doc", ROOT / "tools" / "algorithms_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_algorithms_md_has_every_registered_algorithm_and_parameter():
    """`make` regenerates docs/algorithms.md after each build (`--if-changed`); what it
    writes names every algorithm of the registry with each of its parameters, units and
    defaults, and its module header."""
    gen = load_generator()
    text = gen.render(_core.algorithms())
    for a in _core.algorithms():
        assert f"\n## {a['name']}\n" in text, a["name"]
        section = text.split(f"\n## {a['name']}\n", 1)[1].split("\n## ", 1)[0]
        for p in a["params"]:
            assert f"`{p['name']}`" in section and gen.cell(p["unit"]) in section, (a["name"], p["name"])
        assert "Deviations" in section or "deviations" in section.lower(), a["name"]


def test_every_algorithm_documents_its_deviations():
    text = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    for a in _core.algorithms():
        section = text.split(f"\n## {a['name']}\n", 1)[1].split("\n## ", 1)[0]
        assert "eviation" in section, f"{a['name']}: no deviations list in its module header"


def test_every_earlier_reading_in_the_faithfulness_table_is_still_a_valid_option():
    """docs/faithfulness.md's "before" columns are earlier readings kept as named options:
    each variant of tools/faithful_numbers.py must still resolve (unknown keys are errors)."""
    import sys

    import wtcp

    spec = importlib.util.spec_from_file_location("faithful_numbers", ROOT / "tools" / "faithful_numbers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)

    for case in module.CASES:
        for _, overrides in case.points[:1]:
            for _, cc, params, *extra in case.variants:
                sc = wtcp.load(module.scenario_path(case.scenario)).with_overrides({**case.base, **overrides, **(extra[0] if extra else {})})
                for i in case.flows:
                    sc = sc.set(f"flows.{i}.cc", cc)
                    if params:
                        sc = sc.set(f"flows.{i}.cc_params", params)
                assert sc.document["flows"][case.flows[0]]["cc"] == cc
