"""One validation scenario with the same packets lost in both engines (common random
numbers): each seed draws, for each loss rate, which data packets of the lossy hop are
lost (the nth packet the model sees, independently with the rate's probability) and both
engines run that list. While the engines send the same sequence they lose the same
segments, so the difference between them is no longer the difference between two draws.

    python tools/common_losses.py [--scenario simple2] [--seeds 3] [--packets 70000]

Prints, per point, the goodput difference with independent draws (the stored suite
result, validation/results.json) and with common losses, and how many points each puts
within 5 %. Runs both engines (ns-3 3.44 through the crosscheck's pairing); simple2 takes
about ten minutes of CPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from pathlib import Path

from wtcp.crosscheck import FLAG_PERCENT, EngineStats, Row, cases, run_case
from wtcp.validate import default_suite_dir, load_suite, variant_of


def lost_packets(seed: int, rate: float, packets: int) -> list[int]:
    """Packets 1..`packets` each lost with probability `rate`, from a stream fixed by the
    seed and the rate (the same list for every algorithm and variant)."""
    rng = random.Random(f"common-losses/{seed}/{rate}")
    return [k for k in range(1, packets + 1) if rng.random() < rate]


def mean_diff(wtcp: list[float], ns3: list[float]) -> float:
    """The goodput difference of the seeds' means, as the suite computes it (`Row`)."""
    return Row("", {}, EngineStats(goodput_mbps=list(wtcp)), EngineStats(goodput_mbps=list(ns3))).diff_percent()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="simple2")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--packets", type=int, default=70_000, help="data packets the loss list covers")
    ap.add_argument("--results", type=Path, default=Path("validation/results.json"))
    args = ap.parse_args()

    suite = load_suite(default_suite_dir(), only=[args.scenario])
    spec = suite.scenarios[0]
    model_path = spec.loss_path.rsplit(".", 1)[0]  # links.N.ab.loss
    stored = {}
    if args.results.exists():
        for p in json.loads(args.results.read_text())["points"]:
            if p["scenario"] == spec.name:
                stored[(p["algorithm"], p["variant"], p["loss"])] = p["diff_percent"]
    points = [{**v.set, spec.loss_path: rate} for v in spec.variants for rate in spec.loss_rates if rate > 0]
    within = {"drawn": 0, "common": 0}
    print(f"{'algorithm':<13} {'variant':<8} {'loss':>5}  {'drawn':>8}  {'common':>8}")
    for case in cases(spec.scenario(), points, spec.algorithms):
        rate = float(case.point[spec.loss_path])
        w, n = [], []
        for seed in range(1, args.seeds + 1):
            losses = {model_path: {"model": "list", "packets": lost_packets(seed, rate, args.packets)}}
            one = dataclasses.replace(case, wtcp=case.wtcp.with_overrides(losses), ns3=case.ns3.with_overrides(losses) if case.ns3 else None)
            row = run_case(one, [seed], None, (), None)
            w += row.wtcp.goodput_mbps
            n += row.ns3.goodput_mbps
        common = mean_diff(w, n)
        variant = variant_of(spec, case.point).name
        drawn = stored.get((case.label, variant, rate))
        within["common"] += abs(common) <= FLAG_PERCENT
        within["drawn"] += drawn is not None and abs(drawn) <= FLAG_PERCENT
        shown = f"{drawn:+7.1f}%" if drawn is not None else "       -"
        print(f"{case.label:<13} {variant:<8} {rate:>5.2f}  {shown}  {common:+7.1f}%", flush=True)
    total = len(points) * len(spec.algorithms)
    print(f"within {FLAG_PERCENT:g} %: drawn independently {within['drawn']} of {total}, common losses {within['common']} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
