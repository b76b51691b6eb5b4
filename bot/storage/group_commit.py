"""Group commit for SQLite: the write batches that queue up while one transaction runs go in together as the next.

SQLite has one writer, so every write transaction is a COMMIT of its own. Under load many games save at once and
each waits for the writer in turn; instead, the batches waiting when the writer is free run as one transaction,
each inside its own SAVEPOINT. A member that fails (its version check, a constraint, a missing returned value) is
rolled back to its savepoint alone and gets its own error, as if it had run by itself; the others stay. Every
member's caller is resumed only after the COMMIT, so a move is never acknowledged before it is saved, and a
failing BEGIN or COMMIT fails every member with nothing applied. When the writer is idle a batch runs at once, in
a group of one (then without a savepoint): grouping costs nothing idle. Where a group runs (on the event loop, or
on a thread while another process holds the write lock) is the backend's choice: ``bot/storage/sqlite.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.storage.backend import Conflict, StorageUnavailable, Transaction

#: At most this many batches in one transaction, so one group stays short (a member is ~0.1 ms).
MAX_GROUP = 64


@dataclass
class Member:
    """One caller's batch in a group, and how it ended."""

    batch: Transaction
    done: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    error: BaseException | None = None


class WriterBusy(Exception):
    """BEGIN IMMEDIATE found the write lock taken by another process: nothing of the group ran."""


#: Runs one group as one transaction (:func:`run_group` on the writer's connection), setting each member's error.
Runner = Callable[[list[Member]], Awaitable[None]]


class GroupCommit:
    """The writer's queue: one group of batches at a time, each group one transaction."""

    def __init__(self, runner: Runner, limit: int = MAX_GROUP) -> None:
        self._runner = runner
        self._limit = limit
        self._waiting: deque[Member] = deque()
        self._flushing: asyncio.Task[None] | None = None

    async def run(self, batch: Transaction) -> None:
        """Run ``batch`` in the next group; returns once that group committed, or raises the batch's own error."""
        member = Member(batch)
        self._waiting.append(member)
        if self._flushing is None:
            self._flushing = asyncio.create_task(self._flush(), name="dicebot-sqlite-group-commit")
        await member.done

    async def drain(self) -> None:
        """Wait until every batch queued so far has run."""
        while self._flushing is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._flushing)

    async def _flush(self) -> None:
        try:
            while self._waiting:
                group = self._take()
                if group:
                    await self._commit(group)
        finally:
            self._flushing = None
            while self._waiting:  # left only when the flush was cancelled: the event loop is closing
                self._waiting.popleft().done.cancel()

    def _take(self) -> list[Member]:
        """The next group: the waiting batches whose callers still wait (a cancelled caller's batch is skipped)."""
        group: list[Member] = []
        while self._waiting and len(group) < self._limit:
            member = self._waiting.popleft()
            if not member.done.done():
                group.append(member)
        return group

    async def _commit(self, group: list[Member]) -> None:
        """Run one group and resume its callers (each with its own error, if it has one)."""
        try:
            await self._runner(group)
        except Exception as error:  # the runner itself failed (the connection is closed): nothing ran
            for member in group:
                member.error = member.error or error
        except BaseException:
            for member in group:
                member.done.cancel()
            raise
        for member in group:
            if member.done.done():
                continue
            if member.error is None:
                member.done.set_result(None)
            else:
                member.done.set_exception(member.error)


def run_group(conn: sqlite3.Connection, group: list[Member]) -> None:
    """BEGIN IMMEDIATE, every member (each in a SAVEPOINT when there are several), COMMIT.

    Sets each member's ``error``; a failure of the disk (SQLite's ``OperationalError``: full, I/O error, read-only),
    at BEGIN, in a member or at COMMIT, rolls everything back and fails every member still standing with
    :class:`StorageUnavailable`, so the connection is never left inside a half-done transaction. A write lock held
    by another process when the connection's busy timeout runs out at BEGIN raises :class:`WriterBusy` instead,
    with no member touched: the caller decides whether to wait longer elsewhere.
    """
    isolated = len(group) > 1
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if getattr(error, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY:  # any of the extended busy codes
            raise WriterBusy(str(error)) from error
        for member in group:
            member.error = translated(error)
        return
    try:
        for member in group:
            if isolated:
                conn.execute("SAVEPOINT member")
            try:
                apply(conn, member.batch)
            except sqlite3.OperationalError:
                raise
            except Exception as error:
                if not isolated:
                    raise
                conn.execute("ROLLBACK TO member")
                member.error = translated(error)
            if isolated:
                conn.execute("RELEASE member")
        conn.execute("COMMIT")
    except BaseException as error:
        with contextlib.suppress(sqlite3.Error):
            # Fails harmlessly when SQLite already rolled back after an I/O error.
            conn.execute("ROLLBACK")
        for member in group:
            member.error = member.error or translated(error)


def apply(conn: sqlite3.Connection, batch: Transaction) -> None:
    """Every statement of one batch with its row-count checks (inside the group's transaction)."""
    for statement in batch.statements:
        sql = statement.sql if isinstance(statement.sql, str) else statement.sql.sqlite
        if statement.many:
            cursor = conn.executemany(sql, [statement.bound(row) for row in statement.params])
            statement.pending.rowcount = cursor.rowcount
        else:
            cursor = conn.execute(sql, statement.bound(statement.params))
            statement.pending.rows = cursor.fetchall()
            statement.pending.rowcount = cursor.rowcount
        statement.check()


#: A value SQLite cannot take (a lone surrogate in a text, which the driver cannot encode): refused before anything
#: changed, answered like a failing disk rather than as an unexpected error.
REFUSED_VALUES: tuple[type[BaseException], ...] = (UnicodeError,)


def translated(error: BaseException) -> BaseException:
    """The error a caller sees, as the backend's API promises: a refused constraint is :class:`Conflict`, a failing
    disk or a refused value :class:`StorageUnavailable`; anything else (a version check's own error) as raised."""
    if isinstance(error, REFUSED_VALUES):
        refused = StorageUnavailable(f"{type(error).__name__}: {error}")
        refused.__cause__ = error
        return refused
    if isinstance(error, sqlite3.IntegrityError):
        conflict = Conflict(str(error))
        conflict.__cause__ = error
        return conflict
    if isinstance(error, sqlite3.OperationalError) and not isinstance(error, StorageUnavailable):
        unavailable = StorageUnavailable(str(error))
        unavailable.__cause__ = error
        return unavailable
    return error
