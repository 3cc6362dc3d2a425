"""Figures in the papers' forms, each written as PNG and SVG with the plotted numbers as CSV.

Kinds: `lines` (a metric against a swept parameter, one line per scheme, 95 % intervals as
error bars), `bars` (a metric per scheme, grouped by an optional parameter), `table` (a
metric pivoted rows x columns, e.g. a fairness or friendliness table), `trace` (cwnd and
ssthresh against time, one panel per scheme) and `causes` (fast retransmits and timeouts by
their ground-truth cause).

Styling is `wtcp.plot`'s: each algorithm in its own colour, marker and line style, axis
labels with units (a figure's `x_label` / `y_label`, else derived from the path or metric),
legends outside the data in natural order, intervals only where there are two or more
replications.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wtcp import plot as style
from wtcp.reproduce.measure import estimate, per_replication, select
from wtcp.reproduce.spec import Figure
from wtcp.sweep.store import param_column

if TYPE_CHECKING:
    import pandas as pd

MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h")
CAUSE_COLUMNS = ("fr_congestion", "fr_wireless", "fr_spurious", "to_congestion", "to_wireless", "to_spurious")
# Congestion, wireless, spurious (`wtcp.plot.CAUSE_COLORS`: Tol's colour-blind-safe rose /
# indigo / grey), lighter for RTOs.
CAUSE_COLORS = (*style.CAUSE_COLORS.values(), "#E6B3BB", "#9990C8", "#D5D5D5")


@dataclass
class FigureOutput:
    id: str
    title: str
    caption: str
    images: list[Path] = field(default_factory=list)
    data: pd.DataFrame | None = None
    data_file: Path | None = None
    table: pd.DataFrame | None = None  # a pivot shown as an HTML table (kind "table")


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Reproducible SVG: fixed ids, no date.
    plt.rcParams["svg.hashsalt"] = "wtcp"
    plt.rcParams["svg.fonttype"] = "none"
    return plt


def draw(fig_spec: Figure, frame: pd.DataFrame, out_dir: Path, trace_of: Callable[[str], pd.DataFrame] | None = None) -> FigureOutput:
    """Draw one figure of an experiment's flows frame into `out_dir`."""
    kind = fig_spec.kind
    output = FigureOutput(id=fig_spec.id, title=fig_spec.get("title", fig_spec.id), caption=fig_spec.get("caption", ""))
    where = fig_spec.get("where", {}) or {}
    frame = select(frame, where) if where else frame
    if frame.empty:
        return output  # nothing of this figure was run (a --quick grid may leave it out)
    plt = pyplot()
    x_col = param_column(fig_spec.get("x")) if fig_spec.get("x") else None
    if kind == "lines" and x_col in frame.columns and frame[x_col].nunique() == 1:
        # One x value (a --quick grid): bars, not lone markers on an axis of one point.
        kind = "bars"
    if kind == "lines":
        data, fig = _lines(plt, fig_spec, frame)
    elif kind == "bars":
        data, fig = _bars(plt, fig_spec, frame)
    elif kind == "table":
        data, fig, output.table = _table(plt, fig_spec, frame)
    elif kind == "trace":
        data, fig = _trace(plt, fig_spec, frame, trace_of)
    else:
        data, fig = _causes(plt, fig_spec, frame)
    out_dir.mkdir(parents=True, exist_ok=True)
    if fig is not None:
        fig.suptitle(textwrap.fill(output.title, 80), fontsize=10)
        fig.tight_layout()
        output.images.extend(style.save(fig, out_dir / fig_spec.id, dpi=200))  # PNG and SVG (docs/figures.md: 200 dpi)
        plt.close(fig)
    output.data = data
    if data is not None:
        output.data_file = out_dir / f"{fig_spec.id}.csv"
        data.to_csv(output.data_file, index=False)
    return output


def _series_column(fig_spec: Figure) -> str:
    return _column(fig_spec.get("series", "algorithm"))


def _points(frame: pd.DataFrame, fig_spec: Figure, keys: list[str]) -> pd.DataFrame:
    """Mean and interval of the metric for every combination of the `keys` columns."""
    import pandas as pd

    metric, flows = fig_spec.get("metric"), fig_spec.get("flows", "mean")
    rows = []
    combos = frame[keys].drop_duplicates().itertuples(index=False, name=None)
    for combo in sorted(combos, key=lambda c: tuple(style.natural_key(x) for x in c)):
        sel = dict(zip(keys, combo))
        subset = frame
        for k, v in sel.items():
            subset = subset[subset[k] == v]
        est = estimate(list(per_replication(subset, metric, {}, flows)))
        rows.append({**sel, "metric": metric, "n": est.n, "mean": est.mean, "ci_low": est.ci_low, "ci_high": est.ci_high})
    return pd.DataFrame(rows)


def _errors(data: pd.DataFrame):
    """Error bar lengths, NaN (no bar, not a zero-length one) with fewer than two replications."""
    import numpy as np

    ok = (data["n"] >= 2).to_numpy() if "n" in data.columns else np.ones(len(data), dtype=bool)
    low = np.where(ok, (data["mean"] - data["ci_low"]).to_numpy(dtype=float), np.nan)
    high = np.where(ok, (data["ci_high"] - data["mean"]).to_numpy(dtype=float), np.nan)
    return np.vstack([low, high])


def _x_axis(fig_spec: Figure) -> tuple[str, float]:
    """Label and scale of the x axis: the figure's own, else derived from the swept path."""
    x = fig_spec.get("x")
    if fig_spec.get("x_label") is not None or fig_spec.get("x_scale") is not None:
        return fig_spec.get("x_label", x), float(fig_spec.get("x_scale", 1.0))
    q = style.quantity(x)
    return q.axis_label, q.scale


def _y_axis(fig_spec: Figure) -> tuple[str, float]:
    metric = fig_spec.get("metric")
    if fig_spec.get("y_label") is not None:
        return fig_spec.get("y_label"), 1.0
    q = style.quantity(metric)
    return q.axis_label, q.scale


def _legend(ax, title: str | None = None) -> None:
    style.legend_outside(ax, title=title, fontsize=7)


def _lines(plt, fig_spec: Figure, frame: pd.DataFrame):
    x_col, s_col = param_column(fig_spec.get("x")), _series_column(fig_spec)
    data = _points(frame, fig_spec, [s_col, x_col])
    x_label, scale = _x_axis(fig_spec)
    y_label, y_scale = _y_axis(fig_spec)
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    styles = style.series_styles(data[s_col])
    series = style.quantity(fig_spec.get("series", "algorithm"))
    for name in style.sort_naturally(data[s_col].unique()):
        group = data[data[s_col] == name].sort_values(x_col)
        label = style.format_value(name, series.scale)
        ax.errorbar(group[x_col].astype(float) * scale, group["mean"] * y_scale, yerr=_errors(group) * y_scale, label=label, **styles[name].kwargs(), capsize=2, markersize=4)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if fig_spec.get("logy"):
        ax.set_yscale("log")
    else:
        _floor_at_zero(ax, data)
    style.style_axes(ax)
    _legend(ax, series.axis_label)
    return data, fig


def _floor_at_zero(ax, data: pd.DataFrame) -> None:
    """A metric whose every mean is >= 0 (a goodput, a count) gets an axis from zero, so
    that an interval reaching below it does not draw negative values (as `Store.plot`)."""
    import numpy as np

    means = data["mean"].to_numpy(dtype=float)
    if len(means) and np.isfinite(means).any() and np.nanmin(means) >= 0:
        ax.set_ylim(bottom=0)


def _bars(plt, fig_spec: Figure, frame: pd.DataFrame, x_is_column: bool = False):
    import numpy as np

    s_col = _series_column(fig_spec)
    x = fig_spec.get("x")
    keys = [s_col] + ([x if x_is_column else param_column(x)] if x else [])
    data = _points(frame, fig_spec, keys)
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    series = style.sort_naturally(dict.fromkeys(data[s_col]))
    groups = style.sort_naturally(dict.fromkeys(data[keys[1]])) if x else [None]
    width = 0.8 / max(1, len(groups))
    y_label, y_scale = _y_axis(fig_spec)
    columns = fig_spec.get("columns")
    unit = ""
    if x_is_column and fig_spec.get("x_label") is None and isinstance(columns, str):
        q = style.quantity(columns)  # a table's one column path
        x_label, scale, unit = q.label, q.scale, q.unit
    elif x_is_column or not x:
        x_label, scale = fig_spec.get("x_label", x), float(fig_spec.get("x_scale", 1.0))
    else:
        x_label, scale = _x_axis(fig_spec)
    group_colors = style.series_styles(groups, algorithms=False) if x else {}
    for j, g in enumerate(groups):
        part = data if g is None else data[data[keys[1]] == g]
        part = part.set_index(s_col).reindex(series)
        pos = np.arange(len(series)) + (j - (len(groups) - 1) / 2) * width
        value = style.format_value(g, scale)
        single = g is None or len(groups) == 1
        label = None if single else f"{x_label} = {value} {unit}".rstrip()
        if single and g is not None:
            ax.set_xlabel(f"{x_label} = {value} {unit}".rstrip())  # one x value: said once, on the axis
        # One group: each bar in its algorithm's colour; several: one colour per group.
        color = [style.algorithm_color(str(s)) if style.is_algorithm(s) else style.PALETTE[0] for s in series] if single else group_colors[g].color
        ax.bar(pos, part["mean"] * y_scale, width, yerr=_errors(part.reset_index()) * y_scale, capsize=2, label=label, color=color, ecolor="#333333")
    ax.set_xticks(np.arange(len(series)), [str(s) for s in series], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(y_label)
    _floor_at_zero(ax, data)
    style.style_axes(ax, grid="y")
    if x and len(groups) > 1:
        _legend(ax)
    return data, fig


def _table(plt, fig_spec: Figure, frame: pd.DataFrame):
    """A pivot of the metric's mean (rows x columns), shown as a table and as grouped bars.
    `columns` may list several paths; their values are joined with " / "."""
    rows = fig_spec.get("rows", "algorithm")
    columns = fig_spec.get("columns")
    r_col = _column(rows)
    frame = frame.copy()
    if isinstance(columns, list):
        label = " / ".join(columns)
        frame[label] = frame[[_column(c) for c in columns]].astype(str).agg(" / ".join, axis=1)
        c_col = label
    else:
        c_col = _column(columns) if columns else None
    keys = [r_col] + ([c_col] if c_col else [])
    data = _points(frame, fig_spec, keys)
    if c_col:
        pivot = data.pivot(index=r_col, columns=c_col, values="mean")
        name = columns if isinstance(columns, str) else c_col
        pivot.columns = [f"{name} = {c}" for c in pivot.columns]
    else:
        pivot = data.set_index(r_col)[["mean", "ci_low", "ci_high"]]
    pivot = pivot.reset_index().rename(columns={r_col: rows})
    bars_spec = Figure(id=fig_spec.id, kind="bars", spec={**fig_spec.spec, "series": rows, "x": c_col} if c_col else {**fig_spec.spec, "series": rows})
    bars_spec.spec.pop("x_scale", None)
    _, fig = _bars(plt, bars_spec, frame, x_is_column=True)
    return data, fig, pivot


def _column(name: str) -> str:
    return {"algorithm": "algorithm", "flow": "name", "cc": "cc"}.get(name, param_column(name))


def _trace(plt, fig_spec: Figure, frame: pd.DataFrame, trace_of):
    """cwnd/ssthresh (or `variables`) of the first traced run of each scheme (replication 0)."""
    import numpy as np
    import pandas as pd

    if trace_of is None:
        return None, None
    s_col = _series_column(fig_spec)
    variables = fig_spec.get("variables", ["cwnd", "ssthresh"])
    since, until = fig_spec.get("from_s"), fig_spec.get("until_s")
    runs = frame.sort_values(["replication", "key"]).drop_duplicates(s_col)
    panels = []
    for row in runs.itertuples(index=False):
        trace = trace_of(row.key)
        if trace.empty:
            continue
        flow_id = int(getattr(row, "flow_id", 0))
        trace = trace[trace["flow"] == flow_id]
        if since is not None:
            trace = trace[trace["time"] >= float(since)]
        if until is not None:
            trace = trace[trace["time"] <= float(until)]
        panels.append((getattr(row, s_col), trace))
    if not panels:
        return None, None
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.6, 1.9 * len(panels) + 0.6), sharex=True, squeeze=False)
    data = []
    present = [v for v in variables if any(v in trace.columns for _, trace in panels)]
    units = {style.quantity(v).unit for v in present}
    y_label = f"{', '.join(style.quantity(v).label for v in present)} ({units.pop()})" if len(units) == 1 else ", ".join(present)
    for ax, (name, trace) in zip(axes[:, 0], panels):
        color = style.algorithm_color(str(name)) if style.is_algorithm(name) else None
        for i, var in enumerate(v for v in variables if v in trace.columns):
            y = trace[var] * style.quantity(var).scale
            # ssthresh is infinite before the first loss: not drawn.
            ax.plot(trace["time"], y.where(np.isfinite(y)), label=var, linewidth=1.0, color=color, linestyle=style.LINESTYLES[i % len(style.LINESTYLES)])
        ax.set_title(str(name), fontsize=8, loc="left")
        ax.set_ylabel(y_label, fontsize=8)
        style.style_axes(ax)
        _legend(ax)
        part = trace[["time", *[v for v in variables if v in trace.columns]]].copy()
        part.insert(0, "series", name)
        data.append(part)
    axes[-1, 0].set_xlabel("time (s)")
    return pd.concat(data, ignore_index=True), fig


def _causes(plt, fig_spec: Figure, frame: pd.DataFrame):
    """Mean fast retransmits (FR) and timeouts (RTO) per run, by ground-truth cause."""
    import numpy as np
    import pandas as pd

    s_col = _series_column(fig_spec)
    present = [c for c in CAUSE_COLUMNS if c in frame.columns]
    per_run = frame.groupby(["key", s_col], sort=False)[present].sum().reset_index()
    data = per_run.groupby(s_col, sort=False)[present].mean().reset_index()
    # Numbers (flow counts, ...) by value, algorithms in their legend order.
    data = data.sort_values(s_col, key=lambda c: c.map(style.natural_key)).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    pos = np.arange(len(data))
    bottom = np.zeros(len(data))
    for col, color in zip(CAUSE_COLUMNS, CAUSE_COLORS):
        if col not in data.columns:
            continue
        label = ("FR " if col.startswith("fr") else "RTO ") + col.split("_", 1)[1]
        ax.bar(pos, data[col], 0.7, bottom=bottom, label=label, color=color)
        bottom += data[col].to_numpy(dtype=float)
    ax.set_xticks(pos, [str(s) for s in data[s_col]], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(fig_spec.get("y_label", "loss events (per run)"))
    _legend(ax, "cause")
    style.style_axes(ax, grid="y")
    ax.set_ylim(0, max(1.0, float(bottom.max(initial=0.0))) * 1.15)
    return data, fig
