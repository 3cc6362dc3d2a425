"""Names that become file names, and files kept inside the folder they belong to.

A sweep's `name` names its store, a paper's `paper` names its output folder and a figure's
`id` names its image files: each must be one plain file name, so that nothing a document
says can write outside the folder the user chose. Files a report embeds must likewise
lie inside the report's folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# Path separators, the characters Windows refuses in a file name, and control characters.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|\ud800-\udfff]')
MAX_NAME_BYTES = 200  # a file system allows 255; room for suffixes such as `.duckdb`
SAFE_NAME_RULE = (
    'a plain file name (no / \\ : * ? " < > | or control characters, not `.` or `..`, '
    f"no leading or trailing space, at most {MAX_NAME_BYTES} bytes)"
)


def name_problem(name: object) -> str | None:
    """Why `name` cannot be used as a file name (None when it can)."""
    if not isinstance(name, str) or not name:
        return f"must be a non-empty string, not {name!r}"
    if name in (".", ".."):
        return f"is {name!r}, which names a folder, not a file"
    bad = _UNSAFE.search(name)
    if bad is not None:
        char = bad.group()
        what = "a path separator" if char in "/\\" else "a lone surrogate (not valid Unicode)" if "\ud800" <= char <= "\udfff" else "a character file names cannot hold"
        return f"is {ascii(name) if what.startswith('a lone') else repr(name)}, which holds {what} ({ascii(char)})"
    if name != name.strip():
        return f"is {name!r}, which starts or ends with white space"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is {len(name.encode('utf-8'))} bytes long"
    return None


def inside(root: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether `path` resolves (symbolic links followed) to `root` or a file below it."""
    root_r = Path(root).resolve()
    path_r = Path(path).resolve()
    return path_r == root_r or path_r.is_relative_to(root_r)
