"""Run a translated scenario in ns-3 and collect wtcp's metrics.

Loading ns-3 (the headers of the nine modules the harness uses, `wtcp.ns3.modules`, and
the harness, precompiled once, `wtcp.ns3.pch`) takes about 1.3 s of CPU (9-12 s parsing
them), once per process. Each run starts from a clean
simulator: `Simulator::Destroy()`, `Config::Reset()` and the RNG stream counter reset,
then the seed and run number, so a run's result does not depend on what the process ran
before.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from wtcp.ns3.modules import HARNESS, VERSION, load_ns3, standard_pch
from wtcp.ns3.refuse import Ns3Unavailable, refuse
from wtcp.ns3.translate import Plan, TcpFlowPlan, build, plan

NS3_VERSION = VERSION
NOISE = "Failed to materialize symbols"  # cppyy's harmless complaint while loading ns-3
# What a command says before `load()` (the precompiled header's build is the 15-30 s).
LOADING = "loading ns-3 (about 2 s; 15-30 s more the first time) ..."

_loaded: tuple[Any, Any] | None = None


def available() -> bool:
    """Whether the `ns3` package is installed (without importing it)."""
    return importlib.util.find_spec("ns3") is not None


def load() -> tuple[Any, Any]:
    """(ns, cppyy.gbl) with the harness compiled; imported once per process."""
    global _loaded
    if _loaded is not None:
        return _loaded
    if not available():
        raise Ns3Unavailable("the ns-3 engine needs the ns3 package (ns-3 3.44): pip install 'wtcp[ns3]'")
    try:
        headers = standard_pch()  # before stderr is held: a first build says so at once
        with _filtered_stderr():
            ns = load_ns3(headers)
            import cppyy  # noqa: PLC0415 - optional

            if not hasattr(cppyy.gbl, "wtcpns3"):
                for part in HARNESS:
                    cppyy.cppdef(part.read_text(encoding="utf-8"))
    except ModuleNotFoundError as e:
        raise Ns3Unavailable(f"the ns-3 engine cannot load ns-3 3.44 ({e}): pip install 'wtcp[ns3]'") from e
    _loaded = (ns, cppyy.gbl)
    return _loaded


class _filtered_stderr:
    """Redirect the C-level stderr while ns-3 loads; replay it without cppyy's noise."""

    def __enter__(self) -> None:
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._tmp = tempfile.TemporaryFile(mode="w+b")
        os.dup2(self._tmp.fileno(), 2)

    def __exit__(self, *exc: Any) -> None:
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._tmp.seek(0)
        text = self._tmp.read().decode("utf-8", "replace")
        self._tmp.close()
        kept = [line for line in text.splitlines() if line.strip() and NOISE not in line]
        if kept:
            print("\n".join(kept), file=sys.stderr)


def run_document(doc: dict[str, Any], socket_attributes: Sequence[str] = (), congestion_type: str | None = None, recovery_type: str | None = None) -> str:
    """Translate (or refuse) a checked scenario document, run it in ns-3, return wtcp's
    metrics JSON with `"engine": "ns3"`.

    `socket_attributes` ("Name=value", e.g. "Sack=true") are ns-3 TcpSocketBase
    attributes set on every TCP socket after the translated ones: an experiment outside
    the scenario (wtcp has no counterpart), recorded in the metrics as `ns3_attributes`.
    `congestion_type` (e.g. "ns3::TcpLinuxReno") replaces the translated congestion
    control of every TCP flow, with ns-3's defaults for its attributes: an explicit
    pairing, not a translation, recorded as `ns3_congestion`. `recovery_type` likewise
    replaces the translated recovery (`ns3_recovery`)."""
    p = plan(doc, congestion_type)
    for f in p.flows:
        if isinstance(f, TcpFlowPlan):
            f.socket_attrs = [*f.socket_attrs, *socket_attributes]
            if recovery_type is not None:
                f.recovery_type = recovery_type
    ns, gbl = load()
    check_socket_attributes(socket_attributes, ns)
    if congestion_type is not None:
        check_type(congestion_type, ns.TcpCongestionOps, "ns3_congestion", "ns3::TcpLinuxReno")
    if recovery_type is not None:
        check_type(recovery_type, ns.TcpRecoveryOps, "ns3_recovery", "ns3::TcpPrrRecovery")
    metrics = run_plan(p, ns, gbl)
    metrics["profile"] = doc.get("profile", "rfc")
    if socket_attributes:
        metrics["ns3_attributes"] = list(socket_attributes)
    if congestion_type is not None:
        metrics["ns3_congestion"] = congestion_type
    if recovery_type is not None:
        metrics["ns3_recovery"] = recovery_type
    return json.dumps(metrics, allow_nan=False, separators=(",", ":"))


def check_type(name: str, base: Any, path: str, example: str) -> None:
    """Refuse a TypeId that is not a subclass of `base` (ns-3 aborts on it)."""
    tid = base.GetTypeId()
    found = type(tid)()
    if not (type(tid).LookupByNameFailSafe(name, found) and found.IsChildOf(tid)):
        raise refuse(path, f"{name!r} is not an ns-3 {tid.GetName().removeprefix('ns3::')}; allowed: such a TypeId, e.g. \"{example}\"")


def check_socket_attributes(attributes: Sequence[str], ns: Any) -> None:
    """Refuse a "Name=value" that ns-3's TcpSocketBase would not accept (ns-3 aborts the
    process on a bad attribute, so each is tried on a scratch socket first)."""
    if not attributes:
        return
    probe = ns.CreateObject[ns.TcpSocketBase]()
    for i, item in enumerate(attributes):
        name, eq, value = str(item).partition("=")
        if not eq or not name:
            raise refuse(f"ns3_attributes.{i}", f"is {item!r}; allowed: Name=value (a TcpSocketBase attribute, e.g. Sack=true)")
        info = ns.TypeId.AttributeInformation()
        if not ns.TcpSocketBase.GetTypeId().LookupAttributeByName(name, info):
            raise refuse(f"ns3_attributes.{i}", f"ns-3's TcpSocketBase has no attribute {name!r}; allowed: its attributes (Sack, Timestamp, MinRto, ...)")
        if not probe.SetAttributeFailSafe(name, ns.StringValue(value)):
            raise refuse(f"ns3_attributes.{i}", f"{value!r} is not a valid value of TcpSocketBase::{name}; allowed: a value of its type")


def run_plan(p: Plan, ns: Any, gbl: Any) -> dict[str, Any]:
    ns.Simulator.Destroy()
    ns.Config.Reset()
    ns.RngSeedManager.ResetNextStreamIndex()
    # The seed and run number after the reset (Config::Reset restores RngSeed and RngRun).
    ns.RngSeedManager.SetSeed(p.seed)
    ns.RngSeedManager.SetRun(p.replication)
    h = gbl.wtcpns3.Harness()
    try:
        build(p, h, gbl.std)
        t0, c0 = time.perf_counter(), time.thread_time()
        events = int(h.Run(p.duration_ns, p.from_ns, p.to_ns))
        wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
        return collect(p, h, events, wall, cpu)
    finally:
        ns.Simulator.Destroy()
        h.Clear()


CAUSES = ("congestion", "wireless", "spurious")


def wifi_stations(p: Plan, h: Any) -> list[dict[str, Any]]:
    """wtcp's per-station MAC statistics from the harness's counters. `retries` is every
    data MPDU sent (each of an A-MPDU; without RTS/CTS, which the ns-3 engine refuses, one
    per channel access otherwise) less the MSDUs finished (acknowledged or given up): an
    MSDU still in service at the end counts its first transmission as a retry."""
    out = []
    for c, w in enumerate(p.wifis):
        for s, node in enumerate(w.nodes):
            st = h.Station(c, s)
            finished = int(st.successes) + int(st.retryLimitDrops) + int(st.gaveUpAfterDelivery)
            out.append({
                "channel": w.name,
                "node": p.nodes[node],
                "attempts": int(st.attempts),
                "successes": int(st.successes),
                "retries": max(0, int(st.mpdus) - finished),
                "collisions": int(st.collisions),
                "frame_errors": int(st.frameErrors),
                "retry_limit_drops": int(st.retryLimitDrops),
                "gave_up_after_delivery": int(st.gaveUpAfterDelivery),
                "queue_drops": int(st.queueDrops) + int(st.expired),
                "ampdus": int(st.ampdus),
                "ampdu_mpdus": int(st.ampduMpdus),
            })
    return out


def collect(p: Plan, h: Any, events: int, wall: float, loop_cpu: float) -> dict[str, Any]:
    window = (p.to_ns - p.from_ns) / 1e9
    flows = []
    warnings = []
    for i, f in enumerate(p.flows):
        st = h.Flow(i)
        tcp = isinstance(f, TcpFlowPlan)
        row: dict[str, Any] = {
            "id": i,
            "name": f.name,
            "kind": "tcp" if tcp else "cbr",
            "cc": f.cc if tcp else "-",
            "src": p.nodes[f.src],
            "dst": p.nodes[f.dst],
            "goodput_bps": (st.endDelivered - st.startDelivered) * 8.0 / window,
            "throughput_bps": (st.endSent - st.startSent) * 8.0 / window,
            "delivered_bytes": int(st.delivered),
            "segments_sent": int(st.segmentsSent),
            "retransmitted_segments": int(st.retransmitted),
            "unnecessary_retransmissions": int(st.unnecessary),
            "fast_retransmits": int(st.fastRetransmits),
            "timeouts": int(st.timeouts),
            "max_backoff": int(st.maxBackoff),
            "fast_retransmit_causes": {c: int(st.frCauses[k]) for k, c in enumerate(CAUSES)},
            "timeout_causes": {c: int(st.toCauses[k]) for k, c in enumerate(CAUSES)},
            # ns-3's algorithms give no loss verdicts: not measured.
            "loss_verdicts": {"congestion": None, "wireless": None, "none": None},
            "verdicts_by_cause": {c: {"congestion": None, "wireless": None, "none": None} for c in CAUSES},
            "frto_spurious_timeouts": 0,
            # MAC retry-limit give-ups that reach the sender (wtcp's `mac_hint` rule); ns-3's
            # D-SACKs and SYNs are not counted.
            "mac_hints": int(st.macHints),
            "dsacks": None,
            # ns-3.44 has no tail loss probe.
            "loss_probes": 0,
            "syns_sent": None,
            "handshake_s": None,
            "fct_s": ((st.completedNs - f.start_ns) / 1e9) if tcp and st.completedNs >= 0 else None,
            "mean_srtt_s": (st.srttArea / st.srttSpan / 1e9) if tcp and st.srttSpan > 0 else None,
            # The harness records no per-packet delays (wtcp's delay metrics: docs/model.md).
            **dict.fromkeys(("delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms")),
            "packets_received": int(st.packetsReceived),
        }
        if st.delivered == 0:
            warnings.append(f"flow `{f.name}` delivered no data")
        flows.append(row)
    if p.delays_requested:
        warnings.append("metrics.delays: the ns-3 engine measures no per-packet delays; its delay fields are null")
    goodputs = [flows[i]["goodput_bps"] for i in p.fairness]
    sq = sum(x * x for x in goodputs)
    jain = (sum(goodputs) ** 2 / (len(goodputs) * sq)) if goodputs and sq > 0 else None
    drops = []
    for li, l in enumerate(p.links):
        for k, (a, b) in enumerate(((l.a, l.b), (l.b, l.a))):
            d = h.Dir(2 * li + k)
            drops.append({
                "link": l.name,
                "from": p.nodes[a],
                "to": p.nodes[b],
                "queue": int(d.queue),
                "channel": int(d.channel),
                "outage": int(d.outage),
                "tx_packets": int(d.tx),
                "arq_retries": 0,
                "retry_limit_drops": 0,
                "sojourn_mean_ms": None,
                "sojourn_p95_ms": None,
            })
    return {
        "engine": "ns3",
        "engine_version": NS3_VERSION,
        "scenario": p.name,
        "seed": p.seed,
        "replication": p.replication,
        "flows": flows,
        "jain_fairness": jain,
        "drops": drops,
        "wifi": wifi_stations(p, h),
        "events": events,
        "sim_seconds": p.duration_ns / 1e9,
        "wall_seconds": wall,
        "loop_cpu_seconds": loop_cpu,
        "peak_packets": None,
        "warnings": warnings,
    }
