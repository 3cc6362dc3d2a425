"""Paper definitions: `papers/<name>/paper.toml`, checked and turned into sweeps.

A paper definition names the paper, its experiments (each a sweep file in the same folder,
with a reduced `quick` variant and the figures drawn from it), its published numbers
and claims (each with the measurement that checks it) and its ablations (each an
experiment re-run with one factor changed, testing the reason given for a claim's
mismatch). `docs/reproduction.md` describes the format; every mistake is reported as a
`PaperError` with the field path.
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
from wtcp.sweep.spec import ENGINE_KEY, RESERVED_PATHS, Sweep, SweepError, _lists_table, _values_table, canonical
from wtcp.toml_text import TomlError, check_plain, parse_toml

PAPER_DIR = Path(__file__).resolve().parent.parent / "papers"

PAPER_KEYS = ("paper", "title", "citation", "source", "tolerance", "summary", "profile", "experiments", "claims", "ablations")
EXPERIMENT_KEYS = ("id", "title", "sweep", "quick", "figures")
QUICK_KEYS = ("replications", "set", "grid", "algorithms", "zip")
FIGURE_KINDS = ("lines", "bars", "table", "trace", "causes")
FIGURE_KEYS = ("id", "kind", "title", "metric", "x", "x_label", "x_scale", "y_label", "series", "where", "flows", "rows", "columns", "variables", "from_s", "until_s", "caption", "logy")
MEASURES = ("value", "ratio", "gain_pct", "order", "na")
CLAIM_KEYS = ("id", "source", "claim", "experiment", "measure", "metric", "flows", "a", "b", "select", "order", "over", "published", "unit", "scale", "expect", "rough", "reason", "note", "copy_of", "not_a_copy")
# What makes two claims the same measurement (copied-cell detection, `copied_claims`).
CONFIGURATION_KEYS = ("experiment", "measure", "metric", "flows", "scale", "select", "a", "b", "order", "over")
# A published number repeated with at least this many significant digits in a different
# configuration is taken as copied (`copied_claims`).
COPY_MIN_DIGITS = 3
ABLATION_KEYS = ("id", "explains", "experiment", "reason", "predict", "share", "set", "algorithm_params", "grid", "sweep", "engine", "note")
# The factor an ablation changes: exactly one of these keys.
ABLATION_FACTORS = ("set", "algorithm_params", "grid", "sweep", "engine")
PREDICTIONS = ("toward_published", "closes", "no_change")
DEFAULT_SHARE = 0.5
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
    profile: str | None = None  # the paper's simulator profile, unless the sweep sets one

    def document(self, quick: bool, sweep_file: Path | None = None) -> dict[str, Any]:
        """The sweep document of this experiment (or of `sweep_file`, an alternative read
        the same way), with the experiment's `quick` table applied if `quick`, and the
        paper's profile where the sweep file names none."""
        path = sweep_file or self.sweep_file
        try:
            doc = parse_toml(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, TomlError) as e:
            raise PaperError(f"experiments.{self.id}.sweep", f"cannot read {path}: {e}") from None
        if self.profile is not None and isinstance(doc.get("set", {}), dict):
            doc.setdefault("set", {}).setdefault("profile", self.profile)
        return quick_variant(doc, self.quick) if quick else doc

    def sweep(self, quick: bool, paper: str) -> Sweep:
        """The sweep of this experiment (the reduced grid with `quick`), named `paper/id`."""
        doc = self.document(quick)
        doc["name"] = f"{paper}/{self.id}"
        try:
            return Sweep.from_dict(doc, base_dir=self.sweep_file.parent, default_name=doc["name"])
        except SweepError as e:
            raise PaperError(f"{self.sweep_file.name}{' (quick)' if quick else ''}: {e.path}", e.reason) from None


@dataclass
class Claim:
    id: str
    spec: dict[str, Any]
    named: bool = False  # the id is the claim's own `id`, not its position

    def get(self, key: str, default: Any = None) -> Any:
        return self.spec.get(key, default)

    def configuration(self) -> str:
        """What is measured, as canonical text: two claims with the same text measure the
        same thing (the same cell quoted twice is not a copy)."""
        return canonical({k: self.spec.get(k) for k in CONFIGURATION_KEYS})

    def target(self) -> float | None:
        """The number the claim is compared with: its numeric `published` value, else the
        bound of its `expect` (None for an order or a claim with neither)."""
        published = self.spec.get("published")
        if isinstance(published, (int, float)) and not isinstance(published, bool):
            return float(published)
        expect = self.spec.get("expect")
        if isinstance(expect, str) and EXPECT.match(expect):
            return float(EXPECT.match(expect).group(2))
        return None


@dataclass
class Ablation:
    """One factor of an experiment changed, to test the reason given for the mismatch of
    the claims it `explains`: the experiment is re-run with the factor changed (same seed,
    same replications; the quick grid with --quick) and each claim measured again. The
    prediction says what the reason implies (see `wtcp.reproduce.ablate`)."""

    id: str
    index: int  # position in `ablations`, for error paths
    explains: list[str]
    experiment: str
    reason: str
    predict: str
    share: float
    factor: str  # one of ABLATION_FACTORS
    value: Any  # the factor's table (set, grid, algorithm_params), file (sweep) or name (engine)
    note: str = ""

    def describe(self) -> str:
        """The factor as one line (`set = {"tcp.frto":true}`, `sweep = lossy.toml`)."""
        if self.factor == "sweep":
            return f"sweep = {self.value.name}"
        if self.factor == "engine":
            return f'engine = "{self.value}"'
        return f"{self.factor} = {canonical(self.value)}"

    def sweep(self, paper: Paper, quick: bool) -> Sweep:
        """The experiment's sweep with this factor changed, named `paper/experiment~id`."""
        exp = paper.experiment(self.experiment)
        base = exp.sweep(quick, paper.name)
        where = f"ablations.{self.index}"
        if self.factor == "sweep":
            try:
                doc = exp.document(quick, self.value)
            except PaperError as e:
                raise PaperError(f"{where}.sweep", e.reason) from None
            doc.update(replications=base.replications, seed=base.seed)
            base_dir = self.value.parent
        else:
            doc = _sweep_parts(base, exp.document(quick)["scenario"])
            base_dir = exp.sweep_file.parent
            _apply_factor(doc, self, base, where, quick)
        doc["name"] = f"{paper.name}/{exp.id}~{self.id}"
        try:
            return Sweep.from_dict(doc, base_dir=base_dir, default_name=doc["name"])
        except SweepError as e:
            section = e.path.split(".", 1)[0]
            if self.factor == "engine" and e.path == f"set.{ENGINE_KEY}":
                path = f"{where}.engine"
            elif section == self.factor:
                path = f"{where}.{e.path}"
            else:
                path = f"{where}.{self.factor} ({self.value.name if self.factor == 'sweep' else exp.sweep_file.name}{' (quick)' if quick else ''}): {e.path}"
            raise PaperError(path, e.reason) from None


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
    ablations: list[Ablation] = field(default_factory=list)
    folder: Path = PAPER_DIR
    profile: str | None = None  # whose defaults its runs use (docs/profiles.md)

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(claim_id)

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


def load_paper(name_or_path: str | os.PathLike[str], profile: str | None = None) -> Paper:
    """A shipped paper by name (`"njplus"`: only the papers in `PAPER_DIR`, whatever the
    current directory holds), or a paper definition of your own by path: a `paper.toml`
    file or its folder, as a `Path` or a string with a separator (`"./mypaper"`).
    `profile` replaces the paper's own `profile` (`--profile`)."""
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
    if profile is not None:
        doc = {**doc, "profile": profile}
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
        profile=_profile(doc),
    )
    experiments = doc.get("experiments", [])
    if not isinstance(experiments, list) or not experiments:
        raise PaperError("experiments", "must be a non-empty array of tables ([[experiments]])")
    for i, e in enumerate(experiments):
        paper.experiments.append(_experiment(e, f"experiments.{i}", folder))
        paper.experiments[-1].profile = paper.profile
    ids = [e.id for e in paper.experiments]
    for i, e_id in enumerate(ids):
        if ids.index(e_id) != i:
            raise PaperError(f"experiments.{i}.id", f"`{e_id}` is used twice")
    claims = doc.get("claims", [])
    if not isinstance(claims, list):
        raise PaperError("claims", "must be an array of tables ([[claims]])")
    for i, c in enumerate(claims):
        paper.claims.append(_claim(c, f"claims.{i}", ids, i))
    claim_ids = [c.id for c in paper.claims]
    for i, c_id in enumerate(claim_ids):
        if claim_ids.index(c_id) != i:
            raise PaperError(f"claims.{i}.id", f"`{c_id}` is the id of claims.{claim_ids.index(c_id)} already (a claim without an `id` is numbered by its position, from 1)")
    for i, c in enumerate(paper.claims):
        copy_of = c.get("copy_of")
        if copy_of is not None and (copy_of not in claim_ids or copy_of == c.id):
            raise PaperError(f"claims.{i}.copy_of", f"must be the id of another claim, not {copy_of!r}")
    ablations = doc.get("ablations", [])
    if not isinstance(ablations, list):
        raise PaperError("ablations", "must be an array of tables ([[ablations]])")
    for i, a in enumerate(ablations):
        paper.ablations.append(_ablation(a, f"ablations.{i}", i, paper))
    ablation_ids = [a.id for a in paper.ablations]
    for i, a_id in enumerate(ablation_ids):
        if ablation_ids.index(a_id) != i:
            raise PaperError(f"ablations.{i}.id", f"`{a_id}` is used twice")
    return paper


def _profile(doc: Mapping[str, Any]) -> str | None:
    from wtcp.profiles import UnknownProfile, profile

    name = doc.get("profile")
    if name is None:
        return None
    if not isinstance(name, str):
        raise PaperError("profile", f"must be a profile name, not {name!r}")
    try:
        profile(name)
    except UnknownProfile as e:
        raise PaperError("profile", str(e)) from None
    return name


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
    if "id" in c:
        c_id = c["id"]
        if isinstance(c_id, bool) or not isinstance(c_id, (str, int)) or not str(c_id).strip():
            raise PaperError(f"{path}.id", f"must be a non-empty string, not {c_id!r}")
    if "copy_of" in c and (isinstance(c["copy_of"], bool) or not isinstance(c["copy_of"], (str, int))):
        raise PaperError(f"{path}.copy_of", f"must be the id of the claim whose published value this one repeats, not {c['copy_of']!r}")
    if "not_a_copy" in c and not isinstance(c["not_a_copy"], bool):
        raise PaperError(f"{path}.not_a_copy", f"must be true or false, not {c['not_a_copy']!r}")
    if c.get("copy_of") is not None and c.get("not_a_copy"):
        raise PaperError(f"{path}.not_a_copy", "contradicts `copy_of`; give one of them")
    spec = dict(c)
    if "copy_of" in spec:
        spec["copy_of"] = str(spec["copy_of"])
    return Claim(id=str(c.get("id", index + 1)), spec=spec, named="id" in c)


def _ablation(a: Any, path: str, index: int, paper: Paper) -> Ablation:
    _known(a, ABLATION_KEYS, path)
    a_id = _file_name(a, "id", path)
    experiment_ids = [e.id for e in paper.experiments]
    experiment = a.get("experiment")
    if experiment not in experiment_ids:
        raise PaperError(f"{path}.experiment", f"must name an experiment: {', '.join(experiment_ids)}")
    reason = _str(a, "reason", path, required=True)
    predict = a.get("predict")
    if predict not in PREDICTIONS:
        raise PaperError(f"{path}.predict", f"must be one of {', '.join(PREDICTIONS)}, not {predict!r}")
    share = a.get("share", DEFAULT_SHARE)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise PaperError(f"{path}.share", f"must be a number in (0, 1] (the share of the gap to the published value), not {share!r}")
    explains = a.get("explains")
    if not isinstance(explains, list) or not explains or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in explains):
        raise PaperError(f"{path}.explains", "must be a non-empty list of claim ids")
    explains = [str(x) for x in explains]
    for j, c_id in enumerate(explains):
        where = f"{path}.explains.{j}"
        try:
            claim = paper.claim(c_id)
        except KeyError:
            named = [c.id for c in paper.claims if c.named]
            raise PaperError(where, f"no claim with id `{c_id}`; claims with an id: {', '.join(named) or 'none'}") from None
        if not claim.named:
            raise PaperError(where, f"`{c_id}` is a claim's position, not its own `id`; give the claim an `id` (positions change when claims are added)")
        if claim.get("measure") == "na":
            raise PaperError(where, f"claim `{c_id}` is not measured (measure = \"na\"): there is nothing to re-measure")
        if claim.get("experiment") != experiment:
            raise PaperError(where, f"claim `{c_id}` is measured on experiment `{claim.get('experiment')}`, not on `{experiment}`")
        if predict == "toward_published" and (claim.get("measure") == "order" or not _is_number(claim.get("published"))):
            raise PaperError(f"{path}.predict", f"toward_published needs a claim with a numeric published value; claim `{c_id}` has none (use closes or no_change)")
    factors = [k for k in ABLATION_FACTORS if k in a]
    if len(factors) != 1:
        raise PaperError(path, f"must change exactly one factor, one of {', '.join(ABLATION_FACTORS)}; it gives {', '.join(factors) or 'none'}")
    factor = factors[0]
    value = a[factor]
    if factor in ("set", "grid", "algorithm_params"):
        if not isinstance(value, Mapping) or not value:
            raise PaperError(f"{path}.{factor}", "must be a non-empty table")
        if factor == "algorithm_params":
            for name, params in value.items():
                if not isinstance(params, Mapping):
                    raise PaperError(f"{path}.algorithm_params.{name}", "must be a table of the algorithm's parameters (see `wtcp algorithms`)")
        value = copy.deepcopy(dict(value))
    elif factor == "sweep":
        name = _str(a, "sweep", path, required=True)
        value = paper.folder / name
        if not value.is_file():
            raise PaperError(f"{path}.sweep", f"no sweep file {value}")
    else:
        from wtcp.result import ENGINES

        if value not in ENGINES:
            raise PaperError(f"{path}.engine", f"is {value!r}; allowed engines: {', '.join(ENGINES)}")
    return Ablation(id=a_id, index=index, explains=explains, experiment=experiment, reason=reason, predict=predict, share=float(share),
                    factor=factor, value=value, note=_str(a, "note", path))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sweep_parts(sweep: Sweep, scenario: str) -> dict[str, Any]:
    """A sweep document equivalent to `sweep` (as parsed: dotted paths, resolved seed)."""
    doc: dict[str, Any] = {
        "scenario": scenario,
        "description": sweep.description,
        "set": dict(sweep.fixed),
        "grid": {p: list(v) for p, v in sweep.grid.items()},
        "zip": [{p: list(v) for p, v in g.items()} for g in sweep.zips],
        "points": [dict(p) for p in sweep.points],
        "algorithms": list(sweep.algorithms),
        "algorithm_params": {k: dict(v) for k, v in sweep.algorithm_params.items()},
        "replications": sweep.replications,
        "seed": sweep.seed,
    }
    if sweep.algorithm_flows is not None:
        doc["algorithm_flows"] = list(sweep.algorithm_flows)
    return doc


def _apply_factor(doc: dict[str, Any], ablation: Ablation, base: Sweep, where: str, quick: bool) -> None:
    """Change the factor in the sweep document `doc` of `base` (see `Ablation`): `set`
    fixes paths the experiment does not sweep, `grid` replaces or adds grid axes,
    `algorithm_params` updates the algorithms' parameter tables, `engine` picks the
    simulator of every run."""
    grid_paths = set(base.grid)
    other_swept = {p: f"zip.{i}" for i, g in enumerate(base.zips) for p in g}
    other_swept.update({p: f"points.{i}" for i, pt in enumerate(base.points) for p in pt})
    variant = " (quick grid)" if quick else ""
    if ablation.factor in ("set", "grid"):
        try:
            table = (_values_table if ablation.factor == "set" else _lists_table)(ablation.value, ablation.factor)
        except SweepError as e:
            raise PaperError(f"{where}.{e.path}", e.reason) from None
        for path, value in table.items():
            swept = "grid" if path in grid_paths else other_swept.get(path)
            if path in RESERVED_PATHS:
                raise PaperError(f"{where}.{ablation.factor}.{path}", "is set by the experiment's seed and replications, which an ablation keeps")
            if ablation.factor == "set":
                if swept is not None:
                    raise PaperError(f"{where}.set.{path}", f"is swept by experiment `{ablation.experiment}` ({swept}{variant}); `set` fixes a path for every run: change a swept path's values with `grid`")
                doc["set"][path] = value
            else:
                if swept is not None and swept != "grid":
                    raise PaperError(f"{where}.grid.{path}", f"is swept in {swept} of experiment `{ablation.experiment}`{variant}; `grid` replaces or adds grid axes only")
                doc["set"].pop(path, None)
                doc["grid"][path] = value
    elif ablation.factor == "algorithm_params":
        for name, params in ablation.value.items():
            doc["algorithm_params"][name] = {**doc["algorithm_params"].get(name, {}), **params}
    else:  # engine
        if ENGINE_KEY in grid_paths or ENGINE_KEY in other_swept:
            raise PaperError(f"{where}.engine", f"experiment `{ablation.experiment}` already sweeps the engine")
        doc["set"][ENGINE_KEY] = ablation.value


def significant_digits(value: float) -> int:
    """Significant digits of a number as written in the definition (its shortest decimal
    form: 254.418 -> 6, 0.9999 -> 4, 3.52 -> 3, 1.0 -> 1, 82 -> 2, 1500 -> 2). A TOML
    number keeps no trailing zeros, so 0.980 counts as 0.98 (two digits)."""
    text = repr(abs(float(value)))
    mantissa = text.split("e")[0]
    if mantissa.endswith(".0"):
        mantissa = mantissa[:-2]
    digits = mantissa.replace(".", "").lstrip("0")
    if "." not in mantissa:
        digits = digits.rstrip("0")
    return len(digits)


def copied_claims(paper: Paper) -> dict[str, str]:
    """Claims whose published value repeats another claim's: claim id -> id of the claim
    it copies.

    The rule: two measured claims with the same numeric `published` value and the same
    `unit`, written with at least `COPY_MIN_DIGITS` significant digits, that measure
    different things (experiment, measure, metric, flows, scale and selections differ)
    are a copy: the later one (in the order of the definition) copies the first. A
    number that precise does not recur by chance in another configuration; the same
    cell quoted twice measures the same thing and is not a copy. A claim's `copy_of`
    names its original outright; `not_a_copy = true` exempts a genuine repeat."""
    out: dict[str, str] = {}
    first: dict[tuple[float, str], Claim] = {}
    for c in paper.claims:
        if c.get("not_a_copy"):
            continue
        if c.get("copy_of") is not None:
            out[c.id] = c.get("copy_of")
            continue
        published = c.get("published")
        if c.get("measure") == "na" or not _is_number(published) or significant_digits(published) < COPY_MIN_DIGITS:
            continue
        key = (float(published), str(c.get("unit", "")))
        original = first.setdefault(key, c)
        if original is not c and original.configuration() != c.configuration():
            out[c.id] = original.id
    return out
