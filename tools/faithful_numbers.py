"""Before -> after numbers for the paper readings settled in docs/faithfulness.md.

Every settled reading keeps the earlier one as a named option, so "before" is the earlier
option set and "after" the current defaults, run side by side over the same seeds:

    python tools/faithful_numbers.py            # every scheme
    python tools/faithful_numbers.py dynamic    # one case (see CASES)
    python tools/faithful_numbers.py dynamic-queue taichung-timeouts njplus-window \
        njplus-reno-marks njplus-table2-path wifi-backoff clap-rts dynamic-backoff

Prints one line per (case, point, algorithm variant): mean over the seeds of the flows'
summed goodput (Mb/s), retransmitted segments, timeouts, and the case's extra metric.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field

from pathlib import Path

import wtcp

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Case:
    """One scheme's headline comparison."""

    name: str
    scenario: str
    # (label, overrides) per point of the comparison
    points: list[tuple[str, dict]]
    # (label, cc, cc_params or None for the defaults[, scenario overrides]) per variant
    variants: list[tuple]
    # flows whose cc is set (indices)
    flows: tuple[int, ...] = (0,)
    base: dict = field(default_factory=dict)
    seeds: int = 5
    # only flows whose name starts with this are summed ("" = every TCP flow)
    flow_prefix: str = ""
    # an algorithm variable reported as its median after `trace_from_s`, in units of `scale`
    trace_var: str | None = None
    trace_from_s: float = 35.0
    scale: float = 1e6
    # report Jain's fairness index over the summed flows
    jain: bool = False


def loss(rate: float, link: int = 1) -> dict:
    return {f"links.{link}.ab.loss.rate": rate}


ACC_BEFORE = {"halve": "flight_size", "repeated_timeouts": "rfc5681"}
# 802.11 retry limits counted as retransmissions (8 / 5 attempts), EIFS at the basic
# rate, and every station's give-up relayed to the sender.
WIFI_BEFORE = {"wifi.0.short_retry_limit": 8, "wifi.0.long_retry_limit": 5, "wifi.0.eifs": "basic_rate",
               "wifi.0.mac_hint": "relay"}
EWR_BEFORE = {"ocwnd_source": "mirror", "ack_rule": "newreno_floor", "fast_recovery": True, "receiver_rtt": "probe", "window_size": "flight"}
NJ_BEFORE = {"tabe_bytes": "cumulative_ack", "timeout_ssthresh": "first_expiry"}
NJPLUS_BEFORE = {"new_jersey": {"tabe_bytes": "cumulative_ack", "abe_bytes": "cumulative_ack", "timeout_ssthresh": "first_expiry"},
                 "previous_ownd": "previous_ack"}
EWR_DUMBBELL = "python/wtcp/papers/ewr/ewr-dumbbell.toml"
DYNAMIC_BEFORE = {"ssthresh_from": "bdp", "cap_growth": True, "abw": {"off_weight": "congestion"}}

CASES = [
    Case(
        "dynamic",
        "two-hop-wireless",
        [(f"{r:.0%} loss", loss(r)) for r in (0.0, 0.01, 0.02, 0.05)],
        [("reno", "reno", None), ("before", "dynamic", DYNAMIC_BEFORE), ("after", "dynamic", {})],
        trace_var="abw_bps",
    ),
    Case(
        "prairie",
        "two-hop-wireless",
        [(f"{r:.0%} loss", loss(r)) for r in (0.0, 0.01, 0.02, 0.05)],
        [("before", "prairie", {"abw": {"off_weight": "congestion"}}), ("after", "prairie", {})],
        trace_var="abw_bps",
    ),
    Case(
        "taichung",
        "taichung-dumbbell",
        [(f"{n} flows, {r:.0%} loss", {"flows.0.count": n, "links.3.ab.loss": {"model": "uniform", "rate": r}})
         for n in (1, 20) for r in (0.0, 0.01, 0.05, 0.1)],
        [("newreno", "newreno", None), ("before", "taichung", {"interack_filter": "ratio_or_above_average"}), ("after", "taichung", {})],
        base={"flows.0.start_stagger_s": 0.5, "flows.1.count": 0},
        seeds=3,
    ),
    Case(
        "ewr",
        EWR_DUMBBELL,
        [(f"1 flow, {r:.0%} loss", loss(r)) for r in (0.0, 0.01, 0.05)]
        + [("10 flows, 1% loss", {**loss(0.01), "flows.0.count": 10, "flows.1.count": 0})],
        [("newreno", "newreno", None), ("before", "ewr", EWR_BEFORE), ("after", "ewr", {})],
        flow_prefix="main",
    ),
    Case(
        "njplus",
        "njplus-two-hop",
        [(f"{r:.0%} loss", loss(r)) for r in (0.0, 0.01, 0.05)]
        + [(f"10 flows, {r:.0%} loss", {**loss(r), "flows.0.count": 10, "flows.0.start_stagger_s": 0.1}) for r in (0.0, 0.01)],
        [("newjersey before", "newjersey", NJ_BEFORE), ("newjersey after", "newjersey", {}),
         ("njplus before", "njplus", NJPLUS_BEFORE), ("njplus after", "njplus", {}),
         ("westwood paper", "westwood", {}), ("westwood ns2", "westwood", {"flavour": "ns2"})],
        jain=True,
    ),
    Case(
        "wifi",
        "wifi-one-hop",
        [(f"BER {b}", {"wifi.0.ber": b}) for b in (0.0, 6e-5, 1e-4)],
        [("newreno before", "newreno", None, WIFI_BEFORE), ("newreno after", "newreno", None),
         ("clap before", "clap", None, WIFI_BEFORE), ("clap after", "clap", None)],
    ),
    Case(
        "acc",
        "clap-interference",
        [(f"MAC BER {p} % per byte", {"wifi.0.ber": b}) for p, b in (("0", 0.0), ("0.07", 8.75268e-5), ("0.1", 1.25055e-4))],
        [("newreno", "newreno", None), ("acc before", "acc", ACC_BEFORE), ("acc after", "acc", {}),
         ("clap before", "clap", ACC_BEFORE), ("clap after", "clap", {})],
        flows=(0, 1, 2),
        base={"flows.3.count": 0},
    ),
]


# The third reading's set-up findings (docs/faithfulness.md, "Whose defaults"): each
# compares the earlier set-up ("before") with the settled one ("after"), one change at a
# time, on the paper's own set-up.
FAULTS = {f"links.1.{d}.{k}": v for d in ("ab", "ba") for k, v in (("random_outages.count_per_200s", 27.2147), ("random_outages.duration_s", 0.3), ("loss_applies_to", "all"))}
QUALNET_QUEUES = {"profile": "qualnet", "links.0.queue": {}, "links.1.queue": {}}
NS2_QUEUES = {"links.0.queue": {"limit_packets": 50}, "links.1.queue": {"limit_packets": 50}}
FRIENDLINESS = {"links.1.rate_mbps": 10.0, "links.1.ab.loss.rate": 0.01, "flows.0.cc": "njplus", "flows.0.start_stagger_s": 0.1,
                "flows.1": {"name": "reno", "src": "S", "dst": "D", "cc": "reno", "start_s": 0.05, "start_stagger_s": 0.1}}
CLAP_BER = {"flows.3.count": 0, "tcp.send_buffer_bytes": 20000, "tcp.rtt_sampling": "one_per_rtt", "wifi.0.short_retry_limit": 7,
            "wifi.0.long_retry_limit": 4}

CASES += [
    Case(
        "dynamic-queue",
        "two-hop-wireless",
        [("3 flows, 4 % faults", {**FAULTS, "links.1.ab.loss.rate": 0.0, "flows.0.count": 3, "flows.0.start_stagger_s": 0.1})],
        [("reno, ns-2 50 p", "reno", None, {**QUALNET_QUEUES, **NS2_QUEUES}), ("dynamic, ns-2 50 p", "dynamic", {}, {**QUALNET_QUEUES, **NS2_QUEUES}),
         ("reno, qualnet", "reno", None, QUALNET_QUEUES), ("dynamic, qualnet", "dynamic", {}, QUALNET_QUEUES)],
        seeds=5,
    ),
    Case(
        "dynamic-backoff",
        "two-hop-wireless",
        [("1 flow, 5 % faults", {**FAULTS, "links.1.ab.loss.rate": 0.0, "links.1.ab.random_outages.count_per_200s": 34.1955,
                                 "links.1.ba.random_outages.count_per_200s": 34.1955})],
        [("before (min_rtt)", "dynamic", {"window_rtt": "min_rtt"}, QUALNET_QUEUES), ("after (srtt)", "dynamic", {}, QUALNET_QUEUES)],
        seeds=5,
    ),
    Case(
        "taichung-timeouts",
        "taichung-dumbbell",
        [(f"20 flows, {r:.0%} loss", {"flows.0.count": 20, "links.3.ab.loss": {"model": "uniform", "rate": r}}) for r in (0.01, 0.1)],
        [("newreno", "newreno", None), ("before (first)", "taichung", {"timeout_shrink": "first"}), ("after (every)", "taichung", {}),
         ("fig2 bound", "taichung", {"slow_start_bound": "fig2"})],
        base={"flows.0.start_stagger_s": 0.5, "flows.1.count": 0, "profile": "ns2"},
        seeds=3,
    ),
    Case(
        "njplus-window",
        "njplus-two-hop",
        [(f"{r:.0%} loss", loss(r)) for r in (0.01, 0.05)],
        [("njplus, 64 KiB (before)", "njplus", {}, {"tcp.recv_buffer_bytes": 65536}), ("njplus, window_ 20 (after)", "njplus", {}, {"tcp.send_buffer_bytes": 14520}),
         ("newjersey, 64 KiB", "newjersey", {}, {"tcp.recv_buffer_bytes": 65536}), ("newjersey, window_ 20", "newjersey", {}, {"tcp.send_buffer_bytes": 14520})],
    ),
    Case(
        "njplus-reno-marks",
        "njplus-two-hop",
        [("4 NJ+ + 6 Reno, 1 % loss", {**FRIENDLINESS, "flows.0.count": 4, "flows.1.count": 6})],
        [("reno answers marks (before)", "reno", {"ecn": True}), ("reno ignores them (after)", "reno", {"ecn": False})],
        flows=(1,),
        flow_prefix="reno",
    ),
    Case(
        "njplus-table2-path",
        "njplus-two-hop",
        [(f"10 flows, {r:.0%} loss, {m:g} Mb/s", {**loss(r), "links.1.rate_mbps": m, "flows.0.count": 10, "flows.0.start_stagger_s": 0.1})
         for r in (0.0, 0.01) for m in (2.0, 10.0)],
        [("njplus", "njplus", {}), ("newjersey", "newjersey", {})],
        jain=True,
        seeds=3,
    ),
    Case(
        "wifi-backoff",
        "wifi-one-hop",
        [("3 flows, BER 0", {"flows.0.count": 3})],
        [("busy slot counts (wtcp)", "newreno", None), ("idle slots only (DCF, ns-2, ns-3)", "newreno", None, {"wifi.0.backoff_rule": "idle_slots_only"})],
    ),
    Case(
        "clap-rts",
        "clap-long-delay",
        [(f"BER {b}", {**CLAP_BER, "wifi.0.ber": b}) for b in (6.25137e-5, 8.75268e-5)],
        [("newreno, RTS/CTS every frame (ns-2)", "newreno", {"halve": "flight_size"}, {"wifi.0.rts_threshold_bytes": 0}),
         ("newreno, no RTS/CTS", "newreno", {"halve": "flight_size"}, {"wifi.0.rts_threshold_bytes": 100000})],
        flows=(0, 1, 2),
        seeds=3,
    ),
]


def scenario_path(name: str) -> Path:
    """A built-in scenario name, or a path relative to the repository."""
    return ROOT / name if name.endswith(".toml") else wtcp.builtin_scenario_path(name)


def run_point(case: Case, overrides: dict, cc: str, params: dict | None, extra: dict | None = None) -> dict:
    sc = wtcp.load(scenario_path(case.scenario)).with_overrides({**case.base, **overrides, **(extra or {})})
    for i in case.flows:
        sc = sc.set(f"flows.{i}.cc", cc)
        if params:
            sc = sc.set(f"flows.{i}.cc_params", params)
    rows = []
    for seed in range(1, case.seeds + 1):
        traced = case.trace_var is not None
        r = sc.run(seed=seed, trace=traced)
        f = r.flows[r.flows.kind == "tcp"] if "kind" in r.flows else r.flows
        f = f[f.name.str.startswith(case.flow_prefix)]
        g = f.goodput_mbps
        row = {
            "goodput_mbps": g.sum(),
            "retransmissions": f.retransmitted_segments.sum(),
            "unnecessary": f.unnecessary_retransmissions.sum(),
            "timeouts": f.timeouts.sum(),
            "mac_hints": f.mac_hints.sum() if "mac_hints" in f else 0,
            "jain": g.sum() ** 2 / (len(g) * (g**2).sum()) if (g**2).sum() > 0 else float("nan"),
        }
        if traced:
            c = r.traces.cc
            v = c[(c.time >= case.trace_from_s) & (c.name == case.trace_var)].value
            row[case.trace_var] = v.median() / case.scale if len(v) else float("nan")
        rows.append(row)
    return {k: statistics.mean(r[k] for r in rows) for k in rows[0]}


def main(argv: list[str]) -> int:
    wanted = set(argv) or {c.name for c in CASES}
    unknown = wanted - {c.name for c in CASES}
    if unknown:
        print(f"unknown case(s) {sorted(unknown)}; allowed: {[c.name for c in CASES]}", file=sys.stderr)
        return 2
    for case in CASES:
        if case.name not in wanted:
            continue
        print(f"## {case.name} ({case.scenario}, {case.seeds} seeds, means)")
        for label, ov in case.points:
            for vlabel, cc, params, *extra in case.variants:
                m = run_point(case, ov, cc, params, *extra)
                extra = f"  {case.trace_var} median {m[case.trace_var]:.2f} M" if case.trace_var in m else ""
                extra += f"  MAC hints {m['mac_hints']:.0f}" if m["mac_hints"] else ""
                extra += f"  Jain {m['jain']:.3f}" if case.jain else ""
                print(f"{label:>24}  {vlabel:<16} goodput {m['goodput_mbps']:7.3f} Mb/s  retx {m['retransmissions']:8.0f}"
                      f" (unnecessary {m['unnecessary']:7.0f})  timeouts {m['timeouts']:6.1f}{extra}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
