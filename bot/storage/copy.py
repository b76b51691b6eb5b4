"""``python -m bot migrate-db``: copy a SQLite installation into an empty PostgreSQL database, and check the counts.

The source file is never changed: it is copied with SQLite's backup API into a temporary file, which is migrated
to this dicebot's schema like any database at start-up. The target is migrated to the same version and must hold
no row at all. Every stored table is copied in one PostgreSQL transaction (so a failed copy leaves the target
empty), streamed in batches rather than held whole, games in progress included: their state, seats, deadlines and
message ids. Display names are copied as ``actor_of`` makes them now (an older dicebot stored a NUL, which
PostgreSQL cannot hold). The standings, counter totals and latest names are rebuilt by the target's own triggers
from the copied results, then every table's count is compared with the source's. The boards' figures (``board_figures``)
follow the rebuilt standings through their own triggers but are not compared: a source keeps rows for figures no
player has any more, and the week and month windows are built again by the target's first such board.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.datalock import InUse, hold
from bot.storage.backend import (
    Database,
    DatabaseError,
    Row,
    path_kind,
    postgres_url,
    sqlite_path,
    sqlite_url_problem,
)
from bot.storage.backup import CopyUnwritten, snapshot
from bot.storage.names import storable_name
from bot.storage.postgres import PostgresDatabase, describe_url
from bot.storage.sqlite import SqliteDatabase
from bot.urls import check_database_url

if TYPE_CHECKING:
    from bot.storage.postgres import Connection

#: The tables a copy writes, parents first, with their columns (the shared schema of both backends).
COPIED: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "games",
        (
            "id", "kind", "variant", "guild_id", "channel_id", "message_id", "host_id", "locale", "status", "options",
            "state", "version", "deadline_at", "created_at", "updated_at", "finished_at", "shown_version",
            "retired_message_id",
        ),
    ),
    ("game_seats", ("game_id", "player", "kind", "seat", "display_name", "status", "timeouts", "forgotten")),
    (
        "results",
        (
            "id", "game_id", "kind", "variant", "guild_id", "channel_id", "user_id", "display_name", "score", "rank",
            "won", "finished_at",
        ),
    ),
    ("result_counters", ("result_id", "name", "value")),
    ("game_moves", ("game_id", "version", "step", "player", "source", "action", "state")),
    # After the results: a result is skipped as it is inserted while its seat is noted here.
    ("forgotten_seats", ("game_id", "player")),
    ("guild_settings", ("guild_id", "language")),
    ("bot_meta", ("key", "value")),
)  # fmt: skip
#: Per table, its display name column and the column naming the player, whose id stands in for a name with
#: nothing storable (as ``actor_of`` does): an older dicebot wrote names as Discord gave them, and SQLite keeps a
#: NUL that PostgreSQL's text refuses.
NAMES = {"game_seats": ("display_name", "player"), "results": ("display_name", "user_id")}
#: Filled by the target's triggers from the copied results; counted like the copied tables.
DERIVED = ("standings", "standing_counters", "rule_set_standings", "rule_set_counters", "player_names")
#: Identity columns whose sequences must continue after the copied ids.
IDENTITIES = ("games", "results")
#: Rows read and written at a time: a table (the move history above all: 100-220 KiB a game) is streamed, never
#: held whole, so a large installation copies in little memory.
BATCH = 2_000


class CopyFailed(Exception):
    """The copy ran but the target's counts differ from the source's (the message names the tables)."""


@dataclass(frozen=True)
class Copied:
    """What a copy wrote: rows per table, the same in source and target."""

    counts: dict[str, int]
    target: str

    def summary(self) -> str:
        """Rows by table, the table's name first: "1 games" read as a miscount (QA)."""
        rows = ", ".join(f"{table} {count}" for table, count in self.counts.items())
        return f"copied into {self.target} and verified, rows per table: {rows}"


async def migrate(source: str, target: str) -> Copied:
    """Copy the SQLite database ``source`` into the empty PostgreSQL database ``target`` (both URLs).

    Raises :class:`DatabaseError` for anything an admin must fix (one line), :class:`CopyFailed` when the counts
    do not match afterwards.
    """
    if not source.startswith("sqlite:///"):
        raise DatabaseError(f"--from must be a sqlite:/// URL of the database to copy, not {source}")
    url = postgres_url(target)
    if url is None:
        raise DatabaseError("--to must be a postgresql:// URL of an empty database")
    try:
        check_database_url(url)
    except ValueError as error:
        raise DatabaseError(f"--to: {error}") from None
    problem = sqlite_url_problem(source)
    if problem is not None:
        raise DatabaseError(f"--from: {problem}")
    try:
        path = sqlite_path(source)
    except ValueError as error:
        raise DatabaseError(f"--from: {error}") from None
    if path_kind(path, "--from") != "file":
        raise DatabaseError(f"there is no SQLite database at {path} (--from)")
    # Held for the copy: games a bot plays meanwhile would be missing from it, and the README says to stop it.
    try:
        held = hold(
            path,
            f"a dicebot process uses {path} (--from): stop it first, or the games it plays after the copy are lost",
        )
    except InUse as error:
        raise DatabaseError(str(error)) from None
    try:
        return await _migrate(path, url, target)
    finally:
        if held is not None:
            held.release()


async def _migrate(path: Path, url: str, target: str) -> Copied:
    """:func:`migrate` once its arguments are checked and the source is locked."""
    with tempfile.TemporaryDirectory(prefix="dicebot-copy-") as folder:
        taken = Path(folder) / "snapshot.sqlite3"
        try:
            version = snapshot(path, taken, "--from")
        except CopyUnwritten as exc:
            raise DatabaseError(
                f"cannot write the temporary copy of {path} (--from) in {taken.parent.parent} ({exc}): check the "
                "disk there (free space) or set TMPDIR to another folder"
            ) from exc
        if version == 0:
            # Refused before connecting, whose migrations would run on the copy: another program's file failed on
            # a table of the same name, and an empty one "copied" 0 games as a success into a target no longer empty.
            raise DatabaseError(
                f"there is no dicebot database in {path} (--from): name the SQLite file the bot's DATABASE_URL names"
            )
        old = await SqliteDatabase.connect(taken, setting="--from", where=path)
        try:
            new = await PostgresDatabase.connect(url, setting="--to")
            try:
                return await _copy(old, new, target)
            finally:
                await new.close()
        finally:
            await old.close()


def _storable(table: str, columns: tuple[str, ...], row: Row) -> tuple[Any, ...]:
    """A source row as the target can hold it: its display name made storable (see :data:`NAMES`)."""
    values = list(row)
    if table in NAMES:
        name, owner = (columns.index(column) for column in NAMES[table])
        values[name] = storable_name(values[name], str(values[owner]))
    return tuple(values)


def _rows(count: int) -> str:
    """``1 row``, ``2 rows``: the admin's one line is English."""
    return "1 row" if count == 1 else f"{count} rows"


async def _counts(db: Database) -> dict[str, int]:
    tables = [table for table, _ in COPIED] + list(DERIVED)
    row = await db.fetch_one("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {table})" for table in tables))
    assert row is not None
    return dict(zip(tables, (int(value) for value in row), strict=True))


async def _copy(old: SqliteDatabase, new: PostgresDatabase, target: str) -> Copied:
    source_version, target_version = await old.schema_version(), await new.schema_version()
    if source_version != target_version:
        raise DatabaseError(
            f"the source has schema version {source_version} but the target {target_version}; "
            "run the same dicebot version for both"
        )
    filled = {table: count for table, count in (await _counts(new)).items() if count}
    if filled:
        first = next(iter(filled))
        raise DatabaseError(
            f"the target database is not empty ({_rows(filled[first])} in {first}); copy only into an empty database"
        )
    expected = await _counts(old)

    async def write(conn: Connection) -> None:
        for table, columns in COPIED:
            marks = ", ".join(f"${number}" for number in range(1, len(columns) + 1))
            insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            async for rows in old.batches(f"SELECT {', '.join(columns)} FROM {table} ORDER BY 1", BATCH):
                await conn.executemany(insert, [_storable(table, columns, row) for row in rows])
        for table in IDENTITIES:
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {table}"
            )

    await new.in_one_transaction(write)
    found = await _counts(new)
    wrong = [f"{table} {found[table]} instead of {count}" for table, count in expected.items() if found[table] != count]
    if wrong:
        raise CopyFailed(f"the copy's counts differ from the source: {'; '.join(wrong)}")
    return Copied(found, describe_url(target))
