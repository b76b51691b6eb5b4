"""One task that fires stored deadlines (turn timeouts, lobby expiry), surviving restarts.

Deadlines live in the games table; this task only sleeps until the earliest one, so after a restart it
simply picks up where the database says. A save that sets an earlier deadline calls :meth:`wake`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from bot.storage import GamesRepository, StorageUnavailable

log = logging.getLogger(__name__)

#: Re-check at least this often, so a clock jump or a missed wake-up costs at most this delay.
MAX_SLEEP = 30.0
#: A deadline whose handler failed is retried after this pause instead of in a tight loop.
RETRY_AFTER_FAILURE = 5.0


class DeadlineScheduler:
    def __init__(
        self,
        games: GamesRepository,
        fire: Callable[[int], Awaitable[None]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._games = games
        self._fire = fire
        self._clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        #: The deadline the task sleeps until (None: none is pending, it only re-checks after MAX_SLEEP).
        self._upcoming: float | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="dicebot-deadlines")

    async def stop(self) -> None:
        """Let a deadline being handled finish, then end the task (never cancelled halfway through a game)."""
        if self._task is not None:
            self._stopping = True
            self._wake.set()
            await self._task
            self._task = None

    def wake(self, deadline_at: float | None) -> None:
        """A game was saved with ``deadline_at``: re-read the next deadline if this one comes earlier.

        Most saves keep or push back a deadline; waking for those would cost two queries per click for nothing.
        A deadline moved later than the one slept for costs at most one wake-up that finds nothing due.
        """
        if deadline_at is not None and (self._upcoming is None or deadline_at < self._upcoming):
            self._upcoming = deadline_at
            self._wake.set()

    async def _run(self) -> None:
        while not self._stopping:
            # While checking, every deadline saved counts as new: it sets the wake-up, which the wait below sees.
            self._upcoming = None
            self._wake.clear()
            failed = True
            upcoming = None
            try:
                failed = await self.run_due()
                upcoming = await self._games.next_deadline()
            except StorageUnavailable as error:
                # The database server is away (restarting): try again shortly, without a traceback per attempt.
                log.warning("deadline check failed, retrying: %s", error)
            except Exception:
                log.exception("deadline check failed")
            delay = MAX_SLEEP if upcoming is None else min(MAX_SLEEP, max(0.0, upcoming - self._clock()))
            if failed:
                delay = max(delay, RETRY_AFTER_FAILURE)
            if self._stopping:
                return
            if not self._wake.is_set():
                self._upcoming = upcoming
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    async def run_due(self) -> bool:
        """Fire every deadline that has passed; one failing game never blocks the others. True if one failed."""
        failed = False
        for game_id in await self._games.due(self._clock()):
            try:
                await self._fire(game_id)
            except StorageUnavailable as error:
                failed = True
                log.warning("deadline of game %s not saved (%s); retrying", game_id, error)
            except Exception:
                failed = True
                log.exception("deadline of game %s failed", game_id)
        return failed
