"""Speed benchmarks: `python -m wtcp.bench`.

Comparison with ns-3, measured in the same run: the same scenario, matched to ns-3
(the `ns3` profile, `wtcp.ns3.translate.matching`, applied to both engines), runs in wtcp and in ns-3 3.44
(through wtcp's ns-3 engine), alternately, `--repeats` times; the table gives the median
CPU time of each engine's event loop and their ratio: for wtcp the CPU time of the thread
that ran the loop (`loop_cpu_seconds` of the result), for ns-3 the process CPU time of
`Simulator::Run` (the harness's `Run`), after ns-3 has been imported and the scenario
built, once with the harness's per-packet trace sinks (wtcp's metrics) and once bare
(without them: the goodput counted at the sinks, what a user's own script would have; the
same events and goodput, checked). wtcp's CPU time of the whole `Scenario.run` (parsing the TOML, building the
scenario and converting the results included) is shown beside it. Cases: reference-simple2, the validation
suite's 10-flow dumbbell and 20 flows over a lossy hop. The same cases also run with their
NewReno written in Python (`wtcp.reference_algorithms.PyNewReno`): its event-loop CPU
beside the built-in's and ns-3's, and whether its results are the built-in's bit for bit.

Scale, wtcp alone: one NewReno dumbbell template with 1, 10, 100, 1000 and 10 000 flows
over a 100 Mb/s bottleneck, and with 10 flows over 2 Mb/s, 100 Mb/s, 1 Gb/s and 10 Gb/s;
1000 flows over a random topology of 1000 routers; simulated durations chosen so that each
case runs for about a second. Each case also runs once in a fresh process that reports the
growth of its peak resident memory, per flow.

Capacity traces, wtcp alone: the 10-flow dumbbell at 12 Mb/s with the bottleneck's
forward direction at its fixed rate, following a mahimahi schedule of one opportunity per
millisecond (the same 12 Mb/s), and following a CSV rate series of the same rate; the
table gives the CPU time per event of each and its ratio to the fixed rate.

Sweeps: the share of a sweep's CPU time spent simulating. A sweep of `SWEEP_RUNS` runs of
two-hop-wireless (five algorithms x ten loss rates x ten replications) runs in this
process (`--workers 1`) into a fresh store, once with 200-s and once with 20-s runs; the
share is the sum of the runs' event-loop CPU times (each run again, directly) over the
process CPU time of the whole sweep (expansion, runs, store writes).
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wtcp.scenario import Scenario, builtin_scenario_path

FLOW_INDEX = re.compile(r"^flows\.\d+")
VALIDATION = Path(__file__).resolve().parents[2] / "validation"


def dumbbell_document(flows: int = 10, rate_mbps: float = 100.0, duration_s: float = 10.0) -> dict:
    """`flows` senders -access, 1 ms- R1 -`rate_mbps`, 10 ms, 1000 packets- R2 -access, 1 ms-
    `flows` receivers (access links at max(1 Gb/s, `rate_mbps`)); one NewReno flow per
    pair, starts spread evenly over [0, 1] s (over the first half of a shorter run); socket
    buffers of 50 ms at the bottleneck's rate (at least 1 MiB), twice the base RTT, so that
    the window, not the buffer, limits a flow up to 10 Gb/s."""
    buffer = int(max(2**20, rate_mbps * 1e6 * 0.05 / 8))
    senders = [f"S{i}" for i in range(flows)]
    receivers = [f"D{i}" for i in range(flows)]
    access = {"rate_mbps": max(1000.0, rate_mbps), "delay_ms": 1.0}
    return {
        "name": f"dumbbell-{flows}-{rate_mbps:g}mbps",
        "run": {"duration_s": duration_s},
        "tcp": {"send_buffer_bytes": buffer, "recv_buffer_bytes": buffer},
        "nodes": [{"name": n} for n in [*senders, "R1", "R2", *receivers]],
        "links": [
            *({"a": s, "b": "R1", **access} for s in senders),
            {"name": "bottleneck", "a": "R1", "b": "R2", "rate_mbps": rate_mbps, "delay_ms": 10.0, "queue": {"limit_packets": 1000}},
            *({"a": "R2", "b": d, **access} for d in receivers),
        ],
        "flows": [
            {"name": f"f{i}", "src": s, "dst": d, "cc": "newreno", "start_s": i / max(flows - 1, 1) * min(1.0, duration_s / 2)}
            for i, (s, d) in enumerate(zip(senders, receivers))
        ],
    }


def random_topology_document(nodes: int = 1000, extra_links: int = 500, flows: int = 1000, duration_s: float = 10.0, seed: int = 1) -> dict:
    """A connected random graph of `nodes` routers: a random tree (node i joins a random
    earlier node) plus `extra_links` links between random pairs, each link 10 Mb/s with a
    delay of 1-10 ms and a 100-packet queue; `flows` NewReno flows between random distinct
    pairs, starting over the first second (half the run if shorter). Drawn from `random.Random(seed)`: the same
    document every time."""
    import random

    rng = random.Random(seed)
    pairs: set[tuple[int, int]] = set()
    for i in range(1, nodes):
        pairs.add((rng.randrange(i), i))
    while len(pairs) < nodes - 1 + extra_links:
        a, b = sorted(rng.sample(range(nodes), 2))
        pairs.add((a, b))
    links = [{"a": f"n{a}", "b": f"n{b}", "rate_mbps": 10.0, "delay_ms": float(rng.randint(1, 10)), "queue": {"limit_packets": 100}} for a, b in sorted(pairs)]
    ends = [rng.sample(range(nodes), 2) for _ in range(flows)]
    return {
        "name": f"random-{nodes}-nodes",
        "run": {"duration_s": duration_s},
        "nodes": [{"name": f"n{i}"} for i in range(nodes)],
        "links": links,
        "flows": [{"name": f"f{i}", "src": f"n{a}", "dst": f"n{b}", "cc": "newreno", "start_s": i / max(flows - 1, 1) * min(1.0, duration_s / 2)}
                  for i, (a, b) in enumerate(ends)],
    }


@dataclass(frozen=True)
class ScaleCase:
    label: str
    flows: int
    rate_mbps: float
    duration_s: float  # simulated; about a second of CPU at this project's speed
    topology: str = "dumbbell"  # or "random": random_topology_document's 1000 nodes

    def document(self, duration_scale: float) -> dict:
        if self.topology == "random":
            return random_topology_document(flows=self.flows, duration_s=self.duration_s * duration_scale)
        return dumbbell_document(self.flows, self.rate_mbps, self.duration_s * duration_scale)


SCALE = [
    ScaleCase("1 flow, 100 Mb/s", 1, 100.0, 300.0),
    ScaleCase("10 flows, 100 Mb/s", 10, 100.0, 230.0),
    ScaleCase("100 flows, 100 Mb/s", 100, 100.0, 120.0),
    ScaleCase("1000 flows, 100 Mb/s", 1000, 100.0, 40.0),
    ScaleCase("10000 flows, 100 Mb/s", 10000, 100.0, 10.0),
    ScaleCase("random 1000 nodes, 1000 flows", 1000, 10.0, 1.0, "random"),
    ScaleCase("10 flows, 2 Mb/s", 10, 2.0, 10000.0),
    ScaleCase("10 flows, 1 Gb/s", 10, 1000.0, 25.0),
    ScaleCase("10 flows, 10 Gb/s", 10, 10000.0, 40.0),
]


def comparison_scenarios() -> dict[str, Scenario]:
    """The compared cases, as their files state them (before matching)."""
    return {
        "simple2": Scenario.from_file(builtin_scenario_path("reference-simple2")),
        "dumbbell-10": Scenario.from_file(VALIDATION / "scenarios" / "dumbbell-10.toml"),
        "lossy-hop-20": Scenario.from_file(VALIDATION / "scenarios" / "lossy-hop-20.toml"),
        # Modern Wi-Fi: a TCP download through an 802.11n access point with A-MPDUs.
        "wifi-n-aggregation": Scenario.from_file(builtin_scenario_path("wifi-n-aggregation")),
        # The radio channel: the same download 30 m away, ideal rate control (MCS 4 there).
        "wifi-distance": Scenario.from_file(builtin_scenario_path("wifi-distance")).with_overrides({"wifi.0.rate_control": "ideal", "wifi.0.stations.1.x": 30.0}),
        # Minstrel-HT per destination, one station walking away (ns-3: its MinstrelHt).
        "wifi-minstrel": Scenario.from_file(builtin_scenario_path("wifi-minstrel")),
    }


def matched(scenario: Scenario, duration_scale: float = 1.0) -> tuple[Scenario, dict[str, Any]]:
    """The scenario with `matching`'s overrides (the values ns-3 fixes), for both engines,
    and its simulated time (and measurement start) times `duration_scale`."""
    from wtcp.ns3.translate import matching

    overrides = matching(scenario.document)
    if duration_scale != 1.0:
        run = scenario.document["run"]
        # At least a second past the last flow's start (a flow must start within the run).
        last_start = max((f.get("start_s", 0.0) for f in scenario.document["flows"]), default=0.0)
        overrides["run.duration_s"] = max(run["duration_s"] * duration_scale, last_start + 1.0)
        if "measure_from_s" in run:
            overrides["run.measure_from_s"] = run["measure_from_s"] * duration_scale
    return scenario.with_overrides(overrides), overrides


def wtcp_cpu(scenario: Scenario) -> tuple[float, float, int]:
    """(CPU seconds of the event loop, process CPU seconds of the whole `Scenario.run`,
    events) for one wtcp run."""
    start = time.process_time()
    result = scenario.run(trace=False)
    whole = time.process_time() - start
    return float(result.raw["loop_cpu_seconds"]), whole, int(result.raw["events"])


def ns3_cpu(scenario: Scenario, bare: bool = False) -> tuple[float, int, float]:
    """(process CPU seconds of ns-3's `Simulator::Run`, events, goodput of all flows in
    bytes) for one ns-3 run of the scenario through wtcp's ns-3 engine (the same set-up as
    `wtcp.ns3.run.run_plan`). `bare`: without the harness's per-packet trace sinks (the
    same simulation, only the goodput a user's script would count at its sinks)."""
    from wtcp.ns3.run import load
    from wtcp.ns3.translate import build, plan

    p = plan(scenario.document)
    ns, gbl = load()
    ns.Simulator.Destroy()
    ns.Config.Reset()
    ns.RngSeedManager.ResetNextStreamIndex()
    ns.RngSeedManager.SetSeed(p.seed)
    ns.RngSeedManager.SetRun(p.replication)
    h = gbl.wtcpns3.Harness()
    h.bare = bare
    try:
        build(p, h, gbl.std)
        start = time.process_time()
        events = int(h.Run(p.duration_ns, p.from_ns, p.to_ns))
        cpu = time.process_time() - start
        return cpu, events, float(sum(h.Flow(i).delivered for i in range(len(p.flows))))
    finally:
        ns.Simulator.Destroy()
        h.Clear()


def in_python(scenario: Scenario) -> Scenario:
    """The scenario with every NewReno flow running the Python NewReno
    (`wtcp.reference_algorithms.PyNewReno`, registered here) with the same parameters."""
    from wtcp.algorithm import register
    from wtcp.reference_algorithms import PyNewReno

    register(PyNewReno)
    pairs: dict[str, Any] = {}
    for i, f in enumerate(scenario.document["flows"]):
        if f.get("cc") == "newreno":
            pairs[f"flows.{i}.cc"] = PyNewReno.name
            pairs[f"flows.{i}.cc_params"] = f.get("cc_params", {})
    return scenario.with_overrides(pairs)


def same_results(a: Scenario, b: Scenario) -> bool:
    """The two scenarios' results are the same, bit for bit (times and algorithm names aside)."""
    import json

    def plain(sc: Scenario) -> dict[str, Any]:
        raw = json.loads(sc.run(trace=False).to_json())
        for key in ("wall_seconds", "loop_cpu_seconds"):
            raw.pop(key)
        for f in raw["flows"]:
            f.pop("cc", None)
        return raw

    return plain(a) == plain(b)


def compare(repeats: int, use_ns3: bool, duration_scale: float) -> list[dict[str, Any]]:
    """Each case: wtcp, wtcp with the Python NewReno, and ns-3 alternately, `repeats`
    times; medians."""
    rows = []
    for name, scenario in comparison_scenarios().items():
        sc, overrides = matched(scenario, duration_scale)
        # The Python NewReno runs where a case has NewReno flows (not the Wi-Fi cases' CUBIC).
        py = in_python(sc) if any(f.get("cc", "newreno") == "newreno" for f in sc.document["flows"]) else None
        w_cpu, w_whole, n_cpu, b_cpu, p_cpu = [], [], [], [], []
        w_events = n_events = b_events = 0
        delivered = bare_delivered = 0.0
        for _ in range(repeats):
            cpu, whole, w_events = wtcp_cpu(sc)
            w_cpu.append(cpu)
            w_whole.append(whole)
            if py is not None:
                p_cpu.append(wtcp_cpu(py)[0])
            if use_ns3:
                cpu, n_events, delivered = ns3_cpu(sc)
                n_cpu.append(cpu)
                cpu, b_events, bare_delivered = ns3_cpu(sc, bare=True)
                b_cpu.append(cpu)
        row = {
            "case": name,
            "sim_seconds": sc.document["run"]["duration_s"],
            "matched": overrides,
            "wtcp_cpu_s": statistics.median(w_cpu),
            "wtcp_run_cpu_s": statistics.median(w_whole),
            "wtcp_events": w_events,
        }
        row["wtcp_ns_per_event"] = row["wtcp_cpu_s"] * 1e9 / max(w_events, 1)
        if py is not None:
            row["python_cpu_s"] = statistics.median(p_cpu)
            row["python_same_results"] = same_results(sc, py)
        if use_ns3:
            row["ns3_cpu_s"] = statistics.median(n_cpu)
            row["ns3_events"] = n_events
            row["ns3_ns_per_event"] = row["ns3_cpu_s"] * 1e9 / max(n_events, 1)
            row["ratio"] = row["ns3_cpu_s"] / max(row["wtcp_cpu_s"], 1e-9)
            row["ns3_bare_cpu_s"] = statistics.median(b_cpu)
            row["bare_ratio"] = row["ns3_bare_cpu_s"] / max(row["wtcp_cpu_s"], 1e-9)
            # The bare run is the same simulation: its events and its goodput must match.
            row["bare_same_run"] = b_events == n_events and bare_delivered == delivered
        rows.append(row)
    return rows


def peak_rss_growth_kib(document: dict) -> float:
    """How far one run of `document` (its results included) takes a fresh process's
    resident memory above what it held before the run, at its peak, KiB: the scenario is
    parsed first, the kernel's peak mark reset (`/proc/self/clear_refs`, Linux >= 4.0),
    the run made, and the peak (VmHWM) less the resident size before it (VmRSS)."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return float(pool.apply(_peak_rss_growth_kib, (document,)))


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _peak_rss_growth_kib(document: dict) -> int:
    sc = Scenario.from_dict(document)
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak resident size
    before = _status_kib("VmRSS")
    sc.run(trace=False)
    return _status_kib("VmHWM") - before


def scale(repeats: int, duration_scale: float) -> list[dict[str, Any]]:
    rows = []
    for case in SCALE:
        document = case.document(duration_scale)
        sc = Scenario.from_dict(document)
        runs = [wtcp_cpu(sc) for _ in range(repeats)]
        cpu = statistics.median(c for c, _, _ in runs)
        events = runs[-1][2]
        rows.append({"case": case.label, "sim_seconds": case.duration_s * duration_scale, "cpu_s": cpu, "events": events, "ns_per_event": cpu * 1e9 / max(events, 1),
                     "kib_per_flow": peak_rss_growth_kib(document) / case.flows})
    return rows


CAPACITY_SECONDS = 400.0  # simulated; about a second of CPU


def capacity_cost(repeats: int, duration_scale: float) -> list[dict[str, Any]]:
    """ns/event of the 12 Mb/s dumbbell at its fixed rate and with trace-driven capacity."""
    import tempfile

    duration = CAPACITY_SECONDS * duration_scale
    rows = []
    with tempfile.TemporaryDirectory() as d:
        mahimahi, csv, ramp = Path(d) / "one.trace", Path(d) / "rate.csv", Path(d) / "ramp.csv"
        mahimahi.write_text("1\n")
        csv.write_text("0,12\n1,12\n")
        ramp.write_text("0,10\n1,14\n2,10\n")
        cases = {
            "fixed 12 Mb/s": None,
            "mahimahi, 1 opportunity/ms": {"trace": str(mahimahi)},
            "CSV rate series, 12 Mb/s": {"trace": str(csv), "format": "csv"},
            "CSV linear ramps, 10-14 Mb/s": {"trace": str(ramp), "format": "csv", "interpolate": "linear"},
        }
        for label, capacity in cases.items():
            doc = dumbbell_document(10, 12.0, duration)
            bottleneck = next(link for link in doc["links"] if link.get("name") == "bottleneck")
            if capacity is not None:
                bottleneck["ab"] = {"capacity": capacity}
            sc = Scenario.from_dict(doc)
            runs = [wtcp_cpu(sc) for _ in range(repeats)]
            cpu = statistics.median(c for c, _, _ in runs)
            events = runs[-1][2]
            rows.append({"case": label, "sim_seconds": duration, "cpu_s": cpu, "events": events, "ns_per_event": cpu * 1e9 / max(events, 1)})
    for r in rows:
        r["ratio"] = r["ns_per_event"] / rows[0]["ns_per_event"]
    return rows


SWEEP_RUNS = 500
SWEEP_DURATIONS_S = (200.0, 20.0)


def sweep_document(duration_s: float, runs: int = SWEEP_RUNS) -> dict[str, Any]:
    """A sweep of `runs` runs (a multiple of 50) of two-hop-wireless."""
    return {
        "name": f"bench-{duration_s:g}s",
        "scenario": "two-hop-wireless",
        "algorithms": ["newreno", "westwoodplus", "cubic", "njplus", "dynamic"],
        "replications": max(1, runs // 50),
        "seed": 1,
        # The flow from the start, measured after the first tenth: valid for any duration.
        "set": {"run.duration_s": duration_s, "run.measure_from_s": duration_s / 10, "flows.0.start_s": 0.0},
        "grid": {"links.1.ab.loss.rate": [i * 0.005 for i in range(10)]},
    }


def sweep_share(duration_s: float, runs: int = SWEEP_RUNS) -> dict[str, Any]:
    """CPU of an in-process sweep, and the part of it that is simulation."""
    import json
    import tempfile

    from wtcp import _core
    from wtcp.sweep import InlineExecutor, load_sweep, run_sweep

    sweep = load_sweep(sweep_document(duration_s, runs))
    with tempfile.TemporaryDirectory() as d:
        start = time.process_time()
        outcome = run_sweep(sweep, Path(d) / "bench.duckdb", executor=InlineExecutor())
        total = time.process_time() - start
    simulation = 0.0
    for run in sweep.runs():
        if run.toml is None:
            continue  # an invalid run: stored as failed, nothing simulated
        metrics, _ = _core.run(run.toml, "toml", [], None)
        simulation += json.loads(metrics)["loop_cpu_seconds"]
    return {"case": f"{sweep.size()} runs of {duration_s:g} s", "runs": outcome.done, "cpu_s": total, "simulation_s": simulation, "share": simulation / max(total, 1e-9)}


def print_tables(compared: list[dict[str, Any]], scaled: list[dict[str, Any]], repeats: int, use_ns3: bool, why_no_ns3: str, swept: list[dict[str, Any]] = (),
                 capacity: list[dict[str, Any]] = ()) -> None:
    from rich.table import Table

    from wtcp.report import stdout_console

    console = stdout_console()
    table = Table(title=f"wtcp and ns-3 3.44, same scenarios matched to ns-3, run alternately; CPU seconds: median of {repeats}", title_justify="left")
    for header, justify in (("case", "left"), ("simulated s", "right"), ("wtcp run CPU s", "right"), ("wtcp loop CPU s", "right"), ("wtcp events", "right"), ("wtcp ns/event", "right"),
                            ("ns-3 CPU s", "right"), ("ns-3 events", "right"), ("ns-3 ns/event", "right"), ("ns-3 / wtcp", "right"), ("ns-3 bare CPU s", "right"),
                            ("bare / wtcp", "right")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for r in compared:
        ns3 = [f"{r['ns3_cpu_s']:.3f}", f"{r['ns3_events']:,}", f"{r['ns3_ns_per_event']:.0f}", f"{r['ratio']:.0f}x", f"{r['ns3_bare_cpu_s']:.3f}",
               f"{r['bare_ratio']:.0f}x" + ("" if r["bare_same_run"] else " (not the same run!)")] if use_ns3 else ["-"] * 6
        table.add_row(r["case"], f"{r['sim_seconds']:g}", f"{r['wtcp_run_cpu_s']:.3f}", f"{r['wtcp_cpu_s']:.3f}", f"{r['wtcp_events']:,}", f"{r['wtcp_ns_per_event']:.0f}", *ns3)
    console.print(table)
    console.print("wtcp loop CPU: CPU time of the event loop's thread; wtcp run CPU: process CPU time of the whole "
                  "Scenario.run (parse, build and results included); ns-3 CPU: process CPU time of Simulator::Run alone, "
                  "after import and build, with wtcp's per-packet trace sinks (its metrics); ns-3 bare: the same run without them, "
                  "only the goodput counted at the sinks, as a user's own script would (same events and goodput, checked). "
                  "ns-3 / wtcp, bare / wtcp: ratios of the event loops' CPU times.")
    seen = {f"{FLOW_INDEX.sub('flows.*', k)} = {v!r}": None for r in compared for k, v in r["matched"].items() if not k.startswith("run.")}
    console.print(f"matched in both engines: {', '.join(seen) or 'nothing'}")
    if not use_ns3:
        console.print(f"ns-3 not run: {why_no_ns3}")
    table = Table(title=f"NewReno written in Python (PyNewReno), same cases; loop CPU s, median of {repeats}", title_justify="left")
    for header, justify in (("case", "left"), ("built-in CPU s", "right"), ("Python CPU s", "right"), ("Python / built-in", "right"), ("ns-3 CPU s", "right"),
                            ("Python / ns-3", "right"), ("same results", "left")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for r in (r for r in compared if "python_cpu_s" in r):
        ns3 = [f"{r['ns3_cpu_s']:.3f}", f"{r['python_cpu_s'] / max(r['ns3_cpu_s'], 1e-9):.2f}"] if use_ns3 else ["-", "-"]
        table.add_row(r["case"], f"{r['wtcp_cpu_s']:.3f}", f"{r['python_cpu_s']:.3f}", f"{r['python_cpu_s'] / max(r['wtcp_cpu_s'], 1e-9):.1f}x", *ns3,
                      "yes, bit for bit" if r["python_same_results"] else "NO")
    console.print(table)
    console.print("Python CPU: the event loop's thread, which also runs the algorithm's Python hooks (one call per ACK and loss).")
    table = Table(title=f"wtcp scale: NewReno dumbbell (10 ms bottleneck, 1000-packet queue), and a random 1000-node topology; event-loop CPU seconds: median of {repeats}",
                  title_justify="left")
    for header, justify in (("case", "left"), ("simulated s", "right"), ("loop CPU s", "right"), ("events", "right"), ("ns/event", "right"), ("peak KiB/flow", "right")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for r in scaled:
        table.add_row(r["case"], f"{r['sim_seconds']:g}", f"{r['cpu_s']:.3f}", f"{r['events']:,}", f"{r['ns_per_event']:.0f}", f"{r['kib_per_flow']:.1f}")
    console.print(table)
    console.print("peak KiB/flow: how far one run (the simulation and its results) takes a fresh process's resident memory above "
                  "what it held before (the scenario parsed), at its peak, over the number of flows. random: 1000 routers, a random tree plus 500 links, "
                  "10 Mb/s, 1-10 ms, 100-packet queues; 1000 flows between random pairs.")
    if capacity:
        table = Table(title=f"capacity traces: 10-flow dumbbell, 12 Mb/s bottleneck; event-loop CPU seconds: median of {repeats}", title_justify="left")
        for header, justify in (("bottleneck", "left"), ("simulated s", "right"), ("loop CPU s", "right"), ("events", "right"), ("ns/event", "right"), ("vs fixed", "right")):
            table.add_column(header, justify=justify)  # type: ignore[arg-type]
        for r in capacity:
            table.add_row(r["case"], f"{r['sim_seconds']:g}", f"{r['cpu_s']:.3f}", f"{r['events']:,}", f"{r['ns_per_event']:.0f}", f"{r['ratio']:.2f}x")
        console.print(table)
    if swept:
        table = Table(title="sweeps of two-hop-wireless in one process (--workers 1): CPU spent simulating", title_justify="left")
        for header, justify in (("sweep", "left"), ("sweep CPU s", "right"), ("event loops CPU s", "right"), ("simulating", "right")):
            table.add_column(header, justify=justify)  # type: ignore[arg-type]
        for r in swept:
            table.add_row(r["case"], f"{r['cpu_s']:.2f}", f"{r['simulation_s']:.2f}", f"{100 * r['share']:.0f} %")
        console.print(table)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m wtcp.bench", description="Speed of wtcp, and of ns-3 on the same scenarios.")
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (medians); default 3")
    parser.add_argument("--quick", action="store_true", help="one run per case")
    parser.add_argument("--no-ns3", action="store_true", help="wtcp alone (the comparison table shows wtcp's side)")
    parser.add_argument("--duration-scale", type=float, default=1.0, help="multiply every simulated duration (e.g. 0.01 for a smoke test)")
    parser.add_argument("--sweep-runs", type=int, default=SWEEP_RUNS, help=f"runs of each sweep case (a multiple of 50; 0: none); default {SWEEP_RUNS}")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    if repeats < 1 or args.duration_scale <= 0:
        parser.error("--repeats and --duration-scale must be positive")
    if args.sweep_runs < 0 or args.sweep_runs % 50:
        parser.error("--sweep-runs must be a multiple of 50 (0 for none)")
    from wtcp.ns3 import available

    use_ns3 = not args.no_ns3 and available()
    why = "--no-ns3" if args.no_ns3 else "the ns3 package (ns-3 3.44) is not installed: pip install 'wtcp[ns3]'"
    compared = compare(repeats, use_ns3, args.duration_scale)
    scaled = scale(repeats, args.duration_scale)
    capacity = capacity_cost(repeats, args.duration_scale)
    swept = [sweep_share(d * args.duration_scale, args.sweep_runs) for d in SWEEP_DURATIONS_S] if args.sweep_runs else []
    print_tables(compared, scaled, repeats, use_ns3, why, swept, capacity)


if __name__ == "__main__":
    main()
