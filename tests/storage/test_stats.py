"""Leaderboard and /stats queries on a temporary database with crafted results.

Results go in the way the bot stores them (a game saved as finished together with its results), so the
standings triggers run exactly as in production. A seeded random cross-check compares every board with a
plain-Python reference, before and after deletions and after migrating a database that already had results.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import math
import random
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import asyncpg
import pytest

from bot.engine.core import competition_ranks
from bot.rankings import HINTS_USED, METRICS, MIN_AVERAGE_GAMES, PERIOD_DAYS, SOLO, LeaderboardPage
from bot.storage import (
    CounterTotal,
    Database,
    Forgotten,
    GamesRepository,
    HistoryRepository,
    MoveRow,
    ResultRow,
    ResultsRepository,
    Seat,
    StatsRepository,
    forgotten,
)
from bot.storage.backend import postgres_url
from bot.storage.database import bundled_migrations
from bot.storage.forgotten import FORGET_SEAT, FORGOTTEN_NAME
from bot.storage.games import GameStatus
from tests.postgres import migrated_schema
from tests.results import store_finished_game
from tests.storage.legacy import store_legacy_game

NOW = 1_800_000_000.0
DAY = 86400.0
GUILD, OTHER_GUILD = 501, 502
KINDS = ("kniffel", "dicepoker", "knister", "tutto")


@pytest.fixture
def games(db: Database) -> GamesRepository:
    return GamesRepository(db)


@pytest.fixture
def stats(db: Database) -> StatsRepository:
    return StatsRepository(db)


def legacy(db: Database) -> Callable[..., Awaitable[int]]:
    """Stores finished games the way a database of schema 0001-0003 held them (for the migration tests)."""
    return functools.partial(store_legacy_game, db)


async def play(
    games: GamesRepository | Callable[..., Awaitable[int]],
    scores: dict[int, int],
    *,
    kind: str = "kniffel",
    variant: str = "standard",
    guild: int | None = GUILD,
    at: float = NOW - 3600,
    names: dict[int, str] | None = None,
    counters: dict[int, dict[str, int | float]] | None = None,
) -> int:
    """A finished game with these players' scores (rank and win from the scores); returns its id."""
    store = functools.partial(store_finished_game, games) if isinstance(games, GamesRepository) else games
    return await store(
        scores,
        kind=kind,
        variant=variant,
        guild_id=guild,
        channel_id=(guild or 0) * 10 + 1,
        finished_at=at,
        names=names,
        counters=counters,
    )


async def board(
    stats: StatsRepository,
    metric: str = "wins",
    period: str = "all",
    guild: int | None = GUILD,
    *,
    page: int = 0,
    caller: int = 0,
    kind: str = "kniffel",
    now: float = NOW,
    page_size: int = 10,
) -> LeaderboardPage:
    return await stats.leaderboard(
        kind,
        metric,  # type: ignore[arg-type]
        period,  # type: ignore[arg-type]
        guild,
        page=page,
        caller_id=caller,
        now=now,
        page_size=page_size,
    )


def lines(page: LeaderboardPage) -> list[tuple[int, int, float, int]]:
    """(rank, user, figure, games) per line."""
    return [(row.rank, row.user_id, row.value, row.games) for row in page.rows]


# ---------------------------------------------------------------------- ranks and metrics


async def test_ties_share_a_rank_and_the_next_rank_skips(games: GamesRepository, stats: StatsRepository) -> None:
    # Wins (games): 1 → 2 (2), 2 → 2 (2), 3 → 1 (3), 4 → 1 (4), 5 → 0 (1); equal figures list more games first,
    # and no win is no line.
    await play(games, {1: 300, 4: 100})
    await play(games, {1: 250, 3: 120})
    await play(games, {2: 280, 4: 90})
    await play(games, {2: 270, 3: 260})
    await play(games, {3: 310, 4: 50})
    await play(games, {4: 320, 5: 10})
    page = await board(stats, "wins")
    assert lines(page) == [(1, 1, 2, 2), (1, 2, 2, 2), (3, 4, 1, 4), (3, 3, 1, 3)]
    for period in ("month", "week"):
        assert lines(await board(stats, "wins", period)) == lines(page)
    assert page.total == 4
    assert page.pages == 1


async def test_best_average_and_games_metrics(games: GamesRepository, stats: StatsRepository) -> None:
    for score in (100, 200, 300, 400, 500):
        await play(games, {1: score})
    for score in (350, 350, 350, 350, 350, 350):
        await play(games, {2: score})
    await play(games, {3: 600})

    best = await board(stats, "best")
    assert [(r, u, v) for r, u, v, _ in lines(best)] == [(1, 3, 600), (2, 1, 500), (3, 2, 350)]

    games_played = await board(stats, "games")
    assert [(r, u, v) for r, u, v, _ in lines(games_played)] == [(1, 2, 6), (2, 1, 5), (3, 3, 1)]

    average = await board(stats, "average")
    assert [(r, u, v) for r, u, v, _ in lines(average)] == [(1, 2, 350.0), (2, 1, 300.0)]


async def test_average_needs_five_games_in_the_period(games: GamesRepository, stats: StatsRepository) -> None:
    for _ in range(MIN_AVERAGE_GAMES - 1):
        await play(games, {1: 300})
    for _ in range(MIN_AVERAGE_GAMES):
        await play(games, {2: 100})
    # Five games for 3 in all, but only four of them in the last week.
    for day in (1, 2, 3, 4, 20):
        await play(games, {3: 200}, at=NOW - day * DAY)

    page = await board(stats, "average", caller=1)
    assert [user for _, user, _, _ in lines(page)] == [3, 2]
    assert page.caller is None
    assert page.caller_games == MIN_AVERAGE_GAMES - 1

    week = await board(stats, "average", "week", caller=3)
    assert [user for _, user, _, _ in lines(week)] == [2]
    assert week.caller is None
    assert week.caller_games == 4


async def test_abandoned_games_do_not_count(games: GamesRepository, stats: StatsRepository) -> None:
    await play(games, {1: 200, 2: 100})
    record = await games.create(
        kind="kniffel",
        variant="standard",
        guild_id=GUILD,
        channel_id=99,
        host=Seat.user(3, "user3"),
        locale="en-US",
        options={},
        deadline_at=None,
    )
    await games.save(replace(record, status="abandoned", finished_at=NOW))
    page = await board(stats, "games", caller=3)
    assert [user for _, user, _, _ in lines(page)] == [1, 2]
    assert page.caller is None
    assert page.caller_games == 0
    assert await stats.user_stats(3, KINDS) == []


# ---------------------------------------------------------------------- scope, period, names


async def test_server_scope_counts_only_that_server_and_global_counts_all(
    games: GamesRepository, stats: StatsRepository
) -> None:
    await play(games, {1: 300, 2: 100}, guild=GUILD)
    await play(games, {2: 300, 1: 100}, guild=OTHER_GUILD)
    await play(games, {2: 300, 3: 100}, guild=OTHER_GUILD)
    await play(games, {3: 300}, guild=None)  # in a DM: global only

    here = await board(stats, "wins", guild=GUILD)
    assert [(r, u, v, g) for r, u, v, g in lines(here)] == [(1, 1, 1, 1)]
    there = await board(stats, "wins", guild=OTHER_GUILD)
    assert [(r, u, v, g) for r, u, v, g in lines(there)] == [(1, 2, 2, 2)]
    everywhere = await board(stats, "wins", guild=None)
    assert [(r, u, v, g) for r, u, v, g in lines(everywhere)] == [(1, 2, 2, 3), (2, 1, 1, 2), (2, 3, 1, 2)]


async def test_periods_are_rolling_windows_of_7_and_30_days(games: GamesRepository, stats: StatsRepository) -> None:
    await play(games, {1: 100}, at=NOW - 1 * DAY)
    await play(games, {1: 100}, at=NOW - 10 * DAY)
    await play(games, {1: 100}, at=NOW - 40 * DAY)
    await play(games, {2: 100}, at=NOW - 40 * DAY)
    for period, expected in (("week", [(1, 1)]), ("month", [(1, 2)]), ("all", [(1, 3), (2, 1)])):
        for guild in (GUILD, None):
            page = await board(stats, "games", period, guild)
            assert [(u, g) for _, u, _, g in lines(page)] == expected, (period, guild)
    assert PERIOD_DAYS == {"week": 7, "month": 30}


async def test_global_boards_show_the_latest_stored_name(games: GamesRepository, stats: StatsRepository) -> None:
    await play(games, {1: 100}, at=NOW - 5 * DAY, names={1: "Old name"})
    await play(games, {1: 100}, kind="tutto", guild=OTHER_GUILD, at=NOW - DAY, names={1: "New name"})
    await play(games, {1: 100}, at=NOW - 3 * DAY, names={1: "Middle name"})
    for period in ("all", "month"):
        page = await board(stats, "games", period, None)
        assert page.rows[0].display_name == "New name"


# ---------------------------------------------------------------------- paging and the caller's rank


async def test_paging_keeps_ranks_across_pages_and_clamps_past_the_end(
    games: GamesRepository, stats: StatsRepository
) -> None:
    # 25 players; player u plays (26 - u) games except that players 10 and 11 tie (15 games each).
    for user in range(1, 26):
        count = 15 if user in (10, 11) else 26 - user
        for _ in range(count):
            await play(games, {user: 100}, at=NOW - DAY)
    for period in ("all", "week"):
        first = await board(stats, "games", period, caller=11)
        second = await board(stats, "games", period, page=1, caller=11)
        third = await board(stats, "games", period, page=2, caller=11)
        assert (first.total, first.pages) == (25, 3)
        assert [r for r, *_ in lines(first)] == list(range(1, 11))
        assert [r for r, *_ in lines(second)] == [10, *range(12, 21)]
        assert next(u for _, u, _, _ in lines(second)) == 11
        assert [r for r, *_ in lines(third)] == list(range(21, 26))
        assert not first.caller_on_page
        assert second.caller_on_page
        assert first.caller is not None
        assert first.caller.rank == 10
        past = await board(stats, "games", period, page=99, caller=11)
        assert past.page == 2
        assert lines(past) == lines(third)


async def test_caller_rank_underneath_and_empty_board(games: GamesRepository, stats: StatsRepository) -> None:
    empty = await board(stats, "wins", caller=1)
    assert (empty.total, empty.rows, empty.caller, empty.pages) == (0, (), None, 1)
    for user in range(1, 13):
        for _ in range(user):
            await play(games, {user: 100})
    page = await board(stats, "games", caller=1)
    assert len(page.rows) == 10
    assert not page.caller_on_page
    assert page.caller is not None
    assert (page.caller.rank, page.caller.value) == (12, 1)
    window = await board(stats, "games", "month", caller=1)
    assert window.caller is not None
    assert window.caller.rank == 12


# ---------------------------------------------------------------------- /stats


async def play_alone(games: GamesRepository, user: int, score: int, *, at: float = NOW - 3600) -> int:
    """A finished game of one seat, stored as the plumbing stores it: rank 1, not won, the counter ``solo``."""
    record = await games.create(
        kind="kniffel", variant="standard", guild_id=GUILD, channel_id=GUILD * 10 + 1, host=Seat.user(user, "Solo"),
        locale="en-US", options={}, deadline_at=None,
    )  # fmt: skip
    row = ResultRow(
        game_id=record.id, kind="kniffel", variant="standard", guild_id=GUILD, channel_id=GUILD * 10 + 1,
        user_id=user, display_name="Solo", score=score, rank=1, won=False, finished_at=at, counters={SOLO: 1},
    )  # fmt: skip
    await games.save(replace(record, status="finished", finished_at=at), [row])
    return record.id


async def test_the_win_rate_is_over_the_games_with_an_opponent(games: GamesRepository, stats: StatsRepository) -> None:
    """Games played alone count for the scores and games played, never for wins nor against the win rate."""
    await play(games, {1: 250, 2: 200})
    await play(games, {1: 150, 2: 210})
    await play_alone(games, 1, 300)
    await play_alone(games, 1, 280, at=NOW - DAY)
    (kniffel,) = await stats.user_stats(1, ["kniffel"])
    assert (kniffel.games, kniffel.wins, kniffel.solo, kniffel.win_rate, kniffel.best) == (4, 1, 2, 0.5, 300)
    await play_alone(games, 3, 90)
    (alone,) = await stats.user_stats(3, ["kniffel"])
    assert (alone.games, alone.wins, alone.solo, alone.win_rate) == (1, 0, 1, 0.0)


# ---------------------------------------------------------------------- the wins board lists winners only


async def test_the_wins_board_lists_only_players_who_have_won(games: GamesRepository, stats: StatsRepository) -> None:
    """Players with no win (beaten, or only alone) are on the other boards, never on the wins board: its size, its
    pages and its ranks count the winners alone, in every period and scope."""
    wins = {1: 5, 2: 4, 3: 4, 4: 3, 5: 3, 6: 3, 7: 2, 8: 2, 9: 1, 10: 1, 11: 1, 12: 1}
    for user, count in wins.items():
        for _ in range(count):
            await play(games, {user: 200, 100 + user: 100})  # 101-112 never win
    await play_alone(games, 200, 300)
    await play_alone(games, 200, 310)
    ranks = [1, 2, 2, 4, 4, 4, 7, 7, 9, 9, 9, 9]
    expected = [(rank, user, count, count) for rank, (user, count) in zip(ranks, wins.items(), strict=True)]
    for period, guild in itertools.product(("all", "month", "week"), (GUILD, None)):
        where = (period, guild)
        pages = [await board(stats, "wins", period, guild, page=page, caller=9, page_size=5) for page in range(3)]
        assert [(page.page, page.total, page.pages) for page in pages] == [(0, 12, 3), (1, 12, 3), (2, 12, 3)], where
        assert [line for page in pages for line in lines(page)] == expected, where
        assert pages[0].caller == pages[1].rows[3], where  # below the first page, ranked among the winners
        past = await board(stats, "wins", period, guild, page=7, page_size=5)
        assert (past.page, lines(past)) == (2, expected[10:]), where
        for loser, games_played in ((101, 5), (112, 1), (200, 2)):
            mine = await board(stats, "wins", period, guild, caller=loser, page_size=5)
            assert (mine.caller, mine.caller_games) == (None, games_played), (*where, loser)
        # The other boards list everyone who played.
        assert (await board(stats, "games", period, guild)).total == 25, where


async def test_a_wins_board_of_games_played_alone_is_empty(games: GamesRepository, stats: StatsRepository) -> None:
    await play_alone(games, 1, 250)
    await play_alone(games, 1, 180)
    for period, guild in itertools.product(("all", "month", "week"), (GUILD, None)):
        for page in (0, 1):
            empty = await board(stats, "wins", period, guild, page=page, caller=1)
            assert (empty.total, empty.pages, empty.rows, empty.caller, empty.caller_games) == (0, 1, (), None, 2)
        best = await board(stats, "best", period, guild, caller=1)
        assert lines(best) == [(1, 1, 250, 2)]


async def test_user_stats_per_game_with_counters(games: GamesRepository, stats: StatsRepository) -> None:
    await play(games, {1: 250, 2: 200}, at=NOW - 2 * DAY, counters={1: {"kniffels": 2, "upper_bonus": 1}})
    await play(games, {1: 150, 2: 210}, at=NOW - DAY, counters={1: {"kniffels": 1, "upper_bonus": 0}})
    await play(games, {1: 7000, 2: 3000}, kind="tutto", guild=OTHER_GUILD, counters={1: {"tuttos": 3}})
    await play(games, {1: 120, 2: 80}, kind="dicepoker", counters={1: {"settlement": 20.5}, 2: {"settlement": -20.5}})
    await play(games, {1: 130, 2: 90}, kind="dicepoker", counters={1: {"settlement": -4.25}})

    mine = await stats.user_stats(1, KINDS)
    assert [entry.kind for entry in mine] == ["kniffel", "dicepoker", "tutto"]
    kniffel, dicepoker, tutto = mine
    assert (kniffel.games, kniffel.wins, kniffel.best, kniffel.average, kniffel.win_rate) == (2, 1, 250, 200.0, 0.5)
    assert kniffel.counters == {"kniffels": CounterTotal(3, 2), "upper_bonus": CounterTotal(1, 2)}
    assert kniffel.counters["upper_bonus"].rate == 0.5
    assert kniffel.last_at == NOW - DAY
    assert (tutto.games, tutto.wins, tutto.counters) == (1, 1, {"tuttos": CounterTotal(3, 1)})
    assert dicepoker.counters["settlement"].total == pytest.approx(16.25)
    assert dicepoker.counters["settlement"].games == 2
    # Player 2 has counters in dice poker only, and in one of the two games.
    theirs = {entry.kind: entry.counters for entry in await stats.user_stats(2, KINDS)}
    assert theirs == {"kniffel": {}, "dicepoker": {"settlement": CounterTotal(-20.5, 1)}, "tutto": {}}
    assert [entry.kind for entry in await stats.user_stats(1, ("tutto",))] == ["tutto"]
    assert await stats.user_stats(3, KINDS) == []


async def test_user_stats_count_the_games_played_with_hints(games: GamesRepository, stats: StatsRepository) -> None:
    """The plumbing marks a result of someone who used a hint with the counter ``hints_used``: /stats counts them."""
    await play(games, {1: 250, 2: 200}, counters={1: {HINTS_USED: 1}, 2: {HINTS_USED: 1}})
    await play(games, {1: 150, 2: 210}, counters={1: {HINTS_USED: 1}})
    await play(games, {1: 180, 2: 170})
    await play(games, {1: 6000, 2: 3000}, kind="tutto", guild=OTHER_GUILD, counters={1: {HINTS_USED: 1}})
    kniffel, tutto = await stats.user_stats(1, KINDS)
    assert (kniffel.games, kniffel.hinted, tutto.hinted) == (3, 2, 1)
    (theirs,) = await stats.user_stats(2, ("kniffel",))
    assert (theirs.games, theirs.hinted) == (3, 1)
    await play(games, {3: 100, 4: 90})
    (none,) = await stats.user_stats(3, ("kniffel",))
    assert none.hinted == 0


async def test_upper_bonus_rate_counts_only_games_with_the_bonus_rules(
    games: GamesRepository, stats: StatsRepository
) -> None:
    # Classic Kniffel has no upper bonus (docs/RULES.md §1): its results store the counter as NULL (not applicable),
    # and the rate is over the games where the bonus could be earned, not over every Kniffel game.
    bonus, no_bonus, classic = {"kniffels": 1, "upper_bonus": 1}, {"kniffels": 0, "upper_bonus": 0}, {"kniffels": 2}
    first = await play(games, {1: 250, 2: 200}, variant="kniffel", counters={1: bonus, 2: no_bonus})
    second = await play(games, {1: 180, 2: 220}, variant="kniffel", counters={1: no_bonus, 2: no_bonus})
    await play(games, {1: 160, 2: 150}, variant="classic", counters={1: classic, 2: classic}, guild=OTHER_GUILD)
    await play(games, {1: 170, 3: 190}, variant="classic", counters={1: classic, 3: classic})

    (mine,) = await stats.user_stats(1, ("kniffel",))
    assert mine.counters["upper_bonus"].rate == 0.5  # one bonus in two games with the bonus rules, not 1 in 4
    assert (mine.games, mine.counters) == (4, {"kniffels": CounterTotal(5, 4), "upper_bonus": CounterTotal(1, 2)})
    (bob,) = await stats.user_stats(2, ("kniffel",))
    assert (bob.games, bob.counters["upper_bonus"], bob.counters["upper_bonus"].rate) == (3, CounterTotal(0, 2), 0.0)
    # Only classic games: the counter is absent, so there is no rate at all (not 0 %).
    (carol,) = await stats.user_stats(3, ("kniffel",))
    assert (carol.games, carol.counters) == (1, {"kniffels": CounterTotal(2, 1)})

    # Deleting results takes them out of the count again (the delete trigger), down to classic games alone.
    await games.delete(first)
    (mine,) = await stats.user_stats(1, ("kniffel",))
    assert (mine.games, mine.counters["upper_bonus"]) == (3, CounterTotal(0, 1))
    await games.delete(second)
    (bob,) = await stats.user_stats(2, ("kniffel",))
    assert (bob.games, bob.counters) == (1, {"kniffels": CounterTotal(2, 1)})


# ---------------------------------------------------------------------- forget-me


async def test_forget_me_removes_exactly_the_callers_rows(
    db: Database, games: GamesRepository, stats: StatsRepository
) -> None:
    await play(games, {1: 300, 2: 200, 3: 100})
    await play(games, {2: 300, 1: 200}, kind="tutto", guild=OTHER_GUILD)
    await play(games, {1: 300}, guild=None)
    await play(games, {3: 300, 2: 100})
    before_others = {user: await stats.user_stats(user, KINDS) for user in (2, 3)}

    assert await stats.count_results(1) == 3
    assert (await stats.forget(1)).results == 3
    assert await stats.count_results(1) == 0
    assert (await stats.forget(1)).results == 0

    assert await stats.user_stats(1, KINDS) == []
    assert {user: await stats.user_stats(user, KINDS) for user in (2, 3)} == before_others
    row = await db.fetch_one("SELECT COUNT(*) FROM results")
    assert row is not None
    assert row[0] == 5
    for guild in (GUILD, None):
        for period in ("all", "week"):
            page = await board(stats, "games", period, guild, caller=1)
            assert 1 not in [row.user_id for row in page.rows]
            assert page.caller is None
    row = await db.fetch_one("SELECT COUNT(*) FROM player_names WHERE user_id = 1")
    assert row is not None
    assert row[0] == 0


async def test_forget_me_deletes_the_counters_and_the_name_in_old_games_seats(
    db: Database, games: GamesRepository, stats: StatsRepository
) -> None:
    async def seated(status: GameStatus, channel: int) -> int:
        record = await games.create(
            kind="kniffel",
            variant="kniffel",
            guild_id=GUILD,
            channel_id=channel,
            host=Seat.user(2, "Bob"),
            locale="en-US",
            options={},
            deadline_at=None,
        )
        seats = (Seat.user(2, "Bob"), Seat("1", "Alice", status="left", timeouts=1), Seat.user(3, "Carol"))
        await games.save(replace(record, status=status, seats=seats))
        return record.id

    finished, abandoned, running = (
        await seated("finished", 11),
        await seated("abandoned", 12),
        await seated("running", 13),
    )
    counters = {1: {"kniffels": 2, "upper_bonus": 1}, 2: {"kniffels": 1, "upper_bonus": 0}}
    await play(games, {1: 250, 2: 200}, variant="kniffel", counters=counters)
    await play(
        games, {1: 80, 2: 90}, kind="dicepoker", guild=None, counters={1: {"settlement": -5.0}, 2: {"settlement": 5.0}}
    )
    bob = await stats.user_stats(2, KINDS)

    assert (await stats.forget(1)).results == 2
    for table in ("result_counters AS c JOIN results AS r ON r.id = c.result_id", "standing_counters"):
        row = await db.fetch_one(f"SELECT COUNT(*) FROM {table} WHERE user_id = 1")
        assert row is not None
        assert row[0] == 0, table
    assert await stats.user_stats(2, KINDS) == bob
    # Old games keep every seat (order, status, timeouts) but not Alice's name; a running game is not touched.
    for game_id in (finished, abandoned):
        record = await games.get(game_id)
        assert record is not None
        assert record.seats == (
            Seat.user(2, "Bob"),
            Seat("1", FORGOTTEN_NAME, status="left", timeouts=1),
            Seat.user(3, "Carol"),
        )
    record = await games.get(running)
    assert record is not None
    assert record.seat("1") == Seat("1", "Alice", status="left", timeouts=1)


async def test_forget_me_during_a_game_leaves_no_result_and_no_name_when_it_ends(
    db: Database, games: GamesRepository, stats: StatsRepository
) -> None:
    """The game service keeps and saves the game as it was: its end stores the others' results alone, the
    forgotten seat's name goes, and the history stays for the others' reviews."""
    await play(games, {1: 100})  # a result, as the prompt asks for one
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=GUILD, channel_id=50, host=Seat.user(1, "Alice"),
        locale="en-US", options={}, deadline_at=None,
    )  # fmt: skip
    running = await games.save(replace(lobby, status="running", seats=(*lobby.seats, Seat.user(2, "Bob"))))
    other = await games.create(
        kind="kniffel", variant="kniffel", guild_id=GUILD, channel_id=51, host=Seat.user(1, "Alice"),
        locale="en-US", options={}, deadline_at=None,
    )  # fmt: skip
    move = MoveRow("1", "player", '{"kind": "roll"}', '{"move": 0}')
    running = await games.save(running, before=running, moves=[move])

    assert await stats.count_games_in_progress(1) == 2
    assert await stats.forget(1) == Forgotten(results=1, games=2)
    assert await stats.forget(1) == Forgotten(results=0, games=0)  # a second forget-me notes the seats once

    ended = replace(running, status="finished", finished_at=NOW)
    results = [
        ResultRow(running.id, "kniffel", "kniffel", GUILD, 50, user, name, score, rank, rank == 1, NOW)
        for user, name, score, rank in ((1, "Alice", 200, 1), (2, "Bob", 150, 2))
    ]
    await games.save(ended, results, before=running)
    assert [row.user_id for row in await ResultsRepository(db).for_game(running.id)] == [2]
    assert await stats.count_results(1) == 0 and await stats.user_stats(1, KINDS) == []
    record = await games.get(running.id)
    assert record is not None and record.seats == (Seat("1", FORGOTTEN_NAME), Seat.user(2, "Bob"))
    assert len(await HistoryRepository(db).moves(running.id)) == 1
    await games.save(replace(other, status="abandoned", finished_at=NOW), before=other)
    abandoned = await games.get(other.id)
    assert abandoned is not None and abandoned.seats == (Seat("1", FORGOTTEN_NAME),)
    assert await db.fetch_all("SELECT game_id FROM forgotten_seats") == []

    # The next game is not touched by the earlier request.
    await play(games, {1: 90})
    assert await stats.count_results(1) == 1


async def blocks(db: Database, pid: int) -> bool:
    """Whether the PostgreSQL session ``pid`` holds a lock another session waits for."""
    row = await db.fetch_one(
        "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE ?1 = ANY(pg_blocking_pids(pid)))", (pid,)
    )
    return bool(row and row[0])


async def test_forget_me_waits_for_a_save_ending_one_of_its_games_on_postgresql() -> None:
    """A save that ended a game the user sits in and has not committed yet: forget-me, which locks the user's games
    in progress first, waits for it and then deletes the result, instead of missing it and noting a seat whose game
    has already ended (SQLite runs one write at a time)."""
    async with migrated_schema() as url:
        db = await Database.open(url)
        holder = await asyncpg.connect(url)
        try:
            games, stats = GamesRepository(db), StatsRepository(db)
            lobby = await games.create(
                kind="kniffel", variant="kniffel", guild_id=GUILD, channel_id=50, host=Seat.user(1, "Alice"),
                locale="en-US", options={}, deadline_at=None,
            )  # fmt: skip
            await games.save(replace(lobby, status="running", seats=(*lobby.seats, Seat.user(2, "Bob"))))
            async with holder.transaction():
                await holder.execute("UPDATE games SET status = 'finished' WHERE id = $1", lobby.id)
                await holder.execute(
                    "INSERT INTO results (game_id, kind, variant, guild_id, channel_id, user_id, display_name, score, "
                    "rank, won, finished_at) VALUES ($1, 'kniffel', 'kniffel', $2, 50, 2, 'Bob', 5, 1, 1, $3)",
                    *(lobby.id, GUILD, NOW),
                )
                forgetting = asyncio.create_task(stats.forget(2))
                # Until forget-me waits for the holder's lock (or, without the lock, has already finished); each
                # look is a query, which lets forget-me's task run meanwhile.
                while not forgetting.done() and not await blocks(db, holder.get_server_pid()):
                    pass
            assert await forgetting == Forgotten(results=1, games=0)
            assert await stats.count_results(2) == 0
            assert await db.fetch_all("SELECT game_id FROM forgotten_seats") == []
        finally:
            await holder.close()
            await db.close()


# ---------------------------------------------------------------------- cross-check against a reference


@dataclass(frozen=True)
class Played:
    game_id: int
    kind: str
    guild: int | None
    user: int
    score: int
    won: bool
    at: float


def results_per_user(
    played: Sequence[Played], kind: str, period: str, guild: int | None, now: float = NOW
) -> dict[int, list[Played]]:
    """Each player's results that a board of this kind, period and scope counts, listed or not."""
    since = now - PERIOD_DAYS[period] * DAY if period != "all" else float("-inf")
    per_user: dict[int, list[Played]] = defaultdict(list)
    for row in played:
        if row.kind == kind and row.at >= since and (guild is None or row.guild == guild):
            per_user[row.user].append(row)
    return per_user


def reference(
    played: Sequence[Played], kind: str, metric: str, period: str, guild: int | None, now: float = NOW
) -> list[tuple]:
    """(rank, user, figure, games) for every ranked player, ordered as the board lists them: on the average board
    those with enough games, on the wins board those who have won."""
    per_user = results_per_user(played, kind, period, guild, now)
    figures = {}
    for user, rows in per_user.items():
        if metric == "average" and len(rows) < MIN_AVERAGE_GAMES:
            continue
        figure = {
            "wins": sum(row.won for row in rows),
            "best": max(row.score for row in rows),
            "average": sum(row.score for row in rows) / len(rows),
            "games": len(rows),
        }[metric]
        if metric != "wins" or figure > 0:
            figures[user] = figure
    order = sorted(figures, key=lambda user: (-figures[user], -len(per_user[user]), user))
    values = [figures[user] for user in order]
    ranks = competition_ranks(values)
    return [
        (rank, user, pytest.approx(figures[user]), len(per_user[user])) for rank, user in zip(ranks, order, strict=True)
    ]


async def everything(
    stats: StatsRepository, kind: str, metric: str, period: str, guild: int | None, now: float = NOW
) -> list[tuple]:
    """Every line of the board, read in pages of 3 so that many pages start inside a run of equal figures; a page
    asked past the end is the last one (an empty board keeps the page asked for, as it always has)."""
    rows: list[tuple] = []
    page = 0
    while True:
        found = await board(stats, metric, period, guild, page=page, kind=kind, now=now, page_size=3)
        rows += lines(found)
        if page + 1 >= found.pages:
            past = await board(stats, metric, period, guild, page=page + 3, kind=kind, now=now, page_size=3)
            last = found.page if found.total else page + 3
            assert (past.page, lines(past), past.total) == (last, lines(found), found.total)
            return rows
        page += 1


async def random_games(
    games: GamesRepository | Callable[..., Awaitable[int]], rng: random.Random, count: int, now: float = NOW
) -> list[Played]:
    played = []
    for _ in range(count):
        kind = rng.choice(("kniffel", "tutto"))
        guild = rng.choice((GUILD, OTHER_GUILD, None))
        users = rng.sample(range(1, 31), rng.randint(1, 3))
        scores = {user: rng.randint(-6, 12) for user in users}  # narrow range: plenty of ties, negative averages
        at = now - rng.uniform(0, 60) * DAY
        game_id = await play(games, scores, kind=kind, guild=guild, at=at)
        ranks = competition_ranks(list(scores.values()))
        played += [
            Played(game_id, kind, guild, user, score, rank == 1, at)
            for (user, score), rank in zip(scores.items(), ranks, strict=True)
        ]
    return played


def alone_not_won(played: Sequence[Played]) -> list[Played]:
    """Games stored before migration 0018 as it leaves them: a game of one result (at one seat) is no win."""
    results = Counter(row.game_id for row in played)
    return [replace(row, won=False) if results[row.game_id] == 1 else row for row in played]


async def assert_boards_match(
    stats: StatsRepository,
    played: Sequence[Played],
    now: float = NOW,
    periods: Sequence[str] = ("all", "month", "week"),
) -> None:
    """Every board line by line, and a few players' own lines as the caller of the first page."""
    for kind, metric, period, guild in itertools.product(
        ("kniffel", "tutto"), METRICS, periods, (GUILD, OTHER_GUILD, None)
    ):
        where = (kind, metric, period, guild)
        expected = reference(played, kind, metric, period, guild, now)
        assert await everything(stats, kind, metric, period, guild, now) == expected, where
        mine = {line[1]: line for line in expected}
        per_user = results_per_user(played, kind, period, guild, now)
        # Callers below the first page: the middle and the last of the board, one who played and is not listed (too
        # few games for an average, no win), and one who never played.
        callers = {expected[len(expected) // 2][1], expected[-1][1]} if expected else set()
        callers |= set(sorted(set(per_user) - set(mine))[:1])
        for user in (*sorted(callers), 99):
            first = await board(stats, metric, period, guild, caller=user, kind=kind, now=now, page_size=3)
            found = None if first.caller is None else lines(replace(first, rows=(first.caller,)))[0]
            assert found == mine.get(user), (*where, user)
            assert first.caller_games == len(per_user.get(user, ())), (*where, user)
            assert first.total == len(expected), where


async def assert_figures_match(db: Database) -> None:
    """``board_figures`` (migration 0012) holds, per board and figure, exactly the players the kept totals have."""
    expected: Counter[tuple[object, ...]] = Counter()
    for days, table in (("0", "standings"), ("days", "window_standings")):
        for row in await db.fetch_all(f"SELECT {days}, kind, scope, games, wins, best, average FROM {table}"):
            days_key, kind, scope, games, wins, best, average = row
            board_key = (days_key, kind, scope)
            expected.update([(*board_key, "wins", wins), (*board_key, "best", best), (*board_key, "games", games)])
            if games >= MIN_AVERAGE_GAMES:
                expected[(*board_key, "average", math.floor(average))] += 1
    kept = await db.fetch_all("SELECT days, kind, scope, metric, figure, players FROM board_figures WHERE players <> 0")
    assert {tuple(row[:5]): row[5] for row in kept} == dict(expected)


async def test_every_board_matches_a_reference_before_and_after_deletions(
    db: Database, games: GamesRepository, stats: StatsRepository
) -> None:
    rng = random.Random(8)
    played = await random_games(games, rng, 150)
    await assert_boards_match(stats, played)
    await assert_figures_match(db)

    # Deleting games (their results go by cascade) runs the delete trigger: best and last played are searched
    # again when the deleted row held them.
    doomed = set(rng.sample(sorted({row.game_id for row in played}), 40))
    for game_id in doomed:
        await games.delete(game_id)
    played = [row for row in played if row.game_id not in doomed]
    await assert_boards_match(stats, played)
    await assert_figures_match(db)
    for user in range(1, 31):
        mine = [row for row in played if row.user == user and row.kind == "kniffel"]
        found = await stats.user_stats(user, ("kniffel",))
        if not mine:
            assert found == []
            continue
        (entry,) = found
        assert (entry.games, entry.best, entry.last_at) == (
            len(mine),
            max(row.score for row in mine),
            max(row.at for row in mine),
        )

    # Forget-me deletes the users' standings before their results: the figures follow both.
    for user in (3, 17):
        await stats.forget(user)
    played = [row for row in played if row.user not in (3, 17)]
    await assert_boards_match(stats, played)
    await assert_figures_match(db)


async def test_week_and_month_boards_follow_the_clock_as_results_leave_the_window(
    db: Database, games: GamesRepository, stats: StatsRepository
) -> None:
    # Week and month totals are kept (migration 0011) and moved to "now" before each window board is read:
    # forward by recounting the players whose results left, backward (a clock set back) by a rebuild.
    rng = random.Random(11)
    played = await random_games(games, rng, 120)
    windows = ("month", "week")
    await assert_boards_match(stats, played, NOW, windows)
    later = NOW
    for step in (0.5, 1.25, 2, 6, 9):
        later += step * DAY
        played += await random_games(games, rng, 15, now=later)
        await assert_boards_match(stats, played, later, windows)
        await assert_figures_match(db)
    doomed = set(rng.sample(sorted({row.game_id for row in played}), 30))
    for game_id in doomed:
        await games.delete(game_id)
    played = [row for row in played if row.game_id not in doomed]
    await assert_boards_match(stats, played, later, windows)
    await assert_boards_match(stats, played, NOW + DAY, windows)  # back in time: rebuilt
    await assert_figures_match(db)
    await assert_boards_match(stats, played, later + 40 * DAY, windows)  # everything left: empty boards
    assert (await board(stats, "games", "month", None, now=later + 40 * DAY)).total == 0


async def test_a_board_asked_a_moment_earlier_is_answered_as_of_the_later_one(
    games: GamesRepository, stats: StatsRepository
) -> None:
    # Two boards asked for at nearly the same time must not take turns rebuilding the window: within a few
    # seconds the earlier one is answered as of the later (a result leaving in between is gone from both).
    await play(games, {1: 100}, at=NOW - 7 * DAY + 1)
    await play(games, {2: 100}, at=NOW - 3600)
    assert [row.user_id for row in (await board(stats, "games", "week", now=NOW + 2)).rows] == [2]
    assert [row.user_id for row in (await board(stats, "games", "week", now=NOW)).rows] == [2]
    assert [row.user_id for row in (await board(stats, "games", "week", now=NOW - 60)).rows] == [1, 2]


async def test_pages_inside_a_long_tie_match_the_reference(games: GamesRepository, stats: StatsRepository) -> None:
    # 45 players with one game (on the all-servers games board of a real installation: thousands), under five with
    # more: the pages at the end of the tie are read backwards from its end, those inside it from whichever end
    # is nearer, and must list the lines and ranks the reference does, ties in best and wins included.
    rng = random.Random(5)
    played: list[Played] = []

    async def game(scores: dict[int, int], at: float) -> None:
        game_id = await play(games, scores, at=at)
        ranks = competition_ranks(list(scores.values()))
        played.extend(
            Played(game_id, "kniffel", GUILD, user, score, rank == 1, at)
            for (user, score), rank in zip(scores.items(), ranks, strict=True)
        )

    await game({user: rng.randint(0, 4) for user in range(1, 46)}, NOW - 20 * DAY)
    for user in range(46, 51):
        for _ in range(user - 43):
            await game({user: rng.randint(0, 9)}, NOW - DAY)
    for metric, period in itertools.product(METRICS, ("all", "month", "week")):
        expected = reference(played, "kniffel", metric, period, GUILD)
        assert await everything(stats, "kniffel", metric, period, GUILD) == expected, (metric, period)
        for page in range(len(expected) // 10 + 2):
            found = await board(stats, metric, period, page=page)
            last = min(page, max(0, len(expected) - 1) // 10)
            assert (found.page, lines(found)) == (last, expected[last * 10 : last * 10 + 10]), (metric, period, page)


async def test_a_page_starting_inside_a_tie_or_a_floor_gives_its_first_line_the_tie_s_rank(
    games: GamesRepository, stats: StatsRepository
) -> None:
    # A page's first rank is 1 + the players above its first line's figure, taken from the running sum that placed
    # the page; an average's figure is its floor, so the players of that floor with a higher average are added (3.8
    # above the three 3.4s). Every page of one and of two lines starts inside such a run somewhere.
    totals = {1: 20, 2: 19, 3: 17, 4: 17, 5: 17, 6: 15, 7: 10}
    played: list[Played] = []
    for user, total in totals.items():
        for game in range(MIN_AVERAGE_GAMES):
            score = total // MIN_AVERAGE_GAMES + (game < total % MIN_AVERAGE_GAMES)
            game_id = await play(games, {user: score, 100 + user: score - user % 3})
            played += [
                Played(game_id, "kniffel", GUILD, user, score, True, NOW - 3600),
                Played(game_id, "kniffel", GUILD, 100 + user, score - user % 3, user % 3 == 0, NOW - 3600),
            ]
    for metric, page_size in itertools.product(METRICS, (1, 2)):
        expected = reference(played, "kniffel", metric, "all", GUILD)
        for page in range(1, len(expected) // page_size + 1):
            found = await board(stats, metric, page=page, page_size=page_size)
            start = min(page * page_size, (len(expected) - 1) // page_size * page_size)
            assert lines(found) == expected[start : start + page_size], (metric, page_size, page)


async def test_a_page_asked_past_the_end_is_one_read(
    db: Database, games: GamesRepository, stats: StatsRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A page button drawn before players left can ask past the end: the last page is answered by the same single
    # statement (one snapshot, one hop to the reader), not by a second read once the first found no lines.
    await play(games, {user: user % 4 for user in range(1, 26)})
    statements: list[str] = []

    def counting(method: Callable[..., Awaitable[object]]) -> Callable[..., Awaitable[object]]:
        def counted(*args: object) -> Awaitable[object]:
            statements.append(str(args[0]))
            return method(*args)

        return counted

    for name in ("fetch_all", "fetch_one", "run"):
        monkeypatch.setattr(db, name, counting(getattr(db, name)))
    for metric in METRICS:
        last = await board(stats, metric, page=2, caller=23)
        statements.clear()
        past = await board(stats, metric, page=99, caller=23)
        assert len(statements) == 1, metric
        if metric != "average":  # nobody has the 5 games of an average: that board is empty
            assert past == last, metric
            # Six won (the score 3): the wins board has one page.
            assert (past.page, len(past.rows)) == ((0, 6) if metric == "wins" else (2, 5)), metric


async def test_migration_backfills_standings_from_existing_results(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await Database.open(path, bundled_migrations()[:1])
    try:
        played = await random_games(legacy(old), random.Random(3), 60)
    finally:
        await old.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 1
    played = alone_not_won(played)
    db = await Database.open(path)
    try:
        await assert_boards_match(StatsRepository(db), played)
        # And the triggers keep going after the upgrade.
        more = await random_games(GamesRepository(db), random.Random(4), 20)
        await assert_boards_match(StatsRepository(db), [*played, *more])
    finally:
        await db.close()


async def test_migration_counts_the_figures_of_the_boards_kept_before_it(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Migration 0012 fills board_figures from the all-time standings and from the windows already built.
    dialect = "postgres" if postgres_url(database_url) else "sqlite"
    # The games are stored by today's repository, whose game ends read the seats noted by forget-me (0014).
    monkeypatch.setattr(forgotten, "settle", lambda tx, game_id: None)
    old = await Database.open(database_url, [m for m in bundled_migrations(dialect) if m.version < 12])
    try:
        # Windows counted from now on, so migration 0011's triggers fill them as the games are stored.
        async with old.transaction() as tx:
            for days in PERIOD_DAYS.values():
                tx.execute("INSERT INTO window_marks (days, since) VALUES (?, ?)", (days, NOW - days * DAY))
        played = await random_games(GamesRepository(old), random.Random(5), 60)
    finally:
        await old.close()
    played = alone_not_won(played)
    db = await Database.open(database_url)
    try:
        await assert_figures_match(db)
        for days in (0, *PERIOD_DAYS.values()):
            row = await db.fetch_one("SELECT COUNT(*) FROM board_figures WHERE days = ?", (days,))
            assert row is not None
            assert row[0] > 0, days
        await assert_boards_match(StatsRepository(db), played)
    finally:
        await db.close()


async def finish(
    games: GamesRepository,
    seats: Sequence[Seat],
    scores: dict[int, int],
    *,
    at: float,
    guild: int | None = GUILD,
    kind: str = "kniffel",
    counters: dict[str, int] | None = None,
) -> int:
    """A finished game with these seats and the people's results as the bot stored them before migration 0018: the
    best score wins, also with nobody else at the table."""
    record = await games.create(
        kind="kniffel", variant="kniffel", guild_id=guild, channel_id=(guild or 0) * 10 + 2, host=seats[0],
        locale="en-US", options={}, deadline_at=None,
    )  # fmt: skip
    ranks = competition_ranks(list(scores.values()))
    rows = [
        ResultRow(
            game_id=record.id,
            kind=kind,
            variant="kniffel",
            guild_id=guild,
            channel_id=(guild or 0) * 10 + 2,
            user_id=user,
            display_name=f"user{user}",
            score=score,
            rank=rank,
            won=rank == 1,
            finished_at=at,
            counters=counters or {},
        )
        for (user, score), rank in zip(scores.items(), ranks, strict=True)
    ]
    await games.save(replace(record, status="finished", finished_at=at, seats=tuple(seats)), rows)
    return record.id


async def test_migration_takes_the_wins_of_games_played_alone_away(database_url: str) -> None:
    """Migration 0018: a result that was alone in its game, at a table of one seat, is no win any more and is
    marked solo; the all-time and window totals and the boards' figures follow. A game against a computer, or
    one whose other person asked /forget-me, keeps its win."""
    dialect = "postgres" if postgres_url(database_url) else "sqlite"
    alice, bob, carol, dave, erin, frank = (Seat.user(user, f"user{user}") for user in range(1, 7))
    old = await Database.open(database_url, [m for m in bundled_migrations(dialect) if m.version < 18])
    try:
        async with old.transaction() as tx:
            for days in PERIOD_DAYS.values():
                tx.execute("INSERT INTO window_marks (days, since) VALUES (?, ?)", (days, NOW - days * DAY))
        games = GamesRepository(old)
        await finish(games, [alice], {1: 300}, at=NOW - 3600)
        await finish(games, [alice], {1: 250}, at=NOW - 20 * DAY)
        await finish(games, [alice, bob], {1: 200, 2: 150}, at=NOW - 2 * DAY)
        robo = Seat("cpu-normal-1", "Robo", kind="computer")
        await finish(
            games, [carol, robo], {3: 220}, at=NOW - DAY, kind="kniffel+computer",
            counters={"vs_normal": 1, "won_vs_normal": 1},
        )  # fmt: skip
        await finish(games, [dave, erin], {4: 240, 5: 100}, at=NOW - DAY)
        # Erin's forget-me as the bot of schema 17 did it (today's also clears tables of later migrations): her
        # result goes, her seat stays, marked forgotten.
        async with old.transaction() as tx:
            deleted = tx.execute("DELETE FROM results WHERE user_id = ?", (5,))
            tx.execute(f"UPDATE game_seats SET {FORGET_SEAT} WHERE player = ?2", (FORGOTTEN_NAME, "5"))
        assert deleted.rowcount == 1
        await finish(games, [frank], {6: 180}, at=NOW - 3600, guild=None)
    finally:
        await old.close()
    db = await Database.open(database_url)
    try:
        stats = StatsRepository(db)
        await assert_figures_match(db)
        for period, guild in itertools.product(("all", "month", "week"), (GUILD, None)):
            page = await board(stats, "wins", period, guild)
            assert {row.user_id: row.value for row in page.rows} == {1: 1, 4: 1}, (period, guild)
        (mine,) = await stats.user_stats(1, ["kniffel"])
        assert (mine.games, mine.wins, mine.solo, mine.win_rate, mine.best) == (3, 1, 2, 1.0, 300)
        (franks,) = await stats.user_stats(6, ["kniffel"])
        assert (franks.games, franks.wins, franks.solo, franks.best) == (1, 0, 1, 180)
        (carols,) = await stats.user_stats(3, ["kniffel+computer"])
        assert (carols.games, carols.wins, carols.solo) == (1, 1, 0)
        best = await board(stats, "best", "all", None)
        assert [(row.user_id, row.value) for row in best.rows][:2] == [(1, 300), (4, 240)]
        solo = await db.fetch_all("SELECT user_id, won, rank FROM results WHERE user_id IN (1, 6) ORDER BY score")
        assert [tuple(row) for row in solo] == [(6, 0, 1), (1, 1, 1), (1, 0, 1), (1, 0, 1)]
    finally:
        await db.close()


async def test_migration_takes_classic_games_out_of_the_upper_bonus_rate(tmp_path: Path) -> None:
    # A database at schema 2 as the bot wrote it before classic results stored the upper bonus as NULL:
    # classic games with upper_bonus 0, next to kniffel-rules games with 0 or 1, on two servers and in a DM.
    path = tmp_path / "schema2.sqlite3"
    old = await Database.open(path, bundled_migrations()[:2])
    try:
        bonus, no_bonus, classic = (
            {"kniffels": 1, "upper_bonus": 1},
            {"kniffels": 0, "upper_bonus": 0},
            {"kniffels": 1, "upper_bonus": 0},
        )

        async def legacy(
            scores: dict[int, int],
            counters: dict[int, dict[str, int]],
            *,
            kind: str = "kniffel",
            variant: str = "kniffel",
            guild: int | None = GUILD,
        ) -> None:
            await store_legacy_game(
                old,
                scores,
                kind=kind,
                variant=variant,
                guild_id=guild,
                channel_id=(guild or 0) * 10 + 1,
                finished_at=NOW - 3600,
                counters=counters,
            )

        await legacy({1: 250, 2: 200}, {1: bonus, 2: no_bonus})
        await legacy({1: 220, 2: 210}, {1: no_bonus, 2: bonus}, guild=OTHER_GUILD)
        for guild in (GUILD, OTHER_GUILD, None):
            await legacy({1: 150, 3: 140}, {1: classic, 3: classic}, variant="classic", guild=guild)
        await legacy({1: 7000}, {1: {"tuttos": 2}}, kind="tutto", variant="standard")
        rows = await old.fetch_all(
            "SELECT games, upper_bonus FROM standings WHERE kind = 'kniffel' AND scope = 0 AND user_id = 1"
        )
        assert tuple(rows[0]) == (5, 1)  # the old rate: 1 in 5
    finally:
        await old.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 2

    # Migration 0003 alone: the stored classic results now say "not applicable", other rows keep their
    # counters, and the standings count the games with the bonus rules per server scope too.
    at_three = await Database.open(path, bundled_migrations()[:3])
    try:
        rows = await at_three.fetch_all(
            "SELECT variant, COUNT(*), COUNT(upper_bonus), TOTAL(upper_bonus) FROM results "
            "WHERE kind = 'kniffel' GROUP BY variant ORDER BY variant"
        )
        assert [tuple(row) for row in rows] == [("classic", 6, 0, 0.0), ("kniffel", 4, 4, 2.0)]
        rows = await at_three.fetch_all(
            "SELECT scope, games, upper_bonus, upper_bonus_games FROM standings "
            "WHERE kind = 'kniffel' AND user_id = 1 ORDER BY scope"
        )
        assert [tuple(row) for row in rows] == [
            (0, 5, 1, 2),
            (GUILD, 2, 1, 1),
            (OTHER_GUILD, 2, 0, 1),
        ]
    finally:
        await at_three.close()

    db = await Database.open(path)
    try:
        stats = StatsRepository(db)
        (mine,) = await stats.user_stats(1, ("kniffel",))
        assert mine.counters["upper_bonus"].rate == 0.5  # not 1 in 5: the three classic games had no bonus to earn
        assert (mine.games, mine.counters) == (5, {"kniffels": CounterTotal(4, 5), "upper_bonus": CounterTotal(1, 2)})
        (bob,) = await stats.user_stats(2, ("kniffel",))
        assert (bob.games, bob.counters["upper_bonus"]) == (2, CounterTotal(1, 2))
        (carol,) = await stats.user_stats(3, ("kniffel",))
        assert (carol.games, carol.counters) == (3, {"kniffels": CounterTotal(3, 3)})
        (tutto,) = await stats.user_stats(1, ("tutto",))
        # A game played alone (migration 0018).
        assert (tutto.games, tutto.counters) == (1, {"tuttos": CounterTotal(2, 1), SOLO: CounterTotal(1, 1)})

        # The recreated triggers keep counting after the upgrade, for new games and deleted ones.
        games = GamesRepository(db)
        await play(games, {1: 260}, variant="kniffel", counters={1: bonus})
        await play(games, {1: 160}, variant="classic", counters={1: {"kniffels": 0}})
        (mine,) = await stats.user_stats(1, ("kniffel",))
        assert (mine.games, mine.counters["upper_bonus"], mine.counters["upper_bonus"].rate) == (
            7,
            CounterTotal(2, 3),
            2 / 3,
        )
        assert (await stats.forget(1)).results == 8
        assert await stats.user_stats(1, KINDS) == []
    finally:
        await db.close()


async def test_user_stats_split_a_game_by_rule_set_when_asked(games: GamesRepository, stats: StatsRepository) -> None:
    """Kniffel's two rule sets score differently (classic has no bonuses), so /stats asks for its figures per rule
    set: a best and an average over both would describe neither. The other games keep one entry each."""
    classic, bonus = {"kniffels": 1}, {"kniffels": 2, "upper_bonus": 1}
    await play(games, {1: 167, 2: 150}, variant="classic", at=NOW - 3 * DAY, counters={1: classic})
    await play(games, {1: 178, 2: 190}, variant="classic", at=NOW - DAY, counters={1: classic, 2: classic})
    await play(games, {1: 380}, variant="kniffel", at=NOW - 2 * DAY, guild=OTHER_GUILD, counters={1: bonus})
    await play(games, {1: 140, 2: 120}, kind="kniffel+computer", variant="classic", counters={1: {HINTS_USED: 1}})
    await play(games, {1: 7000, 2: 3000}, kind="tutto", counters={1: {"tuttos": 3}})
    rule_sets = {"kniffel": ("kniffel", "classic"), "kniffel+computer": ("kniffel", "classic")}

    kinds = (*KINDS, "kniffel+computer")
    mine = await stats.user_stats(1, kinds, rule_sets=rule_sets)
    assert [(entry.kind, entry.variant) for entry in mine] == [
        ("kniffel", "kniffel"), ("kniffel", "classic"), ("tutto", None), ("kniffel+computer", "classic"),
    ]  # fmt: skip
    full, plain, tutto, computer = mine
    assert (full.games, full.wins, full.best, full.average, full.last_at) == (1, 1, 380, 380.0, NOW - 2 * DAY)
    assert full.counters == {"kniffels": CounterTotal(2, 1), "upper_bonus": CounterTotal(1, 1)}
    assert (plain.games, plain.wins, plain.best, plain.average, plain.last_at) == (2, 1, 178, 172.5, NOW - DAY)
    assert plain.counters == {"kniffels": CounterTotal(2, 2)}
    assert (tutto.games, tutto.counters) == (1, {"tuttos": CounterTotal(3, 1)})
    assert (computer.games, computer.hinted, computer.counters) == (1, 1, {HINTS_USED: CounterTotal(1, 1)})
    # One rule set played: one entry, which names it; a game asked for alone comes split as well.
    (theirs,) = await stats.user_stats(2, ("kniffel",), rule_sets=rule_sets)
    assert (theirs.variant, theirs.games, theirs.wins, theirs.best) == ("classic", 2, 1, 190)
    assert theirs.counters == {"kniffels": CounterTotal(1, 1)}
    # A rule set the caller did not list (one since retired) still counts, after the listed ones.
    await play(games, {1: 90}, variant="standard", at=NOW)
    assert [entry.variant for entry in await stats.user_stats(1, ("kniffel",), rule_sets=rule_sets)] == [
        "kniffel", "classic", "standard",
    ]  # fmt: skip
    # Unsplit, as the leaderboards count: one entry over every rule set.
    (whole,) = await stats.user_stats(1, ("kniffel",))
    assert (whole.variant, whole.games, whole.best, whole.score_sum) == (None, 4, 380, 167 + 178 + 380 + 90)
    assert await stats.user_stats(3, kinds, rule_sets=rule_sets) == []
    # Forget-me leaves nothing to split.
    await stats.forget(1)
    assert await stats.user_stats(1, kinds, rule_sets=rule_sets) == []


#: rule_set_standings and rule_set_counters as added up from the results: what the triggers must keep.
_RULE_SET_SUMS = (
    "SELECT user_id, kind, variant, games, wins, best, score_sum, last_at FROM rule_set_standings",
    "SELECT user_id, kind, variant, COUNT(*), SUM(won), MAX(score), SUM(score), MAX(finished_at) FROM results "
    "GROUP BY user_id, kind, variant",
    "SELECT user_id, kind, variant, name, total, games FROM rule_set_counters",
    "SELECT r.user_id, r.kind, r.variant, c.name, SUM(c.value), COUNT(*) FROM result_counters AS c "
    "JOIN results AS r ON r.id = c.result_id GROUP BY r.user_id, r.kind, r.variant, c.name",
)


async def assert_rule_set_sums_match(db: Database) -> None:
    kept_figures, summed_figures, kept_counters, summed_counters = [
        sorted(tuple(row) for row in await db.fetch_all(sql)) for sql in _RULE_SET_SUMS
    ]
    assert kept_figures == summed_figures
    assert kept_counters == summed_counters


async def test_migration_keeps_the_figures_per_rule_set(database_url: str) -> None:
    """Migration 0019: /stats' figures per rule set are kept like standings, backfilled from the results stored
    before it, and its triggers follow stored and deleted results after it; forget-me clears them."""
    dialect = "postgres" if postgres_url(database_url) else "sqlite"
    classic, bonus = {"kniffels": 1}, {"kniffels": 0, "upper_bonus": 1}
    rule_sets = {"kniffel": ("kniffel", "classic")}
    old = await Database.open(database_url, [m for m in bundled_migrations(dialect) if m.version < 19])
    try:
        await play(GamesRepository(old), {1: 200, 2: 150}, variant="classic", at=NOW - DAY, counters={1: classic})
        await play(GamesRepository(old), {1: 300, 2: 310}, variant="kniffel", at=NOW - 2 * DAY, counters={1: bonus})
        await play(GamesRepository(old), {1: 7000, 3: 3000}, kind="tutto", counters={1: {"tuttos": 3}})
    finally:
        await old.close()
    db = await Database.open(database_url)
    try:
        await assert_rule_set_sums_match(db)
        games, stats = GamesRepository(db), StatsRepository(db)
        latest = await play(games, {1: 180, 2: 190}, variant="classic", at=NOW, counters={1: classic, 2: classic})
        full, plain = await stats.user_stats(1, ("kniffel",), rule_sets=rule_sets)
        assert (full.variant, full.games, full.wins, full.best, full.last_at) == ("kniffel", 1, 0, 300, NOW - 2 * DAY)
        assert full.counters == {"kniffels": CounterTotal(0, 1), "upper_bonus": CounterTotal(1, 1)}
        assert (plain.variant, plain.games, plain.wins, plain.best, plain.last_at) == ("classic", 2, 1, 200, NOW)
        assert plain.counters == {"kniffels": CounterTotal(2, 2)}
        await assert_rule_set_sums_match(db)
        # A deleted result leaves its rule set's figures: the latest game's last played is looked up again.
        async with db.transaction() as tx:
            tx.execute("DELETE FROM results WHERE game_id = ? AND user_id = ?", (latest, 1))
        await assert_rule_set_sums_match(db)
        _, plain = await stats.user_stats(1, ("kniffel",), rule_sets=rule_sets)
        assert (plain.games, plain.best, plain.last_at) == (1, 200, NOW - DAY)
        assert plain.counters == {"kniffels": CounterTotal(1, 1)}
        await stats.forget(2)
        assert await stats.user_stats(2, ("kniffel", "tutto"), rule_sets=rule_sets) == []
        await assert_rule_set_sums_match(db)
    finally:
        await db.close()


async def test_an_empty_board_tells_whether_its_game_has_results_kept_apart_in_its_scope_and_period(
    games: GamesRepository, stats: StatsRepository
) -> None:
    """Review: every empty board said games with a computer count in /stats, whether or not there were any. The
    page tells, for the kind kept apart (a game's with a computer), in the board's own scope and period."""
    await play(games, {1: 140}, kind="kniffel+computer", at=NOW - 10 * DAY)

    async def apart(period: str, guild: int | None, kind: str = "kniffel") -> bool:
        page = await stats.leaderboard(
            kind,
            "wins",
            period,
            guild,
            page=0,
            caller_id=1,
            now=NOW,
            apart=f"{kind}+computer",  # type: ignore[arg-type]
        )
        return page.apart_results

    assert await apart("all", GUILD) and await apart("all", None) and await apart("month", GUILD)
    assert (
        not await apart("all", OTHER_GUILD)
        and not await apart("week", GUILD)
        and not await apart("all", GUILD, "tutto")
    )
    assert not (await board(stats, "wins", "all", GUILD)).apart_results  # nothing asked
    await play(games, {2: 200, 3: 100})
    assert not await apart("all", GUILD)  # a board with lines says nothing of them
