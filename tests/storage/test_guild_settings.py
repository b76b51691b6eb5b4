"""The per-server settings repository: a chosen language is kept, replaced and cleared."""

from __future__ import annotations

from bot.storage import Database, GuildSettingsRepository


async def test_a_server_without_a_choice_has_none(database_url: str) -> None:
    db = await Database.open(database_url)
    try:
        assert await GuildSettingsRepository(db).language(42) is None
    finally:
        await db.close()


async def test_choose_change_and_clear_a_language(database_url: str) -> None:
    db = await Database.open(database_url)
    try:
        settings = GuildSettingsRepository(db)
        await settings.set_language(42, "hu")
        await settings.set_language(7, "de")
        assert (await settings.language(42), await settings.language(7)) == ("hu", "de")
        await settings.set_language(42, "pl")
        assert await settings.language(42) == "pl"
        await settings.set_language(42, None)
        assert (await settings.language(42), await settings.language(7)) == (None, "de")
    finally:
        await db.close()


async def test_the_choice_survives_a_restart(database_url: str) -> None:
    db = await Database.open(database_url)
    await GuildSettingsRepository(db).set_language(42, "pl")
    await db.close()
    db = await Database.open(database_url)
    try:
        assert await GuildSettingsRepository(db).language(42) == "pl"
    finally:
        await db.close()
