"""`wtcp trace`: generate, summarise and plot link capacity traces (docs/traces.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from wtcp.errors import CliError, ScenarioError
from wtcp.safefile import atomic_write_text
from wtcp.terminal import visible


def _load(file: Path, fmt: str, interpolate: str):
    from wtcp import traces

    try:
        return traces.load(file, fmt, interpolate)
    except ScenarioError as e:
        raise CliError(str(e).replace("capacity.trace: ", "", 1)) from None


@click.group("trace", context_settings={"help_option_names": ["-h", "--help"]})
def trace_command() -> None:
    """Link capacity traces: generate a synthetic one, summarise or plot a trace file."""


@trace_command.command("generate")
@click.argument("spec")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of a model that states no `seed` of its own.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the trace to this file instead of standard output.")
def generate_command(spec: str, seed: int, out: Path | None) -> None:
    """Write one period of a synthetic capacity model in mahimahi format. SPEC is the
    `capacity` table of a link direction, e.g.
    '{ model = "markov", rates_mbps = [1, 12], mean_holding_s = [2, 5], duration_s = 120, seed = 3 }'
    (models and parameters: docs/traces.md). The file and the table are the same link."""
    from wtcp import traces

    if seed < 0:
        raise click.BadParameter(f"is {seed}; allowed: an integer >= 0", param_hint="--seed")
    try:
        trace = traces.generate(spec, seed)
    except ScenarioError as e:
        raise CliError(f"SPEC: {e}") from None
    if trace.kind != "opportunities":
        raise CliError("SPEC: names a CSV rate series, which has no mahimahi form; give a model")
    text = trace.to_mahimahi()
    if out is None:
        click.echo(text, nl=False)
        return
    atomic_write_text(out, text)
    click.echo(f"wrote {visible(out)}: {len(trace.times_ms)} opportunities, {trace.period_s:g} s, mean {trace.mean_mbps():.3f} Mb/s", err=True)


FORMAT = click.option("--format", "fmt", type=click.Choice(["mahimahi", "csv"]), default="mahimahi", show_default=True, help="How the file is written.")
INTERPOLATE = click.option("--interpolate", type=click.Choice(["step", "linear"]), default="step", show_default=True, help="Between the rows of a CSV trace.")
BIN = click.option("--bin", "bin_s", type=click.FloatRange(min=0.001), default=0.1, show_default=True, help="Bin width in seconds for the percentiles and the outage share.")


@trace_command.command("summary")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@FORMAT
@INTERPOLATE
@BIN
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def summary_command(file: Path, fmt: str, interpolate: str, bin_s: float, as_json: bool) -> None:
    """Mean capacity, percentiles of the capacity per bin and the share of bins without
    any (outages) of one period of the trace FILE."""
    s = _load(file, fmt, interpolate).summary(bin_s)
    if as_json:
        click.echo(json.dumps(s, indent=2))
        return
    click.echo(f"{visible(file)}: period {s['period_s']:g} s, mean {s['mean_mbps']:.3f} Mb/s; per {bin_s:g} s bin: "
               f"p5 {s['p5_mbps']:.3f}, median {s['p50_mbps']:.3f}, p95 {s['p95_mbps']:.3f} Mb/s, {100 * s['outage_share']:.1f} % without capacity")


@trace_command.command("plot")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The figure (PNG, PDF or SVG by its suffix).")
@FORMAT
@INTERPOLATE
@BIN
def plot_command(file: Path, out: Path, fmt: str, interpolate: str, bin_s: float) -> None:
    """Plot one period of the trace FILE's capacity."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import os

    from wtcp.safefile import open_no_follow

    trace = _load(file, fmt, interpolate)
    ax = trace.plot(bin_s=bin_s)
    ax.set_title(visible(file.name), fontsize=9)
    fig = ax.figure
    fig.tight_layout()
    suffix = out.suffix.lower().lstrip(".") or "png"
    if suffix not in ("png", "pdf", "svg"):
        raise click.BadParameter(f"has suffix .{suffix}; allowed: .png, .pdf, .svg", param_hint="--out")
    with os.fdopen(open_no_follow(out), "wb") as f:  # a link at --out is refused, not followed
        fig.savefig(f, format=suffix)
    plt.close(fig)
    click.echo(f"wrote {visible(out)}", err=True)
