"""A full disk is named, and leaves nothing that looks complete: in a private mount
namespace (`unshare -m`, as root; nothing of the host changes) a small tmpfs fills up
under a trace, a sweep's store and a report."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare for a private tmpfs")

SWEEP = 'name = "s"\nscenario = "reference-simple2"\n[set]\n"trace.enabled" = true\n"trace.interval_ms" = 1\n[grid]\n"links.1.ab.loss.rate" = [0.0, 0.01, 0.02, 0.03]\n'


def in_full_tmpfs(tmp_path: Path, size: str, commands: list[str]) -> list[tuple[int, str, list[str]]]:
    """Each `wtcp` command (arguments after `wtcp`) in `tmp_path/disk` mounted as a tmpfs
    of `size`, in a mount namespace of its own: (exit status, stderr, the files left).
    What the test reads back goes to `tmp_path/log`, outside the full disk."""
    disk, log = tmp_path / "disk", tmp_path / "log"
    disk.mkdir()
    log.mkdir()
    (disk / "s.toml").write_text(SWEEP, encoding="utf-8")
    q = shlex.quote
    wtcp = f"{q(sys.executable)} -m wtcp.cli"
    script = [f"mount -t tmpfs -o size={size} tmpfs {q(str(disk))}", f"cd {q(str(disk))}", f"printf %s {q(SWEEP)} > s.toml"]
    for i, c in enumerate(commands):
        script.append(f"{wtcp} {c} > /dev/null 2> {q(str(log / f'err{i}'))}; echo $? > {q(str(log / f'rc{i}'))}; find . -type f | sort > {q(str(log / f'files{i}'))}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", "; ".join(script)], capture_output=True, text=True, timeout=300, cwd="/")
    if not (log / "rc0").exists():
        pytest.skip(f"no private tmpfs here: {done.stderr[-300:]}")
    return [(int((log / f"rc{i}").read_text()), (log / f"err{i}").read_text(), (log / f"files{i}").read_text().split()) for i in range(len(commands))]


def test_a_full_disk_names_the_file_and_leaves_no_partial_trace_or_store_commit(tmp_path):
    trace, sweep, pcap = in_full_tmpfs(tmp_path, "3m", [f"run {ROOT_SCENARIO} --trace tr", "sweep s.toml --workers 1 --quiet", f"run {ROOT_SCENARIO} --pcap cap"])
    status, err, files = trace
    # The file being written when the disk filled is named (which one depends on the rows' sizes).
    assert status == 2 and re.search(r"tr/(flows|cc|queues|losses|drops)\.csv: No space left on device", err) and "Traceback" not in err, err
    assert not any(f.startswith("./tr/") for f in files), files  # no truncated trace left
    status, err, files = sweep
    assert status == 2 and "no space left on the device" in err and "cannot rollback" not in err
    status, err, files = pcap
    assert status == 2 and "No space left on device" in err and "writing cap/" in err and "Traceback" not in err  # the file named


ROOT_SCENARIO = shlex.quote(str(Path(__file__).resolve().parents[2] / "scenarios" / "reference-simple2.toml"))
