"""Dotted field paths (`links.wireless.ab.loss.rate`): the one resolver behind
`Scenario.set`, `with_overrides`, `wtcp run --set` and sweep grids.

An array element can be addressed by its index (`links.1`) or, when it has a `name`, by
that name (`links.wireless`, `flows.bulk`, `nodes.BS`); a flow entry with `count` > 1 is
one element with one name. `resolve_path` turns names into indices against a document;
a name that matches no element is rejected with the close matches listed. Fields the
scenario schema does not have are rejected by the core; `with_suggestions` adds the close
matches to that error.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from wtcp.errors import ScenarioError, scenario_error

# Reasons (ScenarioError.reason) that mean the path itself is wrong, not its value.
PATH_REASONS = ("unknown field", "unknown name", "invalid override path", "is an array;", "is a value, not a table")


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=0.5)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`; did you mean `x`?` when some candidate is close to `word`, else ""."""
    matches = close_matches(word, candidates)
    if not matches:
        return ""
    return "; did you mean " + " or ".join(f"`{m}`" for m in matches) + "?"


def is_path_error(e: ScenarioError) -> bool:
    """Whether a ScenarioError says the path names nothing (rather than a bad value)."""
    reason = getattr(e, "reason", None) or str(e)
    return reason.startswith(PATH_REASONS) or "out of range" in reason


def resolve_path(document: Mapping[str, Any], path: str, changed: Iterable[str] = ()) -> str:
    """`path` with every array element given by name replaced by its index.

    Walks `document` (the scenario after the earlier overrides); where the path leaves
    what the document holds (a field not set yet) the rest is kept as written, for the
    core to check against the schema. A segment that is neither an index nor the name
    of an element of the array raises a ScenarioError naming the close matches.
    `changed`: paths set since `document` was made; a walk they may have changed raises
    `Stale` (see `resolve_paths`)."""
    changed_parts = [c.split(".") for c in changed]
    parts = path.split(".")
    node: Any = document
    out: list[str] = []
    for i, part in enumerate(parts):
        where = ".".join(out)
        if any(c == out[: len(c)] for c in changed_parts if len(c) <= len(out)):
            raise Stale  # an override replaced this part of the document
        if isinstance(node, list):
            if part.isdigit():
                index = int(part)
                node = node[index] if index < len(node) else None
            else:
                if any(c[: len(out)] == out for c in changed_parts):
                    raise Stale  # an override changed an element of this array (its name?)
                names = [e.get("name") if isinstance(e, Mapping) else None for e in node]
                if part not in names:
                    named = [str(n) for n in names if isinstance(n, str)]
                    allowed = f"an index 0..{len(node) - 1}" if node else "no elements yet (index 0 appends)"
                    listing = f"names: {', '.join(named)}; or {allowed}" if named else f"no element has a name; {allowed}"
                    raise scenario_error(where, f"unknown name `{part}`{did_you_mean(part, named)} ({listing})")
                index = names.index(part)
                node = node[index]
                part = str(index)
        elif isinstance(node, Mapping):
            node = node.get(part)
        else:
            out.extend(parts[i:])
            break
        out.append(part)
    return ".".join(out)


class Stale(Exception):
    """The document a path was resolved against is out of date for that path."""


def resolve_paths(pairs: Iterable[tuple[str, str]], document: Callable[[list[tuple[str, str]]], Mapping[str, Any]], start: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """Resolve each override path against the document after the overrides before it.
    `document(prior)` gives that document (`start`, if given, is `document([])`); it is
    asked again only when an earlier override may have changed what a path walks."""
    out: list[tuple[str, str]] = []
    doc = start
    doc_at = 0
    for path, value in pairs:
        if doc is None:
            doc, doc_at = document(out), len(out)
        try:
            resolved = resolve_path(doc, path, [p for p, _ in out[doc_at:]])
        except Stale:
            doc, doc_at = document(out), len(out)
            resolved = resolve_path(doc, path)
        out.append((resolved, value))
    return out


_UNKNOWN_FIELD = re.compile(r"unknown field `([^`]*)`, expected (?:one of )?(.*)$")


def with_suggestions(e: ScenarioError) -> ScenarioError:
    """The core's `unknown field `x`, expected one of ...` error with the close matches
    named first (`did you mean `cc`?`); other errors unchanged."""
    reason = getattr(e, "reason", None)
    path = getattr(e, "path", "")
    if not isinstance(reason, str):
        return e
    m = _UNKNOWN_FIELD.match(reason)
    if not m:
        return e
    # "... (algorithm `cubic`)" names the algorithm, not a field.
    fields, _, algorithm = m.group(2).partition(" (algorithm ")
    expected = re.findall(r"`([^`]*)`", fields)
    hint = did_you_mean(m.group(1), expected)
    if not hint or len(expected) == 1:
        return e
    suffix = f" (algorithm {algorithm}" if algorithm else ""
    return scenario_error(path, f"unknown field `{m.group(1)}`{hint} (allowed: {', '.join(expected)}){suffix}")
