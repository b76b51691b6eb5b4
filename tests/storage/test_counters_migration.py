"""Migration 0004 (counters as data) on a database written by the schema of migrations 0001–0003.

The database holds results of every game and rule set (classic Kniffel with its upper bonus NULL), on several
servers and in DMs, spread over the periods, with some games deleted again. Every leaderboard (kind, metric,
period, scope, page, a caller on and off the board) and every /stats answer is recorded before the migration
and compared after it. The "before" /stats answers come from the old schema's standings columns, rendered as
the bot rendered them then (``legacy_render_stats``, the pre-0004 code), so the test shows what a player sees
did not change.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord

from bot.i18n import number, t
from bot.rankings import METRICS, PERIODS, LeaderboardPage
from bot.storage import Database, GamesRepository, ResultsRepository, StatsRepository
from bot.storage.database import bundled_migrations
from bot.ui import leaderboard as ui
from bot.ui.common import COLOUR_LOBBY, shorten
from tests.results import store_finished_game
from tests.storage.legacy import LEGACY_COUNTERS, store_legacy_game

NOW = 1_800_000_000.0
DAY = 86400.0
GUILDS = (501, 502, 503)
USERS = range(1, 25)
KINDS = ("kniffel", "dicepoker", "knister", "tutto")
#: Every rule set a stored game can have (RULES.md: Kniffel and its classic rules; one each for the others).
VARIANTS = {
    "kniffel": ("kniffel", "classic"),
    "dicepoker": ("russian",),
    "knister": ("standard",),
    "tutto": ("standard",),
}
NOBODY = 999
GAME_NAMES = ("kniffel", "dicepoker", "knister", "tutto", "classic", "kniffels", "tuttos", "upper_bonus", "settlement")


@dataclass(frozen=True)
class Game:
    """A finished game as generated: what both the legacy writer and the repositories are given."""

    kind: str
    variant: str
    guild: int | None
    at: float
    scores: dict[int, int]
    counters: dict[int, dict[str, int | float]]
    names: dict[int, str]


def counters_of(kind: str, variant: str, scores: dict[int, int], rng: random.Random) -> dict[int, dict[str, Any]]:
    """Counters shaped like the engines': the upper bonus only in kniffel rules, settlements that sum to zero."""
    if kind == "kniffel":
        found: dict[int, dict[str, Any]] = {user: {"kniffels": rng.choice((0, 0, 1, 2))} for user in scores}
        if variant == "kniffel":
            for user in scores:
                found[user]["upper_bonus"] = int(rng.random() < 0.4)
        return found
    if kind == "tutto":
        return {user: {"tuttos": rng.randrange(4)} for user in scores}
    if kind == "dicepoker":
        mean = sum(scores.values()) / len(scores)
        return {user: {"settlement": round(score - mean, 2)} for user, score in scores.items()}
    return {}


def random_game(rng: random.Random) -> Game:
    kind = rng.choice(KINDS)
    variant = rng.choice(VARIANTS[kind])
    users = rng.sample(USERS, rng.randint(1, 4))
    scores = {user: rng.randint(0, 9) * (10 if kind != "dicepoker" else 7) - 5 for user in users}
    names = {user: rng.choice((f"user{user}", f"User {user}", f"<@{user}> *{user}*")) for user in users}
    # Within the week, within the month, or older; DMs count for every server only.
    at = NOW - rng.choice((rng.uniform(0, 6.9), rng.uniform(7.1, 29.9), rng.uniform(30.1, 120))) * DAY
    guild = rng.choice((*GUILDS, GUILDS[0], None))
    return Game(kind, variant, guild, at, scores, counters_of(kind, variant, scores, rng), names)


async def store_legacy(db: Database, game: Game) -> int:
    return await store_legacy_game(
        db,
        game.scores,
        kind=game.kind,
        variant=game.variant,
        guild_id=game.guild,
        channel_id=(game.guild or 7) * 10,
        finished_at=game.at,
        names=game.names,
        counters=game.counters,
    )


async def store(games: GamesRepository, game: Game) -> int:
    return await store_finished_game(
        games,
        game.scores,
        kind=game.kind,
        variant=game.variant,
        guild_id=game.guild,
        channel_id=(game.guild or 7) * 10,
        finished_at=game.at,
        names=game.names,
        counters=game.counters,
    )


# ---------------------------------------------------------------------- recording every answer


async def every_board(
    stats: StatsRepository, periods: Sequence[str] = PERIODS
) -> dict[tuple[object, ...], tuple[LeaderboardPage, dict[str, Any]]]:
    """Every page (and one past the end) of every board, for a caller high up, one further down and nobody."""
    recorded = {}
    for kind, metric, period, guild, caller in itertools.product(
        KINDS, METRICS, periods, (*GUILDS, None), (1, 13, NOBODY)
    ):
        page = 0
        while True:
            found = await stats.leaderboard(kind, metric, period, guild, page=page, caller_id=caller, now=NOW)
            scope: ui.Scope = "global" if guild is None else "server"
            embed, view = ui.render_board(found, ui.BoardRequest(kind, metric, period, scope, page, caller), "en-US")
            recorded[kind, metric, period, guild, caller, page] = (
                found,
                {**embed.to_dict(), "view": view.to_components()},
            )
            if page >= found.pages:
                break
            page += 1
    return recorded


async def every_stats(stats: StatsRepository) -> dict[tuple[object, ...], dict[str, Any]]:
    """/stats of every user (and of someone with no results) for every game and each game alone."""
    recorded = {}
    for user, game in itertools.product((*USERS, NOBODY), (None, *KINDS)):
        found = await stats.user_stats(user, KINDS if game is None else (game,))
        recorded[user, game] = ui.render_stats(f"User {user}", found, game, "en-US", own=False).to_dict()
    return recorded


@dataclass(frozen=True)
class LegacyStats:
    """A row of the old standings table (schema 3), as the old ``StatsRepository.user_stats`` read it."""

    kind: str
    games: int
    wins: int
    best: int
    score_sum: int
    last_at: float
    kniffels: int
    upper_bonus: int
    tuttos: int
    settlement: float
    upper_bonus_games: int


async def every_legacy_stats(db: Database) -> dict[tuple[object, ...], dict[str, Any]]:
    recorded = {}
    for user, game in itertools.product((*USERS, NOBODY), (None, *KINDS)):
        kinds = KINDS if game is None else (game,)
        rows = await db.fetch_all(
            "SELECT kind, games, wins, best, score_sum, last_at, kniffels, upper_bonus, tuttos, settlement, "
            f"upper_bonus_games FROM standings WHERE kind IN ({', '.join('?' for _ in kinds)}) AND scope = 0 "
            "AND user_id = ?",
            (*kinds, user),
        )
        found = {row[0]: LegacyStats(*row) for row in rows}
        ordered = [found[kind] for kind in kinds if kind in found]
        recorded[user, game] = legacy_render_stats(f"User {user}", ordered, game, "en-US").to_dict()
    return recorded


def legacy_render_stats(name: str, stats: Sequence[LegacyStats], game: str | None, locale: str) -> discord.Embed:
    """``bot.ui.leaderboard.render_stats`` as it was before migration 0004, on the old standings columns."""
    embed = discord.Embed(title=t("stats.title", locale, name=shorten(name, 200)), colour=COLOUR_LOBBY)
    if not stats:
        if game is None:
            embed.description = t("stats.nothing", locale, name=name)
        else:
            embed.description = t("stats.nothing_game", locale, name=name, game=t(f"game.{game}", locale))
    for entry in stats:
        last = datetime.fromtimestamp(entry.last_at, tz=UTC)
        lines = [
            t("stats.games", locale, games=entry.games, wins=entry.wins, rate=f"{entry.wins / entry.games:.0%}"),
            t(
                "stats.scores",
                locale,
                best=entry.best,
                average=number(entry.score_sum / entry.games, locale, decimals=1, exact=True),
            ),
        ]
        if entry.kind == "kniffel":
            if not entry.upper_bonus_games:
                lines.append(t("stats.kniffel_classic", locale, kniffels=entry.kniffels))
            else:
                key = "stats.kniffel" if entry.upper_bonus_games == entry.games else "stats.kniffel_some_classic"
                rate = f"{entry.upper_bonus / entry.upper_bonus_games:.0%}"
                lines.append(
                    t(
                        key,
                        locale,
                        count=entry.upper_bonus_games,
                        bonus=entry.upper_bonus,
                        rate=rate,
                        kniffels=entry.kniffels,
                    )
                )
        elif entry.kind == "tutto":
            lines.append(t("stats.tutto", locale, tuttos=entry.tuttos))
        elif entry.kind == "dicepoker":
            settlement = number(entry.settlement, locale, signed=True, decimals=2)  # written as /stats writes it now
            lines.append(t("stats.dicepoker", locale, settlement=settlement))
        lines.append(t("stats.last", locale, when=discord.utils.format_dt(last, "R")))
        embed.add_field(name=t(f"game.{entry.kind}", locale), value="\n".join(lines), inline=False)
    embed.set_footer(text=t("stats.footer", locale))
    return embed


async def legacy_counters(db: Database) -> dict[tuple[int, int], dict[str, int | float]]:
    """Per (game, user) the old counter columns that were not NULL."""
    rows = await db.fetch_all(f"SELECT game_id, user_id, {', '.join(LEGACY_COUNTERS)} FROM results")
    return {
        (game_id, user_id): {
            name: value for name, value in zip(LEGACY_COUNTERS, values, strict=True) if value is not None
        }
        for game_id, user_id, *values in rows
    }


# ---------------------------------------------------------------------- consistency of the derived tables


async def assert_derived_tables_match_results(db: Database) -> None:
    """standings and standing_counters hold exactly what their results and result_counters add up to."""
    scoped = (
        "SELECT kind, guild_id AS scope, user_id, {columns} FROM {source} WHERE guild_id IS NOT NULL "
        "GROUP BY kind, guild_id, user_id{extra} UNION ALL "
        "SELECT kind, 0, user_id, {columns} FROM {source} GROUP BY kind, user_id{extra} ORDER BY 1, 2, 3{order}"
    )
    rows = await db.fetch_all(
        scoped.format(
            columns="COUNT(*), SUM(won), MAX(score), SUM(score), MAX(finished_at)", source="results", extra="", order=""
        )
    )
    expected = [tuple(row) for row in rows]
    rows = await db.fetch_all(
        "SELECT kind, scope, user_id, games, wins, best, score_sum, last_at FROM standings ORDER BY 1, 2, 3"
    )
    assert [tuple(row) for row in rows] == expected
    source = "(SELECT r.*, c.name, c.value FROM result_counters AS c JOIN results AS r ON r.id = c.result_id)"
    rows = await db.fetch_all(
        scoped.format(columns="name, ROUND(SUM(value), 6), COUNT(*)", source=source, extra=", name", order=", 4")
    )
    expected = [tuple(row) for row in rows]
    rows = await db.fetch_all(
        "SELECT kind, scope, user_id, name, ROUND(total, 6), games FROM standing_counters ORDER BY 1, 2, 3, 4"
    )
    assert [tuple(row) for row in rows] == expected
    rows = await db.fetch_all("SELECT COUNT(*) FROM result_counters WHERE result_id NOT IN (SELECT id FROM results)")
    assert rows[0][0] == 0


#: board_figures of the all-time boards as migration 0012 counts them from standings.
FIGURES_OF_STANDINGS = " UNION ALL ".join(
    f"SELECT 0 AS days, kind, scope, '{metric}' AS metric, {figure} AS figure, COUNT(*) AS players FROM standings "
    f"{where} GROUP BY kind, scope, {figure}"
    for metric, figure, where in (
        ("wins", "wins", ""),
        ("best", "best", ""),
        ("games", "games", ""),
        ("average", "CAST(average AS INTEGER) - (average < CAST(average AS INTEGER))", "WHERE games >= 5"),
    )
)


# ---------------------------------------------------------------------- the tests


async def test_every_leaderboard_and_stats_answer_is_identical_after_migration_0004(tmp_path: Path) -> None:
    path = tmp_path / "schema3.sqlite3"
    rng = random.Random(11)
    old = await Database.open(path, bundled_migrations()[:3])
    try:
        ids = [await store_legacy(old, random_game(rng)) for _ in range(260)]
        # Deleted games (their results go by cascade) leave the old standings as the old delete trigger made them.
        for game_id in rng.sample(ids, 30):
            await GamesRepository(old).delete(game_id)
        stats = StatsRepository(old)
        # All-time boards only: week and month read window_standings since migration 0011, which a schema-3
        # database lacks (tests/storage/test_stats.py checks them after migrating a legacy database). The boards'
        # sizes and ranks come from board_figures (migration 0012): while they are read, the schema-3 database
        # has the figures of its own standings, and it loses them before it is migrated.
        async with old.transaction() as tx:
            tx.execute(f"CREATE TABLE board_figures AS {FIGURES_OF_STANDINGS}")
        boards_before = await every_board(stats, ("all",))
        async with old.transaction() as tx:
            tx.execute("DROP TABLE board_figures")
        stats_before = await every_legacy_stats(old)
        counters_before = await legacy_counters(old)
    finally:
        await old.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 3
        kinds_and_variants = set(conn.execute("SELECT DISTINCT kind, variant FROM results"))
        assert kinds_and_variants == {(kind, variant) for kind, variants in VARIANTS.items() for variant in variants}
        assert conn.execute("SELECT COUNT(*) FROM results WHERE guild_id IS NULL").fetchone()[0] > 0
    # Not vacuous: every kind has boards with several pages, and the classic rule set shows in /stats.
    assert all(boards_before[kind, "games", "all", None, 1, 0][0].pages > 1 for kind in KINDS)
    assert any("Kniffel rules" in str(answer) for answer in stats_before.values())

    # Up to 0017: 0018 takes the wins of games played alone away, as players see it on purpose (its own test).
    db = await Database.open(path, [migration for migration in bundled_migrations() if migration.version < 18])
    try:
        stats = StatsRepository(db)
        assert await every_board(stats, ("all",)) == boards_before
        assert await every_stats(stats) == stats_before
        results = ResultsRepository(db)
        after = {}
        for game_id in {game_id for game_id, _ in counters_before}:
            for row in await results.for_game(game_id):
                after[game_id, row.user_id] = dict(row.counters)
        assert after == counters_before
        # Same values and the same types (a whole number stays an int: "Kniffels scored **3**", not 3.0).
        assert {key: {n: type(v) for n, v in c.items()} for key, c in after.items()} == {
            key: {n: type(v) for n, v in c.items()} for key, c in counters_before.items()
        }
        await assert_derived_tables_match_results(db)
    finally:
        await db.close()


async def test_the_counter_triggers_keep_step_after_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    rng = random.Random(5)
    old = await Database.open(path, bundled_migrations()[:3])
    try:
        for _ in range(60):
            await store_legacy(old, random_game(rng))
    finally:
        await old.close()
    db = await Database.open(path)
    try:
        games, stats = GamesRepository(db), StatsRepository(db)
        new_ids = [await store(games, random_game(rng)) for _ in range(80)]
        await assert_derived_tables_match_results(db)
        # Old and new games alike leave by cascade (the counters with them), and forget-me takes a user out.
        for game_id in [*rng.sample(range(1, 61), 15), *rng.sample(new_ids, 15)]:
            await games.delete(game_id)
        await assert_derived_tables_match_results(db)
        assert (await stats.forget(3)).results > 0
        await assert_derived_tables_match_results(db)
        row = await db.fetch_one("SELECT COUNT(*) FROM standing_counters WHERE user_id = 3")
        assert row is not None
        assert row[0] == 0
    finally:
        await db.close()


async def test_migration_0004_leaves_no_game_in_the_schema(tmp_path: Path) -> None:
    """After the upgrade no table, column, index or trigger names a game or its counters."""
    await (await Database.open(tmp_path / "db.sqlite3")).close()
    with sqlite3.connect(tmp_path / "db.sqlite3") as conn:
        schema = "\n".join(sql for (sql,) in conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    assert "result_counters" in schema
    assert [name for name in GAME_NAMES if name in schema.lower()] == []


def test_storage_code_and_new_migrations_name_no_game() -> None:
    """``bot/storage`` knows no game: its modules and every migration from 0004 on (0001–0003 are history)."""
    folder = Path(__file__).parents[2] / "bot" / "storage"
    checked = [*folder.glob("*.py")]
    checked += [migration for migration in (folder / "migrations").glob("*.sql") if int(migration.name[:4]) >= 4]
    checked += [*(folder / "migrations" / "postgres").glob("*.sql")]
    assert {path.name for path in checked} >= {
        *("__init__.py", "stats.py", "results.py", "postgres.py", "0004_counters_as_data.sql", "0008_schema.sql")
    }
    found = {}
    for path in checked:
        text = path.read_text(encoding="utf-8").lower()
        if path.name.startswith("0004_"):
            # This migration converts the old columns: it may name them as data it moves, nowhere else.
            text = "\n".join(line for line in text.splitlines() if not _legacy_line(line))
        found[path.name] = [name for name in GAME_NAMES if name in text]
    assert found == {path.name: [] for path in checked}


def _legacy_line(line: str) -> bool:
    """A line of migration 0004 that moves or drops an old counter column (the data it converts)."""
    stripped = line.strip()
    return stripped.startswith(("select id, '", "alter table results drop column", "alter table standings drop column"))
