"""`wtcp reproduce PAPER` and `wtcp report STORE_OR_DIR` (the `wtcp` group loads them when named)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from wtcp.errors import CliError
from wtcp.sweep.cli import check_executor_options, executor_options, make_executor


def _targets(paper: str) -> list[str]:
    """`all`, one shipped paper by name, or a paper definition of one's own by path
    (`./mypaper`, `mypaper/paper.toml`: the path form needs a separator or `.toml`)."""
    from wtcp.reproduce.run import all_targets
    from wtcp.reproduce.spec import is_path_form

    names = all_targets()
    if paper == "all":
        return names
    if is_path_form(paper):
        return [paper]
    if paper not in names:
        raise CliError(f"no paper `{paper}`; allowed: {', '.join(names)}, all, or the path of a paper definition of your own (./{paper})")
    return [paper]


@click.command("reproduce")
@click.argument("paper", metavar="PAPER")
@click.option("--quick", is_flag=True, help="The reduced grid (short runs, few replications): about a minute for all papers.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("wtcp-reproduce"), show_default=True, metavar="DIR", help="Output directory (one folder per paper, report.html).")
@executor_options
@click.option("--quiet", is_flag=True, help="No progress display.")
@click.option("--profile", "profile_name", metavar="NAME", help="Run every paper with this profile instead of its own simulator's (docs/profiles.md).")
def reproduce_command(paper: str, quick: bool, out_dir: Path, workers: int | None, dask_address: str | None, dask_local: int | None, quiet: bool, profile_name: str | None) -> None:
    """Re-run a paper's experiments and ablations, compare with its published numbers,
    write figures, claims.csv, ablations.csv and report.html. PAPER: dynamic, ewr, taichung, clap, njplus, scorecard or
    all (the papers shipped with wtcp), or the path of a paper definition of your own: a
    paper.toml or its folder, written with a separator (./mypaper)."""
    from wtcp import htmlreport, report
    from wtcp.reproduce.run import reproduce_paper
    from wtcp.reproduce.spec import PaperError

    targets = _targets(paper)
    if profile_name is not None:
        from wtcp.cli import profile_override

        profile_override(profile_name)  # an unknown name is a usage error before anything runs
    check_executor_options(workers, dask_address, dask_local)
    executor = make_executor(workers, dask_address, dask_local)
    console = report.stdout_console()
    err = Console(stderr=True)
    outcomes = []
    try:
        for name in targets:
            try:
                if quiet:
                    outcome = reproduce_paper(name, out_dir, executor, quick=quick, profile=profile_name)
                else:
                    outcome = _with_progress(name, out_dir, executor, quick, err, profile_name)
            except PaperError as e:
                raise CliError(f"paper `{name}`: {e}") from None
            outcomes.append(outcome)
            h = outcome.holds_counts()
            copies = f" ({h['copies']} copied cells counted once)" if h["copies"] else ""
            ablations = f"; {len(outcome.paper.ablations)} ablations" if outcome.paper.ablations else ""
            console.print(f"[bold]{name}[/bold]: {outcome.runs} runs ({outcome.failed} failed) in {outcome.wall_seconds:.1f} s; "
                          f"claims{' (quick: indicative)' if quick else ''}: {h['yes']} hold, {h['no']} do not, {h['inconclusive']} inconclusive, "
                          f"{h['na']} not measurable{copies}{ablations} -> {outcome.folder / 'claims.csv'}")
    finally:
        executor.close()
    path = htmlreport.reproduction_report(out_dir)
    console.print(f"wrote {path}")
    if any(o.failed for o in outcomes):
        raise click.exceptions.Exit(1)


def _with_progress(name, out_dir, executor, quick, console, profile=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from wtcp.reproduce.run import reproduce_paper

    with Progress(TextColumn("[bold]{task.description}[/bold]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True) as bar:
        tasks: dict[str, int] = {}

        def on_update(experiment: str, p) -> None:
            if experiment not in tasks:
                tasks[experiment] = bar.add_task(f"{name}/{experiment}", total=p.total)
            bar.update(tasks[experiment], total=p.total, completed=p.finished)

        return reproduce_paper(name, out_dir, executor, quick=quick, on_update=on_update, profile=profile)


@click.command("report")
@click.argument("source", metavar="STORE_OR_DIR", type=click.Path(path_type=Path))
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help="HTML file (default: DIR/report.html, or STORE with .html).")
@click.option("--metric", default="goodput_mbps", show_default=True, help="Metric of a store report's tables and figures.")
def report_command(source: Path, out_file: Path | None, metric: str) -> None:
    """Write one self-contained HTML page: of a `wtcp reproduce` output directory, or of a
    sweep result store (.duckdb)."""
    from wtcp import htmlreport

    if source.is_dir():
        try:
            path = htmlreport.reproduction_report(source, out_file)
        except FileNotFoundError:
            raise CliError(f"{source}: no `wtcp reproduce` output here (no */summary.json)") from None
    elif source.is_file():
        try:
            path = htmlreport.store_report(source, out_file, metric=metric)
        except KeyError as e:
            raise CliError(f"--metric: {e.args[0]}") from None
    elif source.exists():
        raise CliError(f"{source}: is not a regular file (a FIFO, a socket or a device); allowed: a reproduction folder or a result store file")
    else:
        raise CliError(f"no such directory or result store: {source}")
    click.echo(f"wrote {path}")
