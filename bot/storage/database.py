"""The SQLite connection pair, its pragmas, transactions and versioned migrations."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)

MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class DatabaseError(Exception):
    """The database cannot be used; the message tells the admin what to do."""


class StorageUnavailable(sqlite3.OperationalError):
    """A write failed for a reason outside the program (disk full, I/O error, read-only file): nothing was changed.

    It is an ``OperationalError`` so existing handlers still match; the game service answers it with "could not
    save, try again" instead of a traceback, and the next write succeeds once the disk has room again.
    """


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def bundled_migrations() -> list[Migration]:
    """The ``migrations/NNNN_name.sql`` files shipped with the package, in version order."""
    folder = resources.files("bot.storage") / "migrations"
    found = []
    for entry in folder.iterdir():
        match = MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda migration: migration.version)
    return found


class Database:
    """One writer connection behind a lock plus one reader connection.

    SQLite allows one writer at a time; serializing writes in-process keeps transactions from interleaving
    on the shared aiosqlite thread. With WAL the reader sees only committed data, so a read never observes a
    half-applied game action.
    """

    def __init__(self, writer: aiosqlite.Connection, reader: aiosqlite.Connection, path: Path) -> None:
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(cls, path: Path, migrations: list[Migration] | None = None) -> Database:
        """Open (creating the folder and file if needed), check and migrate, or raise :class:`DatabaseError`.

        Refused up front rather than failing on the first click: a folder, an existing empty file (a new database
        is created only where there was no file), a file that cannot be written, and one whose pages are damaged.
        """
        migrations = bundled_migrations() if migrations is None else migrations
        _refuse_unusable_path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(f"cannot create the folder {path.parent} for DATABASE_URL: {exc.strerror}") from exc
        try:
            writer = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise DatabaseError(f"cannot open the database {path} (DATABASE_URL): {exc}") from exc
        reader: aiosqlite.Connection | None = None
        try:
            await _refuse_newer_schema(writer, path, migrations)
            await _check_sound(writer, path)
            await _configure(writer)
            await _probe_write(writer)
            await _migrate(writer, migrations)
            reader = await aiosqlite.connect(path, isolation_level=None)
            await _configure(reader)
        except sqlite3.Error as exc:
            await writer.close()
            if reader is not None:
                await reader.close()
            raise DatabaseError(f"cannot use the database {path} (DATABASE_URL): {exc}") from exc
        except DatabaseError:
            await writer.close()
            raise
        writer.row_factory = aiosqlite.Row
        reader.row_factory = aiosqlite.Row
        return cls(writer, reader, path)

    async def close(self) -> None:
        """Wait for a running transaction to finish, then close both connections."""
        async with self._write_lock:
            await self._reader.close()
            await self._writer.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run the block as one ``BEGIN IMMEDIATE`` transaction: all of it is committed, or none of it.

        A failure of the disk (full, I/O error, read-only) raises :class:`StorageUnavailable` after rolling back,
        also when it happens at ``COMMIT``, so the connection is never left inside a half-done transaction.
        """
        async with self._write_lock:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StorageUnavailable(str(exc)) from exc
            try:
                yield self._writer
                await self._writer.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    # Fails harmlessly when SQLite already rolled back after an I/O error.
                    await self._writer.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) and not isinstance(exc, StorageUnavailable):
                    raise StorageUnavailable(str(exc)) from exc
                raise

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read on the shared reader connection and fetch every row at once.

        A statement left half-fetched keeps the reader's snapshot open, so every later read on the shared
        connection would miss commits made since (a game created a moment ago looked missing). Fetching all in
        one call finishes the statement before any other coroutine can use the connection.
        """
        return list(await self.reader.execute_fetchall(sql, params))

    async def fetch_one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row of a read (fetched whole, see :meth:`fetch_all`), or None."""
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    @property
    def reader(self) -> aiosqlite.Connection:
        """The connection for queries that only read committed data."""
        return self._reader


def _refuse_unusable_path(path: Path) -> None:
    """A folder or an existing empty file is a mistake in DATABASE_URL, never a database to create."""
    if path.is_dir():
        raise DatabaseError(f"DATABASE_URL points at the folder {path}; name a database file inside it")
    if path.is_file() and path.stat().st_size == 0:
        raise DatabaseError(
            f"the database file {path} is empty (0 bytes) although it exists; restore it from a backup, "
            "or delete it to start a new database"
        )


async def _check_sound(conn: aiosqlite.Connection, path: Path) -> None:
    """``PRAGMA quick_check``: damaged pages would otherwise surface as an error on some later click."""
    rows = list(await conn.execute_fetchall("PRAGMA quick_check"))
    lines = [line for row in rows if row[0] != "ok" for line in str(row[0]).splitlines() if "***" not in line]
    if lines:
        raise DatabaseError(
            f"the database {path} is damaged ({lines[0]}); restore it from a backup or point DATABASE_URL "
            "at another file"
        )


async def _probe_write(conn: aiosqlite.Connection) -> None:
    """Take the write lock and write inside a transaction that is rolled back: a read-only file fails here."""
    await conn.execute("BEGIN IMMEDIATE")
    try:
        await conn.execute("CREATE TABLE dicebot_write_probe (id INTEGER)")
    finally:
        await conn.execute("ROLLBACK")


async def _configure(conn: aiosqlite.Connection) -> None:
    await conn.execute("PRAGMA busy_timeout = 5000")
    await conn.execute("PRAGMA foreign_keys = ON")
    cursor = await conn.execute("PRAGMA journal_mode = WAL")
    await cursor.fetchone()
    await conn.execute("PRAGMA synchronous = NORMAL")


async def schema_version(conn: aiosqlite.Connection) -> int:
    """The applied migration version, 0 for a new database."""
    cursor = await conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    if await cursor.fetchone() is None:
        return 0
    cursor = await conn.execute("SELECT version FROM schema_version")
    row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _refuse_newer_schema(conn: aiosqlite.Connection, path: Path, migrations: list[Migration]) -> None:
    """Check before any pragma writes to the file, so a database from a newer dicebot stays byte-for-byte intact."""
    latest = migrations[-1].version if migrations else 0
    current = await schema_version(conn)
    if current > latest:
        raise DatabaseError(
            f"the database {path} has schema version {current}, newer than this dicebot understands ({latest}); "
            "upgrade dicebot or point DATABASE_URL at another file"
        )


async def _migrate(conn: aiosqlite.Connection, migrations: list[Migration]) -> None:
    """Apply every migration newer than the database, each in its own transaction with its version bump."""
    current = await schema_version(conn)
    for migration in migrations:
        if migration.version <= current:
            continue
        log.info("applying migration %s", migration.name)
        await conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(migration.sql):
                await conn.execute(statement)
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            await conn.execute("DELETE FROM schema_version")
            await conn.execute("INSERT INTO schema_version (version) VALUES (?)", (migration.version,))
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
        await conn.execute("COMMIT")


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (``executescript`` would commit behind our transaction's back)."""
    statements, pending = [], ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                statements.append(pending.strip())
            pending = ""
    if pending.strip() and not pending.strip().startswith("--"):
        statements.append(pending.strip())
    return statements
