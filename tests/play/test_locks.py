"""A game's lock outlives the game while a request holds or awaits it (then it is forgotten)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.play.locks import GameLocks
from bot.play.ports import Edit
from bot.storage import Database, GameRecord, GamesRepository, Seat
from bot.ui.render import Rendered
from tests.play.test_sharded_race import GUILD_ON_0, NOW, Recorder, service


async def test_a_game_that_ends_under_its_lock_keeps_the_next_request_waiting() -> None:
    locks = GameLocks()
    order: list[str] = []
    holding, release = asyncio.Event(), asyncio.Event()

    async def finishing_move() -> None:
        async with locks.hold(1):
            locks.forget(1)  # the save that finished the game
            holding.set()
            await release.wait()  # answering, showing and moving the final board
            order.append("final move done")

    async def rematch_click() -> None:
        async with locks.hold(1):
            order.append("rematch")

    first = asyncio.create_task(finishing_move())
    await holding.wait()
    second = asyncio.create_task(rematch_click())
    for _ in range(5):
        await asyncio.sleep(0)  # let the click run as far as it can: up to the lock
    assert order == []
    release.set()
    await asyncio.gather(first, second)
    assert order == ["final move done", "rematch"]
    assert 1 not in locks, "forgotten once free"


async def test_a_free_lock_is_forgotten_at_once_and_a_running_game_s_is_kept() -> None:
    locks = GameLocks()
    async with locks.hold(1):
        pass
    async with locks.hold(2):
        pass
    locks.forget(1)
    assert 1 not in locks and 2 in locks
    locks.forget(3)  # a game that never had a lock
    assert 3 not in locks


async def test_a_waiter_cancelled_at_the_lock_leaves_no_trace() -> None:
    """A click dropped while it waited (its interaction expired, the bot stops) still counts out."""
    locks = GameLocks()
    holding, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with locks.hold(1):
            holding.set()
            await release.wait()
            locks.forget(1)

    async def waiter() -> None:
        async with locks.hold(1):
            raise AssertionError("a cancelled waiter never gets the lock")

    first = asyncio.create_task(holder())
    await holding.wait()
    second = asyncio.create_task(waiter())
    await asyncio.sleep(0)  # the waiter reaches the lock
    second.cancel()
    release.set()
    await first
    assert second.cancelled()
    assert 1 not in locks


class SlowBoard(Recorder):
    """Channels whose edit of the board waits until released (the final board still being shown)."""

    def __init__(self) -> None:
        super().__init__()
        self.editing, self.release = asyncio.Event(), asyncio.Event()

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        self.editing.set()
        await self.release.wait()
        return await super().edit(record, rendered, message_id)


async def test_the_request_that_ends_a_game_keeps_its_lock_until_the_end_is_shown(tmp_path: Path) -> None:
    """The save that ended a game forgot its lock at once, while the request still showed the end: a click in the
    meantime made a new lock and ran beside it (a Rematch could open a lobby while the final board moved down).
    The unit test above shows what a lock that is still known does for that click."""
    db = await Database.open(tmp_path / "games.sqlite3")
    try:
        games = GamesRepository(db)
        lobby = await games.create(
            kind="kniffel", variant="kniffel", guild_id=GUILD_ON_0, channel_id=1, host=Seat.user(11, "Alice"),
            locale="en-US", options={}, deadline_at=NOW - 1,
        )  # fmt: skip
        await games.attach_message(lobby.id, 99)
        channels = SlowBoard()
        played = service(games, channels)
        expiring = asyncio.create_task(played.on_deadline(lobby.id))
        await channels.editing.wait()  # the lobby expired and was saved; its board is being shown
        assert (await games.get(lobby.id)).status == "abandoned"
        assert lobby.id in played._locks, "the game's lock was forgotten while its request still held it"
        channels.release.set()
        await expiring
        assert lobby.id not in played._locks, "forgotten once free"
    finally:
        await db.close()
