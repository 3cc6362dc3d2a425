"""Hostile names (issue: every user string shown in a terminal is escaped): rich markup and
control characters in scenario, flow and sweep names are shown as text, never parsed or
sent to the terminal."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import SHORT_DURATION_S, reference_path, run_cli

HOSTILE = {
    "closing tag": "[/]",
    "tags": "x [red]y[/red] [a]",
    "window title escape": "\x1b]0;owned\x07",
    "C1 control": "a\x9bb",
}
SHORT = ("--set", f"run.duration_s={SHORT_DURATION_S}")


def shown(name: str) -> str:
    """How `wtcp.terminal.visible` shows a name."""
    return "".join(f"\\x{ord(c):02x}" if (ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F else c for c in name)


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_flow_name_is_shown_as_text(name):
    # A JSON string is a TOML basic string (control characters as \uXXXX).
    done = run_cli("run", str(reference_path()), *SHORT, "--set", f"flows.0.name={json.dumps(name)}")
    assert done.returncode == 0, done.stderr
    assert shown(name) in done.stdout
    assert "\x1b]" not in done.stdout + done.stderr and "\x9b" not in done.stdout + done.stderr


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_name_in_an_error_reaches_the_terminal_escaped(name):
    done = run_cli("run", str(reference_path()), *SHORT, "--set", f"flows.0.dst={json.dumps(name)}")
    assert done.returncode == 2
    assert "\x1b]" not in done.stderr and "\x9b" not in done.stderr and "Traceback" not in done.stderr


def test_a_sweep_and_its_store_named_with_markup_list_and_run(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'name = "[/]"\nscenario = "reference-simple2"\n[set]\n"run.duration_s" = {SHORT_DURATION_S}\n')
    store = tmp_path / "s.duckdb"
    done = run_cli("sweep", str(sweep), "--workers", "1", "--store", str(store))
    assert done.returncode == 0, done.stderr
    listed = run_cli("results", str(store))
    assert listed.returncode == 0, listed.stderr
    assert "[/]" in listed.stdout


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux `script` for a terminal")
def test_the_sweep_progress_line_on_a_terminal_shows_a_markup_name(tmp_path):
    # The progress bar is drawn only on a terminal: `script` gives the sweep one.
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'name = "[/bold]"\nscenario = "reference-simple2"\n[set]\n"run.duration_s" = {SHORT_DURATION_S}\n')
    command = f"{shlex.quote(sys.executable)} -m wtcp.cli sweep {shlex.quote(str(sweep))} --workers 1 --store {shlex.quote(str(tmp_path / 's.duckdb'))}"
    done = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "1 done" in done.stdout and "MarkupError" not in done.stdout
