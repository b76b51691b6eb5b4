"""Per-server settings (``/settings``): today the language of a server's public game messages."""

from __future__ import annotations

from bot.storage.database import Database


class GuildSettingsRepository:
    """Reads and writes the ``guild_settings`` row of a server; a server without a row has chosen nothing."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def language(self, guild_id: int) -> str | None:
        """The language a server chose for its games, or None to follow its preferred locale."""
        row = await self._db.fetch_one("SELECT language FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return None if row is None else row[0]

    async def set_language(self, guild_id: int, language: str | None) -> None:
        """Choose the server's game language; None goes back to its preferred locale."""
        async with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO guild_settings (guild_id, language) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language",
                (guild_id, language),
            )
