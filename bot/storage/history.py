"""The move history of games: every accepted action with the state it was applied to, for post-game reviews.

The rows are written by :meth:`bot.storage.games.GamesRepository.save` in the transaction of the new state (so a
save that fails leaves no history row); this module reads them back and lists a person's finished games.
Knows no game: an action and a state are JSON text to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.storage.backend import Database, Transaction

MoveSource = Literal["player", "computer", "timeout"]


@dataclass(frozen=True)
class MoveRow:
    """One accepted action: who acted, who decided it, the action (JSON) and the state (JSON) it was applied to."""

    player: str
    source: MoveSource
    action: str
    state: str


@dataclass(frozen=True)
class StoredMove(MoveRow):
    """A move as read back, with the game version its save created and its order inside that save."""

    version: int = 0
    step: int = 0


@dataclass(frozen=True)
class FinishedGame:
    """A finished game a person sat in, for the review command's choices."""

    game_id: int
    kind: str
    variant: str
    finished_at: float
    moves: int


def insert(tx: Transaction, game_id: int, version: int, moves: Sequence[MoveRow]) -> None:
    """Write ``moves`` inside the caller's transaction: one statement for the whole save."""
    tx.executemany(
        "INSERT INTO game_moves (game_id, version, step, player, source, action, state) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(game_id, version, step, m.player, m.source, m.action, m.state) for step, m in enumerate(moves)],
    )


def delete(tx: Transaction, game_id: int) -> None:
    """Drop a game's history inside the caller's transaction."""
    tx.execute("DELETE FROM game_moves WHERE game_id = ?", (game_id,))


class HistoryRepository:
    """Reading the move history back, and the finished games a person can review."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def moves(self, game_id: int) -> list[StoredMove]:
        """Every stored move of a game, in the order they were played."""
        rows = await self._db.fetch_all(
            "SELECT player, source, action, state, version, step FROM game_moves WHERE game_id = ? "
            "ORDER BY version, step",
            (game_id,),
        )
        return [StoredMove(*tuple(row)) for row in rows]

    async def latest_save(self, game_id: int) -> StoredMove | None:
        """The first move of the game's latest save that holds moves (the one that was chosen; forced steps follow
        it), with the state it was applied to; None before any move. One row read through the key: asked only
        when a press arrives after the game moved on."""
        row = await self._db.fetch_one(
            "SELECT player, source, action, state, version, step FROM game_moves WHERE game_id = ? "
            "ORDER BY version DESC, step LIMIT 1",
            (game_id,),
        )
        return StoredMove(*tuple(row)) if row is not None else None

    async def finished_games(self, player: str, kinds: Sequence[str], limit: int = 25) -> list[FinishedGame]:
        """The latest finished games of ``kinds`` that ``player`` sat in and that have a history, newest first."""
        if not kinds:
            return []
        marks = ", ".join("?" for _ in kinds)
        rows = await self._db.fetch_all(
            "SELECT g.id, g.kind, g.variant, g.finished_at, "
            "(SELECT COUNT(*) FROM game_moves AS m WHERE m.game_id = g.id AND m.player = s.player) AS moves "
            "FROM game_seats AS s JOIN games AS g ON g.id = s.game_id "
            f"WHERE s.player = ? AND s.kind = 'user' AND g.status = 'finished' AND g.kind IN ({marks}) "
            "AND EXISTS (SELECT 1 FROM game_moves AS m WHERE m.game_id = g.id) "
            "ORDER BY g.finished_at DESC, g.id DESC LIMIT ?",
            (player, *kinds, limit),
        )
        return [FinishedGame(*tuple(row)) for row in rows]
