"""The games repository: one active game per channel, optimistic versions, seats, deadlines, results."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.sharding import ShardScope
from bot.storage import ChannelBusy, Database, GamesRepository, ResultRow, ResultsRepository, Seat, StaleVersion
from bot.storage.database import bundled_migrations
from bot.storage.games import GameRecord, RecordChanges


async def new_game(
    games: GamesRepository, channel_id: int = 10, deadline_at: float | None = None, guild_id: int | None = 1
):
    return await games.create(
        kind="kniffel",
        variant="classic",
        guild_id=guild_id,
        channel_id=channel_id,
        host=Seat.user(100, "Alice"),
        locale="en-US",
        options={"timeout": 5},
        deadline_at=deadline_at,
    )


async def test_create_and_load_round_trip(db: Database) -> None:
    games = GamesRepository(db)
    created = await new_game(games)
    assert created.status == "lobby"
    assert created.version == 0
    assert created.seats == (Seat.user(100, "Alice"),)
    assert created.options == {"timeout": 5}
    assert await games.get(created.id) == created
    assert await games.active_in_channel(10) == created


async def test_second_active_game_in_a_channel_is_refused(db: Database) -> None:
    games = GamesRepository(db)
    first = await new_game(games)
    with pytest.raises(ChannelBusy) as busy:
        await new_game(games)
    assert busy.value.game.id == first.id
    await new_game(games, channel_id=11)


async def test_finished_game_frees_the_channel(db: Database) -> None:
    games = GamesRepository(db)
    first = await new_game(games)
    await games.save(replace(first, status="finished", finished_at=1.0))
    second = await new_game(games)
    assert second.id != first.id


async def test_save_bumps_version_and_refuses_stale_writes(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    joined = await games.save(replace(game, seats=(*game.seats, Seat.user(200, "Bob"))))
    assert joined.version == 1
    with pytest.raises(StaleVersion):
        await games.save(replace(game, state="{}"))
    loaded = await games.get(game.id)
    assert loaded is not None
    assert loaded.state is None
    assert [seat.display_name for seat in loaded.seats] == ["Alice", "Bob"]


async def test_attach_message_keeps_the_version(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    await games.attach_message(game.id, 555)
    loaded = await games.get(game.id)
    assert loaded is not None
    assert (loaded.message_id, loaded.version) == (555, 0)


async def test_a_board_posted_anew_replaces_only_the_board_that_was_deleted(db: Database) -> None:
    """Two processes reposting one deleted board (a shard hand-over): the first to store its message wins."""
    games = GamesRepository(db)
    lobby = await new_game(games)
    await games.attach_message(lobby.id, 500, shown_version=0)
    game = await games.save(replace(lobby, options={"timeout": 6}), before=lobby)
    assert await games.behind() == [game.id]
    assert await games.replace_message(game.id, 500, 600, shown_version=game.version)
    assert not await games.replace_message(game.id, 500, 700, shown_version=game.version)  # 500 is not the board
    assert not await games.replace_message(game.id + 1, 600, 700, shown_version=game.version)  # no such game
    loaded = await games.get(game.id)
    assert loaded is not None
    assert (loaded.message_id, loaded.version) == (600, game.version)
    assert await games.behind() == []  # the new board shows the stored version


async def test_deadlines_are_found_in_order(db: Database) -> None:
    games = GamesRepository(db)
    late = await new_game(games, channel_id=1, deadline_at=200.0)
    early = await new_game(games, channel_id=2, deadline_at=100.0)
    await new_game(games, channel_id=3)
    assert await games.next_deadline() == 100.0
    assert await games.due(150.0) == [early.id]
    assert await games.due(250.0) == [early.id, late.id]
    await games.save(replace(early, status="abandoned", deadline_at=None))
    assert await games.next_deadline() == 200.0


async def test_results_are_written_with_the_final_save(db: Database) -> None:
    games, results = GamesRepository(db), ResultsRepository(db)
    game = await new_game(games)
    row = ResultRow(
        game_id=game.id,
        kind="kniffel",
        variant="classic",
        guild_id=1,
        channel_id=10,
        user_id=100,
        display_name="Alice",
        score=250,
        rank=1,
        won=True,
        finished_at=5.0,
        counters={"kniffels": 1, "upper_bonus": 0},
    )
    other = replace(row, user_id=101, display_name="Bob", score=200, rank=2, won=False, counters={"share": -2.5})
    nothing = replace(row, user_id=102, display_name="Carol", score=100, rank=3, won=False, counters={})
    await games.save(replace(game, status="finished", finished_at=5.0), [row, other, nothing])
    assert await results.for_game(game.id) == [row, other, nothing]
    # Counters come back as they went in: whole numbers stay int, fractions float, absent ones absent.
    stored = await results.for_game(game.id)
    assert [{name: type(value) for name, value in found.counters.items()} for found in stored] == [
        {"kniffels": int, "upper_bonus": int},
        {"share": float},
        {},
    ]


async def test_failed_save_writes_no_results(db: Database) -> None:
    games, results = GamesRepository(db), ResultsRepository(db)
    game = await new_game(games)
    await games.save(game)
    row = ResultRow(game.id, "kniffel", "classic", 1, 10, 100, "Alice", 1, 1, True, 1.0)
    with pytest.raises(StaleVersion):
        await games.save(replace(game, status="finished"), [row])
    assert await results.for_game(game.id) == []


async def test_seats_hold_people_and_computer_players(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    robot = Seat("cpu-1", "Robo", kind="computer")
    saved = await games.save(replace(game, seats=(*game.seats, robot)), before=game)
    loaded = await games.get(game.id)
    assert loaded == saved and loaded.seats == (Seat.user(100, "Alice"), robot)
    assert (loaded.seat("100").user_id, loaded.seat("cpu-1").user_id) == (100, None)
    assert loaded.host == "100"


async def test_a_save_writes_only_the_seats_that_changed(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    three = await games.save(
        replace(game, seats=(*game.seats, Seat.user(200, "Bob"), Seat.user(300, "Carol"))), before=game
    )
    struck = replace(three.seats[1], timeouts=1)
    without_alice = replace(three, seats=(struck, three.seats[2]), host="200")
    saved = await games.save(without_alice, before=three)
    loaded = await games.get(game.id)
    assert loaded == saved
    assert [(seat.player, seat.timeouts) for seat in loaded.seats] == [("200", 1), ("300", 0)]
    assert loaded.host == "200"


async def test_a_save_writes_only_the_columns_that_changed(db: Database) -> None:
    games = GamesRepository(db)
    game = await new_game(games)
    await games.attach_message(game.id, 555)  # written since ``game`` was read, without a version bump
    moved = await games.save(replace(game, state="{}", deadline_at=9.0), before=game)
    loaded = await games.get(game.id)
    assert loaded is not None
    assert (loaded.message_id, loaded.state, loaded.deadline_at, loaded.version) == (555, "{}", 9.0, 1)
    changed = replace(
        moved, status="finished", options={"timeout": 7}, finished_at=10.0, locale="de", deadline_at=None, host="100"
    )
    saved = await games.save(changed, before=moved)
    assert await games.get(game.id) == replace(saved, message_id=555)
    # Without the record it was made from, a save writes every column.
    await games.save(replace(saved, state="[]"))
    rewritten = await games.get(game.id)
    assert rewritten is not None
    assert (rewritten.message_id, rewritten.state) == (None, "[]")


async def test_migration_moves_seats_of_running_games_to_player_ids(tmp_path: Path) -> None:
    path = tmp_path / "schema3.sqlite3"
    old = await Database.open(path, [m for m in bundled_migrations() if m.version <= 3])
    try:
        async with old.transaction() as tx:
            tx.execute(
                "INSERT INTO games (id, kind, variant, channel_id, host_id, status, state, version, created_at, "
                "updated_at) VALUES (7, 'kniffel', 'kniffel', 10, 100, 'running', '{}', 4, 1.0, 1.0)"
            )
            tx.executemany(
                "INSERT INTO game_players (game_id, user_id, seat, display_name, status, timeouts) "
                "VALUES (7, ?, ?, ?, ?, ?)",
                [(200, 1, "Bob", "left", 0), (100, 0, "Alice", "active", 2)],
            )
    finally:
        await old.close()
    db = await Database.open(path)
    try:
        loaded = await GamesRepository(db).get(7)
    finally:
        await db.close()
    assert loaded is not None and loaded.host == "100"
    assert loaded.seats == (
        Seat("100", "Alice", "user", "active", 2),
        Seat("200", "Bob", "user", "left", 0),
    )


async def test_the_active_games_whose_board_was_deleted(db: Database) -> None:
    games = GamesRepository(db)
    running = await new_game(games, channel_id=10)
    await games.attach_message(running.id, 500)
    finished = await new_game(games, channel_id=11)
    await games.attach_message(finished.id, 600)
    await games.save(replace(finished, status="finished", message_id=600), before=finished)
    lobby = await new_game(games, channel_id=12)
    await games.attach_message(lobby.id, 700)
    found = await games.active_with_board({500, 600, 700, 800})
    assert [(game.id, game.message_id, game.seats) for game in found] == [
        (running.id, 500, running.seats),
        (lobby.id, 700, lobby.seats),
    ]
    assert await games.active_with_board({800}) == []
    assert await games.active_with_board(set()) == []


async def test_the_active_games_of_a_guild(db: Database) -> None:
    games = GamesRepository(db)
    running = await new_game(games, channel_id=10, guild_id=7)
    finished = await new_game(games, channel_id=11, guild_id=7)
    await games.save(replace(finished, status="finished"), before=finished)
    lobby = await new_game(games, channel_id=12, guild_id=7)
    elsewhere = await new_game(games, channel_id=13, guild_id=8)
    await new_game(games, channel_id=14, guild_id=None)  # a direct message
    found = await games.active_in_guild(7)
    assert [(game.id, game.seats) for game in found] == [(running.id, running.seats), (lobby.id, lobby.seats)]
    assert [game.id for game in await games.active_in_guild(8)] == [elsewhere.id]
    assert await games.active_in_guild(9) == []
    assert await games.guilds_with_active_games() == [7, 8]
    await games.save(replace(elsewhere, status="abandoned"), before=elsewhere)
    assert await games.guilds_with_active_games() == [7]


async def test_the_guilds_with_active_games_of_a_shard(db: Database) -> None:
    on_shard = {shard: (shard + 2) << 22 for shard in range(2)}  # guild ids Discord routes to shard 0 and 1 of 2
    for shard, guild_id in on_shard.items():
        await new_game(GamesRepository(db), channel_id=20 + shard, guild_id=guild_id)
    assert await GamesRepository(db, ShardScope.of(2, [1])).guilds_with_active_games() == [on_shard[1]]


def test_a_changed_record_is_what_replace_makes() -> None:
    """``GameRecord.changed`` stands in for ``dataclasses.replace`` on every click: the same record for a change of
    every field, the original untouched, its typed names exactly the record's fields, and an unknown name refused."""
    seats = (Seat("1", "Ann"), Seat("cpu-easy-1", "Easy", "computer"))
    record = GameRecord(
        id=7, kind="kniffel", variant="classic", guild_id=3, channel_id=4, host="1", status="running", version=2,
        created_at=1.0, updated_at=2.0, locale="de", message_id=9, options={"timeout": 5}, state="{}",
        deadline_at=3.0, finished_at=None, seats=seats, retired_message_id=8,
    )  # fmt: skip
    changes: dict[str, Any] = {
        "id": 8, "kind": "tutto", "variant": "v", "guild_id": None, "channel_id": 5, "host": "2",
        "status": "finished", "version": 3, "created_at": 4.0, "updated_at": 5.0, "locale": "pl", "message_id": None,
        "options": {}, "state": None, "deadline_at": None, "finished_at": 6.0, "seats": seats[:1],
        "retired_message_id": None,
    }  # fmt: skip
    assert set(changes) == {f.name for f in dataclasses.fields(GameRecord)}
    assert typing.get_type_hints(RecordChanges) == typing.get_type_hints(GameRecord)
    for name, value in changes.items():
        copied = record.changed(**{name: value})  # type: ignore[misc]
        assert copied == dataclasses.replace(record, **{name: value}) and copied is not record
        assert getattr(copied, name) == value
    assert record.changed(state="x", version=3) == dataclasses.replace(record, state="x", version=3)
    assert record.state == "{}" and record.version == 2
    with pytest.raises(TypeError, match="no field sate"):
        record.changed(sate="x")  # type: ignore[call-arg]
