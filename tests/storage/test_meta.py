"""The bot_meta key/value repository: unset keys read as None, values replace and survive a reopen."""

from __future__ import annotations

from bot.storage import Database, MetaRepository


async def test_values_are_set_replaced_and_kept_across_a_reopen(database_url: str) -> None:
    path = database_url
    db = await Database.open(path)
    try:
        meta = MetaRepository(db)
        assert await meta.get("command_sync") is None
        await meta.set("command_sync", "first")
        await meta.set("command_sync", "second")
        await meta.set("other", "kept apart")
        assert await meta.get("command_sync") == "second"
    finally:
        await db.close()
    db = await Database.open(path)
    try:
        meta = MetaRepository(db)
        assert await meta.get("command_sync") == "second"
        assert await meta.get("other") == "kept apart"
    finally:
        await db.close()
