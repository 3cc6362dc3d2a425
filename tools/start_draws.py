"""Run one scenario with each flow's start time moved by a random offset, in wtcp or ns-3,
and print the summed TCP goodput per draw and its mean and standard deviation.

A lossless point draws nothing in either engine, so its seeds repeat one trajectory; this
samples the trajectories instead (docs/validation.md, NewReno). The same draw gives both
engines the same start times.

    python tools/start_draws.py validation/scenarios/dumbbell-10.toml --engine ns3 \
        --draws 10 --max-offset-s 0.001 --set tcp.sack=false --set 'tcp.recovery="classic"'
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path

WTCP = Path(sys.executable).with_name("wtcp")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--engine", choices=("wtcp", "ns3"), default="wtcp")
    ap.add_argument("--profile", default="ns3")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--max-offset-s", type=float, default=0.001, help="offsets are uniform in [0, this), seconds")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="passed to wtcp run")
    a = ap.parse_args()
    flows = tomllib.loads(a.scenario.read_text())["flows"]
    goodputs = []
    for draw in range(a.draws):
        rng = random.Random(1000 + draw)
        sets = [f"flows.{k}.start_s={f.get('start_s', 0.0) + rng.uniform(0, a.max_offset_s):.9f}" for k, f in enumerate(flows)]
        cmd = [str(WTCP), "run", str(a.scenario), "--profile", a.profile, "--seed", "1", "--json", "--engine", a.engine]
        for s in sets + a.set:
            cmd += ["--set", s]
        d = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        tcp = [f for f in d["flows"] if f["kind"] == "tcp"]
        g = sum(f["goodput_bps"] for f in tcp) / 1e6
        goodputs.append(g)
        print(f"{a.engine} draw {draw}: {g:.3f} Mb/s, {sum(f['retransmitted_segments'] for f in tcp)} retransmissions, "
              f"{sum(f['timeouts'] for f in tcp)} timeouts", flush=True)
    sd = statistics.stdev(goodputs) if len(goodputs) > 1 else 0.0
    print(f"{a.engine}: mean {statistics.mean(goodputs):.3f} Mb/s, sd {sd:.3f}, min {min(goodputs):.3f}, max {max(goodputs):.3f}")


if __name__ == "__main__":
    main()
