"""A tiny key/value table for the bot's own bookkeeping, such as the hash of the last command sync."""

from __future__ import annotations

from bot.storage.database import Database


class MetaRepository:
    """Reads and writes ``bot_meta``: values the bot remembers across restarts that belong to no game."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        """The stored value of ``key``, or ``None`` when it was never set."""
        row = await self._db.fetch_one("SELECT value FROM bot_meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing what was there."""
        async with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO bot_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
