"""Files wtcp writes inside a folder the user named (traces, reports, lock files): never
through a symbolic link, so a link planted there cannot make wtcp overwrite its target,
and (for whole files) never left half-written where a complete one is expected."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class LinkedFileError(OSError):
    """The file to write is a symbolic link (refused: it could point anywhere)."""

    def __init__(self, path: Path):
        super().__init__(errno.ELOOP, "is a symbolic link; wtcp does not write through links (remove it or choose another folder)", str(path))


def open_no_follow(path: str | Path, append: bool = False, flags: int = 0) -> int:
    """A file descriptor for writing `path` (created if missing, truncated unless
    `append`), refused with `LinkedFileError` if `path` is a symbolic link."""
    path = Path(path)
    mode = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC) | getattr(os, "O_NOFOLLOW", 0) | flags
    try:
        return os.open(path, mode, 0o644)
    except OSError as e:
        if path.is_symlink():
            raise LinkedFileError(path) from None
        raise e


@contextlib.contextmanager
def write_no_follow(path: str | Path, append: bool = False) -> Iterator[IO[str]]:
    """A text file open for writing, as `open_no_follow` opens it."""
    with os.fdopen(open_no_follow(path, append), "a" if append else "w", encoding="utf-8", newline="") as f:
        yield f


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write `path` whole: into a temporary file beside it, then renamed over it (a link
    at `path` is replaced, not followed; on a failure such as a full disk the old file,
    or none, is left and the temporary file is removed)."""
    path = Path(path)
    # Not mkstemp: its 0600 would outlive the rename; 0666 less the umask, as open() gives.
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
