"""Golden results: a change that is meant only to be faster (or tidier) leaves every
result of the model bit for bit as it was.

Each case is one of the fuzzer's bases (every shipped scenario and the first run of every
sweep and paper definition), cut to about a second of simulated time, plus the reference
scenario with tracing on. Its fingerprint is the SHA-256 of its metrics (times left out:
they differ between identical runs) and, where traced, of its traces. A change of the model
that is intended changes fingerprints: regenerate them with

    python tests/python/test_golden.py --update

and say in the commit which results changed and why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzzing  # noqa: E402
from conftest import without_wall  # noqa: E402

import wtcp  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden-results.json"
TRACED = "reference-simple2.toml"


def cases() -> dict[str, dict]:
    fuzzing.load_bases()
    out = {name: fuzzing.shorten(doc) for name, doc in fuzzing.BASES}
    traced = dict(out[TRACED])
    traced["trace"] = {"enabled": True, "interval_ms": 50.0}
    out[f"{TRACED}+trace"] = traced
    return out


def fingerprint(doc: dict) -> str:
    result = wtcp.Scenario.from_dict(doc).run()
    h = hashlib.sha256(json.dumps(without_wall(result.to_json()), sort_keys=True).encode())
    if result.traces is not None:
        for name in ("flows", "cc", "queues", "losses", "drops"):
            h.update(name.encode())
            h.update(getattr(result.traces, name).to_csv(index=False).encode())
    return h.hexdigest()


def load_golden() -> dict[str, str]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(cases()))
def test_results_are_the_golden_ones(name: str) -> None:
    golden = load_golden()
    assert name in golden, f"no golden fingerprint for {name}: regenerate with `python tests/python/test_golden.py --update`"
    assert fingerprint(cases()[name]) == golden[name], (
        f"the results of {name} changed; if the model was meant to change, regenerate with "
        "`python tests/python/test_golden.py --update` and say why in the commit"
    )


def test_every_golden_fingerprint_has_its_case() -> None:
    assert sorted(load_golden()) == sorted(cases())


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/python/test_golden.py --update")
    GOLDEN.write_text(json.dumps({name: fingerprint(doc) for name, doc in sorted(cases().items())}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
