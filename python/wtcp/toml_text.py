"""Python values as TOML value text, the right-hand side of an override (`--set`)."""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from wtcp.errors import scenario_error

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_I64 = (-(2**63), 2**63 - 1)
_SURROGATE = re.compile("[\ud800-\udfff]")
# Deepest nesting of lists and tables accepted in a scenario, sweep or paper document (the
# shipped ones are at most 7 deep); below the simulator's TOML (80) and JSON (128) parser limits.
MAX_DEPTH = 32


def to_toml_value(value: Any, path: str = "") -> str:
    """TOML text for `value`: bool, int, float (inf and nan included), str, list, tuple, dict.

    `path` names the value in error messages (a `ScenarioError`): a value nested more than
    `MAX_DEPTH` levels deep, a list or dict that contains itself, or a string that is not
    valid Unicode is refused there.
    """
    return _toml_value(value, path, path.count(".") + 1 if path else 0, set())


def _toml_value(value: Any, path: str, depth: int, open_ids: set[int]) -> str:
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
    if isinstance(value, (list, tuple, Mapping)):
        with container(value, path, depth, open_ids):
            if isinstance(value, Mapping):
                if not value:
                    return "{}"
                pairs = []
                for key, v in value.items():
                    if not isinstance(key, str):
                        raise scenario_error(path, f"has the key {key!r}; keys must be strings")
                    pairs.append(f"{toml_key(key, path)} = {_toml_value(v, join_path(path, key), depth + 1, open_ids)}")
                return "{ " + ", ".join(pairs) + " }"
            items = [_toml_value(v, join_path(path, str(i)), depth + 1, open_ids) for i, v in enumerate(value)]
            return "[" + ", ".join(items) + "]"
    if value is None:
        raise scenario_error(path, "is None; TOML has no null (leave the key out instead)")
    raise scenario_error(path, f"is a {type(value).__name__}; allowed: bool, int, float, str, list, dict")


@contextmanager
def container(value: Any, path: str, depth: int, open_ids: set[int]) -> Iterator[None]:
    """Guard the walk into a list or dict: refuse one nested deeper than `MAX_DEPTH` (the
    simulator's parsers stop at a fixed depth, and Python's recursion at about 1000) or
    one that contains itself (`open_ids`: the containers being walked)."""
    if id(value) in open_ids:
        raise scenario_error(path, "contains itself (a list or dict that holds a reference to itself)")
    if depth >= MAX_DEPTH:
        raise scenario_error(path, f"is nested more than {MAX_DEPTH} levels deep; allowed: at most {MAX_DEPTH} levels of lists and tables")
    open_ids.add(id(value))
    try:
        yield
    finally:
        open_ids.discard(id(value))


def check_plain(value: Any, path: str = "") -> None:
    """Refuse what no scenario, sweep or paper document can hold, with the field path: a
    list or dict nested more than `MAX_DEPTH` levels deep or containing itself, and keys
    or strings that are not valid Unicode. Other values are left to the caller's checks."""
    _check_plain(value, path, 0, set())


def _check_plain(value: Any, path: str, depth: int, open_ids: set[int]) -> None:
    if isinstance(value, str):
        check_unicode(value, path)
    elif isinstance(value, (list, tuple, Mapping)):
        with container(value, path, depth, open_ids):
            if isinstance(value, Mapping):
                for key, v in value.items():
                    if isinstance(key, str):
                        check_unicode(key, join_path(path, key), "the key is")
                    _check_plain(v, join_path(path, str(key)), depth + 1, open_ids)
            else:
                for i, v in enumerate(value):
                    _check_plain(v, join_path(path, str(i)), depth + 1, open_ids)


class TomlError(ValueError):
    """A TOML document that cannot be read (a syntax error, or nesting too deep)."""


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with its errors (and the `RecursionError` of deeply nested arrays or
    tables) as a `TomlError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlError(str(e)) from None
    except RecursionError:
        raise TomlError("arrays or tables nested too deeply to read") from None


def toml_string(text: str, path: str = "") -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    check_unicode(text, path)
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def check_unicode(text: str, path: str = "", what: str = "is") -> None:
    """Refuse a string the simulator cannot take: one holding a lone surrogate (as Python
    decodes bytes that are not UTF-8 with `surrogateescape`, e.g. in `sys.argv`)."""
    match = _SURROGATE.search(text)
    if match is not None:
        where = _line_column(text, match.start()) if "\n" in text else f"character {match.start() + 1}"
        raise scenario_error(printable(path), f"{what} not valid Unicode text: a lone surrogate {ascii(match.group())[1:-1]} at {where}; allowed: UTF-8 text")


def printable(text: str) -> str:
    """`text` with lone surrogates written as `\\udcff` escapes, safe to print or encode."""
    return _SURROGATE.sub(lambda m: ascii(m.group())[1:-1], text)


def _line_column(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"line {line}, column {column}"


def toml_key(key: str, path: str = "") -> str:
    """A key of an inline table: bare when it can be, quoted otherwise."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key, join_path(path, key))


def join_path(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def plain_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds; anything else unchanged."""
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value
