"""Whether a folder can keep the bot's files, asked at start: a folder that cannot take them would otherwise
cost a warning at every write, or the strategy tables built anew at every start, without naming the setting."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bot.paths import broken_link


def unwritable(folder: Path) -> str | None:
    """Why this user cannot keep files in ``folder`` (created, parents too, if missing), or None when it can.

    It creates a file there and removes it: permissions alone do not tell a read-only disk or a full one."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except FileExistsError:
        # mkdir's "File exists": a file holds the folder's name, or a link on the way leads nowhere (QA).
        return broken_link(folder) or "a file, not a folder"
    except OSError as error:
        return error.strerror or str(error)
    return None


def data_dir_unusable(folder: Path, whose: str) -> str | None:
    """One line for the admin when ``whose`` files (``"the bot's"``) cannot be kept in ``folder``, else None."""
    reason = unwritable(folder)
    if reason is None:
        return None
    return f"cannot keep {whose} files in {folder} ({reason}); set DATA_DIR to a folder this user may write"
