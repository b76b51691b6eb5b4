"""A heartbeat file for container health checks: touched while the process has every one of its shards connected.

The bot serves no HTTP, so ``docker compose``'s health check cannot ask it anything; instead the bot touches
``HEALTH_FILE`` every few seconds while it is ready and no shard's connection is closed, and
``python -m bot health`` (the check) only reads the file's age. A process that hangs, lost its gateway or never
got ready stops touching it and turns unhealthy within :data:`STALE_AFTER` seconds.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.paths import Unexaminable, kind, reason

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger(__name__)

#: Seconds between two touches of the file.
BEAT_EVERY = 10.0
#: A file older than this means unhealthy: several missed beats, not one slow one.
STALE_AFTER = 60.0


class Heartbeat:
    """Touches ``path`` every ``every`` seconds while ``healthy()`` says so."""

    def __init__(self, path: Path, healthy: Callable[[], bool], every: float = BEAT_EVERY) -> None:
        self.path = path
        self._healthy = healthy
        self._every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        # asyncio only here, in the bot: ``python -m bot health`` imports this module to call :func:`problem`.
        import asyncio

        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="dicebot-heartbeat")

    async def stop(self) -> None:
        """Stop beating and remove the file: a stopped bot is not healthy."""
        import asyncio

        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        try:
            self.path.unlink(missing_ok=True)
        except OSError as error:
            # Raised here it would end the bot's close() early: the process would never stop.
            log.warning("could not remove the health file %s: %s", self.path, error)

    def beat(self) -> None:
        """Touch the file if the process is healthy now (a full disk is logged, never raised)."""
        if not self._healthy():
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()
        except OSError as error:
            log.warning("could not touch the health file %s: %s", self.path, error)

    async def _run(self) -> None:
        import asyncio

        while True:
            self.beat()
            await asyncio.sleep(self._every)


def unusable(path: Path) -> str | None:
    """Why the bot could never keep ``path`` as its heartbeat file, or None: checked at start, so an admin's
    mistake is one line then rather than a container that turns unhealthy, or a bot that cannot remove it.

    It writes to find out, as cheaply as it can: the file opened to append, or a nameless file made in the nearest
    folder there is. ``os.access`` says yes to root everywhere, /proc included, where no file can be made (QA)."""
    try:
        found = kind(path, "HEALTH_FILE")
        if found == "folder":
            return f"{path} is a folder"
        if found == "other":
            return f"{path} is not a regular file"  # a pipe would hold the start until someone reads it
        if found == "file":
            return _written(path)
        unreached = unreachable(path)
        if unreached is not None:
            return unreached
        parent = path.parent
        while (found := kind(parent, "HEALTH_FILE")) == "missing":
            parent = parent.parent
    except Unexaminable as error:
        return f"{error.path} cannot be used ({error.reason})"
    if found != "folder":
        return f"{parent} is a file, not a folder"
    # Imported here: the health check, which runs every few seconds, never calls this.
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as error:
        return f"cannot create files in {parent} ({reason(error)})"
    return None


def unreachable(path: Path) -> str | None:
    """Why no file can ever be at the missing ``path``, or None, without writing anything (the health check asks
    too): a path through a file, a loop of symbolic links, or a link whose target's folder is missing, which every
    beat failed to touch with a warning while the start had found nothing wrong (review)."""
    try:
        path.stat()
    except OSError as error:
        if error.errno == errno.ENOTDIR:
            # Along the path its links lead to: a link through a file blamed the folder the link is in (review).
            real = Path(os.path.realpath(path))
            file = next(parent for parent in real.parents if parent.exists())
            return f"{file} is a file, not a folder"
        if error.errno == errno.ELOOP:
            return f"{path} is a loop of symbolic links"
    try:
        if path.is_symlink():
            target = path.parent / path.readlink()
            if not target.parent.is_dir():
                return f"{path} is a symbolic link to {target}, whose folder does not exist"
    except OSError as error:
        return f"{path} cannot be used ({reason(error)})"
    return None


def _written(path: Path) -> str | None:
    """Why the existing file ``path`` cannot be written, or None; opened to append, so nothing in it changes."""
    try:
        with path.open("ab"):
            pass
    except OSError as error:
        return f"{path} is not writable by this user ({reason(error)})"
    return None


def problem(path: Path, now: float | None = None, stale_after: float = STALE_AFTER) -> str | None:
    """Why the process writing ``path`` is unhealthy, or None when its last beat is recent."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except FileNotFoundError:
        return f"no heartbeat in {path} (the bot is starting, stopped, or never got ready)"
    except OSError as error:
        return f"cannot read the heartbeat in {path} ({reason(error)})"
    if age > stale_after:
        return f"the last heartbeat in {path} is {age:.0f} s old (a shard is disconnected or the bot hangs)"
    if -age > stale_after:
        # A clock set back: a beating bot rewrites the file within BEAT_EVERY, so this passes at once for it, while
        # a hung one would otherwise count as fresh until the clock caught up.
        return f"the last heartbeat in {path} is dated {-age:.0f} s in the future (the clock was set back)"
    return None
