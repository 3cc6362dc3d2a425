"""The exceptions of wtcp, and how Python code raises a scenario error."""

from wtcp._core import AlgorithmError, LinuxEngineUnavailable, RunStopped, ScenarioError, SimulationError

__all__ = ["AlgorithmError", "ScenarioError", "SimulationError", "RunStopped", "LinuxEngineUnavailable", "CliError", "Interrupted", "scenario_error"]


class CliError(Exception):
    """A user error the CLI reports as `error: <message>` with exit status 2."""


class Interrupted(Exception):
    """Ctrl-C in a CLI command, which reports it as one line (the message) and exits with
    status 130."""


def scenario_error(path: str, reason: str) -> ScenarioError:
    """A `ScenarioError` shaped like the core's: `.path`, `.reason`, str() "path: reason"."""
    err = ScenarioError(f"{path}: {reason}" if path else reason)
    err.path = path
    err.reason = reason
    return err
