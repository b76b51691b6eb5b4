"""The SQLite connection pair, its pragmas, transactions and versioned migrations."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import aiosqlite

log = logging.getLogger(__name__)

MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class DatabaseError(Exception):
    """The database cannot be used; the message tells the admin what to do."""


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
        """Open (creating the folder and file if needed) and migrate, or raise :class:`DatabaseError`."""
        migrations = bundled_migrations() if migrations is None else migrations
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
            await _configure(writer)
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
        """Run the block as one ``BEGIN IMMEDIATE`` transaction: all of it is committed, or none of it."""
        async with self._write_lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                await self._writer.execute("ROLLBACK")
                raise
            await self._writer.execute("COMMIT")

    @property
    def reader(self) -> aiosqlite.Connection:
        """The connection for queries that only read committed data."""
        return self._reader


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
