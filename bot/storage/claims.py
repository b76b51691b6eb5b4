"""A bot process's claim on its games in a PostgreSQL database: advisory locks, as SQLite's lock files are
(``bot/datalock.py``).

Two processes running the same games each keep their own copy of a game in progress, fire the same deadlines and
repair the same messages (QA: two bots on one database both started and both ran every game). So a process of
every shard takes the key "every game" exclusively; a shard process takes it shared, and each of its shards' key
exclusively. The keys hash the schema's name, so bots in other schemas of the database are not in the way.

Shard processes must agree on ``SHARD_COUNT``: with 2 in one and 3 in another, both took their shards and ran the
servers their counts gave both (every guild's shard depends on the count). So a shard process also holds the key
of its count shared, and is refused while another count's key is held: read from ``pg_locks``, under a lock
that lets one process at a time look, so two starting together cannot both miss each other.

The locks are held by a connection of their own, outside the pool, with short TCP keepalives: the server drops a
crashed host's connection, and its locks, within a minute rather than after its two-hour default, which locked a
restarted bot out of its own database (review). A claim lost with its connection (the server restarted, an admin
ended the session) is logged and taken again as soon as the server answers; should another process have taken the
games meanwhile, this one stops (:meth:`Claim.overtaken`): both ran them, logged as an error only (review). The
connection is idle, so a session the server dropped without the client hearing of it (a partition, a failover) went
unnoticed while another process took the games: a ``SELECT 1`` every :data:`PROBE_EVERY` seconds finds it. And a
loss the client saw first can find the old session still holding the locks on the server (a proxy between them):
that session, recognised by its process id, is ended and the claim taken again, not given up (review).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import asyncpg

from bot.sharding import ShardScope
from bot.storage.backend import DatabaseError

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

log = logging.getLogger(__name__)

#: The advisory locks' first key, hashed with the schema's name, and the second key of "every game"; a shard's own
#: is its id.
CLAIM_KEY = "dicebot claim: "
EVERY_GAME = -1
#: The first key of the shard counts' locks, hashed with the schema's name; the second is the count, or
#: :data:`LOOKING` for the lock of the process that reads which counts are held.
COUNT_KEY = "dicebot shard count: "
LOOKING = -1
#: The claim's connection: the server probes it after 30 s of silence, every 10 s, and drops it after 3 misses.
KEEPALIVES = {"tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10", "tcp_keepalives_count": "3"}
#: Seconds between attempts to take a lost claim again: growing, up to half a minute.
RETRY_AFTER = (0.0, 1.0, 2.0, 5.0, 10.0, 30.0)
#: Seconds between two probes of the claim's connection, and how long one may take before the connection counts
#: as lost.
PROBE_EVERY = 30.0
PROBE_TIMEOUT = 10.0

_LOCK = "SELECT {function}(hashtext($1 || current_schema()), $2)"
#: The locks other sessions hold under the first key ``$1`` of this schema (the two-key form: ``objsubid`` 2).
_OTHERS_LOCKS = """
FROM pg_locks
WHERE locktype = 'advisory' AND objsubid = 2 AND granted AND pid <> pg_backend_pid()
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND classid = hashtext($1 || current_schema())::oid
"""
#: The sessions holding this schema's claims other than this one.
_HOLDERS = f"SELECT DISTINCT pid {_OTHERS_LOCKS}"
#: The shard counts other sessions hold.
_OTHER_COUNTS = f"SELECT DISTINCT objid::bigint {_OTHERS_LOCKS} AND objid <> $2::oid ORDER BY 1"


class Lingering(DatabaseError):
    """The claim is held by this process's own previous session, which the server has not ended yet."""


class Claim:
    """The games of ``shards`` (None: every game) of one database, claimed for this process."""

    def __init__(
        self,
        connecting: Callable[[], Awaitable[asyncpg.Connection]],
        shards: ShardScope | None,
        where: str,
        unusable: tuple[type[BaseException], ...],
        failure: Callable[[BaseException], str],
    ) -> None:
        """``unusable``: what the server's absence raises; ``failure``: its words, as the backend says them."""
        self._connecting = connecting
        self._shards = shards
        self._where = where
        self._unusable = unusable
        self._failure = failure
        self._connection: asyncpg.Connection | None = None
        self._retaking: asyncio.Task[None] | None = None
        self._released = False
        #: How many times it was taken: once at start, once more after each loss.
        self.taken = 0
        self._changed = asyncio.Event()
        self._overtaken: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        #: The server process of the session that held the claim last: a refusal by it is no other process's.
        self._pid: int | None = None
        self._probing: asyncio.Task[None] | None = None

    async def take(self) -> None:
        """Take the claim, or raise :class:`DatabaseError` with one line: another process holds some of it, or the
        server cannot be used."""
        try:
            conn = await self._connecting()
        except self._unusable as exc:
            why = self._failure(exc)
            raise DatabaseError(f"cannot connect to the database {self._where} (DATABASE_URL): {why}") from exc
        try:
            taken = await self._locked(conn)
            lingering = taken is not None and await self._ended_own_session(conn)
        except self._unusable as exc:
            conn.terminate()
            why = self._failure(exc)
            raise DatabaseError(f"cannot use the database {self._where} (DATABASE_URL): {why}") from exc
        except BaseException:
            conn.terminate()
            raise
        if taken is not None:
            conn.terminate()
            raise Lingering(taken) if lingering else DatabaseError(taken)
        conn.add_termination_listener(self._lost)
        self._connection = conn
        self._pid = conn.get_server_pid()
        self._probing = asyncio.get_running_loop().create_task(self._probe(conn), name="dicebot-claim-probe")
        self.taken += 1
        self._changed.set()

    async def _ended_own_session(self, conn: asyncpg.Connection) -> bool:
        """Whether the refusing holder is this process's previous session: then it is ended (the same role may)."""
        if self._pid is None:
            return False
        holders = {row[0] for row in await conn.fetch(_HOLDERS, CLAIM_KEY)}
        if self._pid not in holders:
            return False
        await conn.fetchval("SELECT pg_terminate_backend($1)", self._pid)
        return True

    async def _probe(self, conn: asyncpg.Connection) -> None:
        """Ask the claim's connection something now and then; one that does not answer is closed, which starts the
        retaking (:meth:`_lost`)."""
        failures: tuple[type[BaseException], ...] = (TimeoutError, asyncpg.InterfaceError, *self._unusable)
        while not conn.is_closed():
            await asyncio.sleep(PROBE_EVERY)
            try:
                await conn.fetchval("SELECT 1", timeout=PROBE_TIMEOUT)
            except failures:
                if not conn.is_closed():
                    log.warning("the claim's connection to %s does not answer; closing it", self._where)
                    conn.terminate()
                return

    async def wait_taken(self, times: int) -> None:
        """Return once the claim was taken ``times`` times in all (a loss and its retaking observed)."""
        while self.taken < times:
            self._changed.clear()
            await self._changed.wait()

    async def overtaken(self) -> str:
        """Wait until another process took the games while the claim was lost; the line saying so."""
        return await asyncio.shield(self._overtaken)

    async def release(self) -> None:
        """Give the claim back: its connection closed, a retaking in progress stopped."""
        self._released = True
        if self._probing is not None:
            self._probing.cancel()
        if self._retaking is not None:
            self._retaking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retaking
        if self._connection is not None:
            # Gone with the server's restart, perhaps: its locks went with it, and closing it has nothing to say.
            with contextlib.suppress(*self._unusable):
                await self._connection.close(timeout=5)
            self._connection = None

    async def _locked(self, conn: asyncpg.Connection) -> str | None:
        """Take the locks on ``conn``: None, or the line saying which of them another process holds."""
        every = "pg_try_advisory_lock" if self._shards is None else "pg_try_advisory_lock_shared"
        if not await conn.fetchval(_LOCK.format(function=every), CLAIM_KEY, EVERY_GAME):
            return (
                f"another dicebot process uses the database {self._where} (DATABASE_URL); stop it first, or give "
                "each process its SHARD_IDS (docs/deploy.md)"
            )
        if self._shards is None:
            return None
        for shard in self._shards.ids:
            if not await conn.fetchval(_LOCK.format(function="pg_try_advisory_lock"), CLAIM_KEY, shard):
                return (
                    f"another dicebot process runs shard {shard} on the database {self._where} (DATABASE_URL, "
                    "SHARD_IDS); give each process other shards"
                )
        return await self._counted(conn, self._shards.count)

    async def _counted(self, conn: asyncpg.Connection, count: int) -> str | None:
        """Hold ``count``'s key shared on ``conn``: None, or the line naming the other count a process runs with."""
        async with conn.transaction():
            await conn.execute(_LOCK.format(function="pg_advisory_xact_lock"), COUNT_KEY, LOOKING)
            others = [row[0] for row in await conn.fetch(_OTHER_COUNTS, COUNT_KEY, count)]
            if not others:
                await conn.fetchval(_LOCK.format(function="pg_advisory_lock_shared"), COUNT_KEY, count)
                return None
        return (
            f"another dicebot process runs with SHARD_COUNT={others[0]} on the database {self._where} (DATABASE_URL), "
            f"this one with {count}; give every process the same SHARD_COUNT (docs/deploy.md)"
        )

    def _lost(self, conn: asyncpg.Connection | PoolConnectionProxy[Any]) -> None:
        """asyncpg's termination listener: the connection closed, by :meth:`release` or not."""
        if self._released or conn is not self._connection:
            return
        self._connection = None
        if self._probing is not None:  # the lost connection's: a new take starts its own
            self._probing.cancel()
        log.warning("lost the claim on the games in %s (its connection closed); taking it again", self._where)
        self._retaking = asyncio.get_running_loop().create_task(self._retake(), name="dicebot-claim")

    async def _retake(self) -> None:
        for attempt, pause in enumerate(itertools.chain(RETRY_AFTER, itertools.repeat(RETRY_AFTER[-1]))):
            await asyncio.sleep(pause)
            try:
                await self.take()
            except Lingering:
                log.warning(
                    "the claim on the games in %s is still held by this process's old session; ended it", self._where
                )
                continue
            except DatabaseError as error:
                if not isinstance(error.__cause__, self._unusable):
                    log.error("%s: it took the games while this process's claim was lost; stopping", error)
                    self._overtaken.set_result(str(error))
                    return
                if attempt == 0 or pause == RETRY_AFTER[-1]:
                    log.warning("cannot take the claim on the games in %s again yet: %s", self._where, error)
                continue
            log.warning("took the claim on the games in %s again", self._where)
            return
