"""`wtcp sweep` and `wtcp results` (the `wtcp` group loads them when named)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from wtcp.errors import CliError, Interrupted
from wtcp.terminal import markup_safe, visible


def _cli_error(message: str) -> Exception:
    # Defined outside wtcp.cli so that `python -m wtcp.cli` (module __main__) catches it.
    return CliError(message)


def executor_options(command):
    """The options choosing where runs execute (shared by `sweep` and `reproduce`)."""
    command = click.option("--dask-local", "dask_local", type=click.IntRange(min=1), metavar="N", help="Start a local Dask cluster of N worker processes and run on it.")(command)
    command = click.option("--dask", "dask_address", metavar="ADDRESS", help="Run on the Dask scheduler at ADDRESS (tcp://host:8786).")(command)
    return click.option("--workers", type=click.IntRange(min=1), help="Local worker processes (1 runs in this process; default: this process, and all cores once the runs left would take more than 2 s).")(command)


def check_executor_options(workers: int | None, dask_address: str | None, dask_local: int | None) -> None:
    if sum(x is not None for x in (workers, dask_address, dask_local)) > 1:
        raise click.UsageError("give at most one of --workers, --dask and --dask-local")


def make_executor(workers: int | None, dask_address: str | None, dask_local: int | None, run_timeout: float | None = None):
    """The executor the options ask for: Dask, in-process (`--workers 1`), a process pool
    (`--workers N`) or, by default, in-process until a pool of all cores pays off. With a
    run timeout `--workers 1` is one worker process: only a process can be ended when a
    run cannot stop itself at its limit."""
    from wtcp.sweep.runner import AutoExecutor, DaskExecutor, InlineExecutor, ProcessPoolExecutor

    if dask_address is not None or dask_local is not None:
        option = "--dask" if dask_address is not None else "--dask-local"
        try:
            return DaskExecutor(address=dask_address, local_workers=dask_local)
        except ImportError:
            raise _cli_error(f"{option} needs Dask, which is not installed; install the extra: pip install 'wtcp[dask]'") from None
        except (OSError, TimeoutError) as e:
            raise _cli_error(f"cannot reach the Dask scheduler {dask_address}: {e}") from None
    if workers is None:
        return AutoExecutor()
    if workers == 1:
        return InlineExecutor() if run_timeout is None else ProcessPoolExecutor(1)
    return ProcessPoolExecutor(workers)


@click.command("sweep")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@executor_options
@click.option("--store", "store_path", type=click.Path(dir_okay=False, path_type=Path), help="DuckDB result file (default: <sweep name>.duckdb next to FILE).")
@click.option("--run-timeout", "run_timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", help="Stop a run after this much wall time and store it as failed.")
@click.option("--run-memory", "run_memory", type=click.FloatRange(min=0, min_open=True), metavar="MB", help="Stop a run once the simulator holds more than MB megabytes (2^20 bytes) of heap, and store it as failed.")
@click.option("--quiet", is_flag=True, help="No progress display.")
@click.option("--dry-run", "dry", is_flag=True, help="Print the run count, the axes and how many runs are already stored; run nothing.")
@click.option("--profile", "profile_name", metavar="NAME", help="Whose defaults fill what the runs leave out (docs/profiles.md); the sweep's own `profile` value or axis wins.")
def sweep_command(file: Path, workers: int | None, store_path: Path | None, dask_address: str | None, dask_local: int | None, run_timeout: float | None, run_memory: float | None, quiet: bool, dry: bool, profile_name: str | None) -> None:
    """Run the sweep FILE, storing every result; runs already stored are skipped.
    Ctrl-C stops it, keeping every finished run; the same command resumes it."""
    from wtcp.sweep.runner import SweepInterrupted, default_store_path, run_sweep
    from wtcp.sweep.spec import Sweep, SweepError
    from wtcp.sweep.store import Store, StoreError

    check_executor_options(workers, dask_address, dask_local)
    if profile_name is not None:
        from wtcp.cli import profile_override

        profile_override(profile_name)
    try:
        sweep = Sweep.from_file(file, profile=profile_name)
        sweep.check_size()  # too many runs to plan: refused before the store is made
    except SweepError as e:
        raise _cli_error(f"{file}: {e}") from None
    except UnicodeDecodeError:
        raise _cli_error(f"{file}: not a UTF-8 text file") from None
    except OSError as e:
        raise _cli_error(f"cannot read {file}: {e.strerror or e}") from None
    from wtcp.sweep.spec import uses_engine

    if uses_engine(sweep, "linux"):
        # Real time: concurrent kernel runs would take each other's CPU and distort timing.
        if (workers or 1) != 1 or dask_address is not None or dask_local is not None:
            raise click.UsageError("engine linux runs in real time, one run at a time: use --workers 1 (no Dask)")
        workers = 1
    try:
        store_file = store_path or default_store_path(sweep)
    except SweepError as e:
        raise _cli_error(f"{file}: {e}") from None
    if dry:
        from wtcp.sweep.runner import dry_run

        try:
            plan = dry_run(sweep, store_file)
        except StoreError as e:
            raise _cli_error(str(e)) from None
        except SweepError as e:  # too many runs to plan
            raise _cli_error(f"{file}: {e}") from None
        click.echo(visible(f"{sweep.name}: " + "\n".join(plan.lines()) + f"\nstore: {store_file}" + ("" if store_file.exists() else " (not created yet)")))
        if plan.invalid:
            # A plan with invalid points is a mistake to fix before running (status 2).
            raise _cli_error(f"{file}: {plan.invalid} of {plan.total} runs are invalid points (listed above)")
        return
    try:
        store = Store(store_file)
    except StoreError as e:  # locked, not a DuckDB file, corrupt, not a wtcp store
        raise _cli_error(str(e)) from None

    executor = make_executor(workers, dask_address, dask_local, run_timeout)
    err = Console(stderr=True)
    limits = {"run_timeout_s": run_timeout, "run_memory_mb": run_memory}
    try:
        if quiet or not err.is_terminal:
            outcome = run_sweep(sweep, store, executor, **limits)
        else:
            outcome = _with_progress(sweep, store, executor, err, limits)
    except SweepInterrupted as e:
        raise Interrupted(str(e)) from None
    finally:
        executor.close()
        store.close()
    for run, error in (outcome.errors or [])[:10]:
        params = ", ".join(f"{k}={v}" for k, v in run.params.items())
        label = " ".join(x for x in (params, run.algorithm or "", f"replication {run.replication}") if x)
        click.echo(visible(f"failed: {label}: {error.splitlines()[0] if error else ''}"), err=True)
    if outcome.failed > 10:
        click.echo(f"... and {outcome.failed - 10} more failed runs (see the runs table of {store_file})", err=True)
    for text, runs in list(outcome.warnings.items())[:10]:
        click.echo(f"warning ({runs} run{'s' if runs > 1 else ''}): {text}", err=True)
    if len(outcome.warnings) > 10:
        click.echo(f"... and {len(outcome.warnings) - 10} more distinct warnings (the runs table's `warnings` column)", err=True)
    click.echo(outcome.line())
    if outcome.failed:
        raise click.exceptions.Exit(1)


def _with_progress(sweep, store, executor, console: Console, limits: dict):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from wtcp.sweep.runner import run_sweep

    columns = [
        TextColumn(f"[bold]{markup_safe(sweep.name)}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[rate]:.1f} runs/s, {task.fields[sim]:.0f} sim s/s"),
    ]
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("runs", total=None, rate=0.0, sim=0.0)

        def on_update(p) -> None:
            bar.update(task, total=p.total, completed=p.finished, rate=p.rate(), sim=p.sim_rate())

        return run_sweep(sweep, store, executor, on_update=on_update, **limits)


@click.command("results")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--export", "fmt", type=click.Choice(["parquet", "csv"]), help="Write the runs and flows tables in this format.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="Directory for --export (default: next to PATH).")
@click.option("--copy", "copy_to", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help="Copy the store to FILE as one self-contained file (with what its .wal log holds), also while a sweep writes it.")
@click.option("--prune-failed", "prune", is_flag=True, help="Delete the failed runs from the store (a sweep retries them anyway) and say how many.")
@click.option("--check", "check", is_flag=True, help="Read the whole store and say what is damaged (exit 1 if anything is).")
def results_command(path: Path, fmt: str | None, out_dir: Path | None, copy_to: Path | None, prune: bool, check: bool) -> None:
    """List the sweeps in the result store PATH; export its tables or copy it.

    A store that a running sweep is writing is read as it stands: the runs committed so
    far (the sweep commits about once a second and is not held up). A store of a newer
    wtcp's schema is refused."""
    from wtcp import report
    from wtcp.htmlreport import _total
    from wtcp.sweep.store import copy_store, readable_store

    if out_dir is not None and fmt is None:
        raise click.UsageError("--out needs --export")
    if path.exists() and not path.is_file():
        raise _cli_error(f"{path}: is not a regular file (a folder, a FIFO or a device); allowed: a DuckDB store file")
    if not path.is_file():
        raise _cli_error(f"no result store {path}")
    if check:
        from wtcp.sweep.store import open_store

        problems = open_store(path).check()
        for p in problems:
            click.echo(visible(f"{path}: {p}"), err=True)
        click.echo(f"{path}: {'damaged: ' + str(len(problems)) + ' problem(s)' if problems else 'sound: every table read, every done run has its flow rows'}")
        raise SystemExit(1 if problems else 0)
    if prune:
        from wtcp.sweep.store import Store

        with Store(path) as store:  # for writing: a store a sweep is writing is refused
            removed = store.prune_failed()
        click.echo(f"removed {removed} failed run{'' if removed == 1 else 's'} from {path}", err=True)
    if copy_to is not None:
        copy_store(path, copy_to)
        click.echo(f"copied {path} to {copy_to}", err=True)
        path = copy_to
    with readable_store(path) as (store, note):
        if note:
            click.echo(f"note: {note}", err=True)
        table = store.sweeps()
        if fmt is not None:
            paths = store.export(out_dir or path.parent, fmt)
    rows = [[str(row.sweep), str(row.runs), str(row.done), str(row.failed), f"{_total(row.sim_seconds):.0f}", f"{_total(row.wall_seconds):.1f}"] for row in table.itertuples(index=False)]
    console = report.stdout_console()
    report.print_tables(console, report.fitted_tables(console.width, f"sweeps in {path.name}", ("sweep", "runs", "done", "failed", "sim s", "wall s"), rows, what="sweeps"))
    if fmt is not None:
        for p in paths:
            click.echo(f"wrote {p}")


if __name__ == "__main__":
    # `python -m wtcp.sweep.cli ...`: the `wtcp` command.
    import sys

    from wtcp import cli as wtcp_cli

    sys.exit(wtcp_cli.main())
