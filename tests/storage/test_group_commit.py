"""Group commit on SQLite: batches queued while the writer is busy share one transaction, each in its own savepoint.

The writer's connection is wrapped by :class:`Gate`, which holds a statement (BEGIN IMMEDIATE or COMMIT) on the
writer's thread until the test lets it go, so the tests decide exactly which batches queue up behind which.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Database, StorageUnavailable
from bot.storage.backend import Conflict
from bot.storage.sqlite import SqliteDatabase


class Refused(Exception):
    """A version check's own error (as ``StaleVersion`` is for games)."""


class Gate:
    """The writer's connection, holding each ``hold`` statement until released and failing each ``fail`` one."""

    def __init__(self, conn: sqlite3.Connection, hold: str) -> None:
        self.conn = conn
        self.hold = hold
        self.fail: set[str] = set()
        self.reached: queue.Queue[str] = queue.Queue()
        self.passes = threading.Semaphore(0)
        self.seen: list[str] = []

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self.seen.append(sql)
        if sql == self.hold:
            self.reached.put(sql)
            self.passes.acquire()
        if sql in self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        return self.conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    async def wait_reached(self) -> None:
        """Until the writer's thread is held at the statement."""
        await asyncio.to_thread(self.reached.get)

    def release(self) -> None:
        self.passes.release()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = await Database.open(tmp_path / "db.sqlite3")
    assert isinstance(database, SqliteDatabase)
    async with database.transaction() as tx:
        tx.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, version INTEGER NOT NULL)")
    yield database
    await database.close()


def gate(db: SqliteDatabase, hold: str) -> Gate:
    wrapped = Gate(db._writer.conn, hold)
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


async def test_batches_queued_behind_a_transaction_commit_together_and_only_then_return(db: SqliteDatabase) -> None:
    held = gate(db, "COMMIT")
    first = asyncio.ensure_future(note(db, 1))
    await held.wait_reached()
    others = await queued(db, 3, note(db, 2), note(db, 3), note(db, 4))
    held.release()
    await first
    await held.wait_reached()  # the three queued batches, at their one COMMIT
    assert not any(task.done() for task in others)
    assert await stored(db) == [(1, "x")]
    held.release()
    assert await outcomes(others) == [None, None, None]
    assert await stored(db) == [(1, "x"), (2, "x"), (3, "x"), (4, "x")]
    assert held.seen.count("BEGIN IMMEDIATE") == 2
    assert held.seen.count("COMMIT") == 2


async def test_a_member_that_fails_is_rolled_back_alone(db: SqliteDatabase) -> None:
    await note(db, 9, "old")
    held = gate(db, "BEGIN IMMEDIATE")
    first = asyncio.ensure_future(note(db, 1))
    await held.wait_reached()

    async def stale() -> None:
        """Writes a note, then fails its version check: neither may stay."""
        async with db.transaction() as tx:
            tx.execute("INSERT INTO notes (id, text, version) VALUES (5, 'lost', 0)")
            tx.execute("UPDATE notes SET text = 'new' WHERE id = 9 AND version = 7", expect_rows=1, otherwise=Refused)

    others = await queued(db, 4, note(db, 2), stale(), note(db, 9, "duplicate"), note(db, 3))
    held.release()
    await first
    await held.wait_reached()
    held.release()
    results = await outcomes(others)
    assert results[0] is None and results[3] is None
    assert isinstance(results[1], Refused)
    assert isinstance(results[2], Conflict)
    assert await stored(db) == [(1, "x"), (2, "x"), (3, "x"), (9, "old")]
    assert held.seen.count("ROLLBACK TO member") == 2


async def test_a_failing_commit_fails_every_member_and_applies_nothing(db: SqliteDatabase) -> None:
    held = gate(db, "BEGIN IMMEDIATE")
    first = asyncio.ensure_future(note(db, 1))
    await held.wait_reached()
    others = await queued(db, 3, note(db, 2), note(db, 3), note(db, 4))
    held.fail = {"COMMIT"}
    held.release()
    with pytest.raises(StorageUnavailable, match="I/O"):
        await first  # a group of one fails alike
    await held.wait_reached()
    held.release()
    results = await outcomes(others)
    assert all(isinstance(result, StorageUnavailable) for result in results)
    assert await stored(db) == []

    held.fail = set()
    held.hold = ""
    await note(db, 5)  # the connection was not left inside a transaction
    assert await stored(db) == [(5, "x")]


async def test_a_cancelled_caller_s_queued_batch_is_never_run(db: SqliteDatabase) -> None:
    held = gate(db, "BEGIN IMMEDIATE")
    first = asyncio.ensure_future(note(db, 1))
    await held.wait_reached()
    cancelled, kept = await queued(db, 2, note(db, 2), note(db, 3))
    cancelled.cancel()
    held.release()
    await first
    await held.wait_reached()
    held.release()
    await kept
    assert cancelled.cancelled()
    assert await stored(db) == [(1, "x"), (3, "x")]
