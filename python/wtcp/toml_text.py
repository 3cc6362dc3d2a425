"""Python values as TOML value text, the right-hand side of an override (`--set`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from wtcp.errors import scenario_error

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_I64 = (-(2**63), 2**63 - 1)


def to_toml_value(value: Any, path: str = "") -> str:
    """TOML text for `value`: bool, int, float (inf and nan included), str, list, tuple, dict.

    `path` names the value in error messages (a `ScenarioError`).
    """
    value = plain_scalar(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not _I64[0] <= value <= _I64[1]:
            raise scenario_error(path, f"is {value}; TOML integers must fit in 64 bits")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value)  # '0.1', '1e-05', 'inf', '-inf': all valid TOML floats
    if isinstance(value, str):
        return toml_string(value, path)
    if isinstance(value, (list, tuple)):
        items = (to_toml_value(v, join_path(path, str(i))) for i, v in enumerate(value))
        return "[" + ", ".join(items) + "]"
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        pairs = []
        for key, v in value.items():
            if not isinstance(key, str):
                raise scenario_error(path, f"has the key {key!r}; keys must be strings")
            pairs.append(f"{toml_key(key, path)} = {to_toml_value(v, join_path(path, key))}")
        return "{ " + ", ".join(pairs) + " }"
    if value is None:
        raise scenario_error(path, "is None; TOML has no null (leave the key out instead)")
    raise scenario_error(path, f"is a {type(value).__name__}; allowed: bool, int, float, str, list, dict")


def toml_string(text: str, path: str = "") -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise scenario_error(path, f"is not valid Unicode text ({e.reason})") from None
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_key(key: str, path: str = "") -> str:
    """A key of an inline table: bare when it can be, quoted otherwise."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key, path)


def join_path(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def plain_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds; anything else unchanged."""
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value
