"""The `wtcp` command: run a scenario, list the algorithms, run the demo.

Errors in what the user gave (a scenario, a file, an option) print `error: ...` on
stderr and exit with status 2; an internal simulator failure exits with status 1.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from wtcp import _core
from wtcp import algorithms as algorithms_list
from wtcp.algorithm import AlgorithmError, InvalidAlgorithm
from wtcp.errors import CliError, Interrupted, LinuxEngineUnavailable, ScenarioError, SimulationError
from wtcp.result import ENGINES, TRACE_TABLES
from wtcp.scenario import Scenario, builtin_scenario_names, builtin_scenario_path, builtin_scenarios
from wtcp.terminal import markup_safe, visible

if TYPE_CHECKING:
    from rich.console import Console

USAGE_ERROR = 2
INTERNAL_ERROR = 1
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl-C
PROGRESS_AFTER_S = 1.0  # a run shows its progress once it has lasted this long


@contextmanager
def scenario_errors(file: Path) -> Iterator[None]:
    """Report a `ScenarioError` as `<file>: <path>: <reason>`."""
    try:
        yield
    except ScenarioError as e:
        raise CliError(f"{file}: {e}") from None


def scenario_file(file: Path) -> Path:
    """FILE itself if it exists, else the built-in scenario of that name, if any."""
    if file.exists() or os.sep in str(file) or "/" in str(file):
        return file
    try:
        return builtin_scenario_path(str(file))
    except FileNotFoundError:
        raise CliError(f"no scenario file {file} and no built-in scenario of that name; built-in (see `wtcp scenarios`): {', '.join(builtin_scenario_names())}") from None


def read_scenario(file: Path) -> Scenario:
    """The scenario file FILE, or the built-in scenario named FILE when no such file exists."""
    file = scenario_file(file)
    try:
        with scenario_errors(file):
            return Scenario.from_file(file)
    except UnicodeDecodeError:
        raise CliError(f"{file}: not a UTF-8 text file") from None
    except OSError as e:
        raise CliError(f"cannot read {file}: {e.strerror or e}") from None


def parse_sets(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[tuple[str, str]]:
    pairs = []
    for item in values:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(f"{item!r} is not KEY=VALUE (for example links.1.ab.loss.rate=0.02)")
        pairs.append((key.strip(), value.strip()))
    return pairs


def seconds_text(s: float) -> str:
    """Seconds as a scenario gives them: 200, 0.5, 10000000."""
    return f"{s:.15g}"


@contextmanager
def run_progress(control: _core.RunControl | None, label: str, console: Console) -> Iterator[None]:
    """While the block runs, a progress line on `console` (stderr) for a run that lasts
    more than PROGRESS_AFTER_S: simulated time of the total, events per second, elapsed
    time and ETA. Drawn by a thread that reads `control`; only on a terminal, and cleared
    when the run ends."""
    if control is None or not console.is_terminal:
        yield
        return
    done = threading.Event()
    start = time.perf_counter()

    def draw() -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        if done.wait(PROGRESS_AFTER_S):
            return
        columns = [
            TextColumn(f"[bold]{markup_safe(label)}[/bold]"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TextColumn("[yellow]{task.fields[elapsed]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        ]
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("run", total=None, sim="", rate="", elapsed="")
            while True:
                total, now = control.duration_seconds, control.sim_seconds
                wall = time.perf_counter() - start
                rate = control.events / max(wall, 1e-9)
                elapsed = f"{int(wall) // 3600}:{int(wall) // 60 % 60:02d}:{int(wall) % 60:02d}"
                bar.update(task, total=total or None, completed=now, sim=f"{now:.1f} / {seconds_text(total)} s simulated", rate=f"{rate / 1e6:.1f} M events/s", elapsed=elapsed)
                if done.wait(0.2):
                    return

    thread = threading.Thread(target=draw, name="wtcp-run-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def warn(messages: list[str]) -> None:
    for message in messages:
        click.echo(f"warning: {visible(message)}", err=True)


class LazyGroup(click.Group):
    """A command group whose commands from other modules (`LAZY_COMMANDS`) are imported
    when named, so that `wtcp run` imports no sweep, store, reproduction or report code."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy = lazy  # command name -> "module:attribute"

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.lazy:
            module, attribute = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)


LAZY_COMMANDS = {
    "sweep": "wtcp.sweep.cli:sweep_command",
    "results": "wtcp.sweep.cli:results_command",
    "reproduce": "wtcp.reproduce.cli:reproduce_command",
    "report": "wtcp.reproduce.cli:report_command",
    "crosscheck": "wtcp.crosscheck:crosscheck_command",
    "validate": "wtcp.validate:validate_command",
    "trace": "wtcp.trace_cli:trace_command",
}


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_core.__version__, "-V", "--version", prog_name="wtcp")
def cli() -> None:
    """wtcp: a fast, deterministic packet-level simulator of TCP over lossy wireless links."""


@cli.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", callback=parse_sets, help="Set a field: dotted path = TOML value (repeatable).")
@click.option("--seed", type=int, help="Override run.seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object, nothing else.")
@click.option("--trace", "trace_dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="Record traces and write them as CSV files into DIR, streamed during the run (bounded memory).")
@click.option("--pcap", "pcap_dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR", help="Write a pcap file (headers only) per link direction and 802.11 station into DIR, for Wireshark or tcpdump (docs/pcap.md).")
@click.option("--engine", type=click.Choice(ENGINES), default="wtcp", show_default=True, help="Simulator: wtcp; the same scenario translated to ns-3 3.44 (needs wtcp[ns3]); or linux: the flows as this machine's kernel sockets over wtcp's links in real time (root; wall time = simulated time).")
@click.option("--ns3-attribute", "ns3_attributes", multiple=True, metavar="NAME=VALUE", help="With --engine ns3: an extra ns-3 TcpSocketBase attribute, e.g. Sack=true (repeatable).")
@click.option("--profile", "profile_name", metavar="NAME", help="Whose defaults fill what the scenario leaves out: rfc (default), ns2, ns3, qualnet, linux (`wtcp profile show NAME`).")
def run_command(file: Path, sets: list[tuple[str, str]], seed: int | None, as_json: bool, trace_dir: Path | None, pcap_dir: Path | None, engine: str, ns3_attributes: tuple[str, ...], profile_name: str | None) -> None:
    """Run the scenario FILE (a TOML file, or a built-in scenario by name: see `wtcp
    scenarios`) and print its metrics."""
    if ns3_attributes and engine != "ns3":
        raise click.UsageError("--ns3-attribute needs --engine ns3")
    if pcap_dir is not None and engine != "wtcp":
        raise click.UsageError("--pcap needs --engine wtcp (ns-3 runs write no packet captures)")
    from rich.console import Console

    from wtcp import report

    if profile_name is not None:
        sets = [profile_override(profile_name), *sets]
    file = scenario_file(file)
    scenario = read_scenario(file)
    control = _core.RunControl() if engine == "wtcp" else None
    try:
        with scenario_errors(file):
            scenario = scenario.with_text_overrides(sets)
            if engine == "linux":
                scenario.check_linux()
                seconds = scenario.document.get("run", {}).get("duration_s", "the scenario's")
                click.echo(f"linux engine: real time, the run takes {seconds} s of wall time (Ctrl-C stops it)", err=True)
            with run_progress(control, scenario.name, Console(stderr=True)):
                # wtcp streams the traces into DIR as the run goes (bounded memory).
                streamed = trace_dir if engine == "wtcp" else None
                result = scenario.run(seed=seed, trace=True if trace_dir else None, engine=engine, ns3_attributes=ns3_attributes, control=control, trace_dir=streamed, pcap_dir=pcap_dir)
    except KeyboardInterrupt:
        if engine == "linux":
            raise Interrupted("interrupted; the linux engine's namespaces and devices are gone") from None
        if control is None or not control.duration_seconds:
            raise
        raise Interrupted(f"interrupted at simulated t = {control.sim_seconds:.1f} s of {seconds_text(control.duration_seconds)} s") from None
    if as_json:
        click.echo(result.to_json())
    else:
        report.print_run(report.stdout_console(), result.raw)
    warn(result.warnings)
    if trace_dir is not None and (engine == "wtcp" or result.traces is not None):
        paths = result.traces.to_csv(trace_dir) if result.traces is not None else [trace_dir / f"{name}.csv" for name in TRACE_TABLES]
        click.echo(f"traces written to {trace_dir}: {', '.join(p.name for p in paths)}", err=True)
    if pcap_dir is not None:
        with open(pcap_dir / "captures.csv", newline="") as f:
            captures = list(csv.DictReader(f))
        packets = sum(int(c["packets"]) for c in captures)
        click.echo(f"packet captures written to {pcap_dir}: {len(captures)} pcap files, {packets} packets (listed in captures.csv)", err=True)


@cli.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Print name, description and file as JSON.")
def scenarios_command(as_json: bool) -> None:
    """List the built-in scenarios (`wtcp run NAME` runs one)."""
    from wtcp import report

    items = builtin_scenarios()
    if as_json:
        click.echo(json.dumps([{"name": n, "description": d, "file": str(p)} for n, d, p in items], indent=2))
        return
    report.print_scenarios(report.stdout_console(), [(n, d) for n, d, _ in items])


@cli.command("algorithms")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def algorithms_command(as_json: bool) -> None:
    """List the congestion-control algorithms and their parameters."""
    from wtcp import report

    algorithms = algorithms_list()
    if as_json:
        click.echo(json.dumps(algorithms, indent=2))
    else:
        report.print_algorithms(report.stdout_console(), algorithms)


@cli.command("new-algorithm")
@click.argument("name")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True, help="The wtcp source checkout (or a folder inside it).")
def new_algorithm_command(name: str, root: Path) -> None:
    """Start a new congestion control NAME in a wtcp checkout: a working AIMD module to
    edit (crates/wtcp-cc/src/NAME.rs), its registry line and an engine test. Guide:
    docs/new-algorithm.md."""
    from wtcp.new_algorithm import create, find_root
    from wtcp.terminal import visible

    top = find_root(root)
    written = create(name, top, [a["name"] for a in _core.algorithms()])
    for path in (written.module, written.test):
        click.echo(f"wrote {visible(path.relative_to(top))}")
    for path in (written.lib, written.registry):
        click.echo(f"added {name} to {visible(path.relative_to(top))}")
    click.echo(
        "next: make install (rebuilds, regenerates docs/algorithms.md), then\n"
        "  cargo test -p wtcp-cc                          # its unit tests, the contract suite, the parameter checks\n"
        f"  cargo test -p wtcp-engine --test cc_{name}\n"
        f"  .venv/bin/wtcp run reference-simple2 --set flows.0.cc={name}"
    )


def profile_override(name: str) -> tuple[str, str]:
    """`--profile NAME` as the override it stands for; an unknown name is a usage error."""
    from wtcp.profiles import UnknownProfile, override

    try:
        return override(name)
    except UnknownProfile as e:
        raise CliError(f"--profile: {e}") from None


@cli.group("profile")
def profile_group() -> None:
    """The simulator and stack profiles (docs/profiles.md)."""


@profile_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the profiles as JSON.")
def profile_list_command(as_json: bool) -> None:
    """List the profiles."""
    from wtcp.profiles import profiles

    items = profiles()
    if as_json:
        click.echo(json.dumps([{k: p[k] for k in ("name", "title")} for p in items], indent=2))
        return
    from wtcp import report

    report.print_profiles(report.stdout_console(), items)


@profile_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
def profile_show_command(name: str, as_json: bool) -> None:
    """Print the defaults profile NAME sets, each with its source."""
    from wtcp.profiles import UnknownProfile, profile

    try:
        p = profile(name)
    except UnknownProfile as e:
        raise CliError(str(e)) from None
    if as_json:
        click.echo(json.dumps(p, indent=2))
        return
    from wtcp import report

    report.print_profile(report.stdout_console(), p)


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("wtcp-demo"), show_default=True, metavar="DIR", help="Directory for the plot and the CSV.")
@click.option("--quick", is_flag=True, help="One seed and fewer loss rates.")
@click.option("--algorithms", "algorithm_list", metavar="A,B,...", help="Only these algorithms (names as `wtcp algorithms` lists them).")
def demo_command(out_dir: Path, quick: bool, algorithm_list: str | None) -> None:
    """Goodput of every algorithm over a wired + lossy wireless path, 0-5 % loss."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from wtcp import demo, report

    try:
        file = builtin_scenario_path(demo.DEMO_SCENARIO)
    except FileNotFoundError as e:
        raise CliError(str(e)) from None
    algorithms = algorithm_names(algorithm_list, "--algorithms") if algorithm_list is not None else None
    scenario = read_scenario(file)
    console = report.stdout_console()
    description = scenario.document.get("description")
    console.print(f"[bold]{markup_safe(scenario.name)}[/bold]" + (f": {markup_safe(description)}" if description else ""))
    runs = demo.demo_size(quick, algorithms)
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("runs", total=runs)
        with scenario_errors(file):
            wide, paths = demo.run_demo(out_dir, quick=quick, on_done=lambda: progress.advance(task), scenario=scenario, algorithms=algorithms)
    seeds = len(demo.QUICK_SEEDS if quick else demo.SEEDS)
    report.print_tables(console, report.goodput_tables(console.width, "goodput (Mb/s)", list(wide.index), {name: list(wide[name]) for name in wide.columns}))
    console.print(f"{'1 seed' if seeds == 1 else f'mean of {seeds} seeds'}, {runs} runs")
    warn([f"{'; '.join(why)}" for why in wide.attrs.get("outside", {}).values()])
    for path in paths:
        console.print(f"wrote {path}")



def algorithm_names(text: str, option: str) -> list[str]:
    """A comma-separated list of algorithm names, each checked against the registry (an
    unknown one is a usage error naming the closest known names)."""
    from wtcp.fieldpath import close_matches

    known = [a["name"] for a in _core.algorithms()]
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise CliError(f"{option}: is empty; allowed: a comma-separated list of {', '.join(known)}")
    for n in names:
        if n not in known:
            close = close_matches(n, known)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise CliError(f"{option}: unknown algorithm `{visible(n)}`{hint}; allowed: {', '.join(known)}")
    return list(dict.fromkeys(names))


MAX_ERROR_CHARS = 2000  # an error message longer than this is cut (a value echoed whole, ...)


def brief(message: str, limit: int = MAX_ERROR_CHARS) -> str:
    """`message`, cut to `limit` characters with a note of how much was left out, so that
    an error never fills the terminal with a configuration it quotes."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]} ... ({len(message) - limit} more characters)"


def tail(message: str, lines: int = 30) -> str:
    """`message`'s first line and its last `lines` lines (a traceback's end is its cause)."""
    parts = message.splitlines()
    if len(parts) <= lines + 1:
        return message
    return "\n".join([parts[0], f"  ... ({len(parts) - lines - 1} lines left out)", *parts[-lines:]])


def user_errors() -> tuple[type[BaseException], ...]:
    """The errors that mean a mistake in what the user gave: `CliError`, `ScenarioError`,
    and those of the modules the command has loaded (a module not loaded raised none):
    `StoreError` (a result store locked, corrupt, not DuckDB or not a wtcp store),
    `SweepError` (a sweep file's mistake), `ReportError` (an output folder whose
    summary.json points outside it), `Ns3Unavailable`."""
    out: list[type[BaseException]] = [CliError, ScenarioError, LinuxEngineUnavailable, InvalidAlgorithm]
    for module, name in (("wtcp.sweep.store", "StoreError"), ("wtcp.sweep.spec", "SweepError"), ("wtcp.htmlreport", "ReportError"), ("wtcp.ns3.refuse", "Ns3Unavailable")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            out.append(getattr(loaded, name))
    return tuple(out)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        status = cli.main(args=argv, prog_name="wtcp", standalone_mode=False)
        return status if isinstance(status, int) else 0
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.format_message())
        return 0
    except click.UsageError as e:
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
        click.echo(f"error: {visible(e.format_message())}{hint}", err=True)
        return USAGE_ERROR
    except click.ClickException as e:
        click.echo(f"error: {visible(e.format_message())}", err=True)
        return e.exit_code
    except user_errors() as e:  # (evaluated when an exception gets here)
        click.echo(f"error: {visible(brief(str(e)))}", err=True)
        return USAGE_ERROR
    except AlgorithmError as e:
        # A Python algorithm's exception: where it happened, then the end of its traceback.
        click.echo(f"error: {visible(tail(str(e)))}", err=True)
        return USAGE_ERROR
    except SimulationError as e:
        click.echo(f"internal error: {visible(brief(str(e)))}", err=True)
        return INTERNAL_ERROR
    except Interrupted as e:
        # Ctrl-C during a run or a sweep: one line, no traceback (on a terminal after a
        # line break, which closes the terminal's ^C echo).
        click.echo(f"\n{e}" if sys.stderr.isatty() else str(e), err=True)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`wtcp run ... | head`): silence the flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return INTERNAL_ERROR
    except OSError as e:
        click.echo(visible(f"error: {e.filename}: {e.strerror}" if e.filename and e.strerror else f"error: {e}"), err=True)
        return USAGE_ERROR
    except (click.Abort, KeyboardInterrupt):
        click.echo("aborted", err=True)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
