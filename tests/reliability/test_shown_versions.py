"""The repair after a kill finds exactly the games whose message is behind, and the notes are written in batches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.play.shown import ShownVersions
from bot.storage import Database, GamesRepository, Seat


@pytest.fixture
async def games(tmp_path: Path) -> AsyncIterator[GamesRepository]:
    db = await Database.open(tmp_path / "db.sqlite3")
    yield GamesRepository(db)
    await db.close()


async def test_only_games_whose_message_is_behind_are_shown_again(games: GamesRepository) -> None:
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=2, host=Seat.user(7, "Alice"), locale="en-US",
        options={}, deadline_at=None,
    )  # fmt: skip
    assert await games.behind() == []  # no message yet: nothing to show it on
    await games.attach_message(lobby.id, 99, shown_version=lobby.version)
    assert await games.behind() == []
    moved = await games.save(replace(lobby, message_id=99), before=lobby)
    assert await games.behind() == [lobby.id]  # saved, then killed before the edit

    shown = ShownVersions(games, repair=lambda ids: asyncio.sleep(0))
    shown.note(moved)
    shown.note(lobby)  # an older note never lowers the version
    assert await games.behind() == [lobby.id]  # nothing is written on the click path
    await shown.flush()
    assert await games.behind() == []

    finished = await games.save(replace(moved, status="finished"), before=moved)
    assert await games.behind() == [lobby.id]  # the last move must reach the message too
    shown.note(finished)
    await shown.flush()
    assert await games.behind() == []


async def test_an_unforeseen_error_writing_the_notes_keeps_them_and_the_task_going(games: GamesRepository) -> None:
    """A deadlock on PostgreSQL escaped ``flush`` and ended the background task: no failed edit was retried again
    until a restart."""
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=2, host=Seat.user(7, "Alice"), locale="en-US",
        options={}, deadline_at=None,
    )  # fmt: skip
    await games.attach_message(lobby.id, 99, shown_version=lobby.version)
    moved = await games.save(replace(lobby, message_id=99), before=lobby)
    writes = games.mark_shown

    async def fails_once(versions: dict[int, int]) -> None:
        games.mark_shown = writes  # type: ignore[method-assign]
        raise RuntimeError("deadlock detected")

    games.mark_shown = fails_once  # type: ignore[method-assign]
    shown = ShownVersions(games, repair=lambda ids: asyncio.sleep(0))
    shown.note(moved)
    await shown.flush()
    assert await games.behind() == [lobby.id]
    await shown.flush()
    assert await games.behind() == []
