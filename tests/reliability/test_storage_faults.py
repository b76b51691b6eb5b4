"""Defect 4: a save the disk refuses is answered privately, changes nothing, and the bot recovers by itself."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.storage import Database, GamesRepository, Seat, StorageUnavailable
from tests.reliability.conftest import Harness


@pytest.fixture
async def games(tmp_path: Path) -> AsyncIterator[GamesRepository]:
    db = await Database.open(tmp_path / "db.sqlite3")
    yield GamesRepository(db)
    await db.close()


async def set_page_limit(games: GamesRepository, pages: int | None) -> None:
    """``PRAGMA max_page_count``: the database file may not grow past ``pages`` (None: back to a roomy disk)."""
    async with games._db.transaction() as tx:
        tx.execute(f"PRAGMA max_page_count = {1073741823 if pages is None else pages}")


async def test_a_full_disk_raises_storage_unavailable_and_writes_nothing(games: GamesRepository) -> None:
    game = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=2, host=Seat.user(7, "Alice"), locale="en-US",
        options={}, deadline_at=None,
    )  # fmt: skip
    rows = await games._db.fetch_all("PRAGMA page_count")
    await set_page_limit(games, rows[0][0])
    bigger = replace(game, status="running", state="x" * 200_000)
    with pytest.raises(StorageUnavailable, match="full"):
        await games.save(bigger, before=game)
    assert await games.get(game.id) == game
    await set_page_limit(games, None)
    saved = await games.save(bigger, before=game)
    assert await games.get(game.id) == saved


async def test_a_click_the_disk_refuses_is_answered_and_changes_nothing(
    running: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = running
    assert h.bot is not None
    message = await h.start_game("kniffel", [h.alice])
    before = await h.record()
    caplog.set_level(logging.WARNING)
    # The disk turns read-only under the bot (as after an I/O error): every write transaction is refused.
    writer = h.bot.db._writer
    await writer.call(lambda conn: conn.execute("PRAGMA query_only = ON"))
    handle = await h.click(h.alice, message, "Roll")
    assert "Could not save" in (await handle.message()).text
    assert await h.record() == before
    assert [r for r in caplog.records if r.exc_info] == []
    assert len([r for r in caplog.records if "not saved" in r.getMessage()]) == 1

    await writer.call(lambda conn: conn.execute("PRAGMA query_only = OFF"))
    await h.click(h.alice, message, "Roll")
    assert (await h.state()).rolls == 1
