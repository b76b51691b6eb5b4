"""Games and their seated players: create, load, and save with an optimistic version check."""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Unpack

from bot.sharding import SNOWFLAKE_SHIFT, ShardScope
from bot.storage import forgotten, history
from bot.storage.backend import Conflict, Database, Returned, Row, Transaction
from bot.storage.history import MoveRow
from bot.storage.results import ResultRow, ResultsRepository

GameStatus = Literal["lobby", "running", "finished", "abandoned"]
SeatStatus = Literal["active", "left", "removed"]
SeatKind = Literal["user", "computer"]
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
    """A player at the table, in join order: a Discord user or a computer player.

    ``player`` is the engine's id for the seat: a Discord user's id as text, or a computer player's own id.
    """

    player: str
    display_name: str
    kind: SeatKind = "user"
    status: SeatStatus = "active"
    timeouts: int = 0

    @classmethod
    def user(cls, user_id: int, display_name: str) -> Seat:
        return cls(str(user_id), display_name)

    @property
    def user_id(self) -> int | None:
        """The Discord user sitting here, or None for a computer player."""
        return int(self.player) if self.kind == "user" else None


@dataclass(frozen=True)
class GameRecord:
    """A game row with its seats, as loaded; copy it changed with :meth:`changed` (a sixth of
    :func:`dataclasses.replace`'s cost; the bot makes every copy with it, so there is one way) and save it."""

    id: int
    kind: str
    variant: str
    guild_id: int | None
    channel_id: int
    #: The player id of the lobby's host (always a person: computers are added by a host).
    host: str
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
    #: The previous live board while its controls are still to be removed (the board moved down the channel).
    retired_message_id: int | None = None

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def seat(self, player: str) -> Seat | None:
        return next((seat for seat in self.seats if seat.player == player), None)

    def changed(self, **changes: Unpack[RecordChanges]) -> GameRecord:
        """This record with ``changes``: what :func:`dataclasses.replace` makes, in a sixth of the instructions.

        ``replace`` reads all nineteen fields one by one and runs ``__init__``, which sets each past the frozen
        ``__setattr__``: about 60,000 instructions, and every click made three or four copies (docs/benchmarks.md).
        This copies the fields' dict and updates it; the names and types of ``changes`` are checked by mypy as
        ``replace``'s are (:class:`RecordChanges`), and an unknown name raises ``TypeError`` as there.
        """
        unknown = changes.keys() - _RECORD_FIELDS
        if unknown:
            raise TypeError(f"GameRecord has no field {', '.join(sorted(unknown))}")
        copied = _new_record(GameRecord)
        fields = copied.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return copied


class RecordChanges(TypedDict, total=False):
    """The fields of a :class:`GameRecord` with their types, for :meth:`GameRecord.changed` (a test keeps the two
    the same)."""

    id: int
    kind: str
    variant: str
    guild_id: int | None
    channel_id: int
    host: str
    status: GameStatus
    version: int
    created_at: float
    updated_at: float
    locale: str
    message_id: int | None
    options: dict[str, Any]
    state: str | None
    deadline_at: float | None
    finished_at: float | None
    seats: tuple[Seat, ...]
    retired_message_id: int | None


_RECORD_FIELDS = frozenset(RecordChanges.__annotations__)
_new_record = object.__new__


_GAME_FIELDS = (
    "id", "kind", "variant", "guild_id", "channel_id", "host", "status", "version", "created_at", "updated_at",
    "locale", "message_id", "options", "state", "deadline_at", "finished_at", "retired_message_id",
)  # fmt: skip
#: A game row with its seats in one statement, so both come from the same snapshot (one row per seat).
_SELECT_GAME = (
    "SELECT g.id, g.kind, g.variant, g.guild_id, g.channel_id, g.host_id, g.status, g.version, g.created_at, "
    "g.updated_at, g.locale, g.message_id, g.options, g.state, g.deadline_at, g.finished_at, "
    "g.retired_message_id, s.player, s.display_name, s.kind, s.status, s.timeouts "
    "FROM games AS g LEFT JOIN game_seats AS s ON s.game_id = g.id"
)


#: The game columns a save may write besides the version and ``updated_at``, with the record's field of each.
_SAVED_COLUMNS = {
    "status": "status",
    "host_id": "host",
    "message_id": "message_id",
    "options": "options",
    "state": "state",
    "deadline_at": "deadline_at",
    "finished_at": "finished_at",
    "locale": "locale",
}


def _changed_columns(game: GameRecord, before: GameRecord | None) -> tuple[str, ...]:
    """The columns of ``game`` that differ from ``before`` (every one without a ``before`` of the same version).

    A click changes the state and sometimes the options or the deadline; rewriting the others costs SQLite the
    entries of both ``games`` indexes (status and channel, deadline) and their pages in the WAL at every COMMIT,
    and an unchanged ``options`` its JSON encoding. Columns left out keep what the row holds, which the version
    check guarantees is ``before``'s.
    """
    if before is None or before.version != game.version:
        return tuple(_SAVED_COLUMNS)
    return tuple(column for column, name in _SAVED_COLUMNS.items() if getattr(game, name) != getattr(before, name))


def _column_value(record: GameRecord, column: str) -> Any:
    """What a save writes in ``column``: the record's field, the host as a number, the options as JSON."""
    if column == "host_id":
        return int(record.host)
    if column == "options":
        return json.dumps(record.options)
    return getattr(record, column)


@functools.cache
def _update_sql(columns: tuple[str, ...]) -> str:
    """The version-checked UPDATE of a save writing ``columns`` (one text per set of columns, prepared once each)."""
    assignments = "".join(f"{column} = ?, " for column in columns)
    return f"UPDATE games SET {assignments}version = ?, updated_at = ? WHERE id = ? AND version = ?"


#: The largest game id SQLite (and PostgreSQL's BIGINT) can hold; a larger one in a request is forged.
MAX_GAME_ID = 2**63 - 1


class GamesRepository:
    """All SQL about games and seats.

    ``shards`` limits what a process fires by itself (deadlines, start-up repairs) to the games of its shards'
    guilds; None: every game. Loading and saving a given game is never limited: Discord already sends a game's
    clicks to the one process that owns it.
    """

    def __init__(self, db: Database, shards: ShardScope | None = None) -> None:
        self._db = db
        self._shards = shards

    def _owned(self) -> tuple[str, tuple[int, ...]]:
        """The condition (``AND ...``) and its parameters restricting a query on ``games`` to this process's shards.

        Discord's own formula, ``(guild_id >> 22) % shard_count``, with direct messages (no guild) on shard 0;
        integer shift and remainder mean the same in SQLite and PostgreSQL, so the filter is one portable
        expression and the database, not Python, skips the other processes' games.
        """
        if self._shards is None:
            return "", ()
        marks = ", ".join("?" * len(self._shards.ids))
        condition = f" AND ((COALESCE(guild_id, 0) >> {SNOWFLAKE_SHIFT}) % ?) IN ({marks})"
        return condition, (self._shards.count, *self._shards.ids)

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
        others: tuple[Seat, ...] = (),
    ) -> GameRecord:
        """Insert a new game in its lobby with the host (and ``others``, e.g. computers) seated, or raise
        :class:`ChannelBusy`."""
        now = time.time()
        try:
            async with self._db.transaction() as tx:
                inserted = tx.execute(
                    "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, locale, status, options, "
                    "deadline_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'lobby', ?, ?, ?, ?) RETURNING id",
                    (
                        *(kind, variant, guild_id, channel_id, int(host.player), locale),
                        *(json.dumps(options), deadline_at, now, now),
                    ),
                )
                _write_seats(tx, Returned(inserted), (host, *others))
        except Conflict:
            existing = await self.active_in_channel(channel_id)
            if existing is None:
                raise
            raise ChannelBusy(existing) from None
        game_id = int(inserted.value())
        # Built from what was written rather than read back: a read could see a snapshot older than this commit.
        return GameRecord(
            id=game_id,
            kind=kind,
            variant=variant,
            guild_id=guild_id,
            channel_id=channel_id,
            host=host.player,
            status="lobby",
            version=0,
            created_at=now,
            updated_at=now,
            locale=locale,
            options=options,
            deadline_at=deadline_at,
            seats=(host, *others),
        )

    async def get(self, game_id: int) -> GameRecord | None:
        rows = await self._db.fetch_all(f"{_SELECT_GAME} WHERE g.id = ? ORDER BY s.seat", (game_id,))
        return _record(rows) if rows else None

    async def active_in_channel(self, channel_id: int) -> GameRecord | None:
        rows = await self._db.fetch_all(
            f"{_SELECT_GAME} WHERE g.channel_id = ? AND g.status IN ('lobby', 'running') ORDER BY g.id, s.seat",
            (channel_id,),
        )
        return _record(rows) if rows else None

    async def active_with_board(self, message_ids: Collection[int]) -> list[GameRecord]:
        """The active games whose live board is one of ``message_ids`` (messages just deleted), in one read of the
        partial index ``games_active_board``; none for messages that are no game's board."""
        if not message_ids:
            return []
        marks = ", ".join("?" * len(message_ids))
        rows = await self._db.fetch_all(
            f"{_SELECT_GAME} WHERE g.message_id IN ({marks}) AND g.status IN ('lobby', 'running') "
            "ORDER BY g.id, s.seat",
            tuple(message_ids),
        )
        return _records(rows)

    async def active_in_guild(self, guild_id: int) -> list[GameRecord]:
        """The lobbies and running games of a guild (the bot was removed from it), in one read of the partial index
        ``games_active_guild``."""
        rows = await self._db.fetch_all(
            f"{_SELECT_GAME} WHERE g.guild_id = ? AND g.status IN ('lobby', 'running') ORDER BY g.id, s.seat",
            (guild_id,),
        )
        return _records(rows)

    async def guilds_with_active_games(self) -> list[int]:
        """The guilds (of this process's shards) with a lobby or a running game, from the partial index
        ``games_active_guild`` alone: compared at each gateway session's start with the guilds Discord lists, it
        finds the servers that removed the bot while it was away."""
        owned, params = self._owned()
        rows = await self._db.fetch_all(
            "SELECT DISTINCT guild_id FROM games WHERE guild_id IS NOT NULL AND status IN ('lobby', 'running')"
            f"{owned} ORDER BY guild_id",
            params,
        )
        return [row[0] for row in rows]

    async def save(
        self,
        game: GameRecord,
        results: Sequence[ResultRow] = (),
        *,
        before: GameRecord | None = None,
        moves: Sequence[MoveRow] = (),
    ) -> GameRecord:
        """Write ``game``'s changed fields and seats (and results) in one transaction, bumping the version.

        ``before`` is the record the change was made from: only the columns and seats that differ from it are
        written (every column without it). ``moves`` are the accepted actions that led to the new state, stored in
        the same transaction (one INSERT), so the history never holds a move whose state was not saved. Raises
        :class:`StaleVersion` when the stored version is no longer ``game.version``.
        """
        now = time.time()
        saved = game.changed(version=game.version + 1, updated_at=now)
        columns = _changed_columns(game, before)
        async with self._db.transaction() as tx:
            tx.execute(
                _update_sql(columns),
                (*(_column_value(saved, column) for column in columns), saved.version, now, game.id, game.version),
                expect_rows=1,
                otherwise=lambda: StaleVersion(f"game {game.id} changed since version {game.version}"),
            )
            if before is None or before.seats != saved.seats:
                _update_seats(tx, game.id, before.seats if before else None, saved.seats)
            if moves:
                history.insert(tx, game.id, saved.version, moves)
            if saved.status == "abandoned":
                # Nobody reviews an abandoned game: its history goes with the abandonment (forget-me then never
                # depends on a result to find it).
                history.delete(tx, game.id)
            if results:
                ResultsRepository.insert(tx, results)
            if "status" in columns and not saved.active:
                forgotten.settle(tx, game.id)
        return saved

    async def attach_message(self, game_id: int, message_id: int, shown_version: int | None = None) -> None:
        """Remember the game's message without a version bump: the buttons on it carry the current version.

        ``shown_version`` is the version the message was posted with, when known.
        """
        async with self._db.transaction() as tx:
            tx.execute(
                "UPDATE games SET message_id = ?, shown_version = COALESCE(?, shown_version) WHERE id = ?",
                (message_id, shown_version, game_id),
            )

    async def replace_message(self, game_id: int, gone: int, message_id: int, shown_version: int) -> bool:
        """The live board ``gone`` was deleted and posted anew as ``message_id`` (showing ``shown_version``): store
        the new one only if ``gone`` is still the stored board; whether it was stored.

        A compare-and-set, because two processes can hold one shard for a moment (a hand-over): both hear of the
        deletion and both post the board, and only the first to store its message may make it the live board. The
        other finds another board stored and adopts it. No version bump: the buttons carry the current version.
        """
        async with self._db.transaction() as tx:
            replaced = tx.execute(
                "UPDATE games SET message_id = ?, shown_version = ? WHERE id = ? AND message_id = ?",
                (message_id, shown_version, game_id, gone),
            )
        return replaced.rowcount == 1

    async def move_board(self, game_id: int, message_id: int, old: int, shown_version: int) -> bool:
        """The live board ``old`` was posted anew further down as ``message_id``: store the new one as the live board
        and ``old`` as retired (still to be stripped), only if ``old`` is still the stored board; whether it was.

        One statement, so a restart finds either the old board live or the new one live and the old one retired.
        A compare-and-set, as :meth:`replace_message`: during a shard hand-over two processes can move the same
        board, and a second write would make the first one's new board a message with controls nobody knows of.
        No version bump: the buttons on the new board carry the current version.
        """
        async with self._db.transaction() as tx:
            moved = tx.execute(
                "UPDATE games SET message_id = ?, retired_message_id = ?, "
                "shown_version = CASE WHEN shown_version < ? THEN ? ELSE shown_version END "
                "WHERE id = ? AND message_id = ?",
                (message_id, old, shown_version, shown_version, game_id, old),
            )
        return moved.rowcount == 1

    async def board_retired(self, game_id: int, message_id: int) -> None:
        """The retired board ``message_id`` has no controls any more."""
        async with self._db.transaction() as tx:
            tx.execute(
                "UPDATE games SET retired_message_id = NULL WHERE id = ? AND retired_message_id = ?",
                (game_id, message_id),
            )

    async def with_retired_board(self) -> list[int]:
        """Games (of this process's shards) with a retired board whose controls were not yet removed (a restart cut
        the move short)."""
        owned, params = self._owned()
        rows = await self._db.fetch_all(
            f"SELECT id FROM games WHERE retired_message_id IS NOT NULL{owned} ORDER BY id", params
        )
        return [row[0] for row in rows]

    async def previous_in_channel(self, channel_id: int, game_id: int) -> GameRecord | None:
        """The channel's game before ``game_id`` (its final board may still offer a rematch)."""
        rows = await self._db.fetch_all(
            f"{_SELECT_GAME} WHERE g.id = (SELECT MAX(id) FROM games WHERE channel_id = ? AND id < ?) ORDER BY s.seat",
            (channel_id, game_id),
        )
        return _record(rows) if rows else None

    async def mark_shown(self, versions: Mapping[int, int]) -> None:
        """Record which version each game's public message shows now (a batch, in one transaction).

        In game id order, the order every other statement locking several games takes (forget-me's): on PostgreSQL
        two transactions locking the same rows in different orders deadlock.
        """
        if not versions:
            return
        async with self._db.transaction() as tx:
            tx.executemany(
                "UPDATE games SET shown_version = ? WHERE id = ? AND shown_version < ?",
                [(versions[game_id], game_id, versions[game_id]) for game_id in sorted(versions)],
            )

    async def behind(self) -> list[int]:
        """Games whose public message may show an older version than the stored one (also a last move), oldest first."""
        owned, params = self._owned()
        rows = await self._db.fetch_all(
            f"SELECT id FROM games WHERE message_id IS NOT NULL AND shown_version < version{owned} ORDER BY id", params
        )
        return [row[0] for row in rows]

    async def delete(self, game_id: int) -> None:
        """Remove a game that never reached its players (its lobby message could not be posted)."""
        async with self._db.transaction() as tx:
            tx.execute("DELETE FROM games WHERE id = ?", (game_id,))

    async def next_deadline(self) -> float | None:
        """When the earliest pending deadline of any active game (of this process's shards) falls due."""
        owned, params = self._owned()
        rows = await self._db.fetch_all(
            "SELECT MIN(deadline_at) FROM games WHERE deadline_at IS NOT NULL AND status IN ('lobby', 'running')"
            f"{owned}",
            params,
        )
        return rows[0][0] if rows else None

    async def due(self, now: float) -> list[int]:
        """Ids of active games (of this process's shards) whose deadline has passed, earliest first."""
        owned, params = self._owned()
        rows = await self._db.fetch_all(
            "SELECT id FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= ? "
            f"AND status IN ('lobby', 'running'){owned} ORDER BY deadline_at",
            (now, *params),
        )
        return [row[0] for row in rows]


def _records(rows: Sequence[Row]) -> list[GameRecord]:
    """Several games from one read of ``_SELECT_GAME`` ordered by game id: one record per run of its rows."""
    return [_record(list(group)) for _, group in itertools.groupby(rows, key=lambda row: row[0])]


def _record(rows: Sequence[Row]) -> GameRecord:
    """The game of the first row with its seats (rows of one game from ``_SELECT_GAME``, in seat order)."""
    first = tuple(rows[0])
    values = dict(zip(_GAME_FIELDS, first[: len(_GAME_FIELDS)], strict=True))
    values["options"] = json.loads(values["options"])
    values["host"] = str(values["host"])
    game_id = values["id"]
    seats = tuple(
        Seat(*tuple(row)[len(_GAME_FIELDS) :])
        for row in rows
        if row[0] == game_id and row[len(_GAME_FIELDS)] is not None
    )
    return GameRecord(**values, seats=seats)


#: Insert a seat or rewrite the one the player has (the same on SQLite and PostgreSQL).
_INSERT_SEAT = (
    "INSERT INTO game_seats (game_id, player, kind, seat, display_name, status, timeouts) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, player) DO UPDATE SET kind = excluded.kind, "
    "seat = excluded.seat, display_name = excluded.display_name, status = excluded.status, "
    "timeouts = excluded.timeouts"
)


def _write_seats(tx: Transaction, game_id: int | Returned, seats: Sequence[Seat]) -> None:
    tx.executemany(
        _INSERT_SEAT,
        [(game_id, s.player, s.kind, index, s.display_name, s.status, s.timeouts) for index, s in enumerate(seats)],
    )


def _update_seats(tx: Transaction, game_id: int, old: Sequence[Seat] | None, new: Sequence[Seat]) -> None:
    """Write the seats that changed (a join, a leave, a timeout count) instead of every seat on every move."""
    if old is None:
        tx.execute("DELETE FROM game_seats WHERE game_id = ?", (game_id,))
        _write_seats(tx, game_id, new)
        return
    gone = {seat.player for seat in old} - {seat.player for seat in new}
    if gone:
        tx.executemany("DELETE FROM game_seats WHERE game_id = ? AND player = ?", [(game_id, p) for p in sorted(gone)])
    previous = {seat.player: (index, seat) for index, seat in enumerate(old)}
    changed = [
        (game_id, s.player, s.kind, index, s.display_name, s.status, s.timeouts)
        for index, s in enumerate(new)
        if previous.get(s.player) != (index, s)
    ]
    tx.executemany(_INSERT_SEAT, changed)
