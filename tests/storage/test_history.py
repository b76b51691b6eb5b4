"""The move history: written in the save's transaction (a failed save leaves none), read back, forgotten."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.storage import (
    Database,
    GamesRepository,
    HistoryRepository,
    MoveRow,
    ResultRow,
    Seat,
    StaleVersion,
    StatsRepository,
    forgotten,
)
from bot.storage.backend import Conflict, postgres_url
from bot.storage.database import bundled_migrations
from bot.storage.forgotten import FORGOTTEN_NAME


async def new_game(games: GamesRepository, channel_id: int = 10, host: int = 100):
    return await games.create(
        kind="dice",
        variant="standard",
        guild_id=1,
        channel_id=channel_id,
        host=Seat.user(host, "Alice"),
        locale="en-US",
        options={},
        deadline_at=None,
    )


def move(player: str, n: int, source: str = "player") -> MoveRow:
    return MoveRow(player, source, f'{{"kind": "step", "n": {n}}}', f'{{"move": {n}}}')  # type: ignore[arg-type]


async def test_moves_are_saved_with_the_state_and_read_back_in_play_order(db: Database) -> None:
    games, history = GamesRepository(db), HistoryRepository(db)
    game = await new_game(games)
    first = await games.save(replace(game, status="running", state='{"move": 1}'), moves=[move("100", 0)])
    second = await games.save(
        replace(first, state='{"move": 3}'), before=first, moves=[move("cpu-easy-1", 1, "computer"), move("100", 2)]
    )
    stored = await history.moves(game.id)
    assert [(m.version, m.step, m.player, m.source) for m in stored] == [
        (1, 0, "100", "player"),
        (2, 0, "cpu-easy-1", "computer"),
        (2, 1, "100", "player"),
    ]
    assert stored[2].action == '{"kind": "step", "n": 2}' and stored[2].state == '{"move": 2}'
    assert second.version == 2


async def test_latest_save_is_the_first_move_of_the_newest_save_with_moves(db: Database) -> None:
    games, history = GamesRepository(db), HistoryRepository(db)
    game = await new_game(games)
    assert await history.latest_save(game.id) is None
    first = await games.save(replace(game, status="running"), moves=[move("100", 0)])
    second = await games.save(first, before=first, moves=[move("100", 1), move("100", 2)])  # a choice, a forced step
    await games.save(second, before=second)  # a save without a move (a hint's mark)
    latest = await history.latest_save(game.id)
    assert latest is not None and (latest.version, latest.step, latest.player) == (2, 0, "100")
    assert latest.action == '{"kind": "step", "n": 1}' and latest.state == '{"move": 1}'


async def test_a_stale_save_stores_no_history_row(db: Database) -> None:
    games, history = GamesRepository(db), HistoryRepository(db)
    game = await new_game(games)
    await games.save(game, moves=[move("100", 0)])
    with pytest.raises(StaleVersion):
        await games.save(replace(game, state="{}"), moves=[move("100", 1)])
    assert [m.step for m in await history.moves(game.id)] == [0]


async def test_a_save_failing_after_the_history_insert_rolls_it_back(db: Database) -> None:
    """The results are written after the moves: a result that cannot be stored takes the moves with it."""
    games, history = GamesRepository(db), HistoryRepository(db)
    game = await new_game(games)
    broken = ResultRow(game.id, "dice", "standard", 1, 10, 100, "Alice", 1, 1, True, 1.0)
    broken = replace(broken, game_id=10**9)  # no such game: the foreign key refuses the result row
    with pytest.raises(Conflict):
        await games.save(replace(game, status="finished", finished_at=1.0), [broken], moves=[move("100", 0)])
    assert await history.moves(game.id) == []
    stored = await games.get(game.id)
    assert stored is not None and stored.version == 0


async def test_finished_games_lists_a_players_reviewable_games_newest_first(db: Database) -> None:
    games, history = GamesRepository(db), HistoryRepository(db)
    older = await new_game(games, channel_id=10)
    await games.save(replace(older, status="finished", finished_at=5.0), moves=[move("100", 0)])
    newer = await new_game(games, channel_id=11)
    await games.save(replace(newer, status="finished", finished_at=9.0), moves=[move("100", 0), move("100", 1)])
    running = await new_game(games, channel_id=12)
    await games.save(replace(running, status="running"), moves=[move("100", 0)])
    without = await new_game(games, channel_id=13)
    await games.save(replace(without, status="finished", finished_at=10.0))  # played before histories existed

    found = await history.finished_games("100", ["dice"])
    assert [(g.game_id, g.moves) for g in found] == [(newer.id, 2), (older.id, 1)]
    assert await history.finished_games("100", ["other"]) == []
    assert await history.finished_games("200", ["dice"]) == []


async def test_forget_me_deletes_the_history_of_the_ended_games_nobody_else_reviews(db: Database) -> None:
    games, history, stats = GamesRepository(db), HistoryRepository(db), StatsRepository(db)
    shared = await new_game(games, channel_id=10, host=100)
    shared = replace(shared, seats=(*shared.seats, Seat.user(200, "Bob")))
    await games.save(replace(shared, status="finished", finished_at=1.0), moves=[move("100", 0), move("200", 1)])
    solo = await new_game(games, channel_id=11, host=100)
    solo = replace(solo, seats=(*solo.seats, Seat("cpu-easy-1", "🤖 Easy", kind="computer")))
    await games.save(replace(solo, status="finished", finished_at=2.0), moves=[move("100", 0), move("cpu-easy-1", 1)])
    theirs = await new_game(games, channel_id=12, host=200)
    await games.save(replace(theirs, status="finished", finished_at=3.0), moves=[move("200", 0)])
    running = await new_game(games, channel_id=13, host=100)
    await games.save(replace(running, status="running"), moves=[move("100", 0)])

    await stats.forget(100)

    assert len(await history.moves(shared.id)) == 2  # Bob reviews it still
    assert await history.moves(solo.id) == []  # only computers sat with Alice
    assert len(await history.moves(theirs.id)) == 1
    assert len(await history.moves(running.id)) == 1  # a game in progress is the game service's


async def test_an_abandoned_game_loses_its_history_with_the_abandonment(db: Database) -> None:
    games, history = GamesRepository(db), HistoryRepository(db)
    game = await new_game(games)
    running = await games.save(replace(game, status="running"), moves=[move("100", 0)])
    assert len(await history.moves(game.id)) == 1
    await games.save(replace(running, status="abandoned", finished_at=2.0), before=running, moves=[move("100", 1)])
    assert await history.moves(game.id) == []


async def test_moves_stored_before_the_history_became_a_rowid_table_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "schema12.sqlite3"
    old = await Database.open(path, [m for m in bundled_migrations() if m.version <= 12])
    games = GamesRepository(old)
    game = await new_game(games)
    await games.save(replace(game, status="running", state='{"move": 1}'), moves=[move("100", 0), move("100", 1)])
    await old.close()
    db = await Database.open(path)
    try:
        stored = await HistoryRepository(db).moves(game.id)
        assert [(m.version, m.step, m.state) for m in stored] == [(1, 0, '{"move": 0}'), (1, 1, '{"move": 1}')]
        row = await db.fetch_one("SELECT sql FROM sqlite_master WHERE name = 'game_moves'")
        assert row is not None and "WITHOUT ROWID" not in row[0]
        await GamesRepository(db).save(
            replace(game, status="abandoned", version=1)
        )  # the cascade and the delete still hold
        assert await HistoryRepository(db).moves(game.id) == []
    finally:
        await db.close()


@pytest.mark.parametrize("asked", ["after the end", "during the game"])
async def test_the_history_goes_once_everyone_who_sat_asked_to_be_forgotten_whenever_they_asked(
    db: Database, asked: str
) -> None:
    """Asked after the end, the first one's request kept the history for the other, who was forgotten too by then;
    asked during the game, the end deleted it: the same people asked the same thing."""
    games, history, stats = GamesRepository(db), HistoryRepository(db), StatsRepository(db)
    game = await new_game(games, host=100)
    game = replace(game, seats=(*game.seats, Seat.user(200, "Bob")))
    running = await games.save(replace(game, status="running"), moves=[move("100", 0), move("200", 1)])
    if asked == "during the game":
        await stats.forget(100)
        await stats.forget(200)
        await games.save(replace(running, status="finished", finished_at=1.0), before=running)
    else:
        await games.save(replace(running, status="finished", finished_at=1.0), before=running)
        await stats.forget(100)
        assert len(await history.moves(game.id)) == 2  # Bob reviews it still
        await stats.forget(200)
    assert await history.moves(game.id) == []


@pytest.mark.parametrize("asked", ["after the end", "during the game"])
async def test_forget_me_drops_the_stored_news_that_names_the_players(db: Database, asked: str) -> None:
    """The news of a game's last move ("Alice: 25 in Chance") is drawn again when the next game supersedes its
    board: it showed the name the seat no longer has."""
    games, stats = GamesRepository(db), StatsRepository(db)
    game = await new_game(games, host=100)
    game = replace(game, seats=(*game.seats, Seat.user(200, "Bob")))
    running = await games.save(replace(game, status="running"))
    news = {"target": 3, "news": ["Alice: 25 in Chance", "Alice wins"]}
    if asked == "during the game":
        await stats.forget(100)
    await games.save(replace(running, status="finished", finished_at=1.0, options=news), before=running)
    if asked == "after the end":
        await stats.forget(100)
    stored = await games.get(game.id)
    assert stored is not None and stored.options == {"target": 3}
    assert [seat.display_name for seat in stored.seats] == ["—", "Bob"]


@pytest.mark.parametrize("asked", ["after the end", "during the game"])
async def test_a_person_named_like_a_forgotten_seat_keeps_the_history_and_review_when_the_other_is_forgotten(
    db: Database, asked: str
) -> None:
    """A person may call themselves "—", the name a forgotten seat shows: forget-me tells a forgotten seat by a
    mark of its own, so Bob (named "—") still reviews the game after Alice asked to be forgotten, and the game's
    history goes only once he asks too."""
    games, history, stats = GamesRepository(db), HistoryRepository(db), StatsRepository(db)
    game = await new_game(games, host=100)
    game = replace(game, seats=(*game.seats, Seat.user(200, FORGOTTEN_NAME)))
    running = await games.save(replace(game, status="running"), moves=[move("100", 0), move("200", 1)])
    if asked == "during the game":
        await stats.forget(100)
    await games.save(replace(running, status="finished", finished_at=1.0), before=running)
    if asked == "after the end":
        await stats.forget(100)
    assert len(await history.moves(game.id)) == 2
    assert [found.game_id for found in await history.finished_games("200", ["dice"])] == [game.id]
    stored = await games.get(game.id)
    assert stored is not None and [seat.display_name for seat in stored.seats] == [FORGOTTEN_NAME, FORGOTTEN_NAME]
    await stats.forget(200)
    assert await history.moves(game.id) == []


async def test_the_migration_marks_the_seats_forget_me_blanked_before_it(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before migration 0017 a forgotten seat was told by its name alone: the people's seats named "—" of ended
    games are marked (a person really named so then cannot be told apart); a game in progress and a computer are
    left unmarked."""
    dialect = "postgres" if postgres_url(database_url) else "sqlite"
    monkeypatch.setattr(forgotten, "settle", lambda tx, game_id: None)  # today's game end writes the mark
    old = await Database.open(database_url, [m for m in bundled_migrations(dialect) if m.version < 17])
    try:
        games = GamesRepository(old)
        ended = await new_game(games, channel_id=10, host=100)
        seats = (Seat.user(100, FORGOTTEN_NAME), Seat.user(200, "Bob"), Seat("cpu-easy-1", "—", kind="computer"))
        await games.save(replace(ended, status="finished", finished_at=1.0, seats=seats))
        running = await new_game(games, channel_id=11, host=300)
        await games.save(replace(running, status="running", seats=(Seat.user(300, FORGOTTEN_NAME),)))
    finally:
        await old.close()
    db = await Database.open(database_url)
    try:
        rows = await db.fetch_all("SELECT game_id, player, forgotten FROM game_seats ORDER BY game_id, seat")
        assert [tuple(row) for row in rows] == [
            (ended.id, "100", 1),
            (ended.id, "200", 0),
            (ended.id, "cpu-easy-1", 0),
            (running.id, "300", 0),
        ]
    finally:
        await db.close()
