"""Leaderboard pages, a caller's own rank, per-game statistics and forget-me, over the stored results.

All-time boards read the ``standings`` table that triggers keep next to ``results`` (migration 0002). Week and
month are rolling windows ("the last 7/30 days" up to now): their totals are kept the same way in
``window_standings`` (migration 0011), and before such a board is read the window's start is moved to "now",
which recounts only the players who had a result leave it. A board's size, where a page starts and a player's
rank are sums over ``board_figures`` (migration 0012: per board, how many players have each figure), so no
read walks the players ahead of a line; a page is then ten lines of the metric's index. docs/benchmarks.md has
the figures on a million results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

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
from bot.storage.backend import Conflict, Database, PerDialect, Row, Transaction, counter_value
from bot.storage.forgotten import FORGET_SEAT, FORGOTTEN_NAME, nobody_reviews, without_news

#: The standings scope of boards over every server (guild ids are snowflakes, never 0).
GLOBAL_SCOPE = 0
#: The user's seats in games that have not ended (parameter 1: the player id), locked on PostgreSQL, so that a save
#: ending one of them either commits first (and forget-me then deletes its result) or waits for forget-me's note.
_SEATS_IN_PROGRESS = (
    "SELECT s.game_id, s.player FROM game_seats AS s JOIN games AS g ON g.id = s.game_id "
    "WHERE s.player = ?1 AND s.kind = 'user' AND g.status IN ('lobby', 'running')"
)
#: The ended games the user sat in (parameter 1: the player id).
_ENDED_GAMES = (
    "SELECT s.game_id FROM game_seats AS s JOIN games AS g ON g.id = s.game_id "
    "WHERE s.player = ?1 AND s.kind = 'user' AND g.status IN ('finished', 'abandoned')"
)


@dataclass(frozen=True)
class Forgotten:
    """What one forget-me did: the results it deleted, the games in progress whose seat it noted."""

    results: int
    games: int


def _order(metric: str) -> str:
    """The order a board lists players in: figure, then more games, then user id; as the metric's index."""
    return "games DESC, user_id" if metric == "games" else f"{metric} DESC, games DESC, user_id"


#: A user's kept figures per game (parameters: the kinds, the scope, the user), with one row per counter, or one
#: row with NULL counter columns for a game without counters; the rule set column is NULL (all of them).
_KEPT = (
    "SELECT s.kind, CAST(NULL AS TEXT), s.games, s.wins, s.best, s.score_sum, s.last_at, c.name, c.total, c.games "
    "FROM standings AS s LEFT JOIN standing_counters AS c USING (kind, scope, user_id) "
    "WHERE s.kind IN ({marks}) AND s.scope = ? AND s.user_id = ?"
)
#: The same figures per game and rule set, kept by the triggers of migration 0019 (parameters: the user, the kinds).
_PER_RULE_SET = (
    "SELECT s.kind, s.variant, s.games, s.wins, s.best, s.score_sum, s.last_at, c.name, c.total, c.games "
    "FROM rule_set_standings AS s LEFT JOIN rule_set_counters AS c USING (user_id, kind, variant) "
    "WHERE s.user_id = ? AND s.kind IN ({marks})"
)


def _marks(kinds: Sequence[str]) -> str:
    return ", ".join("?" for _ in kinds)


def _entries(found: Sequence[Row]) -> list[GameStats]:
    """One entry per (game, rule set) of rows as :data:`_KEPT` and :data:`_PER_RULE_SET` answer."""
    figures: dict[tuple[str, str | None], tuple[int, int, int, int, float]] = {}
    counters: dict[tuple[str, str | None], dict[str, CounterTotal]] = {}
    for kind, variant, games, wins, best, score_sum, last_at, name, total, counted in found:
        figures[kind, variant] = (games, wins, best, score_sum, last_at)
        kept = counters.setdefault((kind, variant), {})
        if name is not None:
            kept[name] = CounterTotal(counter_value(total), counted)
    return [
        GameStats(kind, *figures[kind, variant], counters=counters[kind, variant], variant=variant)
        for kind, variant in figures
    ]


def _place(entry: GameStats, kinds: Sequence[str], rule_sets: Mapping[str, Sequence[str]]) -> tuple[int, int, str]:
    """Where an entry goes: its game's place in ``kinds``, then its rule set's in ``rule_sets`` (others last)."""
    order, variant = rule_sets.get(entry.kind, ()), entry.variant or ""
    return kinds.index(entry.kind), order.index(variant) if variant in order else len(order), variant


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
        apart: str | None = None,
    ) -> LeaderboardPage:
        """Page ``page`` of the board for ``kind`` in one guild (or every server when ``guild_id`` is None).

        ``apart`` is the kind whose results are kept apart from this board (a game's with a computer): an empty
        board tells whether it has any in the same scope and period (``LeaderboardPage.apart_results``), one seek
        of the kept totals' key."""
        if metric not in METRICS or period not in PERIODS:
            raise ValueError(f"unknown metric {metric!r} or period {period!r}")
        board = _Board(kind, metric, period, guild_id, now)
        if period != "all":
            await _move_window(self._db, board.days, board.since)
        page, total, rows, caller, caller_games = await board.fetch(self._db, max(0, page), page_size, caller_id)
        apart_results = not total and apart is not None and await replace(board, kind=apart).has_results(self._db)
        return LeaderboardPage(
            kind, metric, period, guild_id, page, total, tuple(rows), caller, caller_games, page_size, apart_results
        )

    async def user_stats(
        self, user_id: int, kinds: Sequence[str], *, rule_sets: Mapping[str, Sequence[str]] | None = None
    ) -> list[GameStats]:
        """The user's figures per game they played, in the order of ``kinds``; games never played are left out.

        A game in ``rule_sets`` comes as one entry per rule set the user played, in the order listed there (one not
        listed, since retired, after them by name): ``standings`` keeps a game's figures over all its rule sets,
        as the leaderboards rank, so these come from ``rule_set_standings`` and ``rule_set_counters``, kept per
        rule set by the triggers of migration 0019 (added up from the results, they took 110 ms for the heaviest
        user of the benchmark). The other games are read from ``standings``.
        """
        split = rule_sets or {}
        whole = [kind for kind in kinds if kind not in split]
        apart = [kind for kind in kinds if kind in split]
        found: list[Row] = []
        if whole:
            found += await self._db.fetch_all(_KEPT.format(marks=_marks(whole)), (*whole, GLOBAL_SCOPE, user_id))
        if apart:
            found += await self._db.fetch_all(_PER_RULE_SET.format(marks=_marks(apart)), (user_id, *apart))
        return sorted(_entries(found), key=lambda entry: _place(entry, kinds, split))

    async def count_results(self, user_id: int) -> int:
        """How many results forget-me would delete (all games, every server)."""
        row = await self._db.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user_id,))
        assert row is not None  # COUNT(*) always answers
        return row[0]

    async def count_games_in_progress(self, user_id: int) -> int:
        """In how many games that have not ended the user sits: forget-me keeps each from storing their result."""
        row = await self._db.fetch_one(f"SELECT COUNT(*) FROM ({_SEATS_IN_PROGRESS}) AS seats", (str(user_id),))
        assert row is not None
        return row[0]

    async def forget(self, user_id: int) -> Forgotten:
        """Delete every stored result of the user and what was derived from them; how many results went, and in
        how many games in progress the user's seat was noted (none the second time).

        The delete triggers would take each result out of the standings one by one, moving the user's entry
        in every metric index per row. Removing the user's standings (also per rule set), counter totals and name
        first leaves the triggers only lookups that find nothing: about a third less time for a heavy player, with
        the write lock held (docs/benchmarks.md). The seats of finished and abandoned games stay (the other players'
        games keep their shape) but are marked forgotten and lose the user's display name, and those games their
        stored news. The move history of an ended game goes when no person who may review it is left
        (:func:`forgotten.nobody_reviews`); with other people it stays, for their reviews (docs/RULES.md, privacy).
        Games in progress are the game service's: forget-me notes the user's seats (:mod:`bot.storage.forgotten`), and
        the save that ends such a game stores no result for them and replaces their name.
        """
        async with self._db.transaction() as tx:
            player = str(user_id)
            tx.execute(
                PerDialect(_SEATS_IN_PROGRESS, f"{_SEATS_IN_PROGRESS} ORDER BY s.game_id FOR UPDATE OF g"), (player,)
            )
            noted = tx.execute(
                f"INSERT INTO forgotten_seats (game_id, player) {_SEATS_IN_PROGRESS} "
                "ON CONFLICT (game_id, player) DO NOTHING",
                (player,),
            )
            derived = (
                "WHERE user_id = ?1 AND kind IN (SELECT DISTINCT kind FROM results WHERE user_id = ?1) "
                "AND scope IN (SELECT 0 UNION SELECT guild_id FROM results WHERE user_id = ?1)"
            )
            tx.execute(f"DELETE FROM standings {derived}", (user_id,))
            tx.execute(
                f"DELETE FROM window_standings {derived} AND days IN (SELECT days FROM window_marks)", (user_id,)
            )
            tx.execute(f"DELETE FROM standing_counters {derived}", (user_id,))
            tx.execute("DELETE FROM rule_set_standings WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM rule_set_counters WHERE user_id = ?", (user_id,))
            tx.execute("DELETE FROM player_names WHERE user_id = ?", (user_id,))
            deleted = tx.execute("DELETE FROM results WHERE user_id = ?", (user_id,))
            tx.execute(
                f"UPDATE game_seats SET {FORGET_SEAT} WHERE player = ?2 AND kind = 'user' AND forgotten = 0 "
                "AND EXISTS (SELECT 1 FROM games WHERE games.id = game_seats.game_id "
                "AND status IN ('finished', 'abandoned'))",
                (FORGOTTEN_NAME, player),
            )
            tx.execute(without_news(_ENDED_GAMES), (player,))
            # The move history of their ended games that nobody else reviews: each stored state holds their card.
            tx.execute(
                f"DELETE FROM game_moves WHERE game_id IN ({_ENDED_GAMES}) AND {nobody_reviews('game_moves.game_id')}",
                (player,),
            )
        return Forgotten(deleted.rowcount, noted.rowcount)


#: An average's floor in SQL: SQLite without its optional math functions (the truncated value, one less when
#: the truncation went up), as migration 0012 keeps it.
_FLOOR = {
    "sqlite": "(CAST({value} AS INTEGER) - ({value} < CAST({value} AS INTEGER)))",
    "postgres": "floor({value})",
}


#: A board's rows in board_figures (parameters 1-4: days, 0 for all time; kind; scope; metric).
_FIGURES = "days = ?1 AND kind = ?2 AND scope = ?3 AND metric = ?4"
#: Which of the players with a kept row a board lists, over that row (``{games}`` and ``{figure}``: its columns of
#: games and of the metric), and over its rows in board_figures. The average board: the players with enough games
#: for an average (its index and its figures hold no others). The wins board: the players who have won (a game
#: alone is no win, migration 0018, and "#1 — 0 wins" would rank a loss first); the figure 0 keeps its row in
#: board_figures, left out of every sum, so the board's size, where its pages start and its ranks count the
#: winners alone, and nothing new is kept.
_LISTED = {"average": f"{{games}} >= {MIN_AVERAGE_GAMES}", "wins": "{figure} >= 1"}
_LISTED_FIGURES = {"wins": "figure >= 1"}


def _figures(metric: str) -> str:
    """The board's rows in board_figures that count: those of the figures it lists."""
    listed = _LISTED_FIGURES.get(metric)
    return _FIGURES if listed is None else f"{_FIGURES} AND {listed}"


def _running(figures: str) -> str:
    """The board's figures with the players above each: a running sum, best figure first."""
    return (
        "SELECT figure, players, SUM(players) OVER (ORDER BY figure DESC) - players AS above "
        f"FROM board_figures WHERE {figures}"
    )


def _seek_first(figures: str) -> str:
    """The first page (the most asked for) starts at the best figure anyone has, without the running sum."""
    return f"SELECT figure, 0 AS above FROM board_figures WHERE {figures} AND players > 0 ORDER BY figure DESC LIMIT 1"


def _seek_any(figures: str) -> str:
    """Any other page. span: the offsets of its first and last lines (?5 and on, or the last page's when ?5 is past
    the end, so such a page is answered by the same statement). at, from the few figures that hold the page's
    lines: the figures of its first and last lines (head and tail), and the lines that a read from the first line
    steps over at the start of its figure (ahead), or a read backwards from the last line at the end of its
    (behind)."""
    return (
        f"size AS (SELECT COALESCE(SUM(players), 0) AS total FROM board_figures WHERE {figures}), "
        "span AS (SELECT first_line, "
        "CASE WHEN first_line + ?6 < total THEN first_line + ?6 ELSE total END - 1 AS last_line FROM ("
        "SELECT CASE WHEN ?5 >= total AND total > 0 THEN (total - 1) / ?6 * ?6 ELSE ?5 END AS first_line, total "
        "FROM size) AS s), "
        "at AS (SELECT MAX(figure) AS head, COALESCE(MAX(first_line - above), 0) AS ahead, MIN(figure) AS tail, "
        "COALESCE(MAX(above + players - 1 - last_line), 0) AS behind "
        f"FROM ({_running(figures)}) AS f CROSS JOIN span "
        "WHERE players > 0 AND above <= last_line AND above + players > first_line)"
    )


@dataclass
class _Read:
    """What one read of a board found: see :meth:`_Board._read`."""

    lines: list[tuple[int, int, float, object]] = field(default_factory=list)
    mine: tuple[int, int, float, object] | None = None
    #: None when the board does not list the caller (too few games for an average, no win on a wins board).
    caller_rank: int | None = None
    total: int = 0
    offset: int = 0
    first_rank: int = 1


@dataclass(frozen=True)
class _Board:
    """The SQL for one board, chosen by period and scope.

    Every board reads kept totals through the metric's index: ``standings`` for all time, ``window_standings``
    (the rows of the window's length in days) for week and month, brought up to date first by
    :func:`_move_window`. Its size, where a page starts and a player's rank come from ``board_figures``
    (migration 0012: how many players have each figure), so none of them counts the players ahead.
    """

    kind: str
    metric: str
    period: str
    guild_id: int | None
    now: float

    @property
    def scope(self) -> int:
        return GLOBAL_SCOPE if self.guild_id is None else self.guild_id

    @property
    def days(self) -> int:
        return PERIOD_DAYS[self.period]

    @property
    def since(self) -> float:
        return self.now - self.days * 86400

    async def has_results(self, db: Database) -> bool:
        """Whether anyone has a result of this board's kind in its scope and period, the metric aside (a window's
        totals as last moved): the first row of the kept totals' primary key range."""
        if self.period == "all":
            found = await db.fetch_one(
                "SELECT 1 FROM standings WHERE kind = ? AND scope = ? LIMIT 1", (self.kind, self.scope)
            )
        else:
            found = await db.fetch_one(
                "SELECT 1 FROM window_standings WHERE days = ? AND kind = ? AND scope = ? LIMIT 1",
                (self.days, self.kind, self.scope),
            )
        return found is not None

    async def fetch(
        self, db: Database, page: int, page_size: int, caller_id: int
    ) -> tuple[int, int, list[Standing], Standing | None, int]:
        """The page (the last one when asked past the end), the total, the page's lines, the caller's line, and the
        caller's games in this board's scope and period whether or not they rank (for the hints "5 games needed" and
        "no wins yet")."""
        read = await self._read(db, page * page_size, page_size, caller_id)
        page = read.offset // page_size
        rows = _ranked(read.lines, read.offset, read.first_rank)
        caller = next((row for row in rows if row.user_id == caller_id), None)
        mine = read.mine
        caller_games = mine[1] if mine else 0
        if caller is None and mine is not None and read.caller_rank is not None:
            user_id, games, value, name = mine
            caller = Standing(read.caller_rank, user_id, str(name), value, games)
        return page, read.total, rows, caller, caller_games

    async def _read(self, db: Database, offset: int, page_size: int, caller_id: int) -> _Read:
        """The page of lines from ``offset`` on (from the last page's first line when ``offset`` is past the end of
        a board that has lines), its first line's rank, the caller's row and rank, and the board's size: one
        statement, so one snapshot and one hop to the reader, whichever page is asked for.

        ``board_figures`` gives the size and where the page starts and ends: the figures of its first and last
        lines and the players above them. The page is read through the metric's index either forwards from its
        first line's figure (an average's: its floor's first player), stepping over the players of that figure
        ahead of the page, or backwards from the end of its last line's figure, stepping over the players of that
        figure behind it, whichever steps over fewer: a page at the end of a long tie (thousands of players with
        one game on the all-servers games board) then steps over none. A rank is 1 + the players above the
        figure's floor (a sum over the figures) + for an average, the players of the same floor with a higher one
        (counted through the index: both sides compare the stored floats). For the page's first line that sum is
        the running sum's that placed the page (its offset minus the lines of its figure ahead of it), and on the
        first page the rank is 1. The names are joined to the page's lines alone.
        """
        metric = self.metric
        table = "standings" if self.period == "all" else "window_standings"
        # The metric has its own index on the table; INDEXED BY pins the plan to it (left to itself SQLite
        # prefers the games index for the average board's "games >= 5" and sorts every player). PostgreSQL has no
        # such hint and its planner finds the index by itself.
        indexed = f"INDEXED BY {table}_{metric}" if db.dialect == "sqlite" else ""
        plain = "kind = ?2 AND scope = ?3" if self.period == "all" else "days = ?1 AND kind = ?2 AND scope = ?3"
        listed = _LISTED.get(metric)
        where = plain if listed is None else f"{plain} AND {listed.format(games='games', figure=metric)}"
        figures = _figures(metric)
        name = "COALESCE(n.display_name, CAST(s.user_id AS TEXT))"
        # Where the page's lines start: the first page at the best figure, any other at its first line's.
        start = "(SELECT figure FROM seek)" if offset == 0 else "(SELECT head FROM at)"
        if metric == "average":
            floor = _FLOOR[db.dialect].format(value="s.figure")
            bound = f"average < {start} + 1"
            rank = (
                f"1 + (SELECT COALESCE(SUM(players), 0) FROM board_figures WHERE {figures} AND figure > {floor}) "
                f"+ (SELECT COUNT(*) FROM {table} {indexed} "
                f"WHERE {where} AND average > s.figure AND average < {floor} + 1)"
            )
        else:
            bound = f"{metric} <= {start}"
            rank = f"1 + (SELECT COALESCE(SUM(players), 0) FROM board_figures WHERE {figures} AND figure > s.figure)"
        if listed is not None:
            # The caller's row is read whether or not the board lists them (their games are told either way).
            rank = f"CASE WHEN {listed.format(games='s.games', figure='s.figure')} THEN {rank} END"
        lines = f"SELECT user_id, games, {metric} AS figure FROM {table} {indexed} WHERE {where} AND"
        if offset == 0:
            # The first page is never past the end, and starts at the best figure: no running sum.
            page = (
                f"{lines} {bound} ORDER BY {_order(metric)} LIMIT ?6 OFFSET COALESCE(?5 - (SELECT above FROM seek), 0)"
            )
            pages = f"WITH seek AS ({_seek_first(figures)}), page AS ({page})"
            size = f"SELECT COALESCE(SUM(players), 0) FROM board_figures WHERE {figures}"
            offset_sql = "?5"
            # The best line ranks first: no part 3, the read's first rank stays 1.
            first_rank = ""
        else:
            forwards = (
                f"{lines} {bound} ORDER BY {_order(metric)} "
                "LIMIT (SELECT CASE WHEN ahead <= behind THEN ?6 ELSE 0 END FROM at) OFFSET (SELECT ahead FROM at)"
            )
            # The same lines, the board's order reversed (an index read backwards), from the tail's figure on.
            reverse = "games, user_id DESC" if metric == "games" else f"{metric}, games, user_id DESC"
            backwards = (
                f"{lines} {metric} >= (SELECT tail FROM at) ORDER BY {reverse} "
                "LIMIT (SELECT CASE WHEN ahead <= behind THEN 0 ELSE last_line - first_line + 1 END FROM at, span) "
                "OFFSET (SELECT behind FROM at)"
            )
            pages = (
                f"WITH {_seek_any(figures)}, forwards AS ({forwards}), backwards AS ({backwards}), "
                "page AS (SELECT * FROM forwards UNION ALL SELECT * FROM backwards)"
            )
            size, offset_sql = "SELECT total FROM size", "(SELECT first_line FROM span)"
            # The players above the first line's figure are the running sum's, which ``at`` already has: the first
            # line minus the lines of its figure ahead of it. An average's figure is its floor: add the players of
            # that floor with a higher average than the first line's (through the index, as for the caller). Both
            # as subqueries of that line's row: joined with span and at, SQLite materializes the line (0.03 ms more).
            part = "UNION ALL SELECT 3, NULL, NULL, NULL, NULL,"
            if metric == "average":
                same_floor = f"{where} AND average > s.figure AND average < (SELECT head FROM at) + 1"
                first_rank = (
                    f"{part} 1 + (SELECT first_line - ahead FROM span CROSS JOIN at) "
                    f"+ (SELECT COUNT(*) FROM {table} {indexed} WHERE {same_floor}) "
                    "FROM (SELECT MAX(figure) AS figure FROM page) AS s"
                )
            else:
                first_rank = f"{part} 1 + first_line - ahead FROM span CROSS JOIN at"
        # Part 0: the page's lines; 1: the caller's row and rank; 2: the page's first offset and the board's size;
        # 3: the first line's rank (past the first page).
        found = await db.fetch_all(
            f"{pages} "
            f"SELECT 0 AS part, s.user_id, s.games, s.figure, {name} AS name, CAST(NULL AS BIGINT) AS rank "
            "FROM page AS s LEFT JOIN player_names AS n USING (user_id) "
            f"UNION ALL SELECT 1, s.user_id, s.games, s.figure, {name}, {rank} FROM ("
            f"SELECT user_id, games, {metric} AS figure FROM {table} WHERE {plain} AND user_id = ?7"
            ") AS s LEFT JOIN player_names AS n USING (user_id) "
            f"UNION ALL SELECT 2, {offset_sql}, NULL, NULL, NULL, ({size}) "
            f"{first_rank} "
            "ORDER BY part, figure DESC, games DESC, user_id",
            (0 if self.period == "all" else self.days, self.kind, self.scope, metric, offset, page_size, caller_id),
        )
        read = _Read()
        for part, user_id, games, value, name, rank in found:
            if part == 0:
                read.lines.append((user_id, games, value, name))
            elif part == 1:
                read.mine, read.caller_rank = (user_id, games, value, name), None if rank is None else int(rank)
            elif part == 2:
                read.offset, read.total = int(user_id), int(rank)
            else:
                read.first_rank = int(rank)
        return read


async def _move_window(db: Database, days: int, since: float) -> None:
    """Bring the kept totals of the ``days``-long window to the window starting at ``since``.

    Nothing is written while no result finished between the kept start and ``since`` (the kept totals are then
    those of the new window too): one read. Otherwise the players whose results left the window have their rows
    counted again from the results still in it (a handful of players when boards are asked for often). Asked
    for an older start than the kept one (a clock set back, a test's earlier "now") the window is built again
    from results, except within :data:`WINDOW_SLACK` seconds: two boards asked for at nearly the same moment
    must not take turns rebuilding it, so the earlier one is answered as of the later.
    """
    found = await db.fetch_one(
        "SELECT m.since, EXISTS (SELECT 1 FROM results WHERE finished_at >= m.since AND finished_at < ?) "
        "FROM window_marks AS m WHERE m.days = ?",
        (since, days),
    )
    kept: float | None = None if found is None else found[0]
    if found is not None and found[0] - WINDOW_SLACK <= since and not found[1]:
        return
    rebuild = kept is None or since < kept
    left: list[Row] = []
    if not rebuild:
        left = await db.fetch_all(
            "SELECT DISTINCT kind, guild_id, user_id FROM results WHERE finished_at >= ? AND finished_at < ?",
            (kept, since),
        )
    try:
        async with db.transaction() as tx:
            # The move is claimed on the start it was read at: a board that moved the window meanwhile makes
            # this one a conflict, and its totals answer this board too. (A write batch cannot read, so the
            # claim is the check.) Results saved meanwhile are in the recount: it runs in the same transaction.
            if kept is None:
                tx.execute("INSERT INTO window_marks (days, since) VALUES (?, ?)", (days, since))
            else:
                tx.execute(
                    "UPDATE window_marks SET since = ? WHERE days = ? AND since = ?", (since, days, kept), expect_rows=1
                )
            if rebuild:
                _count_window(tx, days, since)
            else:
                _recount_players(tx, days, since, [(kind, guild, user) for kind, guild, user in left])
    except Conflict:
        return


_WINDOW_COLUMNS = "INSERT INTO window_standings (days, kind, scope, user_id, games, wins, best, score_sum, average) "
# DOUBLE PRECISION: a REAL on SQLite, and a float8 on PostgreSQL (whose REAL is a float4).
_WINDOW_FIGURES = "COUNT(*), SUM(won), MAX(score), SUM(score), CAST(SUM(score) AS DOUBLE PRECISION) / COUNT(*)"


def _count_window(tx: Transaction, days: int, since: float) -> None:
    """Build a window's totals from every result finished since ``since`` (the first board, or a clock set back).

    The triggers take each deleted row out of ``board_figures`` and put each new one in; the window's figures left
    at no player are dropped in between, so a rebuilt window keeps none.
    """
    tx.execute("DELETE FROM window_standings WHERE days = ?", (days,))
    tx.execute("DELETE FROM board_figures WHERE days = ?", (days,))
    tx.execute(
        f"{_WINDOW_COLUMNS} SELECT ?, kind, guild_id, user_id, {_WINDOW_FIGURES} FROM results "
        "WHERE finished_at >= ? AND guild_id IS NOT NULL GROUP BY kind, guild_id, user_id",
        (days, since),
    )
    tx.execute(
        f"{_WINDOW_COLUMNS} SELECT ?, kind, 0, user_id, {_WINDOW_FIGURES} FROM results "
        "WHERE finished_at >= ? GROUP BY kind, user_id",
        (days, since),
    )


def _recount_players(tx: Transaction, days: int, since: float, left: Sequence[tuple[str, int | None, int]]) -> None:
    """Count again, from their results still in the window, the rows of ``left`` (kind, guild, user): the
    player's row over every server and the one of that guild (their other guilds' rows are unchanged)."""
    players = sorted({(kind, user) for kind, _, user in left})
    keys = {(kind, 0, user) for kind, user in players} | {(k, g, u) for k, g, u in left if g is not None}
    tx.executemany(
        "DELETE FROM window_standings WHERE days = ? AND kind = ? AND scope = ? AND user_id = ?",
        [(days, *key) for key in sorted(keys)],
    )
    # Through the index results_user (user_id, kind, finished_at): only these players' results are read.
    tx.executemany(
        f"{_WINDOW_COLUMNS} SELECT ?, kind, guild_id, user_id, {_WINDOW_FIGURES} FROM results "
        "WHERE user_id = ? AND kind = ? AND finished_at >= ? AND guild_id = ? GROUP BY kind, guild_id, user_id",
        [(days, user, kind, since, guild) for kind, guild, user in sorted(keys) if guild != 0],
    )
    tx.executemany(
        f"{_WINDOW_COLUMNS} SELECT ?, kind, 0, user_id, {_WINDOW_FIGURES} FROM results "
        "WHERE user_id = ? AND kind = ? AND finished_at >= ? GROUP BY kind, user_id",
        [(days, user, kind, since) for kind, user in players],
    )


#: Seconds a board may be answered "later" than asked, rather than rebuilding a window (see :func:`_move_window`).
WINDOW_SLACK = 5.0


def _ranked(found: Sequence[tuple[int, int, float, object] | Row], offset: int, first_rank: int) -> list[Standing]:
    """Competition ranks ("1224") for a page listed best first.

    A line ties with the line above it or ranks by its position, so only the first line's rank needs the
    database (1 + the players with a strictly better figure), in the same statement as the page.
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
