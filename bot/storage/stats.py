"""Leaderboard pages, a caller's own rank, per-game statistics and forget-me, over the stored results.

All-time boards read the ``standings`` table that triggers keep next to ``results`` (migration 0002): a page
is an index walk and a rank is one counted index range, whatever the number of players. Week and month are
rolling windows ("the last 7/30 days" up to now), which a stored total cannot answer, so they aggregate the
results in the window through covering indexes and rank with window functions. docs/benchmarks.md has the
figures on a million results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.rankings import (
    METRICS,
    MIN_AVERAGE_GAMES,
    PAGE_SIZE,
    PERIOD_DAYS,
    PERIODS,
    CounterTotal,
    GameStats,
    LeaderboardPage,
    Metric,
    Period,
    Standing,
)
from bot.storage.backend import Database, Row, counter_value

#: The standings scope of boards over every server (guild ids are snowflakes, never 0).
GLOBAL_SCOPE = 0
#: What a seat of an old game shows instead of the name of a user who asked to be forgotten (no language).
FORGOTTEN_NAME = "—"

# Per metric, the figure aggregated over the results in a week/month window (all-time boards read the
# standings column of the same name).
_WINDOW_VALUE: dict[str, str] = {
    "wins": "SUM(won)",
    "best": "MAX(score)",
    "average": "CAST(AVG(score) AS DOUBLE PRECISION)",  # PostgreSQL's AVG is NUMERIC otherwise
    "games": "COUNT(*)",
}


def _order(metric: str) -> str:
    """The order a board lists players in: figure, then more games, then user id; as the metric's index."""
    return "games DESC, user_id" if metric == "games" else f"{metric} DESC, games DESC, user_id"


class StatsRepository:
    """Read-only queries on the reader connection, plus forget-me on the writer."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def leaderboard(
        self,
        kind: str,
        metric: Metric,
        period: Period,
        guild_id: int | None,
        *,
        page: int,
        caller_id: int,
        now: float,
        page_size: int = PAGE_SIZE,
    ) -> LeaderboardPage:
        """Page ``page`` of the board for ``kind`` in one guild (or every server when ``guild_id`` is None)."""
        if metric not in METRICS or period not in PERIODS:
            raise ValueError(f"unknown metric {metric!r} or period {period!r}")
        page = max(0, page)
        board = _Board(kind, metric, period, guild_id, now)
        fetch = board.all_time if period == "all" else board.window
        total, rows, caller = await fetch(self._db, page, page_size, caller_id)
        if page and not rows and total:
            # Past the end (players went since the button was drawn): show the last page instead.
            page = (total - 1) // page_size
            total, rows, caller = await fetch(self._db, page, page_size, caller_id)
        caller_games = caller.games if caller else await board.games_of(self._db, caller_id)
        return LeaderboardPage(
            kind, metric, period, guild_id, page, total, tuple(rows), caller, caller_games, page_size
        )

    async def user_stats(self, user_id: int, kinds: Sequence[str]) -> list[GameStats]:
        """The user's figures per game they played, in the order of ``kinds``; games never played are left out."""
        if not kinds:
            return []
        marks = ", ".join("?" for _ in kinds)
        # One row per (game, counter), or one row with NULL counter columns for a game without counters.
        found = await self._db.fetch_all(
            "SELECT s.kind, s.games, s.wins, s.best, s.score_sum, s.last_at, c.name, c.total, c.games "
            "FROM standings AS s LEFT JOIN standing_counters AS c USING (kind, scope, user_id) "
            f"WHERE s.kind IN ({marks}) AND s.scope = ? AND s.user_id = ?",
            (*kinds, GLOBAL_SCOPE, user_id),
        )
        figures: dict[str, tuple[int, int, int, int, float]] = {}
        counters: dict[str, dict[str, CounterTotal]] = {}
        for kind, games, wins, best, score_sum, last_at, name, total, counted in found:
            figures[kind] = (games, wins, best, score_sum, last_at)
            kept = counters.setdefault(kind, {})
            if name is not None:
                kept[name] = CounterTotal(counter_value(total), counted)
        return [GameStats(kind, *figures[kind], counters=counters[kind]) for kind in kinds if kind in figures]

    async def count_results(self, user_id: int) -> int:
        """How many results forget-me would delete (all games, every server)."""
        row = await self._db.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user_id,))
        assert row is not None  # COUNT(*) always answers
        return row[0]

    async def forget(self, user_id: int) -> int:
        """Delete every stored result of the user and what was derived from them; the number of results.

        The delete triggers would take each result out of the standings one by one, moving the user's entry
        in every metric index per row. Removing the user's standings, counter totals and name first leaves the
        triggers only lookups that find nothing: about a third less time for a heavy player, with the write
        lock held (docs/benchmarks.md). The seats of finished and abandoned games stay (the other players'
        games keep their shape) but lose the user's display name; games in progress are not touched, except that
        the move history of every game the user sat in is deleted (its states show their dice and card, so the
        other players of those games lose their review of them too).
        """
        async with self._db.transaction() as tx:
            derived = (
                "WHERE user_id = ?1 AND kind IN (SELECT DISTINCT kind FROM results WHERE user_id = ?1) "
                "AND scope IN (SELECT 0 UNION SELECT guild_id FROM results WHERE user_id = ?1)"
            )
            tx.execute(f"DELETE FROM standings {derived}", (user_id,))
            tx.execute(f"DELETE FROM standing_counters {derived}", (user_id,))
            tx.execute("DELETE FROM player_names WHERE user_id = ?", (user_id,))
            # The move history of every game they sat in: each stored state holds their dice and card.
            tx.execute(
                "DELETE FROM game_moves WHERE game_id IN "
                "(SELECT game_id FROM game_seats WHERE player = ? AND kind = 'user')",
                (str(user_id),),
            )
            deleted = tx.execute("DELETE FROM results WHERE user_id = ?", (user_id,))
            tx.execute(
                "UPDATE game_seats SET display_name = ?1 WHERE player = ?2 AND kind = 'user' AND display_name != ?1 "
                "AND EXISTS (SELECT 1 FROM games WHERE games.id = game_seats.game_id "
                "AND status IN ('finished', 'abandoned'))",
                (FORGOTTEN_NAME, str(user_id)),
            )
        return deleted.rowcount


@dataclass(frozen=True)
class _Board:
    """The SQL for one board, chosen by period and scope."""

    kind: str
    metric: str
    period: str
    guild_id: int | None
    now: float

    @property
    def scope(self) -> int:
        return GLOBAL_SCOPE if self.guild_id is None else self.guild_id

    @property
    def since(self) -> float:
        return self.now - PERIOD_DAYS[self.period] * 86400

    # ------------------------------------------------------------------ all time: standings

    async def all_time(
        self, db: Database, page: int, page_size: int, caller_id: int
    ) -> tuple[int, list[Standing], Standing | None]:
        # The metric is a standings column with its own index; INDEXED BY pins the plan to it (left to itself
        # SQLite prefers the games index for the average board's "games >= 5" and sorts every player).
        # PostgreSQL has no such hint and its planner finds the index by itself.
        metric = self.metric
        indexed = f"INDEXED BY standings_{metric}" if db.dialect == "sqlite" else ""
        where = "kind = ? AND scope = ?" + (f" AND games >= {MIN_AVERAGE_GAMES}" if metric == "average" else "")
        params = (self.kind, self.scope)
        counted = await db.fetch_one(f"SELECT COUNT(*) FROM standings {indexed} WHERE {where}", params)
        assert counted is not None  # COUNT(*) always answers
        total = counted[0]
        found = await db.fetch_all(
            f"SELECT s.user_id, s.games, s.{metric}, COALESCE(n.display_name, CAST(s.user_id AS TEXT)) "
            f"FROM standings AS s {indexed} LEFT JOIN player_names AS n USING (user_id) "
            f"WHERE {where} ORDER BY {_order(metric)} LIMIT ? OFFSET ?",
            (*params, page_size, page * page_size),
        )
        first_rank = await self._rank_of(db, indexed, where, params, found[0][2]) if found else 0
        rows = _ranked(found, page * page_size, first_rank)
        caller = next((row for row in rows if row.user_id == caller_id), None)
        if caller is None:
            mine = await db.fetch_one(
                f"SELECT s.games, s.{metric}, COALESCE(n.display_name, CAST(s.user_id AS TEXT)) "
                f"FROM standings AS s LEFT JOIN player_names AS n USING (user_id) WHERE {where} AND user_id = ?",
                (*params, caller_id),
            )
            if mine is not None:
                games, figure, name = mine
                rank = await self._rank_of(db, indexed, where, params, figure)
                caller = Standing(rank, caller_id, str(name), figure, games)
        return total, rows, caller

    async def _rank_of(self, db: Database, indexed: str, where: str, params: tuple[object, ...], figure: float) -> int:
        """1 + the players with a strictly better figure: ties share the rank."""
        row = await db.fetch_one(
            f"SELECT COUNT(*) FROM standings {indexed} WHERE {where} AND {self.metric} > ?", (*params, figure)
        )
        assert row is not None  # COUNT(*) always answers
        return 1 + row[0]

    # ------------------------------------------------------------------ week / month: results in the window

    def _window_source(self) -> tuple[str, tuple[object, ...]]:
        if self.guild_id is None:
            return "kind = ? AND finished_at >= ?", (self.kind, self.since)
        return "guild_id = ? AND kind = ? AND finished_at >= ?", (self.guild_id, self.kind, self.since)

    async def window(
        self, db: Database, page: int, page_size: int, caller_id: int
    ) -> tuple[int, list[Standing], Standing | None]:
        where, params = self._window_source()
        having = f" HAVING COUNT(*) >= {MIN_AVERAGE_GAMES}" if self.metric == "average" else ""
        # The aggregate is built once (MATERIALIZED) and read four times: the page (line 0), the caller's line
        # with its rank (line 1), the total (line 2, so an empty page still tells how many pages there are)
        # and the rank of the page's first line (line 3); the page's other ranks follow from their order.
        found_lines = await db.fetch_all(
            f"""
            WITH agg AS MATERIALIZED (
                SELECT user_id, COUNT(*) AS games, {_WINDOW_VALUE[self.metric]} AS value
                FROM results WHERE {where} GROUP BY user_id{having}
            ), page AS MATERIALIZED (
                SELECT user_id, games, value FROM agg ORDER BY value DESC, games DESC, user_id LIMIT ? OFFSET ?
            ), picked AS (
                SELECT 0 AS line, NULL AS rank, user_id, games, value FROM page
                UNION ALL
                SELECT 1, 1 + (SELECT COUNT(*) FROM agg AS better WHERE better.value > mine.value), user_id, games,
                       value
                FROM agg AS mine WHERE user_id = ?
            )
            SELECT p.line AS line, p.rank AS rank, p.user_id AS user_id,
                   COALESCE(n.display_name, CAST(p.user_id AS TEXT)) AS name, p.value AS value, p.games AS games
            FROM picked AS p LEFT JOIN player_names AS n USING (user_id)
            UNION ALL
            SELECT 2, (SELECT COUNT(*) FROM agg), NULL, NULL, NULL, NULL
            UNION ALL
            SELECT 3, 1 + (SELECT COUNT(*) FROM agg WHERE value > (SELECT MAX(value) FROM page)), NULL, NULL, NULL,
                   NULL
            ORDER BY line, value DESC, games DESC, user_id
            """,
            (*params, page_size, page * page_size, caller_id),
        )
        total, first_rank, found, caller = 0, 0, [], None
        for line, rank, user_id, name, figure, games in found_lines:
            if line == 0:
                found.append((user_id, games, figure, name))
            elif line == 1:
                caller = Standing(rank, user_id, str(name), figure, games)
            elif line == 2:
                total = rank
            else:
                first_rank = rank
        rows = _ranked(found, page * page_size, first_rank)
        caller = next((row for row in rows if row.user_id == caller_id), caller)
        return total, rows, caller

    async def games_of(self, db: Database, user_id: int) -> int:
        """The user's games on this board whether or not they rank (for "5 games needed" hints)."""
        if self.period == "all":
            row = await db.fetch_one(
                "SELECT games FROM standings WHERE kind = ? AND scope = ? AND user_id = ?",
                (self.kind, self.scope, user_id),
            )
        else:
            where, params = self._window_source()
            row = await db.fetch_one(f"SELECT COUNT(*) FROM results WHERE {where} AND user_id = ?", (*params, user_id))
        return int(row[0]) if row else 0


def _ranked(found: Sequence[Row] | Sequence[tuple[Any, ...]], offset: int, first_rank: int) -> list[Standing]:
    """Competition ranks ("1224") for a page listed best first.

    A line ties with the line above it or ranks by its position, so only the first line's rank needs the
    database (1 + the players with a strictly better figure): one counted range instead of one per line.
    """
    rows: list[Standing] = []
    for position, (user_id, games, figure, name) in enumerate(found, offset + 1):
        if not rows:
            rank = first_rank
        elif rows[-1].value == figure:
            rank = rows[-1].rank
        else:
            rank = position
        rows.append(Standing(rank, user_id, str(name), figure, games))
    return rows
