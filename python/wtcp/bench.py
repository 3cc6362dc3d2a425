"""Speed and memory benchmarks: `python -m wtcp.bench`.

Cases: (a) the ns-3 reference scenario simple2 at 1 % loss, 200 s, 5 runs; (b) a
100-flow NewReno dumbbell with a 100 Mb/s bottleneck, 100 s, 1 run; (c) case (a) for
400 s, to show that memory does not grow with simulated time; (d) the 4-hop 802.11b
chain with one TCP flow, 200 s; (e) Bianchi's saturation case: 20 802.11b stations
sending saturating CBR to one access point, 20 s. Each case runs in a fresh interpreter
so that its peak memory (maxrss) is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from wtcp.scenario import Scenario, builtin_scenario_path

# ns-3 3.44 on case (a), from the reference measurements the scenario file cites.
NS3_CASE_A_WALL_S = 0.75
NS3_CASE_A_EVENTS_PER_S = 0.6e6


def reference_scenario(duration_s: float | None = None) -> Scenario:
    """reference-simple2 with 1 % uniform loss on its wireless hop."""
    scenario = Scenario.from_file(builtin_scenario_path("reference-simple2"))
    links = scenario.document["links"]
    wireless = next(i for i, link in enumerate(links) if link.get("name") == "wireless")
    scenario = scenario.set(f"links.{wireless}.ab.loss", {"model": "uniform", "rate": 0.01})
    if duration_s is not None:
        scenario = scenario.set("run.duration_s", duration_s)
    return scenario


def dumbbell_document(flows: int = 100, duration_s: float = 100.0) -> dict:
    """`flows` senders -1 Gb/s, 1 ms- R1 -100 Mb/s, 10 ms, 1000 packets- R2 -1 Gb/s, 1 ms-
    `flows` receivers; one NewReno flow per pair, starts spread evenly over [0, 1] s."""
    senders = [f"S{i}" for i in range(flows)]
    receivers = [f"D{i}" for i in range(flows)]
    access = {"rate_mbps": 1000.0, "delay_ms": 1.0}
    return {
        "name": f"dumbbell-{flows}",
        "run": {"duration_s": duration_s},
        "nodes": [{"name": n} for n in [*senders, "R1", "R2", *receivers]],
        "links": [
            *({"a": s, "b": "R1", **access} for s in senders),
            {"name": "bottleneck", "a": "R1", "b": "R2", "rate_mbps": 100.0, "delay_ms": 10.0, "queue": {"limit_packets": 1000}},
            *({"a": "R2", "b": d, **access} for d in receivers),
        ],
        "flows": [
            {"name": f"f{i}", "src": s, "dst": d, "cc": "newreno", "start_s": i / max(flows - 1, 1)}
            for i, (s, d) in enumerate(zip(senders, receivers))
        ],
    }


def saturated_wifi_document(stations: int = 20, duration_s: float = 20.0) -> dict:
    """`stations` 802.11b stations around an access point, each sending 1500-byte IP packets
    at 11 Mb/s of CBR (more than the channel carries: every queue stays full)."""
    names = [f"STA{i}" for i in range(stations)]
    return {
        "name": f"saturated-wifi-{stations}",
        "run": {"duration_s": duration_s},
        "nodes": [{"name": n} for n in ["AP", *names]],
        "wifi": [
            {
                "name": "wlan",
                "phy": "b",
                "stations": [{"node": "AP", "x": 0.0, "y": 0.0}, *({"node": n, "x": 10.0, "y": float(i)} for i, n in enumerate(names))],
            }
        ],
        "flows": [{"kind": "cbr", "name": f"c{i}", "src": n, "dst": "AP", "rate_mbps": 11.0, "packet_bytes": 1472} for i, n in enumerate(names)],
    }


@dataclass(frozen=True)
class Case:
    label: str
    build: Callable[[], Scenario]
    repeats: int


CASES = {
    "a": Case("simple2, 1 % loss, 200 s", lambda: reference_scenario(), 5),
    "b": Case("dumbbell, 100 flows, 100 s", lambda: Scenario.from_dict(dumbbell_document()), 1),
    "c": Case("simple2, 1 % loss, 400 s", lambda: reference_scenario(duration_s=401.0), 5),
    "d": Case("802.11b 4-hop chain, 200 s", lambda: Scenario.from_file(builtin_scenario_path("chain-4hop")), 1),
    "e": Case("802.11b, 20 saturated stations, 20 s", lambda: Scenario.from_dict(saturated_wifi_document()), 1),
}


def maxrss_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10  # bytes on macOS, KiB elsewhere


def measure(name: str) -> dict:
    """Run one case in this process; wall time is the median over its repeats."""
    case = CASES[name]
    scenario = case.build()
    baseline = maxrss_mib()
    walls, result = [], None
    for _ in range(case.repeats):
        start = time.perf_counter()
        result = scenario.run(trace=False)
        walls.append(time.perf_counter() - start)
    raw = result.raw
    wall = statistics.median(walls)
    peak = maxrss_mib()
    return {
        "case": name,
        "label": case.label,
        "repeats": case.repeats,
        "sim_seconds": raw["sim_seconds"],
        "wall_s": wall,
        "events": raw["events"],
        "events_per_s": raw["events"] / wall,
        "packets_per_s": (sum(d["tx_packets"] for d in raw["drops"]) + sum(w["attempts"] for w in raw.get("wifi", []))) / wall,
        "peak_rss_mib": peak,
        "rss_over_baseline_mib": peak - baseline,
    }


def measure_in_subprocess(name: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "wtcp.bench", "--case", name], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def print_table(rows: list[dict]) -> None:
    from rich.table import Table

    from wtcp.report import stdout_console

    table = Table(title="wtcp benchmarks (wall: median of the runs; peak RSS of a fresh process)", title_justify="left")
    table.add_column("case")
    table.add_column("scenario")
    for header in ("runs", "wall s", "events", "M events/s", "M pkts/s", "peak RSS MiB", "Δ RSS MiB"):
        table.add_column(header, justify="right")
    for r in rows:
        table.add_row(
            r["case"],
            r["label"],
            str(r["repeats"]),
            f"{r['wall_s']:.3f}",
            f"{r['events']:,}",
            f"{r['events_per_s'] / 1e6:.2f}",
            f"{r['packets_per_s'] / 1e6:.2f}",
            f"{r['peak_rss_mib']:.1f}",
            f"{r['rss_over_baseline_mib']:.1f}",
        )
    console = stdout_console()
    console.print(table)
    console.print("M pkts/s: link transmissions (802.11: channel accesses) per second of wall time; Δ RSS: growth of the peak during the runs")
    by_case = {r["case"]: r for r in rows}
    if "a" in by_case:
        a = by_case["a"]
        console.print(
            f"ns-3 3.44 on case a: {NS3_CASE_A_WALL_S} s event loop, ~{NS3_CASE_A_EVENTS_PER_S / 1e6:.1f} M events/s; "
            f"wtcp: {a['wall_s']:.3f} s ({NS3_CASE_A_WALL_S / a['wall_s']:.0f}x faster)"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m wtcp.bench", description="Speed and memory benchmarks of wtcp.")
    parser.add_argument("--case", choices=sorted(CASES), help="run one case in this process and print its numbers as JSON")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(measure(args.case)))
        return
    print_table([measure_in_subprocess(name) for name in CASES])


if __name__ == "__main__":
    main()
