"""Seed a million results into a temporary database and time every leaderboard and /stats query.

Run: ``.venv/bin/python bench/leaderboard.py [--results 1000000] [--runs 7] [--keep path]``.

The data is shaped like a real installation rather than uniform noise, because uniform data hides the worst
cases: 1,000 servers whose sizes follow Zipf's law (the biggest holds about an eighth of all results),
50,000 users who mostly play in one server and sometimes two, a few heavy players per server, four game
kinds of different popularity, one to four players per game, and finish times spread over the last year.
Results (with their seats) are inserted at schema version 1, counters in the columns of that schema, and the
migrations then backfill the standings and move the counters into rows (0004), which times the upgrade of an
existing database too (a quarter of the Kniffel games use the classic rules and store upper_bonus 0, as the bot
did before migration 0003). Every query is timed through :class:`StatsRepository` on the
real reader connection (a hop to its thread included): median and worst of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path

import bot
from bot import heap
from bot.rankings import METRICS, PAGE_SIZE, PERIOD_DAYS, PERIODS
from bot.storage import Database, ResultRow, ResultsRepository, StatsRepository
from bot.storage.database import bundled_migrations

GUILDS = 1000
USERS = 50_000
KINDS = {"kniffel": 0.40, "tutto": 0.25, "dicepoker": 0.20, "knister": 0.15}
PLAYERS_PER_GAME = (1, 2, 2, 2, 3, 3, 4)
YEAR = 365 * 86400
NOW = 1_780_000_000.0
#: A page asked for far past the end of every board.
PAST_THE_END = 100_000
#: Stands for the page in the middle of the board's most crowded figure (see :func:`middle_of_longest_tie`).
MIDDLE_OF_TIE = -1
SCORE_RANGE = {"kniffel": (80, 380), "tutto": (1000, 9000), "dicepoker": (-120, 400), "knister": (0, 160)}


def cumulative(weights: list[float]) -> list[float]:
    return list(itertools.accumulate(weights))


def seed(path: Path, results: int, rng: random.Random) -> dict[str, int]:
    """Write games, seats and results at schema 1; returns a few ids worth timing (biggest guild, heaviest user)."""
    guild_weights = cumulative([1 / rank for rank in range(1, GUILDS + 1)])
    guild_ids = [10_000_000 + index for index in range(GUILDS)]
    members: list[list[int]] = [[] for _ in range(GUILDS)]
    for user in range(1, USERS + 1):
        home = rng.choices(range(GUILDS), cum_weights=guild_weights)[0]
        members[home].append(user)
        if rng.random() < 0.3:
            members[rng.randrange(GUILDS)].append(user)
    for pool in members:
        while len(pool) < 4:
            pool.append(rng.randint(1, USERS))
    # Within a server a few people play most games: Zipf over its members.
    member_weights = [cumulative([1 / (rank**0.8) for rank in range(1, len(pool) + 1)]) for pool in members]
    kinds, kind_weights = list(KINDS), cumulative(list(KINDS.values()))

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN")
    game_rows: list[tuple[object, ...]] = []
    seat_rows: list[tuple[object, ...]] = []
    result_rows: list[tuple[object, ...]] = []
    written, game_id = 0, 0
    while written < results:
        game_id += 1
        guild = rng.choices(range(GUILDS), cum_weights=guild_weights)[0]
        kind = rng.choices(kinds, cum_weights=kind_weights)[0]
        wanted = min(rng.choice(PLAYERS_PER_GAME), results - written)
        players = list(dict.fromkeys(rng.choices(members[guild], cum_weights=member_weights[guild], k=wanted)))
        finished = NOW - rng.random() * YEAR
        low, high = SCORE_RANGE[kind]
        scores = [rng.randint(low, high) for _ in players]
        ranks = [1 + sum(other > score for other in scores) for score in scores]
        channel = guild_ids[guild] * 10 + rng.randrange(3)
        # Not drawn from rng, so the data set is the same as before Kniffel games had a rule set here.
        variant = ("classic" if game_id % 4 == 0 else "kniffel") if kind == "kniffel" else "standard"
        game_rows.append(
            (game_id, kind, variant, guild_ids[guild], channel, players[0], finished - 600, finished, finished)
        )
        seat_rows += [(game_id, user, seat, f"player{user}") for seat, user in enumerate(players)]
        for user, score, rank in zip(players, scores, ranks, strict=True):
            counters: tuple[object, ...] = (None, None, None, None)
            if kind == "kniffel":
                kniffels, bonus = rng.choice((0, 0, 0, 1, 1, 2)), int(rng.random() < 0.4)
                counters = (kniffels, bonus if variant == "kniffel" else 0, None, None)
            elif kind == "tutto":
                counters = (None, None, rng.randrange(4), None)
            elif kind == "dicepoker":
                counters = (None, None, None, round(rng.uniform(-50, 50), 2))
            result_rows.append(
                (
                    game_id,
                    kind,
                    variant,
                    guild_ids[guild],
                    channel,
                    user,
                    f"player{user}",
                    score,
                    rank,
                    int(rank == 1),
                    finished,
                    *counters,
                )
            )
        written += len(players)
        if len(result_rows) >= 100_000 or written >= results:
            conn.executemany(
                "INSERT INTO games (id, kind, variant, guild_id, channel_id, host_id, status, created_at, "
                "updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, 'finished', ?, ?, ?)",
                game_rows,
            )
            conn.executemany(
                "INSERT INTO game_players (game_id, user_id, seat, display_name) VALUES (?, ?, ?, ?)", seat_rows
            )
            conn.executemany(
                "INSERT INTO results (game_id, kind, variant, guild_id, channel_id, user_id, display_name, score, "
                "rank, won, finished_at, kniffels, upper_bonus, tuttos, settlement) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                result_rows,
            )
            game_rows.clear()
            seat_rows.clear()
            result_rows.clear()
    conn.execute("COMMIT")
    facts = facts_of(conn)
    facts["games"] = game_id
    conn.close()
    return facts


def facts_of(conn: sqlite3.Connection) -> dict[str, int]:
    """The ids worth timing in a seeded database: the biggest and the median server, the heaviest user."""
    big_guild = conn.execute("SELECT guild_id FROM results GROUP BY guild_id ORDER BY COUNT(*) DESC LIMIT 1").fetchone()
    median_guild = conn.execute(
        "SELECT guild_id FROM results GROUP BY guild_id ORDER BY COUNT(*) LIMIT 1 OFFSET ?", (GUILDS // 2,)
    ).fetchone()
    heavy = conn.execute("SELECT user_id FROM results GROUP BY user_id ORDER BY COUNT(*) DESC LIMIT 1").fetchone()
    facts = {
        "big_guild": big_guild[0],
        "big_guild_results": conn.execute("SELECT COUNT(*) FROM results WHERE guild_id = ?", big_guild).fetchone()[0],
        "median_guild": median_guild[0],
        "median_guild_results": conn.execute(
            "SELECT COUNT(*) FROM results WHERE guild_id = ?", median_guild
        ).fetchone()[0],
        "heavy_user": heavy[0],
        "heavy_user_results": conn.execute("SELECT COUNT(*) FROM results WHERE user_id = ?", heavy).fetchone()[0],
        "users": conn.execute("SELECT COUNT(DISTINCT user_id) FROM results").fetchone()[0],
    }
    return facts


#: What a query's time is read from: the wall clock (what a user waits), or the process's CPU time, the reader's
#: thread included (what the query costs, much less disturbed by other work on a shared machine).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


async def timed(runs: int, query: Callable[[], Awaitable[object]], clock: str = "wall") -> tuple[float, float]:
    """Median and worst time on ``clock`` in milliseconds (one untimed warm-up run first)."""
    now = CLOCKS[clock]
    await query()
    samples = []
    for _ in range(runs):
        start = now()
        await query()
        samples.append((now() - start) * 1000)
    return statistics.median(samples), max(samples)


async def bench(path: Path, facts: dict[str, int], runs: int) -> list[tuple[str, float, float]]:
    start = time.perf_counter()
    await (await Database.open(path, bundled_migrations()[:2])).close()
    print(f"migration 0002 (backfill of standings, new indexes): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    await (await Database.open(path, bundled_migrations()[:3])).close()
    print(f"migration 0003 (classic results, backfill of upper_bonus_games): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    before_windows = [migration for migration in bundled_migrations() if migration.version < 11]
    await (await Database.open(path, before_windows)).close()
    print(
        f"migrations 0004-0010 (counters as rows, backfill of standing_counters): {time.perf_counter() - start:.1f} s"
    )
    start = time.perf_counter()
    await (await Database.open(path, bundled_migrations()[:11])).close()
    print(f"migration 0011 (window standings, index on finish times): {time.perf_counter() - start:.1f} s")
    return await time_queries(path, facts, runs, forget=True)


async def time_queries(
    path: Path, facts: dict[str, int], runs: int, *, forget: bool, clock: str = "wall"
) -> list[tuple[str, float, float]]:
    """Every board, /stats and storing a game, timed on ``clock``; forget-me of the heaviest user last when
    ``forget``."""
    start = time.perf_counter()
    db = await Database.open(path)
    print(f"migrations from 0012 on (board figures): {time.perf_counter() - start:.1f} s")
    stats = StatsRepository(db)
    figures: list[tuple[str, float, float]] = []
    heavy, casual = facts["heavy_user"], 4242
    # "Now" moves on with the real clock, as in the bot: every week/month board first moves its window (the
    # results that left it since the previous board are recounted), and that is part of the time measured.
    started = time.monotonic()
    for period in ("month", "week"):
        start = time.perf_counter()
        await stats.leaderboard("kniffel", "wins", period, None, page=0, caller_id=casual, now=NOW)  # type: ignore[arg-type]
        print(f"first {period} board (builds the window's totals from results): {time.perf_counter() - start:.2f} s")
    # The bot freezes its start-up heap (bot/heap.py), so a full collection never walks it during a query; the
    # bench measures the queries in that same steady state rather than its own seeding's garbage.
    heap.settle()
    scopes = {"global": None, "big server": facts["big_guild"], "median server": facts["median_guild"]}
    try:
        for scope, guild in scopes.items():
            for period in PERIODS:
                for metric in METRICS:
                    # Page 51, the middle of the longest tie (read from either end, a page there steps over half
                    # of it), and a page far past the end (a button drawn before players left): answered as the last
                    # page, which on the all-servers games board lies at the end of thousands with one game.
                    pages = ((0, heavy), (0, casual), (50, casual), (MIDDLE_OF_TIE, casual), (PAST_THE_END, casual))
                    for page, caller in pages:
                        middle = page == MIDDLE_OF_TIE
                        if middle:
                            page = await middle_of_longest_tie(db, metric, period, guild)

                        async def query(metric=metric, period=period, guild=guild, page=page, caller=caller) -> object:
                            return await stats.leaderboard(
                                "kniffel",
                                metric,
                                period,
                                guild,
                                page=page,
                                caller_id=caller,
                                now=NOW + time.monotonic() - started,
                            )

                        board = await query()
                        label = f"board {scope:13} {period:5} {metric:7} page {board.page + 1:>2}/{board.pages:<5}"
                        label += " heavy caller" if caller == heavy else " casual caller"
                        label += " past the end" if page == PAST_THE_END else ""
                        label += " middle of the longest tie" if middle else ""
                        median, worst = await timed(runs, query, clock)
                        figures.append((label, median, worst))
                        print(f"{label}  median {median:7.3f} ms  worst {worst:7.3f} ms")
        # As the cog asks: Kniffel per rule set (from the user's results), the other games from standings.
        kinds, rule_sets = list(KINDS), {"kniffel": ("kniffel", "classic")}
        for who, user in (("heaviest user", heavy), ("casual user", casual)):
            median, worst = await timed(
                runs, lambda user=user: stats.user_stats(user, kinds, rule_sets=rule_sets), clock
            )
            figures.append((f"/stats {who}", median, worst))
            print(f"/stats {who:13}  median {median:7.3f} ms  worst {worst:7.3f} ms")
        # New game ids after every stored one (a kept database holds the games an earlier run stored).
        found = await db.fetch_one("SELECT MAX(id) FROM games")
        game_ids = itertools.count(1 + (found[0] if found else 0))
        median, worst = await timed(runs * 5, lambda: store_game(db, facts["big_guild"], next(game_ids)), clock)
        figures.append(("store one finished 3-player game (results + triggers)", median, worst))
        print(f"store a finished 3-player game   median {median:6.2f} ms  worst {worst:6.2f} ms")
        if not forget:
            return figures
        start = time.perf_counter()
        deleted = (await stats.forget(heavy)).results
        forget_ms = (time.perf_counter() - start) * 1000
        figures.append((f"forget-me heaviest user ({deleted} rows), once", forget_ms, forget_ms))
        print(f"forget-me of the heaviest user ({deleted} rows): {forget_ms:.1f} ms")
    finally:
        await db.close()
    return figures


async def middle_of_longest_tie(db: Database, metric: str, period: str, guild: int | None) -> int:
    """The page holding the middle line of the board's figure with the most players (for an average, its floor).

    The wins board lists only players who have won: its figure 0 (most players) is no line of it.
    """
    listed = " AND figure >= 1" if metric == "wins" else ""
    found = await db.fetch_one(
        "SELECT above + players / 2 FROM (SELECT players, SUM(players) OVER (ORDER BY figure DESC) - players AS above "
        f"FROM board_figures WHERE days = ? AND kind = 'kniffel' AND scope = ? AND metric = ?{listed}) AS f "
        "ORDER BY players DESC LIMIT 1",
        (PERIOD_DAYS[period] if period != "all" else 0, guild or 0, metric),
    )
    return 0 if found is None else int(found[0]) // PAGE_SIZE


async def store_game(db: Database, guild: int, game_id: int) -> None:
    """What the end of a game writes besides the game row: three results and their counters, in one transaction
    (triggers run)."""
    rows = [
        ResultRow(
            game_id,
            "kniffel",
            "kniffel",
            guild,
            guild * 10,
            user,
            f"new{user}",
            200 - seat,
            seat,
            seat == 1,
            NOW,
            counters={"kniffels": seat % 2, "upper_bonus": int(seat == 1)},
        )
        for seat, user in enumerate((900_001, 900_002, 900_003), 1)
    ]
    async with db.transaction() as tx:
        tx.execute(
            "INSERT INTO games (id, kind, variant, guild_id, channel_id, host_id, status, created_at, updated_at, "
            "finished_at) VALUES (?, 'kniffel', 'kniffel', ?, ?, 1, 'finished', ?, ?, ?)",
            (game_id, guild, guild * 10, NOW, NOW, NOW),
        )
        ResultsRepository.insert(tx, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="write the database here instead of a temporary folder")
    parser.add_argument(
        "--db",
        type=Path,
        help="time the queries on this database (one kept by --keep, migrated on open) instead of seeding one; "
        "forget-me is left out, so the same file can be timed again (bench/leaderboard_ab.py)",
    )
    parser.add_argument(
        "--clock",
        choices=CLOCKS,
        default="wall",
        help="with --db: time each query by the wall clock or by the process's CPU time (reader thread included)",
    )
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, bot from {Path(bot.__file__).parent}")
    if args.db:
        with closing(sqlite3.connect(args.db)) as conn:
            facts = facts_of(conn)
        print(f"timing {args.db}: {facts}")
        figures = asyncio.run(time_queries(args.db, facts, args.runs, forget=False, clock=args.clock))
        report(figures)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep or Path(folder) / "bench.sqlite3"
        start = time.perf_counter()
        asyncio.run(_schema_one(path))
        facts = seed(path, args.results, random.Random(args.seed))
        print(f"seeded {args.results:,} results in {time.perf_counter() - start:.1f} s: {facts}")
        figures = asyncio.run(bench(path, facts, args.runs))
    report(figures)


def report(figures: list[tuple[str, float, float]]) -> None:
    reads = [figure for figure in figures if figure[0].startswith(("board", "/stats"))]
    slowest = max(reads, key=lambda figure: figure[2])
    target = "(target: 5 ms or less, issue 18)"
    print(f"slowest worst case of a board or /stats: {slowest[0]}  {slowest[2]:.2f} ms {target}")


async def _schema_one(path: Path) -> None:
    await (await Database.open(path, bundled_migrations()[:1])).close()


if __name__ == "__main__":
    main()
