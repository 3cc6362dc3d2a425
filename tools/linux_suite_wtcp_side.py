"""Run wtcp's side of the linux validation suite again and compare it with the kernel's
numbers stored in the suite's results, point by point, without running the kernel.

`wtcp validate --against linux` takes about 37 minutes of real time (the kernel runs in
real time); after a change to wtcp's model this shows in seconds whether wtcp's numbers
move (docs/linux-engine.md). The cwnd agreement needs the kernel's traces and is not
recomputed. Extra `--set PATH=VALUE` overrides apply to wtcp's runs only.

    python tools/linux_suite_wtcp_side.py
    python tools/linux_suite_wtcp_side.py --set 'tcp.cwnd_limited="assumed"'
"""

import argparse
import json
import statistics
from pathlib import Path

from wtcp.scenario import Scenario
from wtcp.validate_linux import FLAG_PERCENT, Side, load_suite

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=ROOT / "validation" / "linux")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="an override for wtcp's runs (TOML value)")
    args = ap.parse_args()
    suite = load_suite(args.suite)
    stored = json.loads((args.suite / "results.json").read_text(encoding="utf-8"))["points"]
    specs = {s.name: s for s in suite.scenarios}
    extra = [tuple(a.split("=", 1)) for a in args.set]
    within = {"stored": 0, "now": 0}
    for p in stored:
        spec = specs[p["scenario"]]
        sc = Scenario.from_file(spec.file)
        flows = len(sc.document.get("flows", []))
        base = sc.with_overrides({spec.loss_path: p["loss"], "run.duration_s": suite.duration_s + 1.0,
                                  **{f"flows.{i}.cc": p["algorithm"] for i in range(flows)}}).with_text_overrides(extra)
        side = Side()
        for rep in range(1, suite.repetitions + 1):
            side.add(base.run(seed=rep).raw)
        kernel = statistics.fmean(p["linux"]["goodput_mbps"])
        was, now = statistics.fmean(p["wtcp"]["goodput_mbps"]), side.mean("goodput_mbps")
        d_was, d_now = (was - kernel) / kernel * 100, (now - kernel) / kernel * 100
        within["stored"] += abs(d_was) <= FLAG_PERCENT
        within["now"] += abs(d_now) <= FLAG_PERCENT
        print(f"{p['scenario']:18} {p['algorithm']:8} {p['loss']:.2f}  kernel {kernel:.3f}  wtcp stored {was:.3f} ({d_was:+.1f} %)  now {now:.3f} ({d_now:+.1f} %)")
    print(f"within {FLAG_PERCENT:g} %: stored {within['stored']}, now {within['now']} of {len(stored)}")


if __name__ == "__main__":
    main()
