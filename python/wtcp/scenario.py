"""Scenarios: build from a file, TOML text or a dict; override fields; run."""

from __future__ import annotations

import copy
import json
import tomllib
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

from wtcp import _core
from wtcp.algorithm import load_entry_points
from wtcp.errors import ScenarioError, scenario_error
from wtcp.fieldpath import resolve_paths, with_suggestions
from wtcp.result import ENGINES, Result, TraceWriter, with_engine
from wtcp.toml_text import check_unicode, container, join_path, plain_scalar, to_toml_value

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"

PathLike = Union[str, "os.PathLike[str]"]


def builtin_scenario_path(name: str) -> Path:
    """Path of a scenario shipped with wtcp, by name (`"two-hop-wireless"`)."""
    path = SCENARIO_DIR / f"{name.removesuffix('.toml')}.toml"
    if not path.is_file():
        raise FileNotFoundError(f"no built-in scenario {name!r}; available: {', '.join(builtin_scenario_names())}")
    return path


def builtin_scenario_names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def builtin_scenarios() -> list[tuple[str, str, Path]]:
    """(name, one-line description, file) of each built-in scenario; the description is
    the file's `description`, else its first comment line."""
    out = []
    for name in builtin_scenario_names():
        path = SCENARIO_DIR / f"{name}.toml"
        text = path.read_text(encoding="utf-8")
        description = tomllib.loads(text).get("description")
        if not isinstance(description, str) or not description.strip():
            comments = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
            description = next((c for c in comments if c), "")
        out.append((name, " ".join(description.split()), path))
    return out


def _trace_paths_beside(text: str, directory: Path) -> list[tuple[str, str]]:
    """Overrides that make each link direction's relative `capacity.trace` path absolute,
    relative to `directory` (a text the core will refuse is left to it)."""
    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    links = doc.get("links")
    out: list[tuple[str, str]] = []
    for i, link in enumerate(links if isinstance(links, list) else []):
        for side in ("ab", "ba"):
            cap = link.get(side, {}).get("capacity") if isinstance(link, dict) and isinstance(link.get(side), dict) else None
            trace = cap.get("trace") if isinstance(cap, dict) else None
            if isinstance(trace, str) and trace and not os.path.isabs(trace):
                out.append((f"links.{i}.{side}.capacity.trace", to_toml_value(os.fspath((directory / trace).absolute()))))
    return out


class Scenario:
    """A checked scenario document plus field overrides.

    Immutable: `set` and `with_overrides` return a new scenario. Every construction is
    checked by the simulator core, so a malformed document raises `ScenarioError` here
    rather than when it runs. Prefer the `from_file`, `from_toml` and `from_dict`
    constructors; `overrides` are (dotted path, TOML value text) pairs.
    """

    def __init__(self, text: str, format: str = "toml", overrides: Iterable[tuple[str, str]] = (), source: str | None = None):
        check_unicode(text, "", "the scenario text is")
        load_entry_points()
        self._text = text
        self._format = format
        pairs = [(str(p), str(v)) for p, v in overrides]
        for path, value in pairs:
            check_unicode(path, path, "the override path is")
            check_unicode(value, path, "the value is")
        self._source = source
        self._doc: dict[str, Any] | None = None
        try:
            self._set_overrides(pairs)  # indices only (a name is not an index to the core)
        except ScenarioError:
            resolved = resolve_paths(pairs, self._document_with)
            if resolved == pairs:
                raise
            self._set_overrides(resolved)

    def _set_overrides(self, pairs: list[tuple[str, str]], read_document: bool = False) -> dict[str, Any] | None:
        """Overrides with names already resolved to indices; checked by the core. With
        `read_document`, returns the resolved document as the core built it (None if the
        core leaves it to `tomllib`: a document holding a date or time)."""
        self._overrides = tuple(pairs)
        try:
            if not read_document:
                self._resolved_toml = _core.resolve(self._text, self._format, list(self._overrides))
                return None
            self._resolved_toml, doc = _core.resolve_document(self._text, self._format, list(self._overrides))
            return doc
        except ScenarioError as e:
            raise with_suggestions(e) from None

    def _document_with(self, pairs: list[tuple[str, str]]) -> dict[str, Any]:
        try:
            return tomllib.loads(_core.resolve(self._text, self._format, pairs))
        except ScenarioError as e:
            raise with_suggestions(e) from None

    # --- construction ---

    @classmethod
    def from_file(cls, path: PathLike) -> Scenario:
        """Read a TOML scenario file (`OSError` if it cannot be read). A capacity trace
        file named by a relative path is found beside the scenario file."""
        text = Path(path).read_text(encoding="utf-8")
        return cls(text, "toml", _trace_paths_beside(text, Path(path).parent), source=os.fspath(path))

    @classmethod
    def from_toml(cls, text: str) -> Scenario:
        return cls(text, "toml")

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> Scenario:
        """A scenario from the same structure as the TOML file, as nested dicts and lists."""
        text, overrides = dict_to_json(document)
        return cls(text, "json", overrides)

    # --- overrides ---

    def set(self, path: str, value: Any) -> Scenario:
        """A copy with the field at dotted `path` set to `value`. An array element is
        given by index or by its `name`: `links.1.ab.loss.rate` or `links.wireless.ab.loss.rate`."""
        return self.with_overrides({path: value})

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """A copy with several fields set, in order: `{path: value, ...}`."""
        return self.with_text_overrides(override_pairs(overrides))

    def with_text_overrides(self, pairs: Iterable[tuple[str, str]]) -> Scenario:
        """A copy with `(path, TOML value text)` overrides, as `wtcp run --set PATH=TEXT`
        takes them (text that is not valid TOML is taken as a string)."""
        return self._derive(pairs, read_document=False)[0]

    def _with_overrides_to_read(self, overrides: Mapping[str, Any]) -> tuple[Scenario, dict[str, Any]]:
        """`with_overrides`, and the new scenario's document to read (not to modify): the
        values of `document`, built by the core without parsing the TOML text again (its
        tables' keys may come in another order)."""
        out, doc = self._derive(override_pairs(overrides), read_document=True)
        return out, doc if doc is not None else out._parsed()

    def _derive(self, pairs: Iterable[tuple[str, str]], read_document: bool) -> tuple[Scenario, dict[str, Any] | None]:
        pairs = [(str(p), str(v)) for p, v in pairs]
        for path, value in pairs:
            check_unicode(path, path, "the override path is")
            check_unicode(value, path, "the value is")
        prior = list(self._overrides)
        resolved = self._resolve_paths(pairs, prior)
        out = object.__new__(Scenario)
        out._text, out._format, out._source, out._doc = self._text, self._format, self._source, None
        return out, out._set_overrides(prior + resolved, read_document)

    def _resolve_paths(self, pairs: list[tuple[str, str]], prior: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """`resolve_paths` against this document. Paths resolved against it alone (no
        override among them changed what a later one walks) are remembered: they resolve
        the same whatever the values (a sweep derives many scenarios from one)."""
        paths = tuple(p for p, _ in pairs)
        memo: dict[tuple[str, ...], tuple[str, ...]] = self.__dict__.setdefault("_path_memo", {})
        known = memo.get(paths)
        if known is not None:
            return [(r, v) for r, (_, v) in zip(known, pairs)]
        asked = False

        def document(more: list[tuple[str, str]]) -> dict[str, Any]:
            nonlocal asked
            asked = True
            return self._document_with(prior + more)

        resolved = resolve_paths(pairs, document, start=self._parsed())
        if not asked and len(memo) < 4096:
            memo[paths] = tuple(r for r, _ in resolved)
        return resolved

    def _parsed(self) -> dict[str, Any]:
        """The document after overrides, parsed once (not to be modified)."""
        if self._doc is None:
            self._doc = tomllib.loads(self._resolved_toml)
        return self._doc

    # --- inspection ---

    @property
    def document(self) -> dict[str, Any]:
        """The document after overrides, as the simulator reads it (a fresh copy)."""
        return copy.deepcopy(self._parsed())

    @property
    def name(self) -> str:
        return self.document.get("name") or "scenario"

    @property
    def source(self) -> str | None:
        """The file the scenario was read from, if any."""
        return self._source

    @property
    def overrides(self) -> tuple[tuple[str, str], ...]:
        return self._overrides

    # --- running ---

    def run(
        self,
        seed: int | None = None,
        replication: int | None = None,
        trace: bool | None = None,
        trace_interval_ms: float | None = None,
        engine: str = "wtcp",
        ns3_attributes: Iterable[str] = (),
        control: _core.RunControl | None = None,
        trace_dir: str | os.PathLike[str] | None = None,
        pcap_dir: str | os.PathLike[str] | None = None,
    ) -> Result:
        """Run the scenario. `seed` and `replication` override `[run]`; `trace` turns the
        time series on or off (None: as the document's `[trace]` says; giving
        `trace_interval_ms` turns it on). `engine` is "wtcp" (this simulator), "ns3"
        (the same scenario translated to ns-3 3.44, see `wtcp.ns3`; it raises
        `Ns3TranslationError`, a `ScenarioError`, for what ns-3 cannot reproduce) or
        "linux" (the flows as the machine's own kernel sockets over wtcp's links in real
        time, docs/linux-engine.md; wall time equals simulated time; it raises
        `ScenarioError` for what the kernel cannot be told and `LinuxEngineUnavailable`
        without root, namespaces or /dev/net/tun).
        `ns3_attributes` ("Name=value") are extra ns-3 TcpSocketBase attributes for an
        experiment beyond the scenario, e.g. "Sack=true" (ns3 engine only).

        `control` (a `wtcp.RunControl`, wtcp engine only) shows the run's progress to
        another thread and stops it on request (`control.stop()`) or past its wall-time or
        memory limit, raising `wtcp.RunStopped`. Ctrl-C (KeyboardInterrupt) stops a run
        in the main thread within about 10 ms, with or without a control.

        `trace_dir` (wtcp engine only) turns tracing on (unless `trace=False`) and streams the
        traces to that directory while the run goes, in the files and columns of
        `Traces.to_csv`, so a long traced run holds a bounded amount of trace memory; the
        result then carries no traces (`result.traces` is None).

        `pcap_dir` (wtcp engine only) writes a pcap file per link direction and per 802.11
        station into that directory as the run goes, headers only, for Wireshark or
        tcpdump (docs/pcap.md); it raises `OSError` when the directory cannot be written
        and `ScenarioError` when the files would exceed the disk budget. The results are
        the same with or without it."""
        check_engine(engine)
        ns3_attributes = list(ns3_attributes)
        if ns3_attributes and engine != "ns3":
            raise ValueError("ns3_attributes apply to engine=\"ns3\" only")
        if control is not None and engine != "wtcp":
            raise ValueError("control applies to engine=\"wtcp\" only")
        if trace_dir is not None and engine != "wtcp":
            raise ValueError("trace_dir applies to engine=\"wtcp\" only")
        if pcap_dir is not None and engine != "wtcp":
            raise ValueError("pcap_dir applies to engine=\"wtcp\" only")
        if trace is None and (trace_interval_ms is not None or trace_dir is not None):
            trace = True
        extra = [
            (path, to_toml_value(value, path))
            for path, value in (("run.seed", seed), ("run.replication", replication), ("trace.enabled", trace), ("trace.interval_ms", trace_interval_ms))
            if value is not None
        ]
        if engine == "ns3":
            from wtcp.ns3 import run_document

            scenario, notice = self.with_text_overrides(extra).with_engine_profile("ns3")
            metrics = run_document(scenario.document, ns3_attributes)
            if notice:
                raw = json.loads(metrics)
                raw["warnings"] = [notice, *raw.get("warnings", [])]
                metrics = json.dumps(raw, allow_nan=False, separators=(",", ":"))
            return Result(metrics)
        if engine == "linux":
            scenario, notice = self.with_text_overrides(extra).with_engine_profile("linux")
            metrics, traces = _core.run_linux(scenario._text, scenario._format, scenario._overrides)
            if notice:
                raw = json.loads(metrics)
                raw["warnings"] = [notice, *raw.get("warnings", [])]
                metrics = json.dumps(raw, allow_nan=False, separators=(",", ":"))
            return Result(metrics, traces)
        if trace_dir is not None or pcap_dir is not None:
            self.check_wtcp()  # before a folder is made for a run that cannot start
        sink = TraceWriter(trace_dir) if trace_dir is not None else None
        pcap = os.fspath(pcap_dir) if pcap_dir is not None else None
        metrics_json, traces = _core.run(self._text, self._format, [*self._overrides, *extra], control, sink, pcap)
        return Result(with_engine(metrics_json, "wtcp"), traces)

    def check_wtcp(self) -> None:
        """Raise what `run()` (wtcp's own engine) would raise for the scenario itself: a
        flow naming the kernel's own algorithm (`kernel:NAME`), which only the linux engine
        runs."""
        _core.check_wtcp(self._text, self._format, self._overrides)

    def check_linux(self) -> None:
        """Raise what `run(engine="linux")` would raise for the scenario itself (a field the
        kernel cannot be told), without running it."""
        scenario, _ = self.with_engine_profile("linux")
        _core.check_linux(scenario._text, scenario._format, scenario._overrides)

    def with_engine_profile(self, profile: str) -> tuple[Scenario, str | None]:
        """The scenario with `profile` where it names none (an engine's own defaults: the
        ns-3 engine runs with `ns3`), and a notice of what that filled in (None when the
        scenario names its profile)."""
        if "profile" in self.document:
            return self, None
        filled = self.with_text_overrides([("profile", f"\"{profile}\"")])
        added = sorted(p for p in set(flat_paths(filled.document)) - set(flat_paths(self.document)) if not p.startswith("profile="))
        what = ", ".join(added) if added else "nothing"
        return filled, f"the {profile} engine ran with profile {profile} (docs/profiles.md), which set: {what}"

    def __repr__(self) -> str:
        where = f" from {self._source}" if self._source else ""
        return f"<Scenario {self.name!r}{where}, {len(self._overrides)} override(s)>"


def flat_paths(doc: Any, prefix: str = "") -> list[str]:
    """Every leaf of a document as `path=value` (arrays of tables by index)."""
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in flat_paths(v, f"{prefix}.{k}" if prefix else str(k))]
    if isinstance(doc, list) and doc and all(isinstance(v, dict) for v in doc):
        return [p for i, v in enumerate(doc) for p in flat_paths(v, f"{prefix}.{i}")]
    return [f"{prefix}={to_toml_value(doc, prefix)}"]


def load(path: PathLike) -> Scenario:
    """Read a scenario file, or a built-in scenario by name (`"two-hop-wireless"`) when no
    such file exists."""
    if not Path(path).exists() and (SCENARIO_DIR / f"{os.fspath(path).removesuffix('.toml')}.toml").is_file():
        path = builtin_scenario_path(os.fspath(path))
    elif not Path(path).exists():
        raise FileNotFoundError(f"no scenario file {os.fspath(path)!r} and no built-in scenario of that name; built-in: {', '.join(builtin_scenario_names())}")
    return Scenario.from_file(path)


def run(scenario: Scenario | PathLike | Mapping[str, Any], **kwargs: Any) -> Result:
    """Run a `Scenario`, a scenario file or a scenario dict; keywords as `Scenario.run`."""
    if isinstance(scenario, Scenario):
        sc = scenario
    elif isinstance(scenario, Mapping):
        sc = Scenario.from_dict(scenario)
    else:
        sc = Scenario.from_file(scenario)
    return sc.run(**kwargs)


def check_engine(engine: Any) -> None:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; allowed: {', '.join(ENGINES)}")


def override_pairs(overrides: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`{path: value}` as (path, TOML value text) pairs, each path checked."""
    pairs = []
    for path, value in overrides.items():
        check_override_path(path)
        pairs.append((path, to_toml_value(value, path)))
    return pairs


def check_override_path(path: Any) -> None:
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise scenario_error(str(path), "invalid override path; expected dotted keys like `links.0.rate_mbps` or `links.wireless.rate_mbps`")
    check_unicode(path, path, "the override path is")


def dict_to_json(document: Mapping[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """JSON text of a scenario dict, plus overrides carrying the non-finite floats JSON
    cannot hold (`initial_ssthresh_segments = inf`). None values are rejected."""
    if not isinstance(document, Mapping):
        raise scenario_error("", f"a scenario must be a dict of sections ([run], [[nodes]], ...), not a {type(document).__name__}")
    nonfinite: list[tuple[str, str]] = []
    open_ids: set[int] = set()

    def plain(value: Any, parts: tuple[str, ...]) -> Any:
        path = ".".join(parts)
        value = plain_scalar(value)
        if value is None:
            raise scenario_error(path, "is None; null values are not allowed (leave the key out instead)")
        if isinstance(value, str):
            check_unicode(value, path)
            return value
        if isinstance(value, (bool, int)):
            return value
        if isinstance(value, float):
            if math.isfinite(value):
                return value
            if any(not part or "." in part for part in parts):
                raise scenario_error(path, f"is {value}, which only a dotted path can carry; rename the keys on the way")
            nonfinite.append((path, to_toml_value(value, path)))
            return 0.0
        if isinstance(value, (Mapping, list, tuple)):
            with container(value, path, len(parts), open_ids):
                if isinstance(value, Mapping):
                    out = {}
                    for key, v in value.items():
                        if not isinstance(key, str):
                            raise scenario_error(path, f"has the key {key!r}; keys must be strings")
                        check_unicode(key, join_path(path, key), "the key is")
                        out[key] = plain(v, (*parts, key))
                    return out
                return [plain(v, (*parts, str(i))) for i, v in enumerate(value)]
        raise scenario_error(path, f"is a {type(value).__name__}; allowed: bool, int, float, str, list, dict")

    text = json.dumps(plain(document, ()), ensure_ascii=False, allow_nan=False)
    return text, nonfinite
