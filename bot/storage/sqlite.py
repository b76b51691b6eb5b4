"""The SQLite backend: one writer and one reader connection, and the migrations.

A transaction runs on the event loop's own thread: BEGIN IMMEDIATE, every statement of the batch with its checks,
COMMIT, in one function call. Handing it to a thread instead cost more CPU than the transaction itself (waking the
thread and then the event loop: about 0.1 ms a hop on the 2-core machine, and the thread competing for the cores
under load; docs/benchmarks.md), and with WAL and ``synchronous = NORMAL`` a COMMIT only appends to the WAL file,
it never waits for the disk. What can wait stays off the event loop: the writer never checkpoints by itself
(``wal_autocheckpoint = 0``), the reader's thread runs a passive checkpoint every :data:`CHECKPOINT_EVERY` commits
instead (the next group waits for it, so the WAL is reused); and the writer has no busy timeout, so a write lock
held by another process (shard processes sharing the file) sends the group to the writer's thread, which waits for
it as long as before. Batches queued while a transaction runs share the next COMMIT, each in its own savepoint
(``bot/storage/group_commit.py``). With WAL the reader sees only committed data, so a read never observes a
half-applied game action.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from bot.paths import broken_link
from bot.storage.backend import (
    Database,
    DatabaseError,
    Migration,
    Row,
    Sql,
    Transaction,
    bundled_migrations,
    path_kind,
)
from bot.storage.group_commit import REFUSED_VALUES, GroupCommit, Member, WriterBusy, run_group, translated
from bot.storage.ownership import VERSION_TABLE, Found, identify

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Milliseconds a connection waits for a lock another process holds, where waiting blocks no event loop.
BUSY_TIMEOUT_MS = 5000
#: A passive checkpoint (the WAL copied into the database file, synced) after this many commits: about the 1,000
#: WAL pages of SQLite's own automatic checkpoint at a game save's four to six pages.
CHECKPOINT_EVERY = 200
#: A WAL still this long after the passive checkpoint (4,096 pages: 16 MB) is checkpointed again with ``RESTART``,
#: which waits for other processes' writers and readers so that the next write starts it from its beginning.
RESTART_FRAMES = 4096


class _Worker:
    """A connection and the one thread that uses it (sqlite3 connections are not for concurrent threads)."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def call(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, self.conn)

    async def close(self) -> None:
        await self.call(lambda conn: conn.close())
        self._thread.shutdown(wait=True)


class SqliteDatabase(Database):
    """One writer connection fed by a group commit queue, plus one reader connection.

    SQLite allows one writer at a time; serializing writes in-process keeps transactions from interleaving. The
    writer's connection is used on the event loop, and on its own thread only while another process holds the
    write lock (never both at once: one group runs at a time).
    """

    dialect = "sqlite"

    def __init__(self, writer: _Worker, reader: _Worker, path: Path) -> None:
        self._writer = writer
        self._reader = reader
        self._groups = GroupCommit(self._run_group)
        #: Commits between two passive checkpoints.
        self.checkpoint_every = CHECKPOINT_EVERY
        #: WAL pages after a passive checkpoint from which it is followed by a restarting one.
        self.restart_frames = RESTART_FRAMES
        self._commits = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self.path = path

    @classmethod
    async def connect(
        cls,
        path: Path,
        migrations: list[Migration] | None = None,
        *,
        setting: str = "DATABASE_URL",
        where: Path | None = None,
    ) -> SqliteDatabase:
        """Open (creating the folder and file if needed), check and migrate, or raise :class:`DatabaseError`.

        Refused up front rather than failing on the first click: a folder, an existing empty file (a new database
        is created only where there was no file), a file that cannot be written, one whose pages are damaged, and
        another program's (:mod:`bot.storage.ownership`), the last two before anything writes to the file.
        Every error names ``setting``, what the admin wrote the path into, and ``where``, the file the admin named
        (``path`` unless given): ``migrate-db`` opens a temporary snapshot of its ``--from`` file, a path that is
        gone by the time the admin reads the error.
        """
        migrations = bundled_migrations("sqlite") if migrations is None else migrations
        shown = path if where is None else where
        _refuse_unusable_path(path, setting)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            why = broken_link(path.parent) if isinstance(exc, FileExistsError) else None
            raise DatabaseError(f"cannot create the folder {path.parent} for {setting}: {why or exc.strerror}") from exc
        try:
            writer = _Worker(_connect(path), "dicebot-sqlite-writer")
        except sqlite3.Error as exc:
            raise DatabaseError(f"cannot open the database {shown} ({setting}): {exc}") from exc
        reader: _Worker | None = None
        try:
            await writer.call(lambda conn: _prepare(conn, migrations, shown, setting))
            await writer.call(_configure_writer)
            reader = _Worker(_connect(path), "dicebot-sqlite-reader")
            await reader.call(_configure)
        except sqlite3.Error as exc:
            await writer.close()
            if reader is not None:
                await reader.close()
            raise DatabaseError(f"cannot use the database {shown} ({setting}): {exc}") from exc
        except DatabaseError:
            await writer.close()
            raise
        return cls(writer, reader, path)

    async def close(self) -> None:
        await self._groups.drain()
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        await self._reader.close()
        await self._writer.close()

    async def run(self, batch: Transaction) -> None:
        """The whole batch in one call on the writer's thread, with the batches queued beside it (see the module's
        docstring).

        A failure of the disk (full, I/O error, read-only) raises :class:`StorageUnavailable` after rolling back,
        also when it happens at ``COMMIT``, so the connection is never left inside a half-done transaction.
        """
        await self._groups.run(batch)

    async def _run_group(self, group: list[Member]) -> None:
        """One group as one transaction, right here on the event loop; on the writer's thread, waiting up to
        :data:`BUSY_TIMEOUT_MS`, when another process holds the write lock.

        A running checkpoint is waited for first. SQLite starts the WAL again from its beginning only at a write
        after a checkpoint that copied all of it; commits made while a checkpoint copies leave it behind, and under
        steady load that happened every time: the WAL grew by 7-24 MB a second at 1,000 clicks a second and was
        never reused (docs/benchmarks.md).
        """
        if self._checkpoint is not None:
            await asyncio.wait({self._checkpoint})
        try:
            run_group(self._writer.conn, group)
        except WriterBusy:
            await self._writer.call(lambda conn: _run_waiting(conn, group))
        self._commits += 1
        if self._commits % self.checkpoint_every == 0 and self._checkpoint is None:
            self._checkpoint = asyncio.create_task(self._run_checkpoint(), name="dicebot-sqlite-checkpoint")

    async def _run_checkpoint(self) -> None:
        """Copy the WAL into the database file on the reader's thread (passive: no reader waits).

        This process's writes wait for it (:meth:`_run_group`), but shard processes sharing the file go on writing,
        so their commits can keep the WAL from ever being copied whole; once it is :attr:`restart_frames` long a
        ``RESTART`` checkpoint waits for them (up to the reader's busy timeout) so that it is reused.
        """
        try:
            await self._reader.call(lambda conn: _checkpoint(conn, self.restart_frames))
        except sqlite3.Error as error:
            log.warning("WAL checkpoint failed (the next one retries): %s", error)
        finally:
            self._checkpoint = None

    async def fetch_all(self, sql: Sql, params: Sequence[Any] = ()) -> list[Row]:
        """A read on the reader connection, fetched whole in one hop.

        A statement left half-fetched keeps the reader's snapshot open, so every later read would miss commits
        made since; fetching all in one call finishes the statement before any other read can start.
        """
        text = sql if isinstance(sql, str) else sql.sqlite
        try:
            return await self._reader.call(lambda conn: conn.execute(text, tuple(params)).fetchall())
        except REFUSED_VALUES as error:
            raise translated(error) from error

    async def batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        """The rows of a read in batches of ``size``, for a table too large to hold at once (``migrate-db``).

        One cursor on the reader's thread, fetched batch by batch: its snapshot stays open meanwhile (see
        :meth:`fetch_all`), so this is for a database nothing else writes, as the copy's private snapshot.
        """
        cursor = await self._reader.call(lambda conn: conn.execute(sql))
        try:
            while rows := await self._reader.call(lambda conn: cursor.fetchmany(size)):
                yield rows
        finally:
            await self._reader.call(lambda conn: cursor.close())

    async def schema_version(self) -> int:
        return await self._reader.call(schema_version)


def _checkpoint(conn: sqlite3.Connection, restart_frames: int) -> None:
    """A passive checkpoint, and a restarting one when the WAL it found is ``restart_frames`` pages or longer."""
    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    if frames >= restart_frames:
        conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()


def _run_waiting(conn: sqlite3.Connection, group: list[Member]) -> None:
    """On the writer's thread: the group, waiting for another process's write lock; if it outlasts the wait, every
    member fails as the disk being unavailable would (nothing was applied)."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        run_group(conn, group)
    except WriterBusy as busy:
        for member in group:
            member.error = translated(sqlite3.OperationalError(str(busy)))
    finally:
        conn.execute("PRAGMA busy_timeout = 0")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def _prepare(conn: sqlite3.Connection, migrations: list[Migration], where: Path, setting: str) -> None:
    # Whose database it is, and its version, are checked before any pragma writes to the file (journal_mode=WAL
    # stays in it for good), so another program's file or a newer dicebot's stays byte-for-byte intact.
    check_sound(conn, where, setting)
    identify(found(conn), migrations, str(where), setting)
    _configure(conn)
    _probe_write(conn)
    _migrate(conn, migrations)


def _refuse_unusable_path(path: Path, setting: str) -> None:
    """A folder or an existing empty file is a mistake in ``setting``, never a database to create; a path the
    system will not look at is refused naming ``setting``, where its ``OSError`` read as Discord unreachable."""
    found = path_kind(path, setting)
    if found == "folder":
        raise DatabaseError(f"the database {path} ({setting}) is a folder; move it away or point {setting} elsewhere")
    if found == "file" and path.stat().st_size == 0:
        raise DatabaseError(
            f"the database file {path} is empty (0 bytes) although it exists; restore it from a backup, "
            "or delete it to start a new database"
        )


def check_sound(conn: sqlite3.Connection, where: Path, setting: str) -> None:
    """``PRAGMA quick_check``: damaged pages would otherwise surface as an error on some later click."""
    rows = conn.execute("PRAGMA quick_check").fetchall()
    lines = [line for row in rows if row[0] != "ok" for line in str(row[0]).splitlines() if "***" not in line]
    if lines:
        raise DatabaseError(
            f"the database {where} ({setting}) is damaged ({lines[0]}); restore it from a backup, or move it away to "
            "start a new database"
        )


def _probe_write(conn: sqlite3.Connection) -> None:
    """Take the write lock and write inside a transaction that is rolled back: a read-only file fails here."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE dicebot_write_probe (id INTEGER)")
    finally:
        conn.execute("ROLLBACK")


def _configure_writer(conn: sqlite3.Connection) -> None:
    """The writer runs on the event loop: it neither waits for another process's lock nor checkpoints by itself."""
    conn.execute("PRAGMA busy_timeout = 0")
    conn.execute("PRAGMA wal_autocheckpoint = 0")


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL").fetchone()
    conn.execute("PRAGMA synchronous = NORMAL")


def found(conn: sqlite3.Connection) -> Found:
    """What the file holds, for :func:`~bot.storage.ownership.identify`: read without writing anything."""
    tables = frozenset(
        str(name).lower()
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
    )
    if VERSION_TABLE not in tables:
        return Found(tables)
    columns = tuple(
        (str(name).lower(), str(kind).lower(), bool(required))
        for _, name, kind, required, *_ in conn.execute(f"PRAGMA table_info({VERSION_TABLE})")
    )
    probe = Found(tables, columns)
    if not probe.dicebot_version_table:
        return probe
    return Found(tables, columns, tuple(row[0] for row in conn.execute(f"SELECT version FROM {VERSION_TABLE} LIMIT 2")))


def schema_version(conn: sqlite3.Connection) -> int:
    """The applied migration version, 0 for a new database."""
    found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    if found.fetchone() is None:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def _migrate(conn: sqlite3.Connection, migrations: list[Migration]) -> None:
    """Apply every migration newer than the database, each in its own transaction with its version bump."""
    current = schema_version(conn)
    for migration in migrations:
        if migration.version <= current:
            continue
        log.info("applying migration %s", migration.name)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (migration.version,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


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
