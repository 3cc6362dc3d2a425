"""Ablations: a paper's reasons for its mismatches, tested.

A reason is a hypothesis until an experiment shows it. An ablation (`[[ablations]]` in
paper.toml, `spec.Ablation`) re-runs one experiment with one factor changed and measures
the claims it explains again; its prediction says what the reason implies, and `predict`
checks it against the two measurements:

- `toward_published`: the ablated mean is closer to the published value than the base
  mean by at least `share` (default 0.5) of the gap, |ablated - p| <= (1 - share) |base - p|.
  It holds when that is so and the change is not noise (the 95 % interval of the change
  excludes 0); it does not hold when the distance rule fails; otherwise inconclusive.
- `closes`: the claim holds under the ablation. The ablated verdict decides: yes -> held,
  no -> did not hold, inconclusive -> inconclusive.
- `no_change`: the factor does not matter for the mismatch: the change is smaller than
  `share` of the gap, |change| <= share |base - p|. It holds when the whole 95 % interval
  of the change lies within +-share |base - p|, does not hold when the mean change is
  beyond it; otherwise inconclusive. For an ordering: the verdict stays the same.

p is the claim's published value, or the bound of its `expect` when it has no number.
The change is ablated - base, paired by replication when both are measured on the same
selection (the same seed and replication indices run in both), else the difference of
the means with the two half-widths added in quadrature. Without an interval (one
replication) a rule that needs one is decided on the means with --quick (indicative) and
is inconclusive in a full reproduction.

`explain` then writes each claim's `reason` and `evidence` (see docs/reproduction.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wtcp.reproduce.measure import ClaimResult, Estimate, estimate
from wtcp.reproduce.spec import Ablation, Claim, Paper

HELD, NOT_HELD, UNDECIDED, NOT_MEASURED = "held", "did not hold", "inconclusive", "na"
OUTCOMES = (HELD, NOT_HELD, UNDECIDED, NOT_MEASURED)


@dataclass
class AblationResult:
    """One claim re-measured under one ablation, and whether the prediction held."""

    ablation: Ablation
    claim: Claim
    base: ClaimResult
    ablated: ClaimResult
    change: Estimate  # ablated - base (NaN when not numeric)
    outcome: str  # one of OUTCOMES
    why: str  # how the outcome was decided

    def evidence(self) -> str:
        """One line: `id: base -> ablated unit (published p); change ...; prediction ... held`."""
        a, b, c = self.ablation, self.base, self.ablated
        unit = f" {b.unit}" if b.unit else ""
        if b.numeric() or c.numeric():
            measured = f"{_num(b.measured)} -> {_num(c.measured)}{unit}"
        else:
            measured = f"{b.measured or b.holds} -> {c.measured or c.holds}"
        published = f" (published {_num(b.published)})" if b.published not in ("", None) else ""
        change = ""
        if not math.isnan(self.change.mean):
            change = f"; change {self.change.mean:+.4g}"
            if not math.isnan(self.change.ci_low):
                change += f" [{self.change.ci_low:+.4g}, {self.change.ci_high:+.4g}]"
        verdicts = f"; verdict {b.holds} -> {c.holds}"
        tail = {HELD: "held", NOT_HELD: "did not hold", UNDECIDED: f"is inconclusive ({self.why})", NOT_MEASURED: f"could not be checked ({self.why})"}[self.outcome]
        return f"{a.id}: {measured}{published}{change}{verdicts}; prediction {a.predict}{_share(a)} {tail}"

    def row(self) -> dict[str, Any]:
        a, b, c = self.ablation, self.base, self.ablated
        return {
            "ablation": a.id,
            "claim": b.id,
            "experiment": a.experiment,
            "factor": a.describe(),
            "reason": a.reason,
            "prediction": a.predict,
            "share": a.share,
            "published": b.published,
            "unit": b.unit,
            "base": b.measured,
            "base_ci_low": b.ci_low,
            "base_ci_high": b.ci_high,
            "base_verdict": b.holds,
            "ablated": c.measured,
            "ablated_ci_low": c.ci_low,
            "ablated_ci_high": c.ci_high,
            "ablated_verdict": c.holds,
            "change": self.change.mean,
            "change_ci_low": self.change.ci_low,
            "change_ci_high": self.change.ci_high,
            "outcome": self.outcome,
            "why": self.why,
            "mode": b.mode,
        }


ABLATION_COLUMNS = [
    "ablation", "claim", "experiment", "factor", "reason", "prediction", "share", "published", "unit",
    "base", "base_ci_low", "base_ci_high", "base_verdict", "ablated", "ablated_ci_low", "ablated_ci_high", "ablated_verdict",
    "change", "change_ci_low", "change_ci_high", "outcome", "why", "mode",
]


def _share(a: Ablation) -> str:
    return f" (share {a.share:g})" if a.predict in ("toward_published", "no_change") else ""


def _num(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)


def change(base: ClaimResult, ablated: ClaimResult) -> Estimate:
    """ablated - base: paired by replication when both rows measure the same selection
    (same `where`) and share replications, else the difference of the means with the
    half-widths added in quadrature (NaN interval if either has none)."""
    if not (base.numeric() and ablated.numeric()):
        return Estimate(math.nan, math.nan, math.nan, 0)
    if base.where == ablated.where and base.values and ablated.values:
        common = [r for r in base.values if r in ablated.values]
        if common and len(common) == len(base.values) == len(ablated.values):
            return estimate([ablated.values[r] - base.values[r] for r in common])
    mean = ablated.measured - base.measured
    halves = [x.ci_high - x.measured for x in (base, ablated)]
    if any(math.isnan(h) for h in halves):
        return Estimate(mean, math.nan, math.nan, min(base.n, ablated.n))
    half = math.hypot(*halves)
    return Estimate(mean, mean - half, mean + half, min(base.n, ablated.n))


def predict(ablation: Ablation, claim: Claim, base: ClaimResult, ablated: ClaimResult, quick: bool) -> AblationResult:
    """Re-measured claim -> whether the ablation's prediction held (rules in the module
    docstring)."""
    delta = change(base, ablated)

    def result(outcome: str, why: str = "") -> AblationResult:
        return AblationResult(ablation, claim, base, ablated, delta, outcome, why)

    if base.holds == "na" or ablated.holds == "na":
        which = "under the ablation" if ablated.holds == "na" else "in the base experiment"
        reason = (ablated if ablated.holds == "na" else base).reason
        return result(NOT_MEASURED, f"not measured {which}" + (f": {reason}" if reason else " (no run measured it)"))
    decided = ("yes", "no")
    if ablation.predict == "closes":
        outcome = {"yes": HELD, "no": NOT_HELD}.get(ablated.holds, UNDECIDED)
        return result(outcome, f"the ablated verdict is {ablated.holds}" + (f": {ablated.why}" if ablated.why else ""))
    if not (base.numeric() and ablated.numeric()):  # an ordering: only its verdict can be compared
        if base.holds in decided and ablated.holds in decided:
            return result(HELD if base.holds == ablated.holds else NOT_HELD, "")
        return result(UNDECIDED, f"verdict {base.holds} -> {ablated.holds}")
    target = claim.target()
    if target is None:
        return result(NOT_MEASURED, "the claim has neither a published number nor a bound")
    gap = abs(base.measured - target)
    no_interval = math.isnan(delta.ci_low)
    if ablation.predict == "toward_published":
        if gap == 0:
            return result(NOT_MEASURED, "the base measurement equals the published value: no gap to close")
        if abs(ablated.measured - target) > (1.0 - ablation.share) * gap:
            return result(NOT_HELD, "")
        if no_interval:
            return result(HELD, "") if quick else result(UNDECIDED, "one replication: the change has no interval")
        if delta.ci_low > 0 or delta.ci_high < 0:
            return result(HELD, "")
        return result(UNDECIDED, f"the change is within noise: its 95 % interval [{delta.ci_low:+.4g}, {delta.ci_high:+.4g}] includes 0")
    # no_change
    margin = ablation.share * gap
    if abs(delta.mean) > margin:
        return result(NOT_HELD, "")
    if no_interval:
        return result(HELD, "") if quick else result(UNDECIDED, "one replication: the change has no interval")
    if -margin <= delta.ci_low and delta.ci_high <= margin:
        return result(HELD, "")
    return result(UNDECIDED, f"the 95 % interval of the change [{delta.ci_low:+.4g}, {delta.ci_high:+.4g}] reaches beyond +-{margin:.4g}, the change that would matter")


def explain(paper: Paper, results: Sequence[ClaimResult], ablations: Sequence[AblationResult]) -> None:
    """Fill each claim's `reason` and `evidence` in place.

    evidence: every ablation that explains the claim, with what it measured. reason,
    for a verdict other than yes: na -> why it was not measured; no -> per ablation its
    reason if the prediction held, "refuted: <reason>" if it did not, "untested: <reason>
    (<id> inconclusive)" otherwise; no ablation -> "untested", or "untested: <the claim's
    own reason>"; inconclusive -> how the interval straddles, then the same."""
    by_claim: dict[str, list[AblationResult]] = {}
    for a in ablations:
        by_claim.setdefault(a.claim.id, []).append(a)
    for r in results:
        tested = by_claim.get(r.id, [])
        r.evidence = "; ".join(a.evidence() for a in tested)
        if r.holds == "yes":
            r.reason = ""
            continue
        if r.holds == "na":
            r.reason = r.reason or r.why or "not measured"
            continue
        parts = [_reason(a) for a in tested]
        if not parts:
            hand = paper.claim(r.id).get("reason")
            parts = [f"untested: {hand}"] if hand else (["untested"] if r.holds == "no" else [])
        r.reason = "; ".join(([f"inconclusive: {r.why}"] if r.holds == "inconclusive" and r.why else []) + parts)


def _reason(a: AblationResult) -> str:
    if a.outcome == HELD:
        return a.ablation.reason
    if a.outcome == NOT_HELD:
        return f"refuted: {a.ablation.reason}"
    what = "inconclusive" if a.outcome == UNDECIDED else "not measured"
    return f"untested: {a.ablation.reason} ({a.ablation.id} {what})"


def mark_copies(results: Sequence[ClaimResult], copies: Mapping[str, str]) -> None:
    """Set `copied_from` of the claims whose published value repeats another's."""
    for r in results:
        r.copied_from = copies.get(r.id, "")


def counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Verdicts counted with each copied claim once (a copy is not counted; `copies` says
    how many were left out)."""
    out = {"yes": 0, "no": 0, "inconclusive": 0, "na": 0, "copies": 0}
    for r in results:
        if r.copied_from:
            out["copies"] += 1
        else:
            out[r.holds] += 1
    return out
