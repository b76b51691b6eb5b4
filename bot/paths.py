"""What is at a path an admin named, asked so that a path the system will not look at is one line, not a traceback.

On Python 3.11 ``Path.is_file``, ``is_dir`` and ``exists`` say False only for a path that is not there (or runs
through a file); a folder on the way this user may not enter ("permission denied") or a name longer than the file
system allows ("file name too long") raises ``OSError``, which ended ``backup``, ``migrate-db`` and the health check
with a traceback, and a start with "cannot reach Discord" (QA). Storage and the health check both ask here: this
module imports neither, and nothing the health check could not afford.
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path
from typing import Literal

Kind = Literal["missing", "file", "folder", "other"]
#: The errors ``pathlib`` takes for "nothing there": no such entry, a file on the way, a loop of symbolic links.
ABSENT = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


class Unexaminable(Exception):
    """The system would not say what is at ``path``; the message is one line naming the setting and the reason."""

    def __init__(self, path: Path, setting: str, error: OSError) -> None:
        self.path = path
        self.reason = reason(error)
        super().__init__(f"cannot use the path {path} ({setting}): {self.reason}")


def reason(error: OSError) -> str:
    """The system's words for ``error`` as a sentence goes on with them: "permission denied"."""
    text = error.strerror or str(error)
    return text[:1].lower() + text[1:]


def kind(path: Path, setting: str) -> Kind:
    """What is at ``path`` (symbolic links followed, as ``is_file`` does), or :class:`Unexaminable` naming
    ``setting``, what the admin wrote the path into."""
    try:
        mode = path.stat().st_mode
    except OSError as error:
        if error.errno in ABSENT:
            return "missing"
        raise Unexaminable(path, setting, error) from error
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "other"


def broken_link(path: Path) -> str | None:
    """Why a folder cannot be made at ``path`` when a symbolic link on the way leads nowhere (an unmounted
    volume, a typo in its target), as a sentence goes on: ``mkdir`` says only "file exists" (review). None when no
    link on the way is broken."""
    try:
        for place in (path, *path.parents):
            if place.is_symlink() and not place.exists():
                return f"{place} is a symbolic link to {place.readlink()}, which does not exist: create or mount it"
    except OSError:
        return None
    return None
