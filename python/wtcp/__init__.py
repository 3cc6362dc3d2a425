"""wtcp: a fast, deterministic packet-level simulator of TCP over lossy wireless links.

    >>> import wtcp
    >>> sc = wtcp.load(wtcp.builtin_scenario_path("two-hop-wireless"))
    >>> result = sc.set("links.1.ab.loss.rate", 0.02).run(seed=3)
    >>> result.flows[["name", "cc", "goodput_mbps", "timeouts"]]
"""

from wtcp._core import RunControl, __version__
from wtcp.algorithm import Algorithm, AlgorithmError, InvalidAlgorithm, check_algorithm, register, registered, unregister
from wtcp.errors import LinuxEngineUnavailable, RunStopped, ScenarioError, SimulationError
from wtcp.result import Result, Traces
from wtcp.scenario import Scenario, builtin_scenario_path, load, run

__all__ = [
    "Scenario",
    "Algorithm",
    "AlgorithmError",
    "InvalidAlgorithm",
    "register",
    "unregister",
    "registered",
    "check_algorithm",
    "Result",
    "Traces",
    "run",
    "load",
    "algorithms",
    "open_store",
    "builtin_scenario_path",
    "RunControl",
    "RunStopped",
    "LinuxEngineUnavailable",
    "ScenarioError",
    "SimulationError",
    "__version__",
]


def algorithms() -> list[dict]:
    """Every congestion-control algorithm: name, summary, reference, params (each a dict
    of name, unit, default, doc), `user` (True for one registered from Python) and
    `family` (as `wtcp algorithms` groups them, `wtcp.families`)."""
    from wtcp import _core
    from wtcp.algorithm import load_entry_points
    from wtcp.families import family_of

    load_entry_points()
    listed = _core.algorithms()
    for a in listed:
        a["family"] = family_of(a["name"], a["user"])
    return listed


def open_store(path):
    """Open a sweep result store (DuckDB): `.runs()`, `.flows()`, `.summary(metric, by)`."""
    from wtcp.sweep.store import open_store as open_

    return open_(path)
