"""Which version each game's public message shows, remembered cheaply so a restart can repair what a crash left.

A move is saved before its message is edited; a kill in between leaves the message one version behind. The
service notes every version it managed to show; this flusher writes the notes in one small batch every few
seconds and at a clean shutdown, never on the click path. At start-up the service shows again every active game
whose stored ``shown_version`` is behind. A note lost to a kill only costs one needless (identical) edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection

from bot.storage import GameRecord, GamesRepository, StorageUnavailable

log = logging.getLogger(__name__)

#: Seconds between two batches of notes.
FLUSH_EVERY = 3.0


class ShownVersions:
    """Notes of shown versions, flushed in batches by one background task, which also retries failed edits.

    ``repair`` shows the given games again (the service's :meth:`~bot.play.service.GameService.show_again`): a
    message whose edit failed while the bot kept running (Discord answered 5xx) is retried every few seconds
    instead of waiting for a click or a restart, which in Knister nobody could make (Roll stays disabled).
    """

    def __init__(
        self,
        games: GamesRepository,
        repair: Callable[[Collection[int]], Awaitable[object]],
        every: float = FLUSH_EVERY,
    ) -> None:
        self._games = games
        self._repair = repair
        self._every = every
        self._pending: dict[int, int] = {}
        self._missed: set[int] = set()
        self._task: asyncio.Task[None] | None = None

    def note(self, record: GameRecord) -> None:
        """The game's public message now shows ``record.version``."""
        self._missed.discard(record.id)
        if record.version > self._pending.get(record.id, -1):
            self._pending[record.id] = record.version

    def missed(self, record: GameRecord) -> None:
        """Editing the game's public message failed: show it again soon."""
        self._missed.add(record.id)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="dicebot-shown-versions")

    async def stop(self) -> None:
        """End the task and write what is still pending."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def flush(self) -> None:
        """Write the pending notes in one transaction (kept for the next try if the write fails).

        Never raises: an error escaping here would end the background task, and with it every repair of a board
        until a restart.
        """
        batch, self._pending = self._pending, {}
        try:
            await self._games.mark_shown(batch)
        except Exception as error:
            if isinstance(error, StorageUnavailable):
                log.warning("could not record shown versions: %s", error)
            else:
                log.exception("could not record shown versions")
            for game_id, version in batch.items():
                self._pending[game_id] = max(version, self._pending.get(game_id, -1))

    async def repair(self) -> None:
        """Show again the games whose edit failed since the last repair (one pass of the background task)."""
        if not self._missed:
            return
        missed, self._missed = self._missed, set()
        try:
            await self._repair(sorted(missed))
        except Exception:
            log.exception("could not show games %s again", sorted(missed))

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            await self.repair()
            await self.flush()
