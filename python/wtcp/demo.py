"""`wtcp demo`: goodput of every algorithm across wireless loss rates on the two-hop path."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from wtcp import _core
from wtcp.errors import scenario_error
from wtcp.scenario import Scenario, builtin_scenario_path

if TYPE_CHECKING:
    import pandas as pd

DEMO_SCENARIO = "two-hop-wireless"
WIRELESS_LINK = "wireless"
LOSS_PERCENT = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0)
QUICK_LOSS_PERCENT = (0.0, 1.0, 3.0, 5.0)
SEEDS = (1, 2, 3)
QUICK_SEEDS = (1,)
PLOT_FILE = "goodput-vs-loss.png"
CSV_FILE = "goodput-vs-loss.csv"
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h")
LINESTYLES = ("-", "--", ":", "-.")


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
        return {"algorithm": algorithm, "loss_percent": loss, "seed": seed, "goodput_mbps": tcp_goodput_mbps(result.raw["flows"])}

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        rows = list(pool.map(one, jobs))
    return pd.DataFrame(rows, columns=["algorithm", "loss_percent", "seed", "goodput_mbps"])


def mean_goodput(sweep: pd.DataFrame, algorithms: Sequence[str]) -> pd.DataFrame:
    """Mean over seeds: rows loss_percent, one column per algorithm (in the given order)."""
    wide = sweep.pivot_table(index="loss_percent", columns="algorithm", values="goodput_mbps", aggfunc="mean")
    wide = wide[list(algorithms)]
    wide.columns.name = None
    return wide


def plot_goodput(wide: pd.DataFrame, path: Path, title: str) -> Path:
    """Goodput (Mb/s) against loss (%), one line per algorithm, as a PNG (Agg)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i, algorithm in enumerate(wide.columns):
        marker = MARKERS[i % len(MARKERS)]
        linestyle = LINESTYLES[(i // 10) % len(LINESTYLES)]  # colours repeat after ten lines
        ax.plot(wide.index, wide[algorithm], marker=marker, linestyle=linestyle, label=algorithm)
    ax.set_xlabel("wireless loss rate (%)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.4)
    ax.legend(ncols=1 + len(wide.columns) // 8, fontsize="small")
    fig.savefig(path, dpi=120)
    return path


def run_demo(out_dir: Path, quick: bool = False, on_done: Callable[[], None] | None = None, scenario: Scenario | None = None) -> tuple[pd.DataFrame, list[Path]]:
    """The whole demo: sweep, then write the CSV and the plot into `out_dir`.
    Returns the mean-goodput table and the written paths."""
    scenario = scenario or demo_scenario()
    algorithms = [a["name"] for a in _core.algorithms()]
    seeds = QUICK_SEEDS if quick else SEEDS
    loss_percent = QUICK_LOSS_PERCENT if quick else LOSS_PERCENT
    sweep = goodput_sweep(scenario, algorithms, loss_percent, seeds, on_done=on_done)
    wide = mean_goodput(sweep, algorithms)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / CSV_FILE
    wide.to_csv(csv_path, index_label="loss_percent", float_format="%.6f")
    plot_path = plot_goodput(wide, out_dir / PLOT_FILE, demo_title(scenario, len(seeds)))
    return wide, [plot_path, csv_path]


def demo_title(scenario: Scenario, n_seeds: int) -> str:
    seeds = "1 seed" if n_seeds == 1 else f"mean of {n_seeds} seeds"
    return f"{scenario.name}: goodput vs wireless loss ({seeds})"


def demo_size(quick: bool) -> int:
    """Number of runs the demo makes."""
    n_algorithms = len(_core.algorithms())
    return n_algorithms * len(QUICK_LOSS_PERCENT if quick else LOSS_PERCENT) * len(QUICK_SEEDS if quick else SEEDS)
