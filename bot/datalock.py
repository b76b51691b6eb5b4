"""One process per SQLite database: a lock file beside it, taken at start and held while the process runs.

Two processes that each handle every game of one file fight over its games: each keeps its own copy of a game
in progress, fires the same deadlines and repairs the same messages, and after a few restarts games are stuck (a
lobby with no message, a board that is not the channel's message). The same holds for two playgrounds on one data
folder, which share the world file beside the database as well. So the second start is refused.

``flock`` is released by the operating system when the process ends, however it ends (kill -9, a power cut), so
a restart after a crash is never refused by a lock nobody holds; the file itself is left in place, empty. Shard
processes (``SHARD_IDS``) each handle only their servers' games and may share a file (docs/deploy.md): they take
the lock shared, which only a process that handles every game (exclusive) conflicts with, and each of their shards'
own lock (``dicebot.sqlite3.shard-0.lock``) exclusively: two processes given the same shard both ran it (QA). They
must also agree on ``SHARD_COUNT`` (a guild's shard depends on it: with 2 and 3, both ran some servers): each
holds its count's lock (``dicebot.sqlite3.shard-count-2.lock``) shared and is refused while another count's is held,
which it looks for under ``dicebot.sqlite3.shard-count.lock``, so two starting together cannot both miss each other.

The lock is named after the database's real path, its symbolic links resolved: a bot started through a link to
the file or to a folder above it took a lock of its own and ran beside the first (QA). A hard link is another name
of the file that nothing ties to this one; it is not covered. A lock file this user may not write (left by another
user) is locked through a read-only descriptor, which ``flock`` takes as well: the bot ran without any lock (QA).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Callable, Collection
from pathlib import Path


class InUse(Exception):
    """Another process holds the lock of the database."""


class DataLock:
    """Held locks; :meth:`release` gives them back (the end of the process does so too)."""

    def __init__(self, *descriptors: int) -> None:
        self._descriptors = list(descriptors)

    def release(self) -> None:
        while self._descriptors:
            os.close(self._descriptors.pop())

    def joined(self, other: DataLock) -> DataLock:
        """One lock of both, released together; ``other`` is emptied."""
        self._descriptors.extend(other._descriptors)
        other._descriptors.clear()
        return self


def lock_file(database: Path) -> Path:
    """The lock file of ``database``: beside the file its links lead to, so every process that names the file, by
    whatever path, finds the same lock."""
    real = database.resolve()
    return real.with_name(f"{real.name}.lock")


def hold(database: Path, in_use: str, *, shared: bool = False) -> DataLock | None:
    """Lock ``database`` for this process, or raise :class:`InUse` with ``in_use`` as its message.

    None when no lock can be taken at all (a folder that cannot be created or written, a file system without
    locks): the database's own opening then names what is wrong with the folder, with the setting that placed it.
    """
    try:
        # The folder as named, never the one a link leads to: a link to a missing folder (an unmounted volume) is
        # refused by the database's opening, where creating its target started a new, empty database (review).
        database.parent.mkdir(parents=True, exist_ok=True)
        descriptor = _opened(lock_file(database))
    except (OSError, RuntimeError):  # RuntimeError: a loop of symbolic links
        return None
    try:
        fcntl.flock(descriptor, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise InUse(in_use) from None
    except OSError:
        with contextlib.suppress(OSError):
            os.close(descriptor)
        return None
    return DataLock(descriptor)


def hold_count(database: Path, count: int, in_use: Callable[[int], str]) -> DataLock:
    """Hold ``count``'s lock of ``database`` shared, or raise :class:`InUse` with ``in_use(other)`` while a process
    holds another count's. Named after the database's real path; left unlocked where no lock can be taken, as
    :func:`hold` leaves the database."""
    real = database.resolve()
    prefix = f"{real.name}.shard-count-"
    try:
        looking = _opened(real.with_name(f"{real.name}.shard-count.lock"))
    except OSError:
        return DataLock()
    try:
        fcntl.flock(looking, fcntl.LOCK_EX)  # held only while looking: a moment
        for other in _counts(real.parent, prefix):
            if other != count and _held(real.with_name(f"{prefix}{other}")):
                raise InUse(in_use(other))
        return hold(real.with_name(f"{prefix}{count}"), "", shared=True) or DataLock()
    except OSError:
        return DataLock()
    finally:
        os.close(looking)


def _counts(folder: Path, prefix: str) -> list[int]:
    """The counts whose lock files lie in ``folder``: listed by name, as a glob would read ``[`` in it as a pattern."""
    counts = []
    for name in os.listdir(folder):
        number = name.removeprefix(prefix).removesuffix(".lock")
        if name.startswith(prefix) and name.endswith(".lock") and number.isdecimal() and number.isascii():
            counts.append(int(number))
    return sorted(counts)


def _held(name: Path) -> bool:
    """Whether a process holds the lock of ``name`` (:func:`hold`'s): it cannot be taken exclusively now."""
    try:
        probe = hold(name, "")
    except InUse:
        return True
    if probe is not None:
        probe.release()
    return False


def _opened(path: Path) -> int:
    """A descriptor of the lock file, created if need be; read-only when this user may not write it."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


def hold_shards(database: Path, shards: Collection[int], in_use: Callable[[int], str]) -> DataLock:
    """Lock each of ``shards`` of ``database`` for this process, or raise :class:`InUse` with ``in_use(shard)`` for
    the first another process holds (none stays held then). Named after the database's real path, as its lock is;
    a shard whose lock cannot be taken at all is left unlocked, as :func:`hold` leaves the database."""
    real = database.resolve()
    held = DataLock()
    try:
        for shard in sorted(shards):
            lock = hold(real.with_name(f"{real.name}.shard-{shard}"), in_use(shard))
            if lock is not None:
                held.joined(lock)
    except InUse:
        held.release()
        raise
    return held
