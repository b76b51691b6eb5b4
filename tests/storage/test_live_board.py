"""The live board's columns: moving it stores the new board and the retired one together, without a version bump,
and only while the board it moves is still the live one."""

from __future__ import annotations

from dataclasses import replace

from bot.storage import Database, GamesRepository
from tests.storage.test_games import new_game


async def test_moving_the_board_keeps_the_old_one_until_it_was_stripped(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    await games.attach_message(game.id, 500, shown_version=0)
    assert await games.with_retired_board() == []

    assert await games.move_board(game.id, 600, 500, shown_version=0)
    moved = await games.get(game.id)
    assert moved is not None
    assert (moved.message_id, moved.retired_message_id, moved.version) == (600, 500, game.version)
    assert await games.with_retired_board() == [game.id]

    await games.board_retired(game.id, 400)  # another message: the retired board is still pending
    assert await games.with_retired_board() == [game.id]
    await games.board_retired(game.id, 500)
    stripped = await games.get(game.id)
    assert stripped is not None and (stripped.message_id, stripped.retired_message_id) == (600, None)
    assert await games.with_retired_board() == []


async def test_a_board_moves_only_from_the_board_that_is_live(db: Database) -> None:
    """Two processes moving one board down (a shard hand-over) both post it anew from the same live board: the
    second write overwrote the first, whose new board then kept its controls for good. The first to store wins."""
    games = GamesRepository(db)
    game = await new_game(games)
    await games.attach_message(game.id, 500, shown_version=0)
    assert await games.move_board(game.id, 600, 500, shown_version=0)
    assert not await games.move_board(game.id, 700, 500, shown_version=0)  # 500 is no longer the board
    assert not await games.move_board(game.id + 1, 700, 600, shown_version=0)  # no such game
    stored = await games.get(game.id)
    assert stored is not None
    assert (stored.message_id, stored.retired_message_id, stored.version) == (600, 500, game.version)


async def test_a_save_leaves_the_retired_board_alone(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    await games.attach_message(game.id, 500, shown_version=0)
    await games.move_board(game.id, 600, 500, shown_version=0)
    loaded = await games.get(game.id)
    assert loaded is not None
    saved = await games.save(loaded, before=loaded)
    assert (saved.message_id, saved.retired_message_id) == (600, 500)
    assert await games.with_retired_board() == [game.id]


async def test_the_previous_game_of_a_channel(db: Database) -> None:
    games = GamesRepository(db)
    first = await new_game(games, channel_id=10)
    await games.save(replace(first, status="finished"), before=first)
    elsewhere = await new_game(games, channel_id=11)
    second = await new_game(games, channel_id=10)
    previous = await games.previous_in_channel(10, second.id)
    assert previous is not None and previous.id == first.id
    assert await games.previous_in_channel(10, first.id) is None
    assert await games.previous_in_channel(11, elsewhere.id) is None
