"""Measured values of published claims: selections of runs, per-replication values, the
Student-t confidence interval, and the verdict on the claim.

Every value is computed per replication first (replication r of every point shares its
random streams across algorithms, so a ratio of two schemes is a paired comparison), then
averaged, with a 95 % Student-t interval over replications.

Verdicts (`verdict`): a claim states a set of values for which it holds (`Band`: the
published value's rough-size band, the bound of `expect`, or both). The claim holds
(`yes`) when the whole 95 % interval lies in that set, does not (`no`) when the interval
lies wholly outside it, and is `inconclusive` when the interval holds values of both
kinds. An ordering (`order`) is judged the same way on the paired differences of
neighbouring selections (each must be > 0). Without an interval (one replication) the
verdict is `inconclusive` in a full reproduction, and is taken at the mean with `quick`
(every quick verdict is indicative: `mode = quick` in claims.csv).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wtcp.plot import natural_key
from wtcp.reproduce.spec import EXPECT, Claim, Paper
from wtcp.sweep.store import param_column, t975

if TYPE_CHECKING:
    import pandas as pd

# Columns derived from the stored counters (flows table).
DERIVED = {
    "goodput_mbps": lambda f: f["goodput_bps"] / 1e6,
    "goodput_kbps": lambda f: f["goodput_bps"] / 1e3,
    "throughput_mbps": lambda f: f["throughput_bps"] / 1e6,
    "retransmission_pct": lambda f: 100.0 * f["retransmitted_segments"] / f["segments_sent"].where(f["segments_sent"] > 0),
    "loss_events": lambda f: f["fast_retransmits"] + f["timeouts"],
    "congestion_loss_events": lambda f: f["fr_congestion"] + f["to_congestion"],
    "wireless_loss_events": lambda f: f["fr_wireless"] + f["to_wireless"],
}
RUN_METRICS = ("jain_fairness", "events", "peak_packets")
SELECT_COLUMNS = {"algorithm": "algorithm", "flow": "name", "cc": "cc", "kind": "kind"}


def with_derived(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for name, fn in DERIVED.items():
        try:
            out[name] = fn(out)
        except KeyError:
            pass
    return out


def select(frame: pd.DataFrame, selection: Mapping[str, Any]) -> pd.DataFrame:
    """Rows matching every key of `selection`: `algorithm`, `flow` (flow name), `cc`
    (the flow's algorithm), `kind`, or a swept path (`links.1.ab.loss.rate`); a list value
    matches any of its items."""
    import numpy as np

    mask = np.ones(len(frame), dtype=bool)
    for key, wanted in selection.items():
        column = SELECT_COLUMNS.get(key) or param_column(key)
        if column not in frame.columns:
            raise KeyError(f"`{key}` is neither algorithm, flow, cc, kind nor a swept path of this experiment")
        values = frame[column]
        options = wanted if isinstance(wanted, list) else [wanted]
        hit = np.zeros(len(frame), dtype=bool)
        for option in options:
            if isinstance(option, (int, float)) and not isinstance(option, bool):
                numeric = values.astype(float) if values.dtype != object else values.map(lambda v: float(v) if isinstance(v, (int, float)) else math.nan)
                hit |= np.isclose(numeric.to_numpy(dtype=float), float(option), rtol=1e-9, atol=1e-12)
            else:
                hit |= (values == option).to_numpy()
        mask &= hit
    return frame[mask]


def per_replication(frame: pd.DataFrame, metric: str, selection: Mapping[str, Any], flows: str = "mean") -> pd.Series:
    """The metric of the selected runs, one value per replication: flows of a run
    aggregated by `flows` (mean or sum; run-level metrics once per run), then runs of the
    same replication averaged."""
    rows = select(frame, selection)
    if metric not in rows.columns:
        from wtcp.sweep.store import UnknownMetric

        raise UnknownMetric(metric, [c for c in frame.columns if frame[c].dtype.kind in "iuf"])
    # The column groupbys, not a named aggregation (`.agg(value=(metric, ...))`), which
    # costs 10 ms a call in pandas' keyword handling: the same sums and means.
    by_run = rows.groupby("key")
    agg = "first" if metric in RUN_METRICS or flows == "run" else "sum" if flows == "sum" else "mean"
    value = getattr(by_run[metric], agg)()
    return value.groupby(by_run["replication"].first()).mean()


@dataclass
class Estimate:
    mean: float
    ci_low: float
    ci_high: float
    n: int


def estimate(values: Sequence[float]) -> Estimate:
    """Mean and 95 % Student-t interval (NaN interval for fewer than two values)."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    mean = sum(xs) / n
    if n < 2:
        return Estimate(mean, math.nan, math.nan, n)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


VERDICTS = ("yes", "no", "inconclusive", "na")
FULL, QUICK = "full", "quick"


@dataclass
class ClaimResult:
    paper: str
    id: str
    source: str
    claim: str
    published: Any
    measured: Any  # a number, or the text of an ordering
    ci_low: float
    ci_high: float
    holds: str  # the verdict: yes / no / inconclusive / na
    unit: str
    note: str
    reason: str = ""  # why the verdict is not yes (see wtcp.reproduce.ablate.explain)
    evidence: str = ""  # the ablations that tested the reason, and what they measured
    mode: str = FULL  # quick: the reduced grid, every verdict indicative
    copied_from: str = ""  # the claim whose published value this one repeats
    why: str = ""  # how the verdict was reached when it is inconclusive or na
    n: int = 0  # replications measured
    values: dict[int, float] = field(default_factory=dict)  # per replication (for pairing)
    where: Any = None  # the value of `over` the row shows (None: the claim's own selection)

    def row(self) -> dict[str, Any]:
        return {
            "paper": self.paper,
            "id": self.id,
            "source": self.source,
            "claim": self.claim,
            "published": self.published,
            "measured": self.measured,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "holds": self.holds,
            "unit": self.unit,
            "note": self.note,
            "mode": self.mode,
            "reason": self.reason,
            "evidence": self.evidence,
            "copied_from": self.copied_from,
        }

    def numeric(self) -> bool:
        return isinstance(self.measured, (int, float)) and not isinstance(self.measured, bool) and not math.isnan(self.measured)


def evaluate(paper: Paper, claim: Claim, frames: Mapping[str, pd.DataFrame], quick: bool = False) -> ClaimResult:
    """Measure one claim on the experiments' frames (experiment id -> flows frame) and
    give its verdict (`quick`: the reduced grid, see `verdict`)."""
    base = dict(paper=paper.name, id=claim.id, source=claim.get("source"), claim=claim.get("claim"), published=claim.get("published", ""), unit=claim.get("unit", ""), mode=QUICK if quick else FULL)
    note = claim.get("note", "")

    def not_measured(reason: str, note: str = note) -> ClaimResult:
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=note, reason=reason, why=reason)

    measure = claim.get("measure")
    if measure == "na":
        return not_measured(claim.get("reason"))
    frame = frames.get(claim.get("experiment"))
    if frame is None or frame.empty:
        return not_measured("no completed runs for this experiment")
    metric, flows = claim.get("metric"), claim.get("flows", "mean")
    scale = float(claim.get("scale", 1.0))
    if claim.get("over") is not None and measure != "order":
        return _worst_point(paper, claim, frame, base, note, scale, quick)
    try:
        if measure == "order":
            text, holds, why, n = _order(frame, metric, flows, claim.get("order"), claim.get("over"), quick)
            return ClaimResult(**base, measured=text, ci_low=math.nan, ci_high=math.nan, holds=holds, note=note, why=why, n=n)
        values = _values(frame, measure, metric, flows, claim)
    except KeyError as e:
        return not_measured(f"cannot measure: {e.args[0]}")
    values = {r: v * scale for r, v in values.items()}
    est = estimate(list(values.values()))
    holds, why = verdict(est, claim_band(claim, paper.tolerance), quick)
    return ClaimResult(**base, measured=est.mean, ci_low=est.ci_low, ci_high=est.ci_high, holds=holds, note=note, why=why, n=est.n, values=values)


def _worst_point(paper: Paper, claim: Claim, frame: pd.DataFrame, base: dict[str, Any], note: str, scale: float, quick: bool) -> ClaimResult:
    """A claim stated for every value of `over` ("at every error rate"): judged at each
    value (`combine`: no if it is surely false at one, inconclusive if undecided at one,
    else yes), and the row shows the worst point (the lowest mean for a lower bound, the
    highest for an upper bound)."""
    over = claim.get("over")
    column = param_column(over)
    if column not in frame.columns:
        reason = f"`{over}` is not a swept path of this experiment"
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=note, reason=reason, why=reason)
    band = claim_band(claim, paper.tolerance)
    points = []
    for x in sorted(frame[column].dropna().unique(), key=natural_key):
        at = Claim(id=claim.id, spec={**claim.spec, **{k: {**claim.get(k), over: x} for k in ("select", "a", "b") if claim.get(k) is not None}})
        try:
            values = _values(frame, claim.get("measure"), claim.get("metric"), claim.get("flows", "mean"), at)
        except KeyError:
            continue
        values = {r: v * scale for r, v in values.items()}
        est = estimate(list(values.values()))
        if est.n:
            points.append((x, est, values, *verdict(est, band, quick)))
    if not points:
        reason = "cannot measure: a selection matches no runs"
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=note, reason=reason, why=reason)
    upper = (claim.get("expect") or "").lstrip().startswith("<")
    x, est, values, _, _ = (max if upper else min)(points, key=lambda p: p[1].mean)
    holds = combine([p[3] for p in points])
    failing = [_fmt(p[0]) for p in points if p[3] == "no"]
    undecided = [_fmt(p[0]) for p in points if p[3] == "inconclusive"]
    where = f"worst of {len(points)} values of {over} at {_fmt(x)}" + (f"; fails at {', '.join(failing)}" if failing else "") + (f"; undecided at {', '.join(undecided)}" if undecided else "")
    why = "; ".join(f"at {_fmt(p[0])}: {p[4]}" for p in points if p[3] == holds and p[4]) if holds in ("inconclusive", "na") else ""
    return ClaimResult(**base, measured=est.mean, ci_low=est.ci_low, ci_high=est.ci_high, holds=holds, note=_join(where, note), why=why, n=est.n, values=values, where=x)


def _values(frame: pd.DataFrame, measure: str, metric: str, flows: str, claim: Claim) -> dict[int, float]:
    """The claim's value per replication (replication -> value)."""
    if measure == "value":
        return {int(r): float(v) for r, v in per_replication(frame, metric, claim.get("select"), flows).items()}
    a = per_replication(frame, metric, claim.get("a"), flows)
    b = per_replication(frame, metric, claim.get("b"), flows)
    if a.empty or b.empty:
        raise KeyError("a selection matches no runs")
    paired = {int(r): (a[r], b[r]) for r in a.index if r in b.index and b[r] != 0}
    if measure == "ratio":
        return {r: float(x / y) for r, (x, y) in paired.items()}
    return {r: float(100.0 * (x / y - 1.0)) for r, (x, y) in paired.items()}  # gain_pct


def _order(frame: pd.DataFrame, metric: str, flows: str, order: list[Mapping[str, Any]], over: str | None, quick: bool) -> tuple[str, str, str, int]:
    """Whether the selections fall in the listed order (highest first), at every value of
    `over` if given: (text of what was measured, verdict, why, replications). Each pair of
    neighbours is judged on its paired difference per replication, which must be > 0."""
    if over is None:
        text, holds, why, n = _order_at(frame, metric, flows, order, quick)
        if holds == "na":
            raise KeyError("a selection matches no runs")
        return text, holds, why, n
    column = param_column(over)
    if column not in frame.columns:
        raise KeyError(f"`{over}` is not a swept path of this experiment")
    points = sorted(frame[column].dropna().unique(), key=natural_key)
    judged = []
    for x in points:
        _, holds, why, n = _order_at(frame, metric, flows, [{**sel, over: x} for sel in order], quick)
        if holds != "na":
            judged.append((x, holds, why, n))
    if not judged:
        raise KeyError("a selection matches no runs")
    failing = [_fmt(x) for x, h, *_ in judged if h == "no"]
    undecided = [_fmt(x) for x, h, *_ in judged if h == "inconclusive"]
    text = f"holds at {sum(h == 'yes' for _, h, *_ in judged)} of {len(judged)} values of {over}"
    if failing:
        text += f" (not at {', '.join(failing)})"
    if undecided:
        text += f" (undecided at {', '.join(undecided)})"
    holds = combine([h for _, h, *_ in judged])
    why = "; ".join(f"at {_fmt(x)}: {w}" for x, h, w, _ in judged if h == holds and w) if holds == "inconclusive" else ""
    return text, holds, why, min(n for *_, n in judged)


def _order_at(frame: pd.DataFrame, metric: str, flows: str, order: list[Mapping[str, Any]], quick: bool) -> tuple[str, str, str, int]:
    series = [per_replication(frame, metric, sel, flows) for sel in order]
    if any(s.empty for s in series):
        return "", "na", "", 0
    means = [float(s.mean()) for s in series]
    text = " > ".join(f"{_label(sel)} {m:.4g}" for sel, m in zip(order, means))
    verdicts, whys, ns = [], [], []
    for (sel_a, a), (sel_b, b) in zip(zip(order, series), zip(order[1:], series[1:])):
        diffs = [float(a[r] - b[r]) for r in a.index if r in b.index]
        est = estimate(diffs)
        h, why = verdict(est, Band(0.0, False, math.inf, False), quick)
        verdicts.append(h)
        ns.append(est.n)
        if why:
            whys.append(f"{_label(sel_a)} - {_label(sel_b)}: {why}")
    holds = combine(verdicts)
    return text, holds, "; ".join(whys) if holds == "inconclusive" else "", min(ns)


def combine(verdicts: Sequence[str]) -> str:
    """The verdict on a claim made of parts that must all hold (an ordering's pairs, the
    points of `over`): no if one part surely fails, else inconclusive if one is
    undecided, else yes; parts that could not be measured are left out (na if all are)."""
    judged = [v for v in verdicts if v != "na"]
    if not judged:
        return "na"
    if "no" in judged:
        return "no"
    if "inconclusive" in judged:
        return "inconclusive"
    return "yes"


@dataclass(frozen=True)
class Band:
    """The measured values for which a claim holds: an interval, each end open or closed
    (infinite ends are open)."""

    low: float
    low_closed: bool
    high: float
    high_closed: bool

    def contains(self, x: float) -> bool:
        above = x > self.low or (self.low_closed and x == self.low)
        below = x < self.high or (self.high_closed and x == self.high)
        return above and below

    def empty(self) -> bool:
        return self.low > self.high or (self.low == self.high and not (self.low_closed and self.high_closed))

    def disjoint(self, low: float, high: float) -> bool:
        """Whether no value of the closed interval [low, high] is in the band."""
        return self.empty() or high < self.low or (high == self.low and not self.low_closed) or low > self.high or (low == self.high and not self.high_closed)

    def intersect(self, other: Band) -> Band:
        if other.low > self.low or (other.low == self.low and not other.low_closed):
            low, low_closed = other.low, other.low_closed
        else:
            low, low_closed = self.low, self.low_closed
        if other.high < self.high or (other.high == self.high and not other.high_closed):
            high, high_closed = other.high, other.high_closed
        else:
            high, high_closed = self.high, self.high_closed
        return Band(low, low_closed, high, high_closed)

    def text(self) -> str:
        if math.isinf(self.low) and math.isinf(self.high):
            return "any value"
        if math.isinf(self.high):
            return f"{'>=' if self.low_closed else '>'} {self.low:.4g}"
        if math.isinf(self.low):
            return f"{'<=' if self.high_closed else '<'} {self.high:.4g}"
        return f"{'[' if self.low_closed else '('}{self.low:.4g}, {self.high:.4g}{']' if self.high_closed else ')'}"


ANY = Band(-math.inf, False, math.inf, False)


def band(published: Any, expect: str | None, rough: Any, tolerance: float) -> Band | None:
    """The values for which a claim holds: `expect` (">0", "<=1.5") bounds them; a numeric
    `published` value p gives the closed band p +- b|p| (+-b when p = 0), b being the
    claim's `rough` or the paper's `tolerance`, unless `rough = false`; both together:
    the intersection. None when the claim states neither (nothing to check)."""
    out, checked = ANY, False
    if expect:
        op, bound = EXPECT.match(expect).groups()
        bound = float(bound)
        out = out.intersect({">": Band(bound, False, math.inf, False), ">=": Band(bound, True, math.inf, False),
                             "<": Band(-math.inf, False, bound, False), "<=": Band(-math.inf, False, bound, True)}[op])
        checked = True
    if isinstance(published, (int, float)) and not isinstance(published, bool) and rough is not False:
        b = float(rough) if isinstance(rough, (int, float)) and not isinstance(rough, bool) else tolerance
        half = b * abs(published) if published != 0 else b
        out = out.intersect(Band(published - half, True, published + half, True))
        checked = True
    return out if checked else None


def claim_band(claim: Claim, tolerance: float) -> Band | None:
    return band(claim.get("published"), claim.get("expect"), claim.get("rough", True), tolerance)


def verdict(est: Estimate, holding: Band | None, quick: bool = False) -> tuple[str, str]:
    """(verdict, why) of a measured estimate against the values for which the claim holds:
    yes when the 95 % interval lies inside `holding`, no when it lies wholly outside,
    inconclusive when it holds values of both kinds. Without an interval (one
    replication): at the mean with `quick` (indicative), inconclusive otherwise. `why`
    says how an inconclusive or na verdict came about ("" for yes and no)."""
    if holding is None:
        return "na", "the claim states neither a published number nor a bound to compare with"
    if est.n == 0 or math.isnan(est.mean):
        return "na", "nothing measured"
    at_mean = "yes" if holding.contains(est.mean) else "no"
    if holding.empty():
        return "no", ""
    if math.isnan(est.ci_low) or math.isnan(est.ci_high):
        if quick:
            return at_mean, ""
        return "inconclusive", f"one replication, no interval (at the mean: {at_mean})"
    if holding.contains(est.ci_low) and holding.contains(est.ci_high):
        return "yes", ""
    if holding.disjoint(est.ci_low, est.ci_high):
        return "no", ""
    return "inconclusive", f"the 95 % interval [{est.ci_low:.4g}, {est.ci_high:.4g}] holds values inside and outside {holding.text()} (at the mean: {at_mean})"


def judge(measured: float, published: Any, expect: str | None, rough: Any, tolerance: float) -> str:
    """yes / no / na at the measured mean alone, without its interval (see `band`)."""
    if measured is None or math.isnan(measured):
        return "na"
    holding = band(published, expect, rough, tolerance)
    if holding is None:
        return "na"
    return "yes" if holding.contains(measured) else "no"


def _fmt(value: Any) -> str:
    """A swept value for a note: numbers compactly, anything else as written."""
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _label(selection: Mapping[str, Any]) -> str:
    return ",".join(str(v) for v in selection.values())


def _join(*parts: str | None) -> str:
    return "; ".join(p for p in parts if p)
