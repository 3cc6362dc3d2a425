"""Measured values of published claims: selections of runs, per-replication values, the
Student-t confidence interval, and whether the claim holds.

Every value is computed per replication first (replication r of every point shares its
random streams across algorithms, so a ratio of two schemes is a paired comparison), then
averaged, with a 95 % Student-t interval over replications.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
        raise KeyError(f"no metric `{metric}`")
    if metric in RUN_METRICS or flows == "run":
        per_run = rows.groupby("key").agg(value=(metric, "first"), replication=("replication", "first"))
    else:
        agg = "sum" if flows == "sum" else "mean"
        per_run = rows.groupby("key").agg(value=(metric, agg), replication=("replication", "first"))
    return per_run.groupby("replication")["value"].mean()


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


@dataclass
class ClaimResult:
    paper: str
    id: str
    source: str
    claim: str
    published: Any
    measured: Any
    ci_low: float
    ci_high: float
    holds: str  # yes / no / na
    unit: str
    note: str

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
        }


def evaluate(paper: Paper, claim: Claim, frames: Mapping[str, pd.DataFrame]) -> ClaimResult:
    """Measure one claim on the experiments' frames (experiment id -> flows frame)."""
    base = dict(paper=paper.name, id=claim.id, source=claim.get("source"), claim=claim.get("claim"), published=claim.get("published", ""), unit=claim.get("unit", ""))
    note = claim.get("note", "")
    measure = claim.get("measure")
    if measure == "na":
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=_join(claim.get("reason"), note))
    frame = frames.get(claim.get("experiment"))
    if frame is None or frame.empty:
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=_join("no completed runs for this experiment", note))
    metric, flows = claim.get("metric"), claim.get("flows", "mean")
    scale = float(claim.get("scale", 1.0))
    if claim.get("over") is not None and measure != "order":
        return _worst_point(paper, claim, frame, base, note, scale)
    try:
        if measure == "order":
            text, ok = _order(frame, metric, flows, claim.get("order"), claim.get("over"))
            return ClaimResult(**base, measured=text, ci_low=math.nan, ci_high=math.nan, holds="yes" if ok else "no", note=note)
        values = _values(frame, measure, metric, flows, claim)
    except KeyError as e:
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=_join(f"cannot measure: {e.args[0]}", note))
    est = estimate([v * scale for v in values])
    holds = judge(est.mean, claim.get("published"), claim.get("expect"), claim.get("rough", True), paper.tolerance)
    return ClaimResult(**base, measured=est.mean, ci_low=est.ci_low, ci_high=est.ci_high, holds=holds, note=note)


def _worst_point(paper: Paper, claim: Claim, frame: pd.DataFrame, base: dict[str, Any], note: str, scale: float) -> ClaimResult:
    """A claim stated for every value of `over` ("at every error rate"): judged at each
    value; it holds if it holds at all of them, and the row shows the worst point (the
    lowest mean for a lower bound, the highest for an upper bound)."""
    over = claim.get("over")
    column = param_column(over)
    if column not in frame.columns:
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=_join(f"`{over}` is not a swept path of this experiment", note))
    points = []
    for x in sorted(frame[column].dropna().unique(), key=natural):
        at = Claim(id=claim.id, spec={**claim.spec, **{k: {**claim.get(k), over: x} for k in ("select", "a", "b") if claim.get(k) is not None}})
        try:
            values = _values(frame, claim.get("measure"), claim.get("metric"), claim.get("flows", "mean"), at)
        except KeyError:
            continue
        est = estimate([v * scale for v in values])
        if est.n:
            points.append((x, est, judge(est.mean, claim.get("published"), claim.get("expect"), claim.get("rough", True), paper.tolerance)))
    if not points:
        return ClaimResult(**base, measured="", ci_low=math.nan, ci_high=math.nan, holds="na", note=_join("cannot measure: a selection matches no runs", note))
    upper = (claim.get("expect") or "").lstrip().startswith("<")
    x, est, _ = (max if upper else min)(points, key=lambda p: p[1].mean)
    holds = "yes" if all(h == "yes" for *_, h in points) else ("na" if all(h == "na" for *_, h in points) else "no")
    failing = [_fmt(p[0]) for p in points if p[2] == "no"]
    where = f"worst of {len(points)} values of {over} at {_fmt(x)}" + (f"; fails at {', '.join(failing)}" if failing else "")
    return ClaimResult(**base, measured=est.mean, ci_low=est.ci_low, ci_high=est.ci_high, holds=holds, note=_join(where, note))


def _values(frame: pd.DataFrame, measure: str, metric: str, flows: str, claim: Claim) -> list[float]:
    if measure == "value":
        return list(per_replication(frame, metric, claim.get("select"), flows))
    a = per_replication(frame, metric, claim.get("a"), flows)
    b = per_replication(frame, metric, claim.get("b"), flows)
    if a.empty or b.empty:
        raise KeyError("a selection matches no runs")
    paired = [(a[r], b[r]) for r in a.index if r in b.index and b[r] != 0]
    if measure == "ratio":
        return [x / y for x, y in paired]
    return [100.0 * (x / y - 1.0) for x, y in paired]  # gain_pct


def _order(frame: pd.DataFrame, metric: str, flows: str, order: list[Mapping[str, Any]], over: str | None) -> tuple[str, bool]:
    """Whether the selections' means fall in the listed order (highest first), at every
    value of `over` if given; the text says what was measured."""
    import numpy as np

    if over is None:
        means = [per_replication(frame, metric, sel, flows).mean() for sel in order]
        if any(math.isnan(m) for m in means):
            raise KeyError("a selection matches no runs")
        ok = all(x > y for x, y in zip(means, means[1:]))
        return " > ".join(f"{_label(sel)} {m:.4g}" for sel, m in zip(order, means)), ok
    column = param_column(over)
    if column not in frame.columns:
        raise KeyError(f"`{over}` is not a swept path of this experiment")
    points = sorted(frame[column].dropna().unique(), key=natural)
    held = []
    for x in points:
        means = [per_replication(frame, metric, {**sel, over: x}, flows).mean() for sel in order]
        if any(np.isnan(m) for m in means):
            continue
        held.append((x, all(a > b for a, b in zip(means, means[1:]))))
    if not held:
        raise KeyError("a selection matches no runs")
    failing = [_fmt(x) for x, ok in held if not ok]
    text = f"holds at {sum(ok for _, ok in held)} of {len(held)} values of {over}"
    if failing:
        text += f" (not at {', '.join(failing)})"
    return text, not failing


def judge(measured: float, published: Any, expect: str | None, rough: Any, tolerance: float) -> str:
    """yes / no / na: `expect` (">0", "<=1.5") tests the direction or bound the claim
    states; a numeric `published` value is matched within the relative band `tolerance`
    (or the claim's own `rough`) unless `rough = false`."""
    if measured is None or math.isnan(measured):
        return "na"
    checks = []
    if expect:
        op, bound = EXPECT.match(expect).groups()
        bound = float(bound)
        checks.append({">": measured > bound, ">=": measured >= bound, "<": measured < bound, "<=": measured <= bound}[op])
    if isinstance(published, (int, float)) and not isinstance(published, bool) and rough is not False:
        band = float(rough) if isinstance(rough, (int, float)) and not isinstance(rough, bool) else tolerance
        checks.append(abs(measured - published) <= band * abs(published) if published != 0 else abs(measured) <= band)
    if not checks:
        return "na"
    return "yes" if all(checks) else "no"


def natural(value: Any) -> tuple:
    """Sort key putting numbers before text, numbers by value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def _fmt(value: Any) -> str:
    """A swept value for a note: numbers compactly, anything else as written."""
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _label(selection: Mapping[str, Any]) -> str:
    return ",".join(str(v) for v in selection.values())


def _join(*parts: str | None) -> str:
    return "; ".join(p for p in parts if p)
