"""Paper definitions: `papers/<name>/paper.toml`, checked and turned into sweeps.

A paper definition names the paper, its experiments (each a sweep file in the same folder,
with a reduced `quick` variant and the figures drawn from it) and its published numbers
and claims (each with the measurement that checks it). `docs/reproduction.md` describes
the format; every mistake is reported as a `PaperError` with the field path.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wtcp.errors import ScenarioError
from wtcp.paths import SAFE_NAME_RULE, name_problem
from wtcp.sweep.spec import Sweep, SweepError
from wtcp.toml_text import TomlError, check_plain, parse_toml

PAPER_DIR = Path(__file__).resolve().parent.parent / "papers"

PAPER_KEYS = ("paper", "title", "citation", "source", "tolerance", "summary", "experiments", "claims")
EXPERIMENT_KEYS = ("id", "title", "sweep", "quick", "figures")
QUICK_KEYS = ("replications", "set", "grid", "algorithms", "zip")
FIGURE_KINDS = ("lines", "bars", "table", "trace", "causes")
FIGURE_KEYS = ("id", "kind", "title", "metric", "x", "x_label", "x_scale", "y_label", "series", "where", "flows", "rows", "columns", "variables", "from_s", "until_s", "caption", "logy")
MEASURES = ("value", "ratio", "gain_pct", "order", "na")
CLAIM_KEYS = ("id", "source", "claim", "experiment", "measure", "metric", "flows", "a", "b", "select", "order", "over", "published", "unit", "scale", "expect", "rough", "reason", "note")
FLOW_AGGREGATES = ("mean", "sum", "run")
EXPECT = re.compile(r"^\s*(>=|<=|>|<)\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*$")


class PaperError(ValueError):
    """A mistake in a paper definition: `.path` (e.g. `claims.3.measure`) and `.reason`."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


@dataclass
class Figure:
    id: str
    kind: str
    spec: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.spec.get(key, default)


@dataclass
class Experiment:
    id: str
    title: str
    sweep_file: Path
    quick: dict[str, Any]
    figures: list[Figure]

    def sweep(self, quick: bool, paper: str) -> Sweep:
        """The sweep of this experiment (the reduced grid with `quick`), named `paper/id`."""
        try:
            doc = parse_toml(self.sweep_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, TomlError) as e:
            raise PaperError(f"experiments.{self.id}.sweep", f"cannot read {self.sweep_file}: {e}") from None
        if quick:
            doc = quick_variant(doc, self.quick)
        doc["name"] = f"{paper}/{self.id}"
        try:
            return Sweep.from_dict(doc, base_dir=self.sweep_file.parent, default_name=doc["name"])
        except SweepError as e:
            raise PaperError(f"{self.sweep_file.name}{' (quick)' if quick else ''}: {e.path}", e.reason) from None


@dataclass
class Claim:
    id: str
    spec: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.spec.get(key, default)


@dataclass
class Paper:
    name: str
    title: str
    citation: str
    source: str
    summary: str
    tolerance: float
    experiments: list[Experiment] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    folder: Path = PAPER_DIR

    def experiment(self, experiment_id: str) -> Experiment:
        for e in self.experiments:
            if e.id == experiment_id:
                return e
        raise KeyError(experiment_id)


def paper_names() -> list[str]:
    """The papers shipped with wtcp (folders of `papers/` holding a `paper.toml`)."""
    return sorted(p.parent.name for p in PAPER_DIR.glob("*/paper.toml"))


def is_path_form(name_or_path: str | os.PathLike[str]) -> bool:
    """Whether `load_paper` takes `name_or_path` as a path rather than a shipped paper's
    name: a `Path` (any `os.PathLike`), or a string holding a path separator or ending in
    `.toml` (`./mypaper`, `mypaper/paper.toml`, `paper.toml`)."""
    if not isinstance(name_or_path, str):
        return True
    separators = {"/", os.sep, os.altsep} - {None}
    return any(sep in name_or_path for sep in separators) or name_or_path.endswith(".toml") or name_or_path in (".", "..")


def load_paper(name_or_path: str | os.PathLike[str]) -> Paper:
    """A shipped paper by name (`"njplus"`: only the papers in `PAPER_DIR`, whatever the
    current directory holds), or a paper definition of your own by path: a `paper.toml`
    file or its folder, as a `Path` or a string with a separator (`"./mypaper"`)."""
    if is_path_form(name_or_path):
        path = Path(name_or_path)
        if path.is_dir():
            path = path / "paper.toml"
        if not path.is_file():
            raise PaperError("", f"no paper definition {os.fspath(path)!r} (a paper.toml file or its folder)")
    else:
        if name_or_path not in paper_names():
            raise PaperError("", f"no paper `{name_or_path}`; shipped: {', '.join(paper_names())}; "
                                 f"a paper of your own is given by its path (./{name_or_path})")
        path = PAPER_DIR / name_or_path / "paper.toml"
    try:
        doc = parse_toml(path.read_text(encoding="utf-8"))
    except TomlError as e:
        raise PaperError(str(path), f"not valid TOML: {e}") from None
    except UnicodeDecodeError:
        raise PaperError(str(path), "not a UTF-8 text file") from None
    except OSError as e:
        raise PaperError(str(path), f"cannot read: {e.strerror or e}") from None
    return paper_from_dict(doc, path.parent)


def paper_from_dict(doc: Mapping[str, Any], folder: Path) -> Paper:
    """A paper from its document. `paper` names the output folder and each figure `id`
    its files, so both (and each experiment `id`) must be plain file names."""
    _known(doc, PAPER_KEYS, "")
    try:
        check_plain(doc)
    except ScenarioError as e:
        raise PaperError(e.path, e.reason) from None
    name = _file_name(doc, "paper", "")
    tolerance = doc.get("tolerance", 0.5)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 < tolerance:
        raise PaperError("tolerance", f"must be a positive number (the relative band of a rough match), not {tolerance!r}")
    paper = Paper(
        name=name,
        title=_str(doc, "title", "", required=True),
        citation=_str(doc, "citation", ""),
        source=_str(doc, "source", ""),
        summary=_str(doc, "summary", ""),
        tolerance=float(tolerance),
        folder=folder,
    )
    experiments = doc.get("experiments", [])
    if not isinstance(experiments, list) or not experiments:
        raise PaperError("experiments", "must be a non-empty array of tables ([[experiments]])")
    for i, e in enumerate(experiments):
        paper.experiments.append(_experiment(e, f"experiments.{i}", folder))
    ids = [e.id for e in paper.experiments]
    for i, e_id in enumerate(ids):
        if ids.index(e_id) != i:
            raise PaperError(f"experiments.{i}.id", f"`{e_id}` is used twice")
    claims = doc.get("claims", [])
    if not isinstance(claims, list):
        raise PaperError("claims", "must be an array of tables ([[claims]])")
    for i, c in enumerate(claims):
        paper.claims.append(_claim(c, f"claims.{i}", ids, i))
    return paper


def quick_variant(doc: dict[str, Any], quick: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep document with the experiment's `quick` table applied: `replications` and
    `algorithms` replace, `set` adds to the fixed values, `grid` / `zip` replace factors."""
    out = copy.deepcopy(doc)
    for key in ("replications", "algorithms", "zip"):
        if key in quick:
            out[key] = copy.deepcopy(quick[key])
    for key in ("set", "grid"):
        if key in quick:
            table = dict(out.get(key, {}))
            table.update(copy.deepcopy(quick[key]))
            out[key] = table
    return out


# --- checks ---


def _known(table: Any, allowed: tuple[str, ...], path: str) -> None:
    if not isinstance(table, Mapping):
        raise PaperError(path, f"must be a table, not a {type(table).__name__}")
    for key in table:
        if key not in allowed:
            raise PaperError(_join(path, key), f"unknown key; allowed: {', '.join(allowed)}")


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _str(table: Mapping[str, Any], key: str, path: str, required: bool = False) -> str:
    value = table.get(key)
    if value is None:
        if required:
            raise PaperError(_join(path, key), "missing; a non-empty string")
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise PaperError(_join(path, key), f"must be a non-empty string, not {value!r}")
    return value


def _file_name(table: Mapping[str, Any], key: str, path: str) -> str:
    """A required string that names a file or folder (a paper, an experiment, a figure)."""
    value = _str(table, key, path, required=True)
    problem = name_problem(value)
    if problem is not None:
        raise PaperError(_join(path, key), f"{problem}; allowed: {SAFE_NAME_RULE}")
    return value


def _experiment(e: Any, path: str, folder: Path) -> Experiment:
    _known(e, EXPERIMENT_KEYS, path)
    e_id = _file_name(e, "id", path)
    sweep_name = _str(e, "sweep", path, required=True)
    sweep_file = folder / sweep_name
    if not sweep_file.is_file():
        raise PaperError(f"{path}.sweep", f"no sweep file {sweep_file}")
    quick = e.get("quick", {})
    _known(quick, QUICK_KEYS, f"{path}.quick")
    figures = []
    for j, f in enumerate(e.get("figures", [])):
        fpath = f"{path}.figures.{j}"
        _known(f, FIGURE_KEYS, fpath)
        kind = _str(f, "kind", fpath, required=True)
        if kind not in FIGURE_KINDS:
            raise PaperError(f"{fpath}.kind", f"unknown figure kind `{kind}`; allowed: {', '.join(FIGURE_KINDS)}")
        if kind in ("lines",) and "x" not in f:
            raise PaperError(f"{fpath}.x", "missing; the swept path on the x axis")
        if kind in ("lines", "bars", "table") and "metric" not in f:
            raise PaperError(f"{fpath}.metric", "missing; a flows or runs column (goodput_mbps, jain_fairness, ...)")
        if f.get("flows", "mean") not in FLOW_AGGREGATES:
            raise PaperError(f"{fpath}.flows", f"must be one of {', '.join(FLOW_AGGREGATES)}")
        for key in ("x_scale", "from_s", "until_s"):
            value = f.get(key, 0.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise PaperError(f"{fpath}.{key}", f"must be a number, not {value!r}")
        figures.append(Figure(id=_file_name(f, "id", fpath), kind=kind, spec=dict(f)))
    return Experiment(id=e_id, title=_str(e, "title", path), sweep_file=sweep_file, quick=dict(quick), figures=figures)


def _claim(c: Any, path: str, experiment_ids: list[str], index: int) -> Claim:
    _known(c, CLAIM_KEYS, path)
    for key in ("source", "claim"):
        _str(c, key, path, required=True)
    measure = c.get("measure")
    if measure not in MEASURES:
        raise PaperError(f"{path}.measure", f"must be one of {', '.join(MEASURES)}, not {measure!r}")
    if measure == "na":
        _str(c, "reason", path, required=True)
    else:
        if c.get("experiment") not in experiment_ids:
            raise PaperError(f"{path}.experiment", f"must name an experiment: {', '.join(experiment_ids)}")
        _str(c, "metric", path, required=True)
        needs = {"value": ("select",), "ratio": ("a", "b"), "gain_pct": ("a", "b"), "order": ("order",)}[measure]
        for key in needs:
            if key not in c:
                raise PaperError(f"{path}.{key}", f"missing; `{measure}` needs {', '.join(needs)}")
        if measure == "order" and (not isinstance(c["order"], list) or len(c["order"]) < 2):
            raise PaperError(f"{path}.order", "must list at least two selections, highest first")
        if c.get("flows", "mean") not in FLOW_AGGREGATES:
            raise PaperError(f"{path}.flows", f"must be one of {', '.join(FLOW_AGGREGATES)}")
    if "expect" in c and not (isinstance(c["expect"], str) and EXPECT.match(c["expect"])):
        raise PaperError(f"{path}.expect", f"must be a comparison like \">0\" or \"<= 1.5\", not {c['expect']!r}")
    published = c.get("published")
    if published is not None and (isinstance(published, bool) or not isinstance(published, (int, float, str))):
        raise PaperError(f"{path}.published", "must be a number or a short text")
    return Claim(id=str(c.get("id", index + 1)), spec=dict(c))
