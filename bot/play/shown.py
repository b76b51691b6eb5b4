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

from bot.storage import GameRecord, GamesRepository, StorageUnavailable

log = logging.getLogger(__name__)

#: Seconds between two batches of notes.
FLUSH_EVERY = 3.0


class ShownVersions:
    """Notes of shown versions, flushed in batches by one background task."""

    def __init__(self, games: GamesRepository, every: float = FLUSH_EVERY) -> None:
        self._games = games
        self._every = every
        self._pending: dict[int, int] = {}
        self._task: asyncio.Task[None] | None = None

    def note(self, record: GameRecord) -> None:
        """The game's public message now shows ``record.version``."""
        if record.version > self._pending.get(record.id, -1):
            self._pending[record.id] = record.version

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
        """Write the pending notes in one transaction (kept for the next try if the disk refuses)."""
        batch, self._pending = self._pending, {}
        try:
            await self._games.mark_shown(batch)
        except StorageUnavailable as error:
            log.warning("could not record shown versions: %s", error)
            for game_id, version in batch.items():
                self._pending[game_id] = max(version, self._pending.get(game_id, -1))

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            await self.flush()
