"""Sweep descriptions: parse and check a sweep (TOML file or dict) and expand it into runs.

A sweep is a base scenario plus factors whose cartesian product gives the runs:
the `[grid]` (each path a factor), each `[[zip]]` group (paths advancing together are one
factor), the explicit `points` list (one factor), `algorithms` and `replications`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wtcp import _core
from wtcp.algorithm import fingerprints
from wtcp.errors import ScenarioError
from wtcp.fieldpath import is_path_error, resolve_path
from wtcp.scenario import Scenario, builtin_scenario_names, builtin_scenario_path, check_override_path
from wtcp.terminal import visible
from wtcp.toml_text import TomlError, check_plain, parse_toml

CC_PATH = re.compile(r"flows\.\d+\.cc")
TOP_KEYS = ("name", "description", "scenario", "set", "grid", "zip", "points", "algorithms", "algorithm_params", "algorithm_flows", "replications", "seed")
RESERVED_PATHS = ("run.seed", "run.replication")
# Not a scenario field: which simulator runs the point ("wtcp" or "ns3"), settable and
# sweepable like one (`[set] engine = "ns3"`, `[grid] engine = ["wtcp", "ns3"]`).
ENGINE_KEY = "engine"
# `cc = "kernel:NAME"`: the kernel's own algorithm, which only the linux engine runs (the
# core checks the name; a point in another engine is an invalid run naming flows.N.cc).
KERNEL_PREFIX = "kernel:"


# Bytes a sweep holds for every run it plans, whatever its size: the run's key in the set of
# keys planned (a 32-character str and its set slot, about 120 bytes in CPython). The runs
# themselves are planned as the workers need them and are not held.
RUN_KEY_BYTES = 128


def memory_budget_bytes() -> int:
    """The memory budget of `WTCP_MEMORY_BUDGET_GIB` (the engine's, default 4 GiB)."""
    try:
        gib = float(os.environ.get("WTCP_MEMORY_BUDGET_GIB", "4"))
    except ValueError:
        gib = 4.0
    return int((gib if gib > 0 and gib == gib else 4.0) * 2**30)


class SweepError(ValueError):
    """A mistake in a sweep description: `.path` (e.g. `grid.links.1.ab.loss.rte`) and `.reason`."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Run:
    """One run of a sweep: the scenario after every override, and its identity."""

    key: str
    params: dict[str, Any]
    algorithm: str | None
    seed: int
    replication: int  # index 0 .. replications-1
    stream: int  # the engine's run.replication, unique per (point, replication)
    toml: str | None  # resolved scenario (None when the overrides do not resolve)
    error: str | None  # ScenarioError of an invalid combination
    sim_seconds: float | None = None
    engine: str = "wtcp"  # the simulator: "wtcp", "ns3" or "linux"


@dataclass
class Sweep:
    name: str
    base: Scenario
    description: str = ""
    fixed: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    points: list[dict[str, Any]] = field(default_factory=list)
    algorithms: list[str] = field(default_factory=list)
    # cc_params per algorithm name (default: the algorithm's defaults)
    algorithm_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    algorithm_flows: list[int] | None = None
    replications: int = 1
    seed: int = 1
    source: Path | None = None

    # --- construction ---

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], profile: str | None = None) -> Sweep:
        """The sweep in the file; `profile` (`--profile`) fills the defaults of every run
        unless the sweep sets `profile` itself or sweeps it."""
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        try:
            doc = parse_toml(text)
        except TomlError as e:
            raise SweepError("", f"not valid TOML: {e}") from None
        if profile is not None and isinstance(doc.get("set", {}), dict) and not _names_path(doc, "profile"):
            doc.setdefault("set", {})["profile"] = profile
        sweep = cls.from_dict(doc, base_dir=path.parent, default_name=path.stem)
        sweep.source = path
        return sweep

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], base_dir: str | os.PathLike[str] = ".", default_name: str = "sweep") -> Sweep:
        """A sweep from its document. The `name` (default `default_name`) labels its runs
        in a store; `default_store_path` also makes it a file name, if it is one."""
        if not isinstance(doc, Mapping):
            raise SweepError("", f"a sweep must be a table, not a {type(doc).__name__}")
        try:
            check_plain(doc)
        except ScenarioError as e:
            raise SweepError(e.path, e.reason) from None
        if "scenario" not in doc and any(k in doc for k in ("nodes", "links", "flows")):
            raise SweepError(
                "",
                "this looks like a scenario file ([[nodes]], [[links]], [[flows]]), not a sweep: run it with `wtcp run FILE`, or write a sweep that names it: scenario = \"FILE\"",
            )
        unknown = [k for k in doc if k not in TOP_KEYS]
        if unknown:
            raise SweepError(str(unknown[0]), f"unknown key; allowed: {', '.join(TOP_KEYS)}")
        if "scenario" not in doc:
            raise SweepError("scenario", "missing; a scenario file (relative to the sweep file) or a built-in name: " + ", ".join(builtin_scenario_names()))
        base = _load_base(doc["scenario"], Path(base_dir))
        name = doc.get("name", default_name)
        if not isinstance(name, str) or not name:
            raise SweepError("name", "must be a non-empty string")
        try:
            check_plain(name, "name")  # a default name from a file name that is not UTF-8
        except ScenarioError as e:
            raise SweepError(e.path, e.reason) from None
        sweep = cls(name=name, base=base, description=str(doc.get("description", "")))
        sweep.fixed = _values_table(doc.get("set", {}), "set")
        sweep.grid = _lists_table(doc.get("grid", {}), "grid")
        zips = doc.get("zip", [])
        if not isinstance(zips, list):
            raise SweepError("zip", "must be an array of tables ([[zip]])")
        for i, group in enumerate(zips):
            table = _lists_table(group, f"zip.{i}")
            lengths = {len(v) for v in table.values()}
            if len(lengths) > 1:
                raise SweepError(f"zip.{i}", f"lists of different lengths {sorted(lengths)}; the paths of a zip group advance together")
            if table:
                sweep.zips.append(table)
        points = doc.get("points", [])
        if not isinstance(points, list):
            raise SweepError("points", "must be an array of tables")
        sweep.points = [_values_table(p, f"points.{i}") for i, p in enumerate(points)]
        # Capacity trace files named by relative paths are found beside the sweep file, as
        # its scenario is (a sweep given as a dict: the current directory).
        beside = _TraceBeside(Path(base_dir))
        sweep.fixed = beside.table(sweep.fixed)
        sweep.grid = {p: [beside.value(p, v) for v in vs] for p, vs in sweep.grid.items()}
        sweep.zips = [{p: [beside.value(p, v) for v in vs] for p, vs in z.items()} for z in sweep.zips]
        sweep.points = [beside.table(pt) for pt in sweep.points]
        algorithms = doc.get("algorithms", [])
        if not isinstance(algorithms, list) or not all(isinstance(a, str) for a in algorithms):
            raise SweepError("algorithms", "must be a list of algorithm names")
        from wtcp import algorithms as all_algorithms

        known = [a["name"] for a in all_algorithms()]
        for i, a in enumerate(algorithms):
            if a.startswith(KERNEL_PREFIX):
                problem = _core.kernel_cc_name_problem(a[len(KERNEL_PREFIX):])  # as the core checks `cc`
                if problem:
                    raise SweepError(f"algorithms.{i}", problem)
            elif a not in known:
                raise SweepError(f"algorithms.{i}", f"unknown algorithm `{visible(a)}`; allowed: {', '.join(known)}, or {KERNEL_PREFIX}NAME (the kernel's own, for engine \"linux\")")
        sweep.algorithms = list(algorithms)
        flows = doc.get("algorithm_flows")
        if flows is not None:
            sweep.algorithm_flows = _flow_indices(flows, base)
        sweep.algorithm_params = _algorithm_params(doc.get("algorithm_params", {}), sweep)
        sweep.replications = _positive_int(doc.get("replications", 1), "replications", minimum=1)
        sweep.seed = _positive_int(doc.get("seed", base.document.get("run", {}).get("seed", 1)), "seed", minimum=0)
        sweep._check_paths()
        return sweep

    # --- expansion ---

    def factors(self) -> list[list[dict[str, Any]]]:
        """Each factor as its list of partial points ({path: value}); the product gives the points."""
        out: list[list[dict[str, Any]]] = [[{path: v} for v in values] for path, values in self.grid.items()]
        for group in self.zips:
            paths = list(group)
            out.append([dict(zip(paths, values)) for values in zip(*group.values())])
        if self.points:
            out.append(self.points)
        return out

    def expand_points(self) -> list[dict[str, Any]]:
        points = []
        for combo in itertools.product(*self.factors()):
            point: dict[str, Any] = {}
            for part in combo:
                point.update(part)
            points.append(point)
        return points

    def size(self) -> int:
        n = 1
        for factor in self.factors():
            n *= len(factor)
        return n * max(1, len(self.algorithms)) * self.replications

    def check_size(self) -> None:
        """Refuse, before any run is planned, a sweep whose run keys (kept to run a repeated
        point once) would not fit the memory budget (`WTCP_MEMORY_BUDGET_GIB`, default 4
        GiB): the count is the product of the axes' lengths, never an enumeration.
        `SweepError` names the longest axis."""
        runs = self.size()
        per_run = RUN_KEY_BYTES
        budget = memory_budget_bytes()
        if runs * per_run <= budget:
            return
        axes = [(f"grid.{path}", len(values)) for path, values in self.grid.items()]
        axes += [(f"zip.{i}", len(next(iter(group.values())))) for i, group in enumerate(self.zips)]
        axes += [("points", len(self.points)), ("algorithms", len(self.algorithms)), ("replications", self.replications)]
        path, _ = max(axes, key=lambda a: a[1])
        shown = " x ".join(f"{n} ({p})" for p, n in axes if n > 1) or "1"
        raise SweepError(
            path,
            f"the sweep has {runs:.3g} runs ({shown}); keeping their keys holds about {runs * per_run / 2**30:.3g} GiB; allowed: at most "
            f"{budget // per_run:.3g} runs within the memory budget of {budget / 2**30:.3g} GiB; split the sweep, or raise the budget "
            "with the environment variable WTCP_MEMORY_BUDGET_GIB (GiB)",
        )

    def param_values(self) -> dict[str, list[Any]]:
        """Every value each swept path takes, from the axes (no run is enumerated): what
        the store's parameter columns must hold."""
        values: dict[str, list[Any]] = {p: [] for p in self.swept_paths()}
        for factor in self.factors():
            for part in factor:
                for p, v in part.items():
                    if p in values:
                        values[p].append(v)
        return values

    def swept_paths(self) -> list[str]:
        """The scenario paths the sweep varies (the engine has its own column)."""
        paths: list[str] = []
        for factor in self.factors():
            for part in factor:
                paths.extend(p for p in part if p not in paths and p != ENGINE_KEY)
        return paths

    def runs(self) -> Iterator[Run]:
        """Every run, resolved: points x algorithms x replications, in that order.

        The engine of a point is not part of its random streams: a point run in wtcp and
        in ns-3 gets the same `run.seed` and `run.replication`, and a wtcp run keeps the
        store key it would have without an engine axis."""
        self.check_size()
        version = _core.__version__
        fixed = {p: v for p, v in self.fixed.items() if p != ENGINE_KEY}
        default_engine = self.fixed.get(ENGINE_KEY, "wtcp")
        # `[set]` alone may leave the base invalid where every point mends it (a start time
        # the grid moves); then `[set]` is applied with each point, and a point it does not
        # mend is that point's failed run.
        pending: dict[str, Any] = {}
        try:
            base_fixed = self.base.with_overrides(fixed) if fixed else self.base
        except ScenarioError:
            base_fixed, pending = self.base, fixed
        algorithms: list[str | None] = list(self.algorithms) or [None]
        kernel_idents: dict[str, str] = {}  # one bpftool and sysfs read per kernel algorithm
        for full_point in self.expand_points():
            engine = full_point.get(ENGINE_KEY, default_engine)
            point = {p: v for p, v in full_point.items() if p != ENGINE_KEY}
            params_json = canonical(point)
            for algorithm in algorithms:
                for r in range(self.replications):
                    stream = stream_of(params_json, r)
                    overrides: dict[str, Any] = dict(pending)
                    error = None
                    toml = None
                    sim = None
                    try:
                        if algorithm is not None:
                            overrides.update(self.algorithm_overrides(algorithm))
                        overrides.update(point)
                        overrides.update({"run.seed": self.seed, "run.replication": stream})
                        sc, doc = base_fixed._with_overrides_to_read(overrides)  # doc: read only
                        toml = sc._resolved_toml
                        sim = float(doc.get("run", {}).get("duration_s", 0.0))
                        identity: Any = doc
                        python = fingerprints(f.get("cc", "") for f in doc.get("flows", []))
                        if python:
                            # Algorithms written in Python: their code is part of the run.
                            identity = {"scenario": doc, "python_algorithms": python}
                        if engine == "ns3":
                            from wtcp.ns3 import plan

                            plan(sc.document)  # refused before it is queued
                        elif engine == "linux":
                            # As `Scenario.run(engine="linux")`: the linux profile where
                            # the scenario names none; refused before it is queued.
                            sc, _ = sc.with_engine_profile("linux")
                            sc.check_linux()
                            toml = sc._resolved_toml
                            kernel = kernel_algorithms(doc, kernel_idents)
                            if kernel:
                                # A module or BPF program of that name may change between
                                # runs: its identity is part of the run's.
                                identity = {"scenario": identity, "kernel_algorithms": kernel}
                        elif any(str(f.get("cc", "")).startswith(KERNEL_PREFIX) for f in doc.get("flows", [])):
                            sc.check_wtcp()  # the kernel's own algorithm: refused before it is queued
                    except ScenarioError as e:
                        error = str(e)
                        toml = None
                        identity = {"base": self.base.document, "set": fixed, "overrides": overrides}
                    if engine != "wtcp":
                        identity = {"engine": engine, "scenario": identity}
                    key = run_key(identity, self.seed, r, version)
                    yield Run(key, dict(point), algorithm, self.seed, r, stream, toml, error, sim, engine)

    def definition(self) -> str:
        """The sweep as run, as text: its file if it has one, else its factors as JSON."""
        if self.source is not None:
            try:
                return Path(self.source).read_text(encoding="utf-8")
            except OSError:
                pass
        doc = {"name": self.name, "description": self.description, "set": self.fixed, "grid": self.grid, "zip": self.zips, "points": self.points,
               "algorithms": self.algorithms, "algorithm_params": self.algorithm_params, "algorithm_flows": self.algorithm_flows,
               "replications": self.replications, "seed": self.seed}
        return json.dumps({k: v for k, v in doc.items() if v not in (None, "", [], {})}, indent=1, default=str)

    def algorithm_overrides(self, algorithm: str) -> dict[str, Any]:
        flows = self.algorithm_flows
        if flows is None:
            if not hasattr(self, "_tcp_flows"):
                self._tcp_flows = tcp_flow_indices(self.base.document)
            flows = self._tcp_flows
        out: dict[str, Any] = {}
        for i in flows:
            out[f"flows.{i}.cc"] = algorithm
            out[f"flows.{i}.cc_params"] = self.algorithm_params.get(algorithm, {})
        return out

    # --- checks ---

    def _check_engines(self) -> None:
        from wtcp.result import ENGINES

        for where, value in _engine_values(self):
            if value not in ENGINES:
                raise SweepError(where, f"is {value!r}; allowed engines: {', '.join(ENGINES)}")

    def _check_paths(self) -> None:
        seen: dict[str, str] = {}
        where = [("set", p) for p in self.fixed] + [("grid", p) for p in self.grid]
        where += [(f"zip.{i}", p) for i, g in enumerate(self.zips) for p in g]
        point_paths = {p: i for i, point in enumerate(self.points) for p in reversed(list(point))}
        where += [(f"points.{i}", p) for p, i in point_paths.items()]
        base_doc = self.base.document
        for section, path in where:
            canonical_path = path
            if path != ENGINE_KEY:
                try:
                    check_override_path(path)
                    canonical_path = resolve_path(base_doc, path)
                except ScenarioError as e:
                    raise SweepError(f"{section}.{path}", str(e)) from None
            if canonical_path in RESERVED_PATHS:
                raise SweepError(f"{section}.{path}", "is set by the sweep; use `seed` and `replications`")
            if canonical_path in seen:
                raise SweepError(f"{section}.{path}", f"is already given in {seen[canonical_path]}")
            seen[canonical_path] = f"{section}" + (f" as `{path}`" if canonical_path != path else "")
        self._check_engines()
        # A path the scenario schema does not have is a mistake in the sweep file (exit 2),
        # while a bad value is an invalid point (recorded as a failed run).
        values: dict[str, tuple[str, Any]] = {p: ("set", v) for p, v in self.fixed.items()}
        for p, v in self.grid.items():
            values.setdefault(p, ("grid", v[0]))
        for i, g in enumerate(self.zips):
            for p, v in g.items():
                values.setdefault(p, (f"zip.{i}", v[0]))
        for i, point in enumerate(self.points):
            for p, v in point.items():
                values.setdefault(p, (f"points.{i}", v))
        for path, (section, value) in values.items():
            if path == ENGINE_KEY:
                continue
            try:
                self.base.set(path, value)
            except ScenarioError as e:
                if is_path_error(e):
                    found, swept_error = self._a_swept_algorithm_has(path, value, values)
                    if not found:
                        raise SweepError(f"{section}.{path}", str(swept_error or e)) from None

    def _a_swept_algorithm_has(self, path: str, value: Any, values: Mapping[str, tuple[str, Any]]) -> tuple[bool, ScenarioError | None]:
        """Whether `path` exists once one of the sweep's algorithms (`algorithms`, or a
        `flows.N.cc` the sweep sets) runs the flows: `flows.0.cc_params.beta` of a sweep of
        `cubic` over a NewReno scenario. Runs where the path does not fit their algorithm
        are invalid points (stored as failed runs). Otherwise, the first algorithm's error."""
        candidates = list(self.algorithms)
        for p, (_, v) in values.items():
            if CC_PATH.fullmatch(p) and isinstance(v, str):
                candidates.append(v)
        for p, vs in self.grid.items():
            if CC_PATH.fullmatch(p):
                candidates += [v for v in vs if isinstance(v, str)]
        first = None
        for algorithm in dict.fromkeys(candidates):
            overrides = {**self.algorithm_overrides(algorithm), **{p: v for p, (_, v) in values.items() if CC_PATH.fullmatch(p)}}
            overrides = {**overrides, **{p: algorithm for p in overrides if CC_PATH.fullmatch(p)}, path: value}
            try:
                self.base.with_overrides(overrides)
                return True, None
            except ScenarioError as e:
                if not is_path_error(e):
                    return True, None  # the path exists; the value is the run's business
                first = first or e
        return False, first


def uses_engine(sweep: Sweep, engine: str) -> bool:
    """Whether any run of the sweep is on `engine`."""
    return any(v == engine for _, v in _engine_values(sweep))


def _engine_values(sweep: Sweep) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if ENGINE_KEY in sweep.fixed:
        out.append((f"set.{ENGINE_KEY}", sweep.fixed[ENGINE_KEY]))
    out += [(f"grid.{ENGINE_KEY}.{i}", v) for i, v in enumerate(sweep.grid.get(ENGINE_KEY, []))]
    for z, group in enumerate(sweep.zips):
        out += [(f"zip.{z}.{ENGINE_KEY}.{i}", v) for i, v in enumerate(group.get(ENGINE_KEY, []))]
    out += [(f"points.{i}.{ENGINE_KEY}", p[ENGINE_KEY]) for i, p in enumerate(sweep.points) if ENGINE_KEY in p]
    return out


def _names_path(doc: Mapping[str, Any], path: str) -> bool:
    """Whether the sweep document sets or sweeps `path` anywhere."""
    tables = [doc.get("set"), doc.get("grid"), *(doc.get("zip") or []), *(doc.get("points") or [])]
    return any(isinstance(t, Mapping) and path in t for t in tables)


def load_sweep(source: str | os.PathLike[str] | Mapping[str, Any]) -> Sweep:
    """A sweep from a TOML file or a dict (paths in a dict are relative to the current directory)."""
    if isinstance(source, Mapping):
        return Sweep.from_dict(source)
    return Sweep.from_file(source)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def run_key(identity: Any, seed: int, replication: int, version: str) -> str:
    """Store key: hash of (resolved scenario document, seed, replication, wtcp version)."""
    text = canonical({"scenario": identity, "seed": seed, "replication": replication, "wtcp": version})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def stream_of(params_json: str, replication: int) -> int:
    """The engine's `run.replication` for replication `replication` of a point: a 62-bit
    hash of (point, replication), so no two points share random streams and adding points
    to a sweep leaves the others' streams (and store keys) unchanged."""
    digest = hashlib.blake2b(f"{params_json}\x00{replication}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 2


def tcp_flow_indices(document: Mapping[str, Any]) -> list[int]:
    return [i for i, f in enumerate(document.get("flows", [])) if f.get("kind", "tcp") == "tcp"]


_TRACE_PATH = re.compile(r"^links\.\d+\.(ab|ba)\.capacity(\.trace)?$")


@dataclass
class _TraceBeside:
    """Makes a relative capacity trace path in a sweep value absolute, from `directory`:
    `links.N.ab.capacity.trace = "x"` and `links.N.ab.capacity = { trace = "x" }`."""

    directory: Path

    def value(self, path: str, value: Any) -> Any:
        m = _TRACE_PATH.match(path)
        if not m:
            return value
        if m.group(2):
            return self._absolute(value)
        if isinstance(value, Mapping) and "trace" in value:
            return {**value, "trace": self._absolute(value["trace"])}
        return value

    def table(self, values: dict[str, Any]) -> dict[str, Any]:
        return {p: self.value(p, v) for p, v in values.items()}

    def _absolute(self, trace: Any) -> Any:
        if isinstance(trace, str) and trace and not os.path.isabs(trace):
            return os.fspath((self.directory / trace).absolute())
        return trace


def _load_base(value: Any, base_dir: Path) -> Scenario:
    if not isinstance(value, str) or not value:
        raise SweepError("scenario", "must be a file path or a built-in scenario name")
    candidate = base_dir / value
    try:
        if candidate.is_file():
            return Scenario.from_file(candidate)
        if "/" not in value and "\\" not in value:
            try:
                return Scenario.from_file(builtin_scenario_path(value))
            except FileNotFoundError:
                pass
    except ScenarioError as e:
        raise SweepError("scenario", f"{value}: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SweepError("scenario", f"cannot read {candidate}: {e}") from None
    raise SweepError("scenario", f"no file {candidate} and no built-in scenario `{value}`; built-in: {', '.join(builtin_scenario_names())}")


def _flatten(table: Any, section: str) -> dict[str, Any]:
    """Nested tables (`run.duration_s = 20` written unquoted) become dotted paths; a table
    value is applied key by key."""
    if not isinstance(table, Mapping):
        raise SweepError(section, f"must be a table of dotted paths, not a {type(table).__name__}")
    out: dict[str, Any] = {}

    def walk(value: Any, parts: tuple[str, ...]) -> None:
        if isinstance(value, Mapping) and value:
            for k, v in value.items():
                walk(v, (*parts, *str(k).split(".")))
        else:
            out[".".join(parts)] = value

    for key, value in table.items():
        walk(value, tuple(str(key).split(".")))
    return out


def _values_table(table: Any, section: str) -> dict[str, Any]:
    return _flatten(table, section)


def _lists_table(table: Any, section: str) -> dict[str, list[Any]]:
    flat = _flatten(table, section)
    for path, values in flat.items():
        if not isinstance(values, list) or not values:
            raise SweepError(f"{section}.{path}", "must be a non-empty list of values")
    return flat


def _positive_int(value: Any, path: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SweepError(path, f"must be an integer >= {minimum}, not {value!r}")
    return value


def _algorithm_params(table: Any, sweep: Sweep) -> dict[str, dict[str, Any]]:
    """`algorithm_params = { westwood = { flavour = "ns2" } }`: each key one of `algorithms`,
    each value a parameter table that the algorithm accepts (checked on the base scenario)."""
    if not isinstance(table, Mapping):
        raise SweepError("algorithm_params", "must be a table of algorithm name = { parameter table }")
    out: dict[str, dict[str, Any]] = {}
    for name, params in table.items():
        path = f"algorithm_params.{name}"
        if name not in sweep.algorithms:
            raise SweepError(path, f"`{name}` is not in `algorithms` ({', '.join(sweep.algorithms) or 'none'})")
        if not isinstance(params, Mapping):
            raise SweepError(path, "must be a table of the algorithm's parameters (see `wtcp algorithms`)")
        out[name] = dict(params)
        try:
            probe: dict[str, Any] = {}
            for i in sweep.algorithm_flows or tcp_flow_indices(sweep.base.document)[:1]:
                probe[f"flows.{i}.cc"] = name
                probe[f"flows.{i}.cc_params"] = out[name]
            sweep.base.with_overrides(probe)
        except ScenarioError as e:
            raise SweepError(path, str(e)) from None
    return out


def _flow_indices(value: Any, base: Scenario) -> list[int]:
    flows = base.document.get("flows", [])
    names = {f.get("name", f"flow{i}"): i for i, f in enumerate(flows)}
    if not isinstance(value, list):
        raise SweepError("algorithm_flows", "must be a list of flow indices or names")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(flows):
            out.append(item)
        elif isinstance(item, str) and item in names:
            out.append(names[item])
        else:
            raise SweepError(f"algorithm_flows.{i}", f"no flow {item!r}; flows: {', '.join(names)}")
    return out


def kernel_algorithms(doc: Mapping[str, Any], known: dict[str, str] | None = None) -> dict[str, str]:
    """What identifies each kernel algorithm the document's flows name (`kernel:NAME`):
    the kernel's release, and a module's `srcversion` or a registered BPF struct_ops
    program's map id (a new registration gets a new one), as far as this machine tells.
    `known` holds the names already looked up (filled in here)."""
    known = {} if known is None else known
    names = sorted({str(f["cc"])[len(KERNEL_PREFIX):] for f in doc.get("flows", []) if str(f.get("cc", "")).startswith(KERNEL_PREFIX)})
    for name in names:
        if name not in known:
            try:
                what = "module " + Path(f"/sys/module/tcp_{name}/srcversion").read_text().strip()
            except OSError:
                what = _struct_ops_id(name)
            known[name] = f"{os.uname().release} {what}"
    return {name: known[name] for name in names}


def _struct_ops_id(name: str) -> str:
    from wtcp.kernel_cc import struct_ops_ids

    ids = struct_ops_ids()
    if ids is None:
        return "not identified (no bpftool)"
    return f"struct_ops map {ids[name]}" if name in ids else "built in"
