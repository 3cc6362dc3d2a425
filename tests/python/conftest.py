"""Shared fixtures: short scenarios (seconds of simulated time) so the suite stays fast."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import wtcp

SHORT_DURATION_S = 11.0  # reference-simple2 measures from 1 s

# A non-interactive shell starts a background job (`make test &`) with SIGINT ignored, and
# Python then installs no KeyboardInterrupt handler: the Ctrl-C tests would wait for runs
# of hours. The suite takes Python's usual handler.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def ns3() -> None:
    """ns-3 imported once for the whole session (the engine caches it per process); a skip
    without the `ns3` package, a failure with WTCP_REQUIRE_NS3=1."""
    from wtcp.ns3 import available
    from wtcp.ns3 import run as ns3_run

    if not available():
        if os.environ.get("WTCP_REQUIRE_NS3") == "1":
            pytest.fail("the ns3 package is not installed (pip install 'wtcp[ns3]')")
        pytest.skip("the ns3 package is not installed")
    ns3_run.load()


def reference_path() -> Path:
    return wtcp.builtin_scenario_path("reference-simple2")


def demo_path() -> Path:
    """The demo's scenario; reference-simple2 stands in while the demo file is absent."""
    try:
        return wtcp.builtin_scenario_path("two-hop-wireless")
    except FileNotFoundError:
        return reference_path()


def without_wall(metrics_json: str) -> dict:
    """Metrics minus the only fields that may differ between identical runs (times)."""
    metrics = json.loads(metrics_json)
    metrics.pop("wall_seconds")
    metrics.pop("loop_cpu_seconds")
    return metrics


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """`wtcp ARGS...` in a fresh interpreter, with a terminal width wide enough for the tables."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "wtcp.cli", *args], capture_output=True, text=True, env=env, timeout=timeout)


# The README's `wtcp reproduce all --out wtcp-reproduce` in its quick form (test_readme's QUICK).
REPRODUCE_ALL_QUICK = "wtcp reproduce all --out wtcp-reproduce --quick"


@pytest.fixture(scope="session")
def reproduce_all_quick(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """REPRODUCE_ALL_QUICK run once (about 75 s of CPU) for test_readme, which checks that it
    runs, and test_reproduce, which checks what it writes: (the finished process, its output
    folder). Their tests share the pytest-xdist group `reproduce-all`, so that under
    `--dist loadgroup` one worker runs it once."""
    cwd = tmp_path_factory.mktemp("reproduce-all")
    env = {**os.environ, "COLUMNS": "200"}
    args = REPRODUCE_ALL_QUICK.split()[1:]
    proc = subprocess.run([sys.executable, "-m", "wtcp.cli", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    return proc, cwd / "wtcp-reproduce"


@pytest.fixture(scope="session")
def reference() -> wtcp.Scenario:
    """reference-simple2 (1 % wireless loss) shortened to 10 s of measurement (immutable,
    so one instance serves every test)."""
    return wtcp.load(reference_path()).set("run.duration_s", SHORT_DURATION_S)


@pytest.fixture(scope="session")
def reference_text() -> str:
    return reference_path().read_text(encoding="utf-8")


def wait_for_committed_runs(store: Path, proc: subprocess.Popen, timeout_s: float = 60.0) -> None:
    """Wait until a reader sees runs committed to `store` by the sweep `proc`, or `proc`
    ends, or `timeout_s` passes."""
    import time

    from wtcp.sweep import open_store

    def committed() -> int:
        try:
            return len(open_store(store).runs())
        except (FileNotFoundError, ValueError):  # not made yet; a StoreError
            return 0

    deadline = time.monotonic() + timeout_s
    while committed() == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def stored_results(store_path: Path) -> tuple[list, list]:
    """A store's runs and flows without what differs between executions (times, host),
    in key order, with missing values (null metrics, e.g. fct_s of an unlimited flow)
    comparing equal."""
    from wtcp.sweep import open_store

    with open_store(store_path) as st:
        runs = st.runs().drop(columns=["wall_seconds", "created", "platform", "host"]).sort_values("key")
        flows = st.flows().sort_values(["key", "flow_id"])
    plain = lambda df: df.astype(object).where(df.notna(), None).to_dict("records")  # noqa: E731
    return plain(runs), plain(flows)
