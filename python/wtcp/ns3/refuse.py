"""What the ns-3 engine refuses, and how it says so."""

from __future__ import annotations

from wtcp.errors import ScenarioError


class Ns3TranslationError(ScenarioError):
    """A scenario field the ns-3 engine cannot reproduce faithfully: `.path` (the field,
    e.g. `links.1.ab.arq`), `.reason` (what is wrong and what is allowed). A subclass of
    `ScenarioError`, so the CLI reports it as a usage error (exit status 2)."""


class Ns3Unavailable(RuntimeError):
    """The `ns3` Python package (ns-3 3.44 through cppyy) is not installed."""


def refuse(path: str, reason: str) -> Ns3TranslationError:
    """The error for field `path`: "path: reason (the ns-3 engine)"."""
    reason = f"{reason} [ns-3 engine]"
    err = Ns3TranslationError(f"{path}: {reason}" if path else reason)
    err.path = path
    err.reason = reason
    return err
