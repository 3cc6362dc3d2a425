"""What the ns-3 engine refuses, and how it says so."""

from __future__ import annotations

from typing import Any

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


def known(table: dict[str, Any], allowed: tuple[str, ...], path: str) -> None:
    """Refuse a key the ns-3 engine does not know (a field newer than its translator)."""
    for key in table:
        if key not in allowed:
            where = f"{path}.{key}" if path else key
            raise refuse(where, "is a field the ns-3 engine does not translate; allowed: leave it out")


def toml_text(value: Any) -> str:
    """A scenario value as the scenario file writes it, for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"\"{value}\""
    return repr(value)
