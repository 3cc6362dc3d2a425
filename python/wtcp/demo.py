"""`wtcp demo`: goodput of every algorithm across wireless loss rates on the two-hop path."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from wtcp import _core
from wtcp.errors import scenario_error
from wtcp.plot import path_quantity
from wtcp.scenario import Scenario, builtin_scenario_path

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

DEMO_SCENARIO = "two-hop-wireless"
WIRELESS_LINK = "wireless"
LOSS_PERCENT = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0)
QUICK_LOSS_PERCENT = (0.0, 1.0, 3.0, 5.0)
SEEDS = (1, 2, 3)
QUICK_SEEDS = (1,)
PLOT_FILE = "goodput-vs-loss.png"
CSV_FILE = "goodput-vs-loss.csv"


def demo_scenario() -> Scenario:
    return Scenario.from_file(builtin_scenario_path(DEMO_SCENARIO))


def wireless_loss_path(scenario: Scenario) -> str:
    """Override path of the loss model of the link named "wireless" (direction a -> b)."""
    links = scenario.document.get("links", [])
    for i, link in enumerate(links):
        if link.get("name") == WIRELESS_LINK:
            return f"links.{i}.ab.loss"
    names = ", ".join(str(link.get("name", f"{link['a']}-{link['b']}")) for link in links)
    raise scenario_error("links", f"no link named `{WIRELESS_LINK}` to sweep the loss of; links: {names}")


def with_algorithm(scenario: Scenario, algorithm: str) -> Scenario:
    """Every TCP flow switched to `algorithm`, with its default parameters."""
    overrides = {}
    for i, flow in enumerate(scenario.document["flows"]):
        if flow.get("kind", "tcp") == "tcp":
            overrides[f"flows.{i}.cc"] = algorithm
            overrides[f"flows.{i}.cc_params"] = {}
    return scenario.with_overrides(overrides)


def with_uniform_loss(scenario: Scenario, path: str, rate: float) -> Scenario:
    return scenario.set(path, {"model": "uniform", "rate": rate})


def tcp_goodput_mbps(metrics_flows: Sequence[dict]) -> float:
    """Total goodput of the TCP flows, in Mb/s."""
    return sum(f["goodput_bps"] for f in metrics_flows if f["kind"] == "tcp") / 1e6


def goodput_sweep(
    scenario: Scenario,
    algorithms: Sequence[str],
    loss_percent: Sequence[float],
    seeds: Sequence[int],
    workers: int | None = None,
    on_done: Callable[[], None] | None = None,
) -> pd.DataFrame:
    """Run every (algorithm, loss, seed) in parallel threads; long form: algorithm,
    loss_percent, seed, goodput_mbps. `on_done` is called after each run."""
    import pandas as pd

    loss_path = wireless_loss_path(scenario)
    jobs = []
    for algorithm in algorithms:
        per_algorithm = with_algorithm(scenario, algorithm)
        for loss in loss_percent:
            lossy = with_uniform_loss(per_algorithm, loss_path, loss / 100.0)
            jobs.extend((algorithm, loss, seed, lossy) for seed in seeds)

    def one(job: tuple[str, float, int, Scenario]) -> dict:
        algorithm, loss, seed, sc = job
        result = sc.run(seed=seed, trace=False)
        if on_done is not None:
            on_done()
        return {"algorithm": algorithm, "loss_percent": loss, "seed": seed, "goodput_mbps": tcp_goodput_mbps(result.raw["flows"]),
                "outside": "; ".join(outside_conditions(algorithm, result.warnings))}

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        rows = list(pool.map(one, jobs))
    return pd.DataFrame(rows, columns=["algorithm", "loss_percent", "seed", "goodput_mbps", "outside"])


def outside_conditions(algorithm: str, warnings: Sequence[str]) -> list[str]:
    """The run's warnings that say `algorithm` ran without a condition its paper assumes
    (crates/wtcp-engine/src/scenario/conditions.rs), without the flow names."""
    out = []
    for w in warnings:
        what = w.split(": ", 1)[-1]
        if what.startswith((f"{algorithm} ", f"{algorithm}'s ")):
            out.append(what)
    return out


def outside_by_algorithm(sweep: pd.DataFrame) -> dict[str, list[str]]:
    """Algorithm -> the distinct conditions it ran without, over the whole demo."""
    out: dict[str, list[str]] = {}
    for algorithm, text in zip(sweep["algorithm"], sweep["outside"]):
        for what in filter(None, text.split("; ")):
            out.setdefault(algorithm, [])
            if what not in out[algorithm]:
                out[algorithm].append(what)
    return out


def mean_goodput(sweep: pd.DataFrame, algorithms: Sequence[str]) -> pd.DataFrame:
    """Mean over seeds: rows loss_percent, one column per algorithm (in the given order)."""
    wide = sweep.pivot_table(index="loss_percent", columns="algorithm", values="goodput_mbps", aggfunc="mean")
    wide = wide[list(algorithms)]
    wide.columns.name = None
    return wide


def demo_summary(wide: pd.DataFrame, sweep: pd.DataFrame | None = None) -> pd.DataFrame:
    """Long form algorithm, loss_percent, n, mean, ci_low, ci_high: the store's
    `summarize` over the seeds of `sweep`, or the means of `wide` (n = 1) without it."""
    from wtcp.sweep.store import summarize

    if sweep is not None:
        return summarize(sweep, "goodput_mbps", ["algorithm", "loss_percent"])
    long = wide.rename_axis(index="loss_percent").reset_index().melt(id_vars="loss_percent", var_name="algorithm", value_name="mean")
    return long.assign(n=1, ci_low=math.nan, ci_high=math.nan)[["algorithm", "loss_percent", "n", "mean", "ci_low", "ci_high"]]


def panels(algorithms: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The demo's small multiples: the algorithms by family (`wtcp.plot.FAMILIES`), in
    legend order; algorithms of no family in a last panel."""
    from wtcp.plot import FAMILIES, sort_naturally

    out = [(family, [a for a in names if a in algorithms]) for family, names in FAMILIES]
    known = {a for _, names in FAMILIES for a in names}
    out.append(("Other algorithms", sort_naturally(a for a in algorithms if a not in known)))
    return [(family, names) for family, names in out if names]


def plot_goodput(wide: pd.DataFrame, path: Path, title: str, sweep: pd.DataFrame | None = None, x_label: str = "wireless loss rate (%)") -> Path:
    """`goodput_figure` written as a PNG (or as `path` says, see `wtcp.plot.save`)."""
    from wtcp.plot import save

    save(goodput_figure(wide, title, sweep, x_label), path)
    return path


def goodput_figure(wide: pd.DataFrame, title: str, sweep: pd.DataFrame | None = None, x_label: str = "wireless loss rate (%)") -> Figure:
    """Goodput (Mb/s) against loss (%) as small multiples, one panel per family of
    algorithms in their colours, the other algorithms in grey behind them, on shared
    axes; with `sweep` (per seed) and two or more seeds the 95 % intervals as bands."""
    from matplotlib.lines import Line2D

    from wtcp.plot import CONTEXT_GREY, FONT_SIZE, algorithm_style, draw_series, interval_note, legend_outside, new_figure, style_axes

    summary = demo_summary(wide, sweep)
    summary = summary[summary["algorithm"].isin(list(wide.columns))]
    layout = panels(list(wide.columns))
    ncols = 2 if len(layout) > 1 else 1
    nrows = -(-len(layout) // ncols)
    fig = new_figure(5.6 * ncols, 3.0 * nrows + 0.7)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    series = {name: part.sort_values("loss_percent") for name, part in summary.groupby("algorithm")}
    context = Line2D([], [], color=CONTEXT_GREY, linewidth=1.0)
    for ax, (family, names) in zip(axes.flat, layout):
        for name, part in series.items():
            if name not in names:
                ax.plot(part["loss_percent"], part["mean"], color=CONTEXT_GREY, linewidth=0.9, zorder=1)
        for name in names:
            if name in series:
                draw_series(ax, series[name]["loss_percent"], series[name], algorithm_style(name), name, "band", zorder=3)
        ax.set_title(family, fontsize=FONT_SIZE, loc="left")
        style_axes(ax)
        handles, labels = ax.get_legend_handles_labels()
        legend_outside(ax, handles=[*handles, context], labels=[*labels, "other algorithms"])
    for ax in axes.flat[len(layout):]:
        ax.set_visible(False)
    for ax in axes[-1, :]:
        ax.set_xlabel(x_label)
    for ax in axes[:, 0]:
        ax.set_ylabel("goodput (Mb/s)")
    axes[0, 0].set_ylim(bottom=0)
    outside = outside_by_algorithm(sweep) if sweep is not None and "outside" in sweep else {}
    note = f"\noutside their papers' conditions (see `wtcp demo` output): {', '.join(outside)}" if outside else ""
    fig.suptitle(f"{title}\n{interval_note(summary, 'band', 'seed')}{note}", fontsize=FONT_SIZE + 1)
    return fig


def run_demo(out_dir: Path, quick: bool = False, on_done: Callable[[], None] | None = None, scenario: Scenario | None = None,
             algorithms: Sequence[str] | None = None) -> tuple[pd.DataFrame, list[Path]]:
    """The whole demo: sweep (`algorithms`: these only, default every one), then write the
    CSV and the plot into `out_dir`. Returns the mean-goodput table and the written paths."""
    scenario = scenario or demo_scenario()
    algorithms = list(algorithms) if algorithms else [a["name"] for a in _core.algorithms()]
    seeds = QUICK_SEEDS if quick else SEEDS
    loss_percent = QUICK_LOSS_PERCENT if quick else LOSS_PERCENT
    sweep = goodput_sweep(scenario, algorithms, loss_percent, seeds, on_done=on_done)
    wide = mean_goodput(sweep, algorithms)
    wide.attrs["outside"] = outside_by_algorithm(sweep)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / CSV_FILE
    wide.to_csv(csv_path, index_label="loss_percent", float_format="%.6f")
    x_label = path_quantity(f"{wireless_loss_path(scenario)}.rate", scenario.document).axis_label
    plot_path = plot_goodput(wide, out_dir / PLOT_FILE, demo_title(scenario), sweep=sweep, x_label=x_label)
    return wide, [plot_path, csv_path]


def demo_title(scenario: Scenario) -> str:
    """The figure's title; the line under it says how many seeds each point averages."""
    return f"{scenario.name}: goodput vs wireless loss"


def demo_size(quick: bool, algorithms: Sequence[str] | None = None) -> int:
    """Number of runs the demo makes."""
    n_algorithms = len(algorithms) if algorithms else len(_core.algorithms())
    return n_algorithms * len(QUICK_LOSS_PERCENT if quick else LOSS_PERCENT) * len(QUICK_SEEDS if quick else SEEDS)
