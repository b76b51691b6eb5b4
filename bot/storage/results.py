"""Finished games' per-player results: written when a game ends, read by leaderboards and stats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields

import aiosqlite

from bot.storage.database import Database


@dataclass(frozen=True)
class ResultRow:
    """One player's line of one finished game, with the counters some games keep."""

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
    kniffels: int | None = None
    upper_bonus: int | None = None
    tuttos: int | None = None
    settlement: float | None = None


_COLUMNS = [field.name for field in fields(ResultRow)]
_INSERT = f"INSERT INTO results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"


class ResultsRepository:
    """Stores results; leaderboard and stats queries build on the same table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    async def insert(conn: aiosqlite.Connection, rows: Sequence[ResultRow]) -> None:
        """Add rows inside the caller's transaction (a game's end and its results commit together)."""
        await conn.executemany(_INSERT, [astuple(row) for row in rows])

    async def for_game(self, game_id: int) -> list[ResultRow]:
        """The stored results of one game, best rank first."""
        cursor = await self._db.reader.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM results WHERE game_id = ? ORDER BY rank, user_id", (game_id,)
        )
        return [_row(record) for record in await cursor.fetchall()]


def _row(record: aiosqlite.Row) -> ResultRow:
    values = dict(zip(_COLUMNS, tuple(record), strict=True))
    values["won"] = bool(values["won"])
    return ResultRow(**values)
