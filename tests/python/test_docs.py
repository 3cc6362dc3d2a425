"""The generated algorithm documentation matches the registry and the module headers."""

import importlib.util
from pathlib import Path

from wtcp import _core

ROOT = Path(__file__).resolve().parents[2]


def test_docs_algorithms_md_is_current():
    spec = importlib.util.spec_from_file_location("algorithms_doc", ROOT / "tools" / "algorithms_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render(_core.algorithms())
    actual = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/algorithms.md is stale: run `python tools/algorithms_doc.py`"


def test_every_algorithm_documents_its_deviations():
    text = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    for a in _core.algorithms():
        section = text.split(f"\n## {a['name']}\n", 1)[1].split("\n## ", 1)[0]
        assert "eviation" in section, f"{a['name']}: no deviations list in its module header"
