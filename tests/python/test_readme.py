"""Every `wtcp` command the README shows runs as written (quick variants where the README's
is a long job), in a folder holding the repository's scenarios and a copy of its sweeps."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPRODUCE_ALL_QUICK

ROOT = Path(__file__).resolve().parents[2]

# Long jobs run in their quick form; a placeholder store name stands for a real one.
QUICK = {
    "wtcp demo --out my-demo": "wtcp demo --out my-demo --quick",
    "wtcp reproduce all --out wtcp-reproduce": REPRODUCE_ALL_QUICK,
    "wtcp report my-sweep.duckdb": "wtcp report sweeps/loss-vs-goodput.duckdb",
    # The cross-checks, each ns-3 run over 200 s (35-50 s of CPU), with a shorter measure.
    "wtcp crosscheck scenarios/reference-simple2.toml --grid links.1.ab.loss.rate=0,0.01 --seeds 3":
        "wtcp crosscheck scenarios/reference-simple2.toml --grid links.1.ab.loss.rate=0,0.01 --seeds 3 --set run.duration_s=31",
    "wtcp crosscheck two-hop-wireless --grid links.wireless.ab.loss.rate=0,0.01 --seeds 3":
        "wtcp crosscheck two-hop-wireless --grid links.wireless.ab.loss.rate=0,0.01 --seeds 3 --set run.duration_s=60",
    "wtcp crosscheck chain-4hop --set wifi.0.basic_rate_mbps=11 --algorithms newreno --seeds 1":
        "wtcp crosscheck chain-4hop --set wifi.0.basic_rate_mbps=11 --algorithms newreno --seeds 1 --set run.duration_s=60",
    # The kernel engine runs in real time: 31 s as written.
    "wtcp run scenarios/reference-simple2.toml --engine linux --set run.duration_s=31 --set tcp.delayed_ack_timeout_s=0.04":
        "wtcp run scenarios/reference-simple2.toml --engine linux --set run.duration_s=6 --set tcp.delayed_ack_timeout_s=0.04",
}
# Commands that need ns-3 (skipped without it; `make test` installs it).
NEEDS_NS3 = ("--engine ns3", "wtcp crosscheck", "wtcp validate")
# Commands that run the machine's kernel (skipped without root and /dev/net/tun).
NEEDS_KERNEL = ("--engine linux", "--against linux")


def readme_commands() -> list[str]:
    """The `wtcp ...` lines of the README's shell blocks and of its command table's
    example column, in order, comments removed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("wtcp "):
                out.append(line)
    for row in text.replace("\\|", "/").splitlines():
        m = re.match(r"^\|[^|]*\|[^|]*\| `(wtcp [^`]*)` \|$", row)
        if m:
            out.append(m.group(1))
    return list(dict.fromkeys(out))


def test_the_readme_shows_the_commands_this_test_runs():
    commands = readme_commands()
    assert len(commands) >= 20, commands
    for expected in ("wtcp results sweeps/loss-vs-goodput.duckdb --prune-failed", "wtcp crosscheck two-hop-wireless --grid links.wireless.ab.loss.rate=0,0.01 --seeds 3"):
        assert expected in commands
    # Every quick variant stands for a command the README still shows.
    assert set(QUICK) <= set(commands), set(QUICK) - set(commands)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder with the scenarios, a copy of the sweeps, the sweep the README's store
    commands read, and the registry files `wtcp new-algorithm` edits."""
    root = tmp_path_factory.mktemp("readme")
    os.symlink(ROOT / "scenarios", root / "scenarios")
    shutil.copytree(ROOT / "sweeps", root / "sweeps", ignore=shutil.ignore_patterns("*.duckdb*", "*.html"))
    # What `wtcp new-algorithm` edits in a checkout.
    (root / "crates" / "wtcp-cc" / "src").mkdir(parents=True)
    (root / "crates" / "wtcp-engine" / "tests").mkdir(parents=True)
    for name in ("lib.rs", "registry.rs"):
        shutil.copy(ROOT / "crates" / "wtcp-cc" / "src" / name, root / "crates" / "wtcp-cc" / "src" / name)
    done = run(root, "wtcp sweep sweeps/loss-vs-goodput.toml --quiet")
    assert done.returncode == 0, done.stderr
    return root


def run(cwd: Path, command: str) -> subprocess.CompletedProcess:
    args = shlex.split(command)
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "wtcp.cli", *args[1:]], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


def with_groups(commands: list[str]) -> list:
    """The commands; those on the README's `wtcp-reproduce` folder (its `reproduce all`,
    whose run test_reproduce shares, and the `report` that reads it) in that run's
    pytest-xdist group."""
    shared = pytest.mark.xdist_group("reproduce-all")
    return [pytest.param(c, marks=shared) if "wtcp-reproduce" in c else c for c in commands]


@pytest.mark.parametrize("command", with_groups(readme_commands()))
def test_a_readme_command_runs_as_written(workdir, command, request):
    if any(n in command for n in NEEDS_KERNEL):
        if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
            pytest.skip("the linux engine needs root and /dev/net/tun")
    elif any(n in command for n in NEEDS_NS3):
        request.getfixturevalue("ns3")
    if "wtcp-reproduce" in command:
        if getattr(request.config.option, "loadgroup", False):
            # pytest-xdist keeps a group on one worker by the "@group" its node id ends in;
            # without it the shared run below runs once per worker (pytest 9.2 broke this).
            assert request.node.nodeid.endswith("@reproduce-all"), request.node.nodeid
        # The README's `wtcp reproduce all --out wtcp-reproduce`, run once for this test and
        # test_reproduce; its folder stands in the work folder for the commands after it.
        reproduced, folder = request.getfixturevalue("reproduce_all_quick")
        if not (workdir / "wtcp-reproduce").exists():
            (workdir / "wtcp-reproduce").symlink_to(folder)
    if QUICK.get(command) == REPRODUCE_ALL_QUICK:
        done = reproduced
    else:
        done = run(workdir, QUICK.get(command, command))
    assert done.returncode == 0, f"{command}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr
