"""Readable tables (rich) of run metrics, algorithms and goodput sweeps."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table


WIDE_OUTPUT = 160  # table width when stdout is not a terminal


def stdout_console() -> Console:
    """A console on stdout; wide when writing to a file or a pipe."""
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = WIDE_OUTPUT
    return console


def causes(counts: Mapping[str, int]) -> str:
    """Cause counters as "c/w/s" (congestion / wireless / spurious)."""
    return f"{counts.get('congestion', 0)}/{counts.get('wireless', 0)}/{counts.get('spurious', 0)}"


def mbps(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


def flows_table(metrics: Mapping[str, Any]) -> Table:
    engine = "" if metrics.get("engine", "wtcp") == "wtcp" else f", engine {metrics['engine']}"
    table = Table(title=f"{metrics['scenario']}: flows (seed {metrics['seed']}, replication {metrics['replication']}{engine})", title_justify="left")
    for header in ("flow", "cc", "src→dst"):
        table.add_column(header)
    for header in ("goodput Mb/s", "thru Mb/s", "segments", "retx", "unnec", "FR", "FR c/w/s", "RTO", "RTO c/w/s", "max backoff", "srtt ms"):
        table.add_column(header, justify="right")
    for f in metrics["flows"]:
        tcp = f["kind"] == "tcp"
        srtt = f.get("mean_srtt_s")
        table.add_row(
            f["name"],
            f["cc"] if tcp else f["kind"],
            f"{f['src']}→{f['dst']}",
            mbps(f["goodput_bps"]),
            mbps(f["throughput_bps"]),
            str(f["segments_sent"]),
            str(f["retransmitted_segments"]) if tcp else "-",
            str(f["unnecessary_retransmissions"]) if tcp else "-",
            str(f["fast_retransmits"]) if tcp else "-",
            causes(f["fast_retransmit_causes"]) if tcp else "-",
            str(f["timeouts"]) if tcp else "-",
            causes(f["timeout_causes"]) if tcp else "-",
            str(f["max_backoff"]) if tcp else "-",
            f"{srtt * 1e3:.1f}" if srtt is not None else "-",
        )
    return table


def drops_table(metrics: Mapping[str, Any]) -> Table:
    table = Table(title="drops per link direction", title_justify="left")
    table.add_column("link")
    table.add_column("direction")
    for header in ("queue", "channel", "outage", "tx packets"):
        table.add_column(header, justify="right")
    for d in metrics["drops"]:
        table.add_row(d["link"], f"{d['from']}→{d['to']}", str(d["queue"]), str(d["channel"]), str(d["outage"]), str(d["tx_packets"]))
    return table


def run_footer(metrics: Mapping[str, Any]) -> str:
    wall = metrics["wall_seconds"]
    rate = f" ({metrics['events'] / wall / 1e6:.2f} M events/s)" if wall > 0 else ""
    fairness = metrics.get("jain_fairness")
    fair = f"{fairness:.4f}" if fairness is not None else "-"
    return (
        f"events {metrics['events']:,}{rate}   simulated {metrics['sim_seconds']:g} s   "
        f"wall {wall:.3f} s   Jain fairness {fair}   peak packets {metrics.get('peak_packets') if metrics.get('peak_packets') is not None else '-'}"
    )


def print_run(console: Console, metrics: Mapping[str, Any]) -> None:
    """Flows, drops and a footer line; cause columns are congestion/wireless/spurious."""
    console.print(flows_table(metrics))
    console.print(drops_table(metrics))
    if metrics.get("wifi"):
        console.print(wifi_table(metrics))
    console.print(run_footer(metrics), highlight=False)
    console.print("[dim]FR = fast retransmits, RTO = timeouts; c/w/s = true cause congestion/wireless/spurious[/dim]")


WIFI_COLUMNS = ("attempts", "successes", "retries", "collisions", "frame_errors", "retry_limit_drops", "queue_drops")


def wifi_table(metrics: Mapping[str, Any]) -> Table:
    """802.11 MAC statistics per station."""
    table = Table(title="802.11 stations", title_justify="left")
    table.add_column("channel")
    table.add_column("node")
    for c in WIFI_COLUMNS:
        table.add_column(c.replace("_", " "), justify="right")
    for w in metrics["wifi"]:
        table.add_row(w["channel"], w["node"], *(str(w[c]) for c in WIFI_COLUMNS))
    return table


def print_scenarios(console: Console, items: Sequence[tuple[str, str]]) -> None:
    """One line per built-in scenario: name, description (wrapped under itself)."""
    table = Table(box=None, padding=(0, 2), pad_edge=False, show_header=False)
    table.add_column("name", style="bold", no_wrap=True)
    table.add_column("description")
    for name, description in items:
        table.add_row(name, description)
    console.print(table)
    console.print("[dim]run one with `wtcp run NAME`; its file: `wtcp scenarios --json`[/dim]")


def print_algorithms(console: Console, algorithms: Sequence[Mapping[str, Any]]) -> None:
    for alg in algorithms:
        console.print(f"[bold]{alg['name']}[/bold]  {alg['summary']}")
        console.print(f"  reference: {alg['reference']}", highlight=False)
        if alg["params"]:
            table = Table(box=None, padding=(0, 2), pad_edge=False, show_edge=False)
            for header in ("param", "unit", "default", "doc"):
                table.add_column(header, style="dim" if header == "doc" else None)
            for p in alg["params"]:
                table.add_row(p["name"], p["unit"], p["default"], p["doc"])
            console.print(table)
        else:
            console.print("  (no parameters)")
        console.print()


def goodput_table(title: str, loss_percent: Sequence[float], columns: Mapping[str, Sequence[float]]) -> Table:
    """Rows: loss rates; columns: algorithms; cells: goodput in Mb/s."""
    table = Table(title=title, title_justify="left")
    table.add_column("loss %", justify="right")
    for name in columns:
        table.add_column(name, justify="right")
    for i, loss in enumerate(loss_percent):
        table.add_row(f"{loss:g}", *(f"{values[i]:.3f}" for values in columns.values()))
    return table
