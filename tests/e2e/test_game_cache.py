"""Games kept in memory between clicks: a click reads no row, and the database stays the source of truth."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot.play.cache import GameCache
from bot.play.inflight import InFlight
from bot.play.transitions import Game
from bot.storage import GameRecord, GamesRepository
from tests.e2e.board import CHANGED
from tests.e2e.conftest import Harness


def record(game_id: int, status: str = "running") -> GameRecord:
    return GameRecord(game_id, "kniffel", "kniffel", 1, 2, "3", status, 0, 0.0, 0.0)  # type: ignore[arg-type]


def test_the_cache_keeps_the_latest_games_in_progress_and_forgets_the_rest() -> None:
    cache = GameCache(limit=2)
    cache.put(Game(record(1), None))
    cache.put(Game(record(2), None))
    assert cache.get(1) is not None  # 1 is now the most recently used
    cache.put(Game(record(3), None))
    assert cache.get(2) is None and cache.get(1) is not None and cache.get(3) is not None
    cache.put(Game(record(3, "finished"), None))
    assert cache.get(3) is None and len(cache) == 1
    cache.drop(1)
    assert len(cache) == 0


async def test_a_block_that_fails_in_any_way_drops_its_game_and_the_error_goes_on() -> None:
    cache = GameCache()
    cache.put(Game(record(1), None))
    cache.put(Game(record(2), None))
    async with cache.dropped_on_failure(1):
        pass
    assert cache.get(1) is not None
    for error in (ValueError("bad"), asyncio.CancelledError()):
        with pytest.raises(type(error)):
            async with cache.dropped_on_failure(1):
                raise error
        assert cache.get(1) is None and cache.get(2) is not None
        cache.put(Game(record(1), None))


async def test_requests_in_flight_are_counted_until_they_end_however_they_end() -> None:
    in_flight = InFlight()
    with in_flight.track():
        with pytest.raises(ValueError, match="bad"), in_flight.track():
            raise ValueError("bad")
        waiting = asyncio.create_task(in_flight.drain(10))
        await asyncio.sleep(0)
        assert not waiting.done()  # one request is still in progress
    await waiting


async def test_clicks_on_a_kept_game_read_no_row(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    assert h.bot is not None
    games: GamesRepository = h.bot.service._games
    reads: list[int] = []
    real_get = games.get

    async def counted(game_id: int) -> GameRecord | None:
        reads.append(game_id)
        return await real_get(game_id)

    games.get = counted  # type: ignore[method-assign]
    h.rng.script(1, 2, 3, 4, 6)
    await h.click(h.alice, message, "Roll")
    await h.click(h.alice, message, "⚀ 1")
    await h.click(h.alice, message, "Roll (2/3)")
    assert reads == []
    state = await h.state()
    assert state.rolls == 2 and state.held == [True, False, False, False, False]
    assert message.button(label="Roll (3/3)") is not None


async def test_a_game_changed_behind_the_cache_is_refused_once_and_then_read_again(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    h.rng.script(1, 2, 3, 4, 6)
    await h.click(h.alice, message, "Roll")
    assert h.bot is not None
    # Another writer (say, an admin's tool) bumps the stored game: the kept copy is now one version behind.
    stored = await h.record()
    assert stored is not None
    await h.bot.games.save(replace(stored, options={**stored.options, "note": "changed"}))
    stale = h.snapshot(message)

    refused = await h.server.click_button(h.alice, stale, label="Roll (2/3)")
    assert (await refused.message()).text == CHANGED  # the save lost to the newer version
    after = await h.record()
    assert after is not None and after.version == stored.version + 1 and after.state == stored.state

    # The kept copy was dropped: the next click reads the stored game, whose version the message now shows.
    assert len(h.bot.service.cache) == 0
    h.rng.script(6, 6, 6, 6, 6)
    retry = await h.server.click_button(h.alice, stale, label="Roll (2/3)")
    assert (await retry.message()).text == CHANGED  # refused by the stored version, and the message redrawn
    await h.click(h.alice, message, "Roll (2/3)")
    final = await h.record()
    assert final is not None and final.options.get("note") == "changed"
    assert (await h.state()).rolls == 2


async def test_a_deadline_that_loses_the_version_check_forgets_the_kept_game(running: Harness) -> None:
    """A deadline (or a hint's mark) whose save is refused as stale must not leave the old copy in memory: the
    next click would be refused as outdated against a version the database has long passed."""
    h = running
    await h.start_game("kniffel", [h.alice])
    assert h.bot is not None
    stored = await h.record()
    assert stored is not None and h.bot.service.cache.get(stored.id) is not None
    await h.bot.games.save(replace(stored, options={**stored.options, "note": "changed"}))
    h.clock.now += 24 * 3600  # the turn's deadline has passed
    await h.bot.service.on_deadline(stored.id)  # plays the timeout on the kept copy: StaleVersion
    assert h.bot.service.cache.get(stored.id) is None
    # The next attempt reads the stored game and plays the timed-out turn on it.
    await h.bot.service.on_deadline(stored.id)
    after = await h.record()
    assert after is not None and after.version == stored.version + 2 and after.options.get("note") == "changed"
