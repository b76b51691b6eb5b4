"""``python -m bot backup PATH``: a consistent copy of the bot's SQLite database, taken while the bot runs.

Copying the file is no backup: the bot keeps its newest writes in the ``-wal`` file beside the database and moves
them into the main file only now and then, so ``cp`` of a running database gave a file without them, a new
database without even its tables (QA). SQLite's online backup API reads the database in one read transaction, its
WAL included, as the bot's own reads do: the copy is the database at one moment, and the bot keeps playing.
``migrate-db`` takes its source the same way (:func:`snapshot`).

The copy is written beside the target under a temporary name and linked to the target's name once it is complete
and checked, so a failed backup (a full disk) never leaves a file under the name an admin would restore from, and a
file that appeared under that name meanwhile is never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from bot.storage.backend import DatabaseError, bundled_migrations, path_kind
from bot.storage.ownership import identify
from bot.storage.sqlite import check_sound, found

#: What the admin wrote the backup's path into, for errors: ``python -m bot backup PATH``.
TARGET = "backup target"
#: Why ``os.link`` fails on a file system without hard links (some network shares, FAT, some FUSE ones).
NO_HARD_LINKS = frozenset({errno.EPERM, errno.EXDEV, errno.ENOTSUP, errno.EOPNOTSUPP})


@dataclass(frozen=True)
class BackedUp:
    """What a backup holds, for its one line."""

    source: Path
    target: Path
    games: int
    results: int

    def summary(self) -> str:
        held = f"{_counted(self.games, 'game')}, {_counted(self.results, 'result')}"
        return f"backed up {self.source} to {self.target} ({held})"


#: SQLite's errors of writing the copy: its pages, their sync. Reading the source fails otherwise (its pages
#: unreadable or damaged, a lock, its -shm), so a full disk where the copy goes is not blamed on the source (QA).
WRITE_ERRORS = frozenset(
    {
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_IOERR_WRITE,
        sqlite3.SQLITE_IOERR_FSYNC,
        sqlite3.SQLITE_IOERR_DIR_FSYNC,
        sqlite3.SQLITE_IOERR_TRUNCATE,
    }
)


class CopyUnwritten(Exception):
    """The copy could not be written (a full disk where it goes): the message is SQLite's; the caller names the
    place, which the admin chose, and not the source, which is fine."""


def snapshot(path: Path, into: Path, setting: str) -> int:
    """A consistent copy of the live file ``path`` (its WAL included) in the new file ``into``, without writing to
    ``path``; its schema version, 0 when it holds no table at all. A damaged file is refused as damaged first,
    whatever it holds, then another program's (:mod:`bot.storage.ownership`). Errors reading ``path`` name
    ``setting``, what the admin wrote the path into; writing ``into`` raises :class:`CopyUnwritten`."""
    # Both missing: a stopped bot's. A -wal alone (a database copied with it) holds writes a tidy would checkpoint.
    absent = [side for side in _side_files(path) if not side.exists()]
    try:
        # A URI, to open it read-only; quoted, so a ? or # in a folder's name stays part of the path.
        source = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot read the SQLite database {path} ({setting}): {exc}") from exc
    try:
        copy = sqlite3.connect(into)
    except sqlite3.Error as exc:
        source.close()
        raise CopyUnwritten(str(exc)) from exc
    try:
        try:
            source.backup(copy)
        except sqlite3.Error as exc:
            # Python's error has no side: SQLite's code tells a failed write (sqlite_errorcode, since Python 3.11).
            if getattr(exc, "sqlite_errorcode", None) in WRITE_ERRORS:
                raise CopyUnwritten(str(exc)) from exc
            raise
        check_sound(copy, path, setting)
        version = identify(found(copy), bundled_migrations("sqlite"), str(path), setting, new_allowed=False)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot read the SQLite database {path} ({setting}): {exc}") from exc
    finally:
        copy.close()
        source.close()
        if len(absent) == 2 and any(side.exists() for side in absent):
            _tidy(path)
    return version


def _side_files(path: Path) -> tuple[Path, Path]:
    """The WAL and its index beside ``path``: a running bot keeps both; a stopped one leaves neither."""
    return path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")


def _tidy(path: Path) -> None:
    """Remove the empty WAL and index the read-only copy made beside a stopped bot's database (a read-only
    connection cannot delete them, QA). A read-write connection's close deletes them as SQLite always does: only
    when it is the last connection (a bot started meanwhile keeps them), and without writing the file, whose WAL
    is empty. A file or folder this user may not write keeps them; they are harmless."""
    with contextlib.suppress(sqlite3.Error):
        tidier = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True)
        try:
            tidier.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        finally:
            tidier.close()


def back_up(source: Path, target: Path) -> BackedUp:
    """Copy the SQLite database ``source`` (``DATABASE_URL``'s file) to the new file ``target``, or raise
    :class:`DatabaseError` with one line: no database at ``source``, none of dicebot's, a damaged one, a
    ``target`` that exists (a backup never overwrites one) or cannot be written."""
    if path_kind(source, "DATABASE_URL") != "file":
        raise DatabaseError(f"there is no SQLite database at {source} (DATABASE_URL): name the bot's database there")
    there = path_kind(target, TARGET)
    if there == "folder":
        raise DatabaseError(f"{target} is a folder: name the backup file in it, e.g. {target / 'dicebot.sqlite3'}")
    if there != "missing" or target.is_symlink():
        raise _taken(target)
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        # mkdir of a folder whose name a file holds says "File exists", of one below such a file "Not a directory".
        reason = "a file, not a folder" if isinstance(exc, FileExistsError) else exc.strerror or exc
        raise DatabaseError(
            f"cannot write the backup into {folder} ({reason}): name a folder this user may write"
        ) from exc
    # mkstemp's 0600 whatever the umask: the admin's tools, run as another user, could not read the backup. A file
    # system without Unix modes (FAT, some shares) refuses it, and its files are readable anyway (review).
    with contextlib.suppress(OSError):
        os.fchmod(handle, 0o666 & ~_umask())
    os.close(handle)
    part = Path(name)
    try:
        if snapshot(source, part, "DATABASE_URL") == 0:
            raise DatabaseError(
                f"there is no dicebot database in {source} (DATABASE_URL): name the SQLite file the bot uses"
            )
        games, results = _counts(part)
        _publish(part, target)
    except CopyUnwritten as exc:
        raise DatabaseError(
            f"cannot write the backup {target} in {folder} ({exc}): check the disk there (free space) or name another "
            "folder"
        ) from exc
    except OSError as exc:
        raise DatabaseError(f"cannot write the backup {target} ({exc.strerror or exc})") from exc
    finally:
        part.unlink(missing_ok=True)
    return BackedUp(source, target, games, results)


def _publish(part: Path, target: Path) -> None:
    """Give the finished copy ``part`` the name ``target``, never over a file written there since :func:`back_up`
    looked: a hard link fails when the name is taken, where a rename replaced that file without a word. A file
    system without hard links gets the look again, and the rename."""
    try:
        os.link(part, target)
    except FileExistsError:
        raise _taken(target) from None
    except OSError as exc:
        if exc.errno not in NO_HARD_LINKS:
            raise
        if path_kind(target, TARGET) != "missing" or target.is_symlink():
            raise _taken(target) from None
        os.replace(part, target)


def _taken(target: Path) -> DatabaseError:
    return DatabaseError(f"{target} already exists: name a new file (a backup never overwrites one)")


def _counts(path: Path) -> tuple[int, int]:
    """The games and results a backup holds, read back from the copy itself."""
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM results)").fetchone()
    conn.close()
    return int(row[0]), int(row[1])


def _counted(count: int, noun: str) -> str:
    """``1 game``, ``2 games``: the admin's one line is English."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _umask() -> int:
    """The process's umask, which can only be read by setting it (this command runs no other thread meanwhile)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask
