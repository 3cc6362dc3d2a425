"""`wtcp crosscheck`: the same scenario in wtcp and in ns-3, side by side.

Every (algorithm, point, seed) runs in both engines; the table gives, per algorithm and
point, the mean over the seeds of the TCP flows' total goodput, retransmitted segments
and timeouts in each engine, and the goodput difference (wtcp - ns-3) / ns-3, flagged when
it exceeds `FLAG_PERCENT`.

An algorithm is a name (every TCP flow runs it with its default parameters) or a `Config`:
a label, wtcp's algorithm and parameters, and optionally an ns-3 congestion control paired
with it explicitly (`ns3_type`) where the translator has no exact counterpart.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import random
import statistics
import textwrap
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import click

from wtcp.errors import scenario_error
from wtcp.result import Result
from wtcp.scenario import Scenario

FLAG_PERCENT = 5.0


@dataclass
class EngineStats:
    """One engine's numbers at one (algorithm, point), one entry per seed."""

    goodput_mbps: list[float] = field(default_factory=list)
    retransmissions: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    segments_sent: list[int] = field(default_factory=list)
    unnecessary_retransmissions: list[int] = field(default_factory=list)
    fast_retransmits: list[int] = field(default_factory=list)
    # 802.11 MAC, summed over the stations (empty without [[wifi]] channels).
    mac_retries: list[int] = field(default_factory=list)
    mac_retry_limit_drops: list[int] = field(default_factory=list)
    mac_queue_drops: list[int] = field(default_factory=list)

    def add(self, result: Result) -> None:
        tcp = [f for f in result.raw["flows"] if f["kind"] == "tcp"]
        self.goodput_mbps.append(sum(f["goodput_bps"] for f in tcp) / 1e6)
        self.retransmissions.append(sum(f["retransmitted_segments"] for f in tcp))
        self.timeouts.append(sum(f["timeouts"] for f in tcp))
        self.segments_sent.append(sum(f["segments_sent"] for f in tcp))
        self.unnecessary_retransmissions.append(sum(f["unnecessary_retransmissions"] for f in tcp))
        self.fast_retransmits.append(sum(f["fast_retransmits"] for f in tcp))
        stations = result.raw.get("wifi") or []
        if stations:
            self.mac_retries.append(sum(s["retries"] for s in stations))
            self.mac_retry_limit_drops.append(sum(s["retry_limit_drops"] for s in stations))
            self.mac_queue_drops.append(sum(s["queue_drops"] for s in stations))

    def mean(self, name: str) -> float:
        values = getattr(self, name)
        return statistics.fmean(values) if values else math.nan


@dataclass
class Row:
    algorithm: str
    point: dict[str, Any]
    wtcp: EngineStats = field(default_factory=EngineStats)
    ns3: EngineStats = field(default_factory=EngineStats)
    # What each side ran (`case_keys`): a stored row is reused only for the same keys.
    wtcp_key: str = ""
    ns3_key: str = ""

    def diff_percent(self) -> float:
        ours, theirs = self.wtcp.mean("goodput_mbps"), self.ns3.mean("goodput_mbps")
        return (ours - theirs) / theirs * 100.0 if theirs > 0 else math.nan

    def flagged(self) -> bool:
        d = self.diff_percent()
        return math.isnan(d) or abs(d) > FLAG_PERCENT


@dataclass(frozen=True)
class Config:
    """An algorithm as the cross-check runs it on every TCP flow: `label` in the table,
    wtcp's `cc` with `cc_params`, and `ns3_type`, an ns-3 congestion-control TypeId paired
    with it explicitly (None: the translator's counterpart of `cc` and its parameters);
    `ns3_recovery` likewise replaces ns-3's recovery (an experiment, e.g. an ablation).

    A pairing is an experiment, not a translation: the ns-3 side runs the same scenario
    with `ns3_type`, at ns-3's defaults, in place of translating `cc` and `cc_params`
    (every other field is still translated or refused)."""

    label: str
    cc: str
    cc_params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    ns3_type: str | None = None
    ns3_recovery: str | None = None  # an ns-3 TcpRecoveryOps TypeId in place of the translated one


def as_config(algorithm: str | Config) -> Config:
    return algorithm if isinstance(algorithm, Config) else Config(algorithm, algorithm)


def algorithm_overrides(scenario: Scenario, algorithm: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every TCP flow runs `algorithm` with `params` (default: its default parameters)."""
    out: dict[str, Any] = {}
    for i, f in enumerate(scenario.document.get("flows", [])):
        if f.get("kind", "tcp") == "tcp":
            out[f"flows.{i}.cc"] = algorithm
            out[f"flows.{i}.cc_params"] = dict(params or {})
    return out


@dataclass
class Case:
    """One (algorithm, point): the scenario each engine runs and the ns-3 pairing."""

    label: str
    point: dict[str, Any]
    wtcp: Scenario
    ns3: Scenario | None  # None: wtcp alone runs
    ns3_type: str | None = None
    ns3_recovery: str | None = None
    matched: dict[str, Any] = field(default_factory=dict)  # what `matching` set, in both engines
    losses: CommonLosses | None = None  # the same packets lost in both engines, per seed

    def seeded(self, seed: int) -> tuple[Scenario, Scenario | None]:
        """The scenarios each engine runs for `seed` (with its list of common losses)."""
        if self.losses is None:
            return self.wtcp, self.ns3
        lost = self.losses.overrides(seed)
        return self.wtcp.with_overrides(lost), self.ns3.with_overrides(lost) if self.ns3 else None


# Bytes of the smallest data packet a link can carry (IPv4 and TCP headers without
# options, one byte of payload), for the bound on the packets a run can expose.
SMALLEST_DATA_PACKET = 41


@dataclass(frozen=True)
class CommonLosses:
    """Common random numbers across the engines (Law, Simulation Modeling and Analysis,
    variance reduction by common random numbers): the uniform loss model of one link
    direction (`path`, e.g. `links.1.ab.loss`) becomes, for each seed, one list of the
    packets it loses, drawn independently with probability `rate` for each of the first
    `packets` packets the model sees, from a stream fixed by the seed and the rate. Both
    engines run that list (the nth packet the model exposes, counted alike in both), so
    while they send the same sequence they lose the same segments, and the difference
    between them is that of their models rather than that of two draws."""

    path: str
    rate: float
    packets: int

    @staticmethod
    def of(scenario: Scenario, rate_path: str) -> CommonLosses | None:
        """For the uniform loss at `rate_path` (`links.N.DIR.loss.rate`) of `scenario`,
        with a list long enough for every packet the link could carry in the run (None
        at rate 0)."""
        parts = rate_path.split(".")
        if len(parts) != 5 or parts[0] != "links" or parts[3:] != ["loss", "rate"]:
            raise scenario_error(rate_path, "common losses need a uniform loss rate; allowed: links.N.ab.loss.rate or links.N.ba.loss.rate")
        link = scenario.document["links"][int(parts[1])]
        loss = (link.get(parts[2]) or {}).get("loss") or {}
        if loss.get("model") != "uniform":
            raise scenario_error(f"{'.'.join(parts[:4])}.model", f"is {loss.get('model')!r}; common losses replace a uniform loss model; allowed: uniform")
        rate = float(loss["rate"])
        if rate <= 0.0:
            return None
        if "rate_mbps" not in link:
            raise scenario_error(f"links.{parts[1]}.rate_mbps", "common losses bound the packets a link carries by its rate; allowed: a link with rate_mbps")
        bits = link["rate_mbps"] * 1e6 * float(scenario.document["run"]["duration_s"])
        packets = math.ceil(bits / (8 * (SMALLEST_DATA_PACKET + int(link.get("link_header_bytes", 0)))))
        return CommonLosses(".".join(parts[:4]), rate, packets)

    def overrides(self, seed: int) -> dict[str, Any]:
        return {self.path: {"model": "list", "packets": lost_packets(seed, self.rate, self.packets)}}

    def key(self) -> str:
        return f"common-losses/{self.path}/{self.rate!r}/{self.packets}"

    def check(self, scenario: Scenario, result: Result) -> None:
        """Raise when the run's lossy hop carried more packets than the list covers (the
        rest would have gone through unlost): the bound assumes packets of at least
        `SMALLEST_DATA_PACKET` bytes, which a scenario with smaller ones breaks."""
        _, index, direction, _ = self.path.split(".")
        link = scenario.document["links"][int(index)]
        a, b = (link["a"], link["b"]) if direction == "ab" else (link["b"], link["a"])
        carried = [d["tx_packets"] for d in result.raw["drops"] if d["from"] == a and d["to"] == b and d["link"] == link.get("name", d["link"])]
        if carried and max(carried) > self.packets:
            raise scenario_error(self.path, f"the hop carried {max(carried)} packets, more than the {self.packets} the common loss list covers "
                                 f"(packets under {SMALLEST_DATA_PACKET} bytes); allowed: losses drawn in each engine")


@functools.lru_cache(maxsize=16)
def lost_packets(seed: int, rate: float, packets: int) -> list[int]:
    """Packets 1..`packets` each lost with probability `rate`, from a stream fixed by the
    seed and the rate (the same list for every algorithm, variant and scenario)."""
    rng = random.Random(f"common-losses/{seed}/{rate!r}")
    draw = rng.random
    return [k for k in range(1, packets + 1) if draw() < rate]


def cases(scenario: Scenario, points: Sequence[dict[str, Any]], algorithms: Sequence[str | Config] | None, check: bool = True) -> list[Case]:
    """Every (algorithm, point), matched to ns-3 and checked by its translator before
    anything runs (a `ScenarioError` names the first refusal). Matched: a scenario that
    names no profile runs with the `ns3` profile in both engines, so every default ns-3
    has fills what it leaves out (`wtcp.ns3.translate.matching`). `algorithms`
    None keeps the scenario's own algorithm and parameters. `check` False skips ns-3's
    translator (for a case only wtcp runs, e.g. an RFC behaviour ns-3 lacks)."""
    from wtcp.ns3 import plan as translate
    from wtcp.ns3.translate import matching

    def plan(doc: dict[str, Any], congestion_type: str | None = None) -> None:
        if check:
            translate(doc, congestion_type)

    out = []
    for algorithm in algorithms if algorithms is not None else [None]:
        for point in points:
            if algorithm is None:
                sc = scenario.with_overrides(dict(point))
                matched = matching(sc.document)
                sc = sc.with_overrides(matched)
                plan(sc.document)
                out.append(Case(scenario_algorithm(sc), dict(point), sc, sc, matched=matched))
                continue
            config = as_config(algorithm)
            sc = scenario.with_overrides({**algorithm_overrides(scenario, config.cc, config.cc_params), **point})
            matched = matching(sc.document)
            sc = sc.with_overrides(matched)
            plan(sc.document, config.ns3_type)
            out.append(Case(config.label, dict(point), sc, sc, config.ns3_type, config.ns3_recovery, matched))
    return out


def matched_text(checked: Sequence[Case]) -> str:
    """What matching set, once per distinct `path = value` (for a table's title)."""
    from wtcp.ns3.translate import toml_text

    seen = {f"{path} = {toml_text(value)}": None for case in checked for path, value in case.matched.items()}
    return ", ".join(seen)


def run_ns3(case: Case, seed: int, ns3_attributes: Sequence[str] = ()) -> Result:
    """The case's ns-3 run for one seed (with its explicit pairing, if any)."""
    assert case.ns3 is not None
    if case.ns3_type is None and case.ns3_recovery is None:
        return case.ns3.run(seed=seed, engine="ns3", ns3_attributes=ns3_attributes)
    from wtcp.ns3 import run_document

    doc = case.ns3.with_overrides({"run.seed": seed}).document
    return Result(run_document(doc, ns3_attributes, congestion_type=case.ns3_type, recovery_type=case.ns3_recovery))


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def case_keys(case: Case, ns3_attributes: Sequence[str] = ()) -> tuple[str, str]:
    """What each engine runs for `case`, seed aside: wtcp's scenario document, and
    ns-3's translated plan with its pairing, recovery and extra attributes ("" when
    ns-3 does not run)."""
    from wtcp.ns3 import plan

    doc = case.wtcp.document
    losses = case.losses.key() if case.losses else None
    wtcp_key = _digest({**doc, "run": {k: v for k, v in doc.get("run", {}).items() if k != "seed"}, **({"common_losses": losses} if losses else {})})
    if case.ns3 is None:
        return wtcp_key, ""
    ns3_plan = asdict(plan(case.ns3.document, case.ns3_type))
    ns3_plan.pop("seed", None)
    return wtcp_key, _digest([ns3_plan, case.ns3_recovery, list(ns3_attributes), *([losses] if losses else [])])


def run_case(case: Case, seeds: Sequence[int], on_run: Callable[[], None] | None = None, ns3_attributes: Sequence[str] = (),
             old: Row | None = None, ns3: tuple[EngineStats, str] | None = None) -> Row:
    """Every seed of `case` in both engines; an engine's numbers in `old` are taken
    instead when it ran the same (`case_keys`) over as many seeds. `ns3` (numbers and
    key) stands for ns-3's side of a case only wtcp runs (`case.ns3` None)."""
    wtcp_key, ns3_key = case_keys(case, ns3_attributes)
    row = Row(case.label, dict(case.point), wtcp_key=wtcp_key, ns3_key=ns3_key)
    reuse_wtcp = old is not None and old.wtcp_key == wtcp_key and len(old.wtcp.goodput_mbps) == len(seeds)
    reuse_ns3 = case.ns3 is None or (old is not None and old.ns3_key == ns3_key and len(old.ns3.goodput_mbps) == len(seeds))
    if reuse_wtcp:
        row.wtcp = old.wtcp  # type: ignore[union-attr]
    if case.ns3 is None:
        if ns3 is not None:
            row.ns3, row.ns3_key = ns3
    elif reuse_ns3:
        row.ns3 = old.ns3  # type: ignore[union-attr]
    for seed in seeds:
        ours, theirs = case.seeded(seed)
        if not reuse_wtcp:
            result = ours.run(seed=seed, engine="wtcp")
            if case.losses:
                case.losses.check(ours, result)
            row.wtcp.add(result)
            if on_run:
                on_run()
        if not reuse_ns3:
            result = run_ns3(replace(case, ns3=theirs), seed, ns3_attributes)
            if case.losses and theirs is not None:
                case.losses.check(theirs, result)
            row.ns3.add(result)
            if on_run:
                on_run()
    return row


def crosscheck(
    scenario: Scenario,
    points: Sequence[dict[str, Any]],
    algorithms: Sequence[str | Config] | None,
    seeds: Sequence[int],
    on_run: Callable[[], None] | None = None,
    ns3_attributes: Sequence[str] = (),
    old: Callable[[Case], Row | None] | None = None,
) -> list[Row]:
    """Run every (algorithm, point, seed) in wtcp and in ns-3 (`points`: dicts of
    path -> value, [{}] for the scenario as it is; `algorithms`: names or `Config`s,
    None: as the scenario says). `old` may return a stored row of a case to reuse."""
    return [run_case(case, seeds, on_run, ns3_attributes, old(case) if old else None) for case in cases(scenario, points, algorithms)]


def short_names(paths: Sequence[str]) -> dict[str, str]:
    """The last component of each swept path, or more components where they would clash."""
    out = {}
    for path in paths:
        parts = path.split(".")
        for k in range(1, len(parts) + 1):
            name = ".".join(parts[-k:])
            if sum(1 for p in paths if p == name or p.endswith("." + name)) == 1:
                break
        out[path] = name
    return out


def value_text(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def format_table(title: str, rows: Sequence[Row], paths: Sequence[str]) -> list[str]:
    """The side-by-side table, 80 columns wide."""
    names = short_names(paths)
    lines = [title]
    if paths:
        lines.append("point: " + ", ".join(f"{names[p]} = {p}" for p in paths))
    lines.append(f"{'':13}{'':16}{'goodput Mb/s':>15} {'diff':>8}  {'retransmits':>13} {'timeouts':>11}")
    lines.append(f"{'algorithm':13}{'point':16}{'wtcp':>7} {'ns-3':>7} {'%':>8}  {'wtcp':>6} {'ns-3':>6} {'wtcp':>5} {'ns-3':>5}")
    for r in rows:
        label = ",".join(f"{names[p]}={value_text(r.point[p])}" for p in paths) or "-"
        if len(label) > 15:
            label = label[:14] + "~"
        d = r.diff_percent()
        diff = "n/a" if math.isnan(d) else f"{d:+.1f}"
        flag = " !" if r.flagged() else ""
        lines.append(
            f"{r.algorithm[:12]:13}{label:16}"
            f"{r.wtcp.mean('goodput_mbps'):7.3f} {r.ns3.mean('goodput_mbps'):7.3f} {diff:>8}{flag:2}"
            f"{r.wtcp.mean('retransmissions'):6.0f} {r.ns3.mean('retransmissions'):6.0f} "
            f"{r.wtcp.mean('timeouts'):5.1f} {r.ns3.mean('timeouts'):5.1f}"
        )
    lines.append(f"diff = (wtcp - ns-3) / ns-3 of the goodput; ! beyond {FLAG_PERCENT:g} %")
    return lines


def parse_grid(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    for item in values:
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not eq or not key or not text:
            raise click.BadParameter(f"{item!r} is not PATH=V1,V2,... (for example links.1.ab.loss.rate=0,0.01,0.05)")
        if not text.startswith("["):
            text = f"[{text}]"
        try:
            values_list = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            raise click.BadParameter(f"{item!r}: the values must be TOML values separated by commas") from None
        if not values_list:
            raise click.BadParameter(f"{item!r}: no values")
        grid[key] = values_list
    return grid


def parse_algorithms(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    from wtcp.cli import algorithm_names

    return None if value is None else algorithm_names(value, "--algorithms")


@click.command("crosscheck")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Set a field: dotted path = TOML value (repeatable).")
@click.option("--grid", "grid", multiple=True, metavar="PATH=V1,V2,...", callback=parse_grid, help="Compare at each of these values of PATH (repeatable: every combination).")
@click.option("--seeds", type=click.IntRange(min=1), default=3, show_default=True, help="Seeds 1..N per point.")
@click.option("--algorithms", callback=parse_algorithms, metavar="A,B,...", help="Run every TCP flow with each of these algorithms (default: as the scenario says).")
@click.option("--ns3-attribute", "ns3_attributes", multiple=True, metavar="NAME=VALUE", help="An extra ns-3 TcpSocketBase attribute for the ns-3 runs, e.g. Sack=true (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the rows (per-seed values included) as JSON.")
@click.option("--profile", "profile_name", metavar="NAME", help="Whose defaults both engines run with (docs/profiles.md); ns3 gives every default ns-3 has.")
def crosscheck_command(file: Path, sets: tuple[str, ...], grid: dict[str, list[Any]], seeds: int, algorithms: list[str] | None, ns3_attributes: tuple[str, ...], as_json: bool,
                       profile_name: str | None) -> None:
    """Run the scenario FILE in wtcp and in ns-3 over seeds and compare them."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from wtcp.cli import parse_sets, profile_override, read_scenario, scenario_errors

    scenario = read_scenario(file)
    pairs = parse_sets(click.get_current_context(), None, sets)  # type: ignore[arg-type]
    if profile_name is not None:
        pairs = [profile_override(profile_name), *pairs]
    paths = list(grid)
    points = [dict(zip(paths, combo)) for combo in itertools.product(*grid.values())]
    with scenario_errors(file):
        scenario = scenario.with_text_overrides(pairs)
        checked = cases(scenario, points, algorithms)
    from wtcp.ns3 import run as ns3_run

    err = Console(stderr=True)
    if not as_json:
        err.print(ns3_run.LOADING, highlight=False)
    ns3_run.load()
    seed_list = list(range(1, seeds + 1))
    total = len(checked) * len(seed_list) * 2
    with Progress(TextColumn("crosscheck"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True, disable=as_json) as progress:
        task = progress.add_task("runs", total=total)
        with scenario_errors(file):
            rows = crosscheck(scenario, points, algorithms, seed_list, on_run=lambda: progress.advance(task), ns3_attributes=ns3_attributes)
    if as_json:
        click.echo(json.dumps([{**asdict(r), "diff_percent": r.diff_percent()} for r in rows], indent=1))
        return
    title = f"{scenario.name}: wtcp vs ns-3 3.44, mean of {seeds} seed{'s' if seeds > 1 else ''}, TCP flows summed"
    if ns3_attributes:
        title += f"\nns-3 sockets also set: {', '.join(ns3_attributes)}"
    matched = matched_text(checked)
    if matched:
        title += "\n" + textwrap.fill(f"matched to ns-3 in both engines: {matched}", width=80)
    for line in format_table(title, rows, paths):
        click.echo(line)


def scenario_algorithm(scenario: Scenario) -> str:
    """The scenario's own algorithm(s), as a row label."""
    ccs = sorted({f.get("cc", "newreno") for f in scenario.document.get("flows", []) if f.get("kind", "tcp") == "tcp"})
    if not ccs:
        raise scenario_error("flows", "no TCP flow to compare")
    return "+".join(ccs)
