"""User strings on a terminal: shown as they are, never read as rich markup or sent as
control codes (a flow named `[/]` must not crash a table, one named `ESC ]0;...` must not
retitle the window)."""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape
from rich.text import Text

# C0 controls but tab and newline, DEL and the C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(value: Any) -> str:
    """`value` as text with every control character written as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def markup_safe(value: Any) -> str:
    """`value` to embed in rich markup: control characters shown, brackets escaped."""
    return escape(visible(value))


def plain(value: Any) -> Text:
    """`value` as a rich Text, which rich never parses as markup."""
    return Text(visible(value))
