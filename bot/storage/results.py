"""Finished games' per-player results: written when a game ends, read by leaderboards and stats."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

import aiosqlite

from bot.rankings import CounterValue
from bot.storage.database import Database


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
_INSERT_COUNTER = (
    "INSERT INTO result_counters (result_id, name, value) "
    "SELECT id, ?, ? FROM results WHERE game_id = ? AND user_id = ?"
)


class ResultsRepository:
    """Stores results; leaderboard and stats queries build on the same tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    async def insert(conn: aiosqlite.Connection, rows: Sequence[ResultRow]) -> None:
        """Add rows inside the caller's transaction (a game's end and its results commit together)."""
        await conn.executemany(_INSERT, [tuple(getattr(row, column) for column in _COLUMNS) for row in rows])
        counters = [
            (name, value, row.game_id, row.user_id) for row in rows for name, value in sorted(row.counters.items())
        ]
        if counters:
            await conn.executemany(_INSERT_COUNTER, counters)

    async def for_game(self, game_id: int) -> list[ResultRow]:
        """The stored results of one game, best rank first."""
        found = await self._db.fetch_all(
            "SELECT r.user_id, c.name, c.value FROM result_counters AS c JOIN results AS r ON r.id = c.result_id "
            "WHERE r.game_id = ?",
            (game_id,),
        )
        counters: dict[int, dict[str, CounterValue]] = defaultdict(dict)
        for user_id, name, value in found:
            counters[user_id][name] = value
        rows = await self._db.fetch_all(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE game_id = ? ORDER BY rank, user_id", (game_id,)
        )
        return [_row(record, counters) for record in rows]


def _row(record: aiosqlite.Row, counters: Mapping[int, dict[str, CounterValue]]) -> ResultRow:
    values = dict(zip(_COLUMNS, tuple(record), strict=True))
    values["won"] = bool(values["won"])
    return ResultRow(**values, counters=counters.get(values["user_id"], {}))
