"""Group commit on SQLite: batches queued while the writer is busy share one transaction, each in its own savepoint.

The writer runs its transactions on the event loop, so the batches queued in one turn of the loop are the ones that
go in together. Its connection is wrapped by :class:`Spy`, which records every statement (and the thread it ran on)
and fails the ones it is told to.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Database, StorageUnavailable
from bot.storage.backend import Conflict
from bot.storage.sqlite import SqliteDatabase


class Refused(Exception):
    """A version check's own error (as ``StaleVersion`` is for games)."""


class Spy:
    """A connection that records each statement with its thread, fails each ``fail`` one and calls ``on`` hooks."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.fail: set[str] = set()
        self.on: dict[str, Callable[[], None]] = {}
        self.seen: list[str] = []
        self.threads: list[tuple[str, str]] = []

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self.seen.append(sql)
        self.threads.append((sql, threading.current_thread().name))
        if sql in self.on:
            self.on[sql]()
        if sql in self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = await Database.open(tmp_path / "db.sqlite3")
    assert isinstance(database, SqliteDatabase)
    async with database.transaction() as tx:
        tx.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, version INTEGER NOT NULL)")
    yield database
    await database.close()


def spy(db: SqliteDatabase) -> Spy:
    wrapped = Spy(db._writer.conn)
    db._writer.conn = wrapped  # type: ignore[assignment]
    return wrapped


async def note(db: Database, note_id: int, text: str = "x") -> None:
    async with db.transaction() as tx:
        tx.execute("INSERT INTO notes (id, text, version) VALUES (?, ?, 0)", (note_id, text))


async def queued(db: SqliteDatabase, count: int, *writes: Awaitable[None]) -> list[asyncio.Task[None]]:
    """Start ``writes``; one turn of the event loop later each has queued its batch and waits for the writer."""
    tasks = [asyncio.ensure_future(write) for write in writes]
    await asyncio.sleep(0)  # a yield to the loop, not a timed wait
    assert len(db._groups._waiting) == count
    return tasks


async def stored(db: Database) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in await db.fetch_all("SELECT id, text FROM notes ORDER BY id")]


async def outcomes(tasks: Sequence[asyncio.Task[None]]) -> list[BaseException | None]:
    return list(await asyncio.gather(*tasks, return_exceptions=True))


async def test_batches_queued_together_commit_together_on_the_event_loop_and_only_then_return(
    db: SqliteDatabase,
) -> None:
    seen = spy(db)
    tasks = await queued(db, 3, note(db, 1), note(db, 2), note(db, 3))
    done_at_commit: list[bool] = []
    seen.on["COMMIT"] = lambda: done_at_commit.extend(task.done() for task in tasks)
    assert await outcomes(tasks) == [None, None, None]
    assert done_at_commit == [False, False, False]
    assert await stored(db) == [(1, "x"), (2, "x"), (3, "x")]
    assert seen.seen.count("BEGIN IMMEDIATE") == 1 and seen.seen.count("SAVEPOINT member") == 3
    assert {thread for _, thread in seen.threads} == {threading.current_thread().name}


async def test_a_member_that_fails_is_rolled_back_alone(db: SqliteDatabase) -> None:
    await note(db, 9, "old")
    seen = spy(db)

    async def stale() -> None:
        """Writes a note, then fails its version check: neither may stay."""
        async with db.transaction() as tx:
            tx.execute("INSERT INTO notes (id, text, version) VALUES (5, 'lost', 0)")
            tx.execute("UPDATE notes SET text = 'new' WHERE id = 9 AND version = 7", expect_rows=1, otherwise=Refused)

    others = await queued(db, 4, note(db, 2), stale(), note(db, 9, "duplicate"), note(db, 3))
    results = await outcomes(others)
    assert results[0] is None and results[3] is None
    assert isinstance(results[1], Refused)
    assert isinstance(results[2], Conflict)
    assert await stored(db) == [(2, "x"), (3, "x"), (9, "old")]
    assert seen.seen.count("ROLLBACK TO member") == 2


async def test_a_failing_commit_fails_every_member_and_applies_nothing(db: SqliteDatabase) -> None:
    seen = spy(db)
    seen.fail = {"COMMIT"}
    with pytest.raises(StorageUnavailable, match="I/O"):
        await note(db, 1)  # a group of one fails alike
    results = await outcomes(await queued(db, 3, note(db, 2), note(db, 3), note(db, 4)))
    assert all(isinstance(result, StorageUnavailable) for result in results)
    assert await stored(db) == []

    seen.fail = set()
    await note(db, 5)  # the connection was not left inside a transaction
    assert await stored(db) == [(5, "x")]


async def test_a_failing_begin_fails_every_member(db: SqliteDatabase) -> None:
    seen = spy(db)
    seen.fail = {"BEGIN IMMEDIATE"}
    results = await outcomes(await queued(db, 2, note(db, 1), note(db, 2)))
    assert all(isinstance(result, StorageUnavailable) for result in results)
    seen.fail = set()
    await note(db, 3)
    assert await stored(db) == [(3, "x")]


async def test_a_cancelled_caller_s_queued_batch_is_never_run(db: SqliteDatabase) -> None:
    cancelled, kept = await queued(db, 2, note(db, 2), note(db, 3))
    cancelled.cancel()
    await kept
    assert cancelled.cancelled()
    assert await stored(db) == [(3, "x")]


async def test_a_write_lock_held_by_another_process_is_waited_for_on_the_writers_thread(
    db: SqliteDatabase,
) -> None:
    """The event loop never waits for another process's lock: the group goes to the writer's thread, which does."""
    seen = spy(db)
    other = sqlite3.connect(db.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    waiting = asyncio.Event()
    loop = asyncio.get_running_loop()
    seen.on["PRAGMA busy_timeout = 5000"] = lambda: loop.call_soon_threadsafe(waiting.set)
    write = asyncio.ensure_future(note(db, 1))
    await waiting.wait()  # the event loop runs on while the writer's thread waits for the lock
    assert not write.done()
    other.execute("INSERT INTO notes (id, text, version) VALUES (7, 'other', 0)")
    other.execute("COMMIT")
    other.close()
    await write
    assert await stored(db) == [(1, "x"), (7, "other")]
    on_thread = [sql for sql, thread in seen.threads if thread != threading.current_thread().name]
    assert on_thread[0] == "PRAGMA busy_timeout = 5000" and "COMMIT" in on_thread
    assert on_thread[-1] == "PRAGMA busy_timeout = 0"
    await note(db, 2)  # back on the event loop
    assert seen.threads[-1] == ("COMMIT", threading.current_thread().name)


async def test_a_write_lock_held_past_the_busy_timeout_fails_the_group_as_unavailable(
    db: SqliteDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.storage.sqlite.BUSY_TIMEOUT_MS", 20)
    other = sqlite3.connect(db.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        results = await outcomes(await queued(db, 2, note(db, 1), note(db, 2)))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert all(isinstance(result, StorageUnavailable) and "locked" in str(result) for result in results)
    await note(db, 3)  # the writer is back on the event loop, without a busy timeout
    assert await stored(db) == [(3, "x")]
    assert db._writer.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 0


async def test_the_writer_never_checkpoints_and_the_readers_thread_does_every_so_many_commits(
    db: SqliteDatabase,
) -> None:
    assert db._writer.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    reader = Spy(db._reader.conn)
    db._reader.conn = reader  # type: ignore[assignment]
    db.checkpoint_every = 3  # the fixture's table was the first commit
    await note(db, 1)
    assert db._checkpoint is None
    await note(db, 2)
    checkpoint = db._checkpoint
    assert checkpoint is not None
    await checkpoint
    assert [(sql, thread.startswith("dicebot-sqlite-reader")) for sql, thread in reader.threads] == [
        ("PRAGMA wal_checkpoint(PASSIVE)", True)
    ]


async def test_a_write_waits_for_the_running_checkpoint_and_then_starts_the_wal_again(db: SqliteDatabase) -> None:
    """A commit made while the checkpoint copies would leave the WAL behind it, so it could never start again."""
    loop = asyncio.get_running_loop()
    copying = asyncio.Event()
    release = threading.Event()
    reader = Spy(db._reader.conn)
    reader.on["PRAGMA wal_checkpoint(PASSIVE)"] = lambda: (loop.call_soon_threadsafe(copying.set), release.wait())
    db._reader.conn = reader  # type: ignore[assignment]
    db.checkpoint_every = 3
    await note(db, 1)
    await note(db, 2)
    await copying.wait()
    writer = spy(db)
    during = asyncio.ensure_future(note(db, 3))
    try:
        for _ in range(5):
            await asyncio.sleep(0)  # turns of the loop, in which an unblocked write would have committed
        assert not during.done() and "BEGIN IMMEDIATE" not in writer.seen
    finally:
        release.set()
    await during
    assert await stored(db) == [(1, "x"), (2, "x"), (3, "x")]
    assert wal_frames(db) <= 2  # only the third note's pages: the WAL was started again from its beginning


async def test_the_wal_is_reused_under_steady_concurrent_writes(db: SqliteDatabase) -> None:
    """Each note needs a page of its own, so a WAL with fewer pages than notes was started again on the way."""
    db.checkpoint_every = 10
    writers, notes_each = 20, 80

    async def writer(first: int) -> None:
        for note_id in range(first, first + notes_each):
            await note(db, note_id, "x" * 3000)

    await asyncio.gather(*(writer(start) for start in range(0, writers * notes_each, notes_each)))
    assert len(await stored(db)) == writers * notes_each
    assert wal_bytes(db.path) < writers * notes_each * 4096


async def test_the_wal_is_reused_when_another_process_writes_during_the_checkpoints(db: SqliteDatabase) -> None:
    """Two databases on one file stand for two shard processes: neither waits for the other's checkpoint."""
    other = await Database.open(db.path)
    assert isinstance(other, SqliteDatabase)
    writers, notes_each = 20, 40
    for each in (db, other):
        each.checkpoint_every = 2
        each.restart_frames = 50

    async def writer(first: int) -> None:
        for note_id in range(first, first + notes_each):
            await note(db if note_id % 2 else other, note_id, "x" * 3000)

    try:
        await asyncio.gather(*(writer(start) for start in range(0, writers * notes_each, notes_each)))
    finally:
        await other.close()
    assert len(await stored(db)) == writers * notes_each
    assert wal_bytes(db.path) < writers * notes_each * 4096


def wal_bytes(path: Path) -> int:
    return Path(f"{path}-wal").stat().st_size


def wal_frames(db: SqliteDatabase) -> int:
    """Frames in the WAL now (a passive checkpoint's second figure; it copies them, which changes nothing here)."""
    return int(db._writer.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
