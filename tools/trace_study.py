"""The README's example study: five algorithms over three shipped cellular traces, with
DropTail and with CoDel at the base station, in Pantheon's throughput-delay plane. Writes
docs/trace-study.png (CoDel at the bottleneck) and prints per algorithm and discipline the
range over the traces of goodput and p95 one-way delay (the numbers README.md and
docs/traces.md quote). Runs in a temporary folder; about 30 runs of 30 s, a few seconds.

    .venv/bin/python tools/trace_study.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import wtcp
from wtcp.sweep import load_sweep, open_store, run_sweep

ROOT = Path(__file__).resolve().parent.parent
ALGORITHMS = ["cubic", "newreno", "bbr", "vegas", "westwoodplus"]
TRACES = ["lte-markov.trace", "lte-walk.trace", "wifi-fades.trace"]


def main() -> None:
    traces = wtcp.builtin_scenario_path("cellular-trace").parent / "traces"
    sweep = load_sweep({"scenario": "cellular-trace", "algorithms": ALGORITHMS, "set": {"run.duration_s": 30.0},
                        "grid": {"links.1.ab.capacity.trace": [str(traces / t) for t in TRACES],
                                 "links.1.queue.discipline": ["droptail", "codel"]}})
    with tempfile.TemporaryDirectory() as tmp:
        store_path = Path(tmp) / "study.duckdb"
        run_sweep(sweep, store_path)
        with open_store(store_path) as store:
            flows = store.flows()
            table = flows.groupby(["links_1_queue_discipline", "algorithm"])[["goodput_mbps", "delay_p95_ms"]].agg(["min", "max"]).round(1)
            print(table.to_string())
            store.plot_delay_throughput(ROOT / "docs" / "trace-study.png", where={"links.1.queue.discipline": "codel"},
                                        title="five algorithms over three cellular traces, CoDel at the base station")


if __name__ == "__main__":
    main()
