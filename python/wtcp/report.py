"""Readable tables (rich) of run metrics, algorithms and goodput sweeps."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wtcp.terminal import markup_safe, plain


WIDE_OUTPUT = 160  # table width when stdout is not a terminal


def stdout_console() -> Console:
    """A console on stdout; wide when writing to a file or a pipe."""
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = WIDE_OUTPUT
    return console


def _measure(table: Table) -> int:
    return Console(width=10_000).measure(table).maximum


def fitted_tables(width: int, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1, what: str = "rows", corner: str | None = None) -> list[Table]:
    """`rows` as one table (`headers` over columns) if it fits in `width` columns; else
    transposed (each row a column, headed by its first cell), split into as many tables
    as it takes to fit. Cells never wrap or shorten, so every number stays whole. The
    first `left` columns are left-aligned, the rest (numbers) right-aligned; `corner`
    heads the first column of a transposed table (default `headers[0]`)."""

    def build(caption: str, heads: Sequence[str], body: Sequence[Sequence[str]], n_left: int) -> Table:
        # Titles, headers and cells can hold user strings (names): never markup.
        table = Table(title=plain(caption) if caption else None, title_justify="left")
        for i, h in enumerate(heads):
            table.add_column(plain(h), justify="left" if i < n_left else "right", no_wrap=True)
        for row in body:
            table.add_row(*(plain(c) for c in row))
        return table

    table = build(title, headers, rows, left)
    if _measure(table) <= width or not rows:
        return [table]
    # Transposed: one row per header after the first, one column per original row.
    tables: list[Table] = []
    chunk: list[Sequence[str]] = []

    def transposed(part: Sequence[Sequence[str]], caption: str) -> Table:
        heads = [corner or headers[0], *(r[0] for r in part)]
        body = [[h, *(r[i] for r in part)] for i, h in enumerate(headers) if i > 0]
        return build(caption, heads, body, 1)

    for row in rows:
        if chunk and _measure(transposed([*chunk, row], "")) > width:
            tables.append(transposed(chunk, ""))
            chunk = []
        chunk.append(row)
    tables.append(transposed(chunk, ""))
    for i, t in enumerate(tables):
        t.title = plain(f"{title} ({what} as columns{f', part {i + 1} of {len(tables)}' if len(tables) > 1 else ''})")
    return tables


def print_tables(console: Console, tables: Sequence[Table]) -> None:
    for table in tables:
        console.print(table)


def causes(counts: Mapping[str, int]) -> str:
    """Cause counters as "c/w/s" (congestion / wireless / spurious)."""
    return f"{counts.get('congestion', 0)}/{counts.get('wireless', 0)}/{counts.get('spurious', 0)}"


def mbps(bps: float) -> str:
    return f"{bps / 1e6:.3f}"


FLOW_HEADERS = ("flow", "cc", "src→dst", "goodput Mb/s", "thru Mb/s", "segments", "retx", "unnec", "FR", "FR c/w/s", "RTO", "RTO c/w/s", "max backoff", "srtt ms")


def flow_rows(metrics: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for f in metrics["flows"]:
        tcp = f["kind"] == "tcp"
        srtt = f.get("mean_srtt_s")
        rows.append([
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
        ])
    return rows


def flows_title(metrics: Mapping[str, Any]) -> str:
    engine = "" if metrics.get("engine", "wtcp") == "wtcp" else f", engine {metrics['engine']}"
    profile = f", profile {metrics['profile']}" if metrics.get("profile", "rfc") != "rfc" else ""
    return f"{metrics['scenario']}: flows (seed {metrics['seed']}, replication {metrics['replication']}{engine}{profile})"


def flows_tables(metrics: Mapping[str, Any], width: int) -> list[Table]:
    return fitted_tables(width, flows_title(metrics), FLOW_HEADERS, flow_rows(metrics), left=3, what="flows")


def flows_table(metrics: Mapping[str, Any]) -> Table:
    """The flows as one table, one row per flow (however wide)."""
    return fitted_tables(10_000, flows_title(metrics), FLOW_HEADERS, flow_rows(metrics), left=3)[0]


DROP_HEADERS = ("link", "direction", "queue", "channel", "outage", "tx packets")


def drop_rows(metrics: Mapping[str, Any]) -> list[list[str]]:
    return [[d["link"], f"{d['from']}→{d['to']}", str(d["queue"]), str(d["channel"]), str(d["outage"]), str(d["tx_packets"])] for d in metrics["drops"]]


def drops_table(metrics: Mapping[str, Any]) -> Table:
    return fitted_tables(10_000, "drops per link direction", DROP_HEADERS, drop_rows(metrics), left=2)[0]


DELAY_HEADERS = ("flow", "one-way mean", "p50", "p95", "p99", "RTT p50", "RTT p95", "RTT p99")
SOJOURN_HEADERS = ("link direction", "queueing mean", "p95")


def ms_text(v: Any) -> str:
    return "-" if v is None else f"{v:.2f}"


def delay_rows(metrics: Mapping[str, Any]) -> list[list[str]]:
    """Per flow, one-way delay and RTT percentiles in ms (recorded with `metrics.delays`)."""
    keys = ("delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms")
    return [[f["name"], *(ms_text(f.get(k)) for k in keys)] for f in metrics["flows"] if f.get("delay_p50_ms") is not None]


def sojourn_rows(metrics: Mapping[str, Any]) -> list[list[str]]:
    return [[f"{d['link']} {d['from']}→{d['to']}", ms_text(d.get("sojourn_mean_ms")), ms_text(d.get("sojourn_p95_ms"))] for d in metrics["drops"] if d.get("sojourn_mean_ms") is not None]


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
    width = console.width
    print_tables(console, flows_tables(metrics, width))
    drops = [[f"{r[0]} {r[1]}", *r[2:]] for r in drop_rows(metrics)]
    print_tables(console, fitted_tables(width, "drops per link direction", ("link direction", *DROP_HEADERS[2:]), drops, what="link directions"))
    if metrics.get("wifi"):
        wifi = [[f"{w['channel']} {w['node']}", *(str(w[c]) for c in WIFI_COLUMNS)] for w in metrics["wifi"]]
        headers = ("channel node", *WIFI_HEADERS)
        if any(w.get("ampdus") for w in metrics["wifi"]):
            # 802.11n aggregation: the mean A-MPDU's length in MPDUs.
            for row, w in zip(wifi, metrics["wifi"]):
                row.append(f"{w['ampdu_mpdus'] / w['ampdus']:.1f}" if w.get("ampdus") else "-")
            headers = (*headers, "MPDUs/A-MPDU")
        print_tables(console, fitted_tables(width, "802.11 stations", headers, wifi, what="stations"))
    if rows := delay_rows(metrics):
        print_tables(console, fitted_tables(width, "delays (ms; metrics.delays)", DELAY_HEADERS, rows, what="flows"))
    if rows := sojourn_rows(metrics):
        print_tables(console, fitted_tables(width, "queueing delay per link direction (ms)", SOJOURN_HEADERS, rows, what="link directions"))
    console.print(run_footer(metrics), highlight=False)
    console.print("[dim]FR = fast retransmits, RTO = timeouts; c/w/s = true cause congestion/wireless/spurious[/dim]")


WIFI_COLUMNS = ("attempts", "successes", "retries", "collisions", "frame_errors", "retry_limit_drops", "queue_drops")
WIFI_HEADERS = ("attempts", "successes", "retries", "collisions", "frame err", "retry drops", "queue drops")


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


def flat_params(params: Sequence[Mapping[str, Any]], prefix: str = "") -> list[tuple[str, Mapping[str, Any]]]:
    """(dotted name, parameter) pairs; a nested table's parameters follow it (`abw.filter_gain`)."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for p in params:
        name = prefix + p["name"]
        out.append((name, p))
        out += flat_params(p.get("params", []), name + ".")
    return out


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
    """Each algorithm with its parameters, grouped by family (`wtcp.families`)."""
    from wtcp.families import FAMILIES, OTHER, USER

    order = [f for f, _ in FAMILIES] + [OTHER, USER]
    ranked = sorted(algorithms, key=lambda a: order.index(a["family"]) if a.get("family") in order else len(order))
    family = None
    for alg in ranked:
        if alg.get("family") != family:
            family = alg.get("family")
            console.rule(f"[bold]{markup_safe(family or OTHER)}[/bold]", align="left")
        # A user algorithm's strings come from its class: shown, never read as markup.
        console.print(f"[bold]{markup_safe(alg['name'])}[/bold]  {markup_safe(alg['summary'])}")
        console.print(f"  reference: {markup_safe(alg['reference'])}", highlight=False)
        if alg["params"]:
            table = Table(box=None, padding=(0, 2), pad_edge=False, show_edge=False)
            for header in ("param", "unit", "default", "allowed", "doc"):
                table.add_column(header, style="dim" if header == "doc" else None)
            for name, p in flat_params(alg["params"]):
                table.add_row(*(plain(v) for v in (name, p["unit"], p["default"], p["range"], p["doc"])))
            console.print(table)
            for c in alg.get("constraints", []):
                console.print(f"  constraint: {c}", highlight=False)
        else:
            console.print("  (no parameters)")
        console.print()


def print_profiles(console: Console, profiles: Sequence[Mapping[str, Any]]) -> None:
    table = Table(box=None, padding=(0, 2), pad_edge=False, show_edge=False)
    table.add_column("profile")
    table.add_column("defaults of")
    for p in profiles:
        table.add_row(escape(p["name"]), escape(p["title"]))
    console.print(table)


def print_profile(console: Console, p: Mapping[str, Any]) -> None:
    from wtcp.profiles import where

    console.print(f"[bold]{escape(p['name'])}[/bold]  {escape(p['title'])}")
    console.print(f"  {escape(p['note'])}", highlight=False)
    if not p["fills"]:
        console.print("  (the default: wtcp's built-in values, listed with their sources; nothing is filled in)", highlight=False)
    table = Table(box=None, padding=(0, 2), pad_edge=False, show_edge=False)
    for header in ("setting", "value", "source"):
        table.add_column(header, style="dim" if header == "source" else None)
    for e in p["entries"]:
        table.add_row(escape(where(e["key"])), escape(e["value"]), escape(e["source"]))
    console.print(table)


def goodput_rows(loss_percent: Sequence[float], columns: Mapping[str, Sequence[float]]) -> list[list[str]]:
    return [[f"{loss:g}", *(f"{values[i]:.3f}" for values in columns.values())] for i, loss in enumerate(loss_percent)]


def goodput_table(title: str, loss_percent: Sequence[float], columns: Mapping[str, Sequence[float]]) -> Table:
    """Rows: loss rates; columns: algorithms; cells: goodput in Mb/s."""
    return fitted_tables(10_000, title, ("loss %", *columns), goodput_rows(loss_percent, columns), left=0)[0]


def goodput_tables(width: int, title: str, loss_percent: Sequence[float], columns: Mapping[str, Sequence[float]]) -> list[Table]:
    """`goodput_table` fitted to `width`: with many algorithms, one row per algorithm and
    one column per loss rate, split into parts as needed."""
    return fitted_tables(width, title, ("loss %", *columns), goodput_rows(loss_percent, columns), left=0, what="loss rates (%)", corner="algorithm")
