"""Finished games' per-player results: written when a game ends, read by leaderboards and stats."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from bot.rankings import CounterValue
from bot.storage.backend import Database, PerDialect, Row, Transaction, counter_value


@dataclass(frozen=True)
class ResultRow:
    """One player's line of one finished game, with the counters its game keeps.

    ``counters`` maps a counter's name to its value as the game reported it; storage does not know the names.
    A counter the game's rules do not have is absent (not 0), so a rate over "games that had it" stays exact.
    """

    game_id: int
    kind: str
    variant: str
    guild_id: int | None
    channel_id: int
    user_id: int
    display_name: str
    score: int
    rank: int
    won: bool
    finished_at: float
    counters: Mapping[str, CounterValue] = field(default_factory=dict)


_COLUMNS = [item.name for item in fields(ResultRow) if item.name != "counters"]
_INSERT = f"INSERT INTO results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"
# The result's id comes from its (game, user) key, so every row of a game goes in one executemany.
# PostgreSQL cannot tell the types of parameters in a select list: they are cast to the columns' types there.
_INSERT_COUNTER = PerDialect(
    sqlite="INSERT INTO result_counters (result_id, name, value) "
    "SELECT id, ?, ? FROM results WHERE game_id = ? AND user_id = ?",
    postgres="INSERT INTO result_counters (result_id, name, value) "
    "SELECT id, CAST(? AS TEXT), CAST(? AS NUMERIC) FROM results WHERE game_id = ? AND user_id = ?",
)


class ResultsRepository:
    """Stores results; leaderboard and stats queries build on the same tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def insert(tx: Transaction, rows: Sequence[ResultRow]) -> None:
        """Add rows inside the caller's transaction (a game's end and its results commit together)."""
        tx.executemany(_INSERT, [_values(row) for row in rows])
        counters = [
            (name, value, row.game_id, row.user_id) for row in rows for name, value in sorted(row.counters.items())
        ]
        tx.executemany(_INSERT_COUNTER, counters)

    async def for_game(self, game_id: int) -> list[ResultRow]:
        """The stored results of one game, best rank first."""
        found = await self._db.fetch_all(
            "SELECT r.user_id, c.name, c.value FROM result_counters AS c JOIN results AS r ON r.id = c.result_id "
            "WHERE r.game_id = ?",
            (game_id,),
        )
        counters: dict[int, dict[str, CounterValue]] = defaultdict(dict)
        for user_id, name, value in found:
            counters[user_id][name] = counter_value(value)
        rows = await self._db.fetch_all(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE game_id = ? ORDER BY rank, user_id", (game_id,)
        )
        return [_row(record, counters) for record in rows]


def _values(row: ResultRow) -> tuple[Any, ...]:
    """The columns of a result; ``won`` as 0/1, the column's type on both backends."""
    return tuple(int(row.won) if column == "won" else getattr(row, column) for column in _COLUMNS)


def _row(record: Row, counters: Mapping[int, dict[str, CounterValue]]) -> ResultRow:
    values = dict(zip(_COLUMNS, tuple(record), strict=True))
    values["won"] = bool(values["won"])
    return ResultRow(**values, counters=counters.get(values["user_id"], {}))
