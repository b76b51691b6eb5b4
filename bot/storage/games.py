"""Games and their seated players: create, load, and save with an optimistic version check."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import aiosqlite

from bot.storage.database import Database
from bot.storage.results import ResultRow, ResultsRepository

GameStatus = Literal["lobby", "running", "finished", "abandoned"]
SeatStatus = Literal["active", "left", "removed"]
ACTIVE_STATUSES = ("lobby", "running")


class ChannelBusy(Exception):
    """The channel already has a game in its lobby or running."""

    def __init__(self, game: GameRecord) -> None:
        super().__init__(f"channel {game.channel_id} already has game {game.id}")
        self.game = game


class StaleVersion(Exception):
    """Someone saved the game since it was loaded; the caller's change was not written."""


@dataclass(frozen=True)
class Seat:
    """A player at the table, in join order."""

    user_id: int
    display_name: str
    status: SeatStatus = "active"
    timeouts: int = 0


@dataclass(frozen=True)
class GameRecord:
    """A game row with its seats, as loaded; change it with :func:`dataclasses.replace` and save it."""

    id: int
    kind: str
    variant: str
    guild_id: int | None
    channel_id: int
    host_id: int
    status: GameStatus
    version: int
    created_at: float
    updated_at: float
    locale: str = "en-US"
    message_id: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    state: str | None = None
    deadline_at: float | None = None
    finished_at: float | None = None
    seats: tuple[Seat, ...] = ()

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def seat(self, user_id: int) -> Seat | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)


_GAME_COLUMNS = (
    "id, kind, variant, guild_id, channel_id, host_id, status, version, created_at, updated_at, locale, "
    "message_id, options, state, deadline_at, finished_at"
)


class GamesRepository:
    """All SQL about games and seats."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(
        self,
        *,
        kind: str,
        variant: str,
        guild_id: int | None,
        channel_id: int,
        host: Seat,
        locale: str,
        options: dict[str, Any],
        deadline_at: float | None,
    ) -> GameRecord:
        """Insert a new game in its lobby with the host seated, or raise :class:`ChannelBusy`."""
        now = time.time()
        encoded_options = json.dumps(options)
        try:
            async with self._db.transaction() as conn:
                cursor = await conn.execute(
                    "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, locale, status, options, "
                    "deadline_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'lobby', ?, ?, ?, ?)",
                    (kind, variant, guild_id, channel_id, host.user_id, locale, encoded_options, deadline_at, now, now),
                )
                game_id = cursor.lastrowid
                assert game_id is not None
                await _write_seats(conn, game_id, (host,))
        except sqlite3.IntegrityError:
            existing = await self.active_in_channel(channel_id)
            if existing is None:
                raise
            raise ChannelBusy(existing) from None
        created = await self.get(game_id)
        assert created is not None
        return created

    async def get(self, game_id: int) -> GameRecord | None:
        cursor = await self._db.reader.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        row = await cursor.fetchone()
        return await self._with_seats(row) if row else None

    async def active_in_channel(self, channel_id: int) -> GameRecord | None:
        cursor = await self._db.reader.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status IN ('lobby', 'running')",
            (channel_id,),
        )
        row = await cursor.fetchone()
        return await self._with_seats(row) if row else None

    async def save(self, game: GameRecord, results: Sequence[ResultRow] = ()) -> GameRecord:
        """Write every field and seat of ``game`` (and results) in one transaction, bumping the version.

        Raises :class:`StaleVersion` when the stored version is no longer ``game.version``.
        """
        now = time.time()
        saved = replace(game, version=game.version + 1, updated_at=now)
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE games SET status = ?, message_id = ?, options = ?, state = ?, deadline_at = ?, "
                "finished_at = ?, locale = ?, version = ?, updated_at = ? WHERE id = ? AND version = ?",
                (
                    saved.status,
                    saved.message_id,
                    json.dumps(saved.options),
                    saved.state,
                    saved.deadline_at,
                    saved.finished_at,
                    saved.locale,
                    saved.version,
                    now,
                    game.id,
                    game.version,
                ),
            )
            if cursor.rowcount != 1:
                raise StaleVersion(f"game {game.id} changed since version {game.version}")
            await conn.execute("DELETE FROM game_players WHERE game_id = ?", (game.id,))
            await _write_seats(conn, game.id, saved.seats)
            if results:
                await ResultsRepository.insert(conn, results)
        return saved

    async def attach_message(self, game_id: int, message_id: int) -> None:
        """Remember the game's message without a version bump: the buttons on it carry the current version."""
        async with self._db.transaction() as conn:
            await conn.execute("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))

    async def delete(self, game_id: int) -> None:
        """Remove a game that never reached its players (its lobby message could not be posted)."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    async def next_deadline(self) -> float | None:
        """When the earliest pending deadline of any active game falls due."""
        cursor = await self._db.reader.execute(
            "SELECT MIN(deadline_at) FROM games WHERE deadline_at IS NOT NULL AND status IN ('lobby', 'running')"
        )
        row = await cursor.fetchone()
        return row[0] if row else None

    async def due(self, now: float) -> list[int]:
        """Ids of active games whose deadline has passed, earliest first."""
        cursor = await self._db.reader.execute(
            "SELECT id FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= ? "
            "AND status IN ('lobby', 'running') ORDER BY deadline_at",
            (now,),
        )
        return [row[0] for row in await cursor.fetchall()]

    async def _with_seats(self, row: aiosqlite.Row) -> GameRecord:
        values = dict(row)
        values["options"] = json.loads(values["options"])
        cursor = await self._db.reader.execute(
            "SELECT user_id, display_name, status, timeouts FROM game_players WHERE game_id = ? ORDER BY seat",
            (values["id"],),
        )
        seats = tuple(Seat(*seat) for seat in await cursor.fetchall())
        return GameRecord(**values, seats=seats)


async def _write_seats(conn: aiosqlite.Connection, game_id: int, seats: Sequence[Seat]) -> None:
    await conn.executemany(
        "INSERT INTO game_players (game_id, user_id, seat, display_name, status, timeouts) VALUES (?, ?, ?, ?, ?, ?)",
        [(game_id, s.user_id, index, s.display_name, s.status, s.timeouts) for index, s in enumerate(seats)],
    )
