"""Nothing is written through a symbolic link planted where wtcp writes (a lock file, a
trace or capture folder, the default report page): the link is refused, or replaced, and
its target is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import SHORT_DURATION_S, reference_path, run_cli

SHORT = ("--set", f"run.duration_s={SHORT_DURATION_S}")
CONTENT = "important data\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text(CONTENT)
    return path


@pytest.mark.parametrize("option, file", [("--trace", "flows.csv"), ("--trace", "drops.csv"), ("--pcap", "hosts"), ("--pcap", "flows.csv")])
def test_a_link_in_a_trace_or_capture_folder_is_refused(tmp_path, victim, option, file):
    folder = tmp_path / "out"
    folder.mkdir()
    os.symlink(victim, folder / file)
    done = run_cli("run", str(reference_path()), *SHORT, option, str(folder))
    assert done.returncode == 2, done.stderr
    assert "is a symbolic link" in done.stderr and file in done.stderr and "Traceback" not in done.stderr
    assert victim.read_text() == CONTENT


def test_a_store_lock_that_is_a_link_is_refused(tmp_path, victim):
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'name = "s"\nscenario = "reference-simple2"\n[set]\n"run.duration_s" = {SHORT_DURATION_S}\n')
    os.symlink(victim, tmp_path / "s.duckdb.lock")
    done = run_cli("sweep", str(sweep), "--workers", "1", "--quiet", "--store", str(tmp_path / "s.duckdb"))
    assert done.returncode == 2, done.stderr
    assert "lock file" in done.stderr and "symbolic link" in done.stderr
    assert victim.read_text() == CONTENT


def test_a_report_page_that_is_a_link_is_replaced_not_followed(tmp_path, victim):
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'name = "s"\nscenario = "reference-simple2"\n[set]\n"run.duration_s" = {SHORT_DURATION_S}\n')
    store = tmp_path / "s.duckdb"
    assert run_cli("sweep", str(sweep), "--workers", "1", "--quiet", "--store", str(store)).returncode == 0
    page = tmp_path / "s.html"  # the default: the store with .html
    os.symlink(victim, page)
    done = run_cli("report", str(store))
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == CONTENT
    assert not page.is_symlink() and "<html" in page.read_text()
