"""The PostgreSQL backend through asyncpg: a pool every request borrows from, statement timeouts, migrations.

Several bot processes may share one server, so nothing here relies on being the only writer: the unique index
and the optimistic version check do that work, as on SQLite. A connection the server dropped (a restart, an
administrator ending it) is an error for the request that held it, answered "try again" through
:class:`StorageUnavailable`; the pool replaces closed connections on the next acquire, so games continue once the
server is back. Reads, which change nothing, are retried once on a fresh connection first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import asyncpg

from bot.sharding import ShardScope
from bot.storage.backend import (
    Conflict,
    Database,
    DatabaseError,
    Migration,
    Row,
    Sql,
    StorageUnavailable,
    Transaction,
    bundled_migrations,
    numbered,
    refuse_newer,
)
from bot.storage.claims import KEEPALIVES, Claim
from bot.storage.ownership import VERSION_TABLE, Found, identify
from bot.urls import describe_url

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    #: A connection of the pool (what ``pool.acquire()`` hands out).
    Connection = PoolConnectionProxy[asyncpg.Record]

log = logging.getLogger(__name__)

#: Errors that mean "the server or the connection to it is not there (now)", not "this statement is wrong".
UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,  # the server shutting down, or pg_terminate_backend
    asyncpg.exceptions.QueryCanceledError,  # statement_timeout
    asyncpg.exceptions.InsufficientResourcesError,  # disk full, too many connections
    asyncpg.exceptions.CannotConnectNowError,
    # A connection the server ended while it was idle can be left in a state asyncpg refuses to use
    # ("another operation is in progress"): a broken connection, replaced like the others.
    asyncpg.exceptions.InternalClientError,
)
#: Refused before anything changed, the connection fine: a value the server cannot hold (a NUL in a text, a number
#: out of range) or asyncpg cannot encode (a lone surrogate, which it reports as a DataError too), or a transaction
#: the server rolled back to break a deadlock or a serialization conflict (two saves locking the same games in
#: different orders). Answered like an unavailable server, "try again", but no reason to replace the pool's
#: connections.
REFUSED: tuple[type[BaseException], ...] = (asyncpg.exceptions.DataError, asyncpg.exceptions.TransactionRollbackError)
#: Anything a write can fail with: the server's refusals and the connection's failures.
FAILED_WRITES: tuple[type[BaseException], ...] = (asyncpg.PostgresError, *UNAVAILABLE)
#: What cannot connect or use the server, for the messages at start-up.
UNUSABLE: tuple[type[BaseException], ...] = (*UNAVAILABLE, asyncpg.PostgresError, ValueError)
#: Seconds to open a connection: a click must be answered within Discord's 3 s, "try again" included.
CONNECT_TIMEOUT = 2.0
#: How the bot's connections appear in ``pg_stat_activity``, unless its URL names another.
APPLICATION_NAME = "dicebot"
_NAMES_APPLICATION = re.compile(r"[?&]application_name=", re.IGNORECASE)
#: Held while migrating, so bot processes starting together apply each migration once.
MIGRATION_LOCK = 7_164_220_019


def _failure(error: BaseException, waited: float) -> str:
    """What went wrong, as a message goes on: a server that never answers raises a TimeoutError with no text, and
    the line ended in "(DATABASE_URL): " (review). ``waited``: the seconds the call was given."""
    if isinstance(error, TimeoutError | asyncio.TimeoutError) and not str(error):
        return f"no answer within {waited:g} s: check the host and port, and that PostgreSQL listens there"
    return str(error) or type(error).__name__


class PostgresDatabase(Database):
    """A pool of ``pool_size`` connections to one database (and the schema its URL's ``search_path`` names)."""

    dialect = "postgres"

    def __init__(self, pool: asyncpg.Pool, where: str, claim: Claim | None = None) -> None:
        self._pool = pool
        self.where = where
        #: This process's claim on its games (:mod:`bot.storage.claims`), when it runs games.
        self.claim = claim

    @classmethod
    async def connect(
        cls,
        url: str,
        migrations: list[Migration] | None = None,
        *,
        pool_size: int = 10,
        statement_timeout: float = 10.0,
        setting: str = "DATABASE_URL",
        claim: bool = False,
        shards: ShardScope | None = None,
    ) -> PostgresDatabase:
        """Connect, refuse a newer schema, claim the games of ``shards`` (None: every game) when ``claim`` (a bot
        that runs games; not a sync, a copy or a test of storage), migrate; a server that cannot be used, or games
        another process claimed, raise :class:`DatabaseError`.

        ``setting`` is what the admin wrote the URL into, named by every error (``migrate-db`` passes ``--to``)."""
        migrations = bundled_migrations("postgres") if migrations is None else migrations
        where = describe_url(url)
        settings = {"statement_timeout": str(int(statement_timeout * 1000))}
        if not _NAMES_APPLICATION.search(url):
            # The bot's connections told apart in pg_stat_activity and the server's log (QA); the URL's own wins.
            settings["application_name"] = APPLICATION_NAME
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=pool_size,
                command_timeout=statement_timeout + 5,
                server_settings=settings,
                timeout=CONNECT_TIMEOUT,
            )
        except UNUSABLE as exc:
            why = _failure(exc, CONNECT_TIMEOUT)
            raise DatabaseError(f"cannot connect to the database {where} ({setting}): {why}") from exc
        db = cls(pool, where)
        if claim:

            def claiming() -> Awaitable[asyncpg.Connection]:
                keepalives = {**settings, **KEEPALIVES}
                return asyncpg.connect(url, server_settings=keepalives, timeout=CONNECT_TIMEOUT)

            db.claim = Claim(claiming, shards, where, UNUSABLE, lambda exc: _failure(exc, CONNECT_TIMEOUT))
        try:
            async with pool.acquire() as conn:
                await _require_schema(conn, where, setting)
                # Before migrating: a second bot (a newer one started by mistake) migrated the schema under the
                # running one, then was refused (review). After the schema check: its name is the claim's key.
                if db.claim is not None:
                    await db.claim.take()
                await _migrate(conn, migrations, where, setting)
        except DatabaseError:
            await db.close()
            raise
        except UNUSABLE as exc:
            await db.close()
            why = _failure(exc, statement_timeout + 5)
            raise DatabaseError(f"cannot use the database {where} ({setting}): {why}") from exc
        return db

    async def overtaken(self) -> str:
        if self.claim is None:
            return await super().overtaken()
        return await self.claim.overtaken()

    async def close(self) -> None:
        if self.claim is not None:
            await self.claim.release()
        await self._pool.close()

    async def run(self, batch: Transaction) -> None:
        """The batch on one borrowed connection inside one transaction; rolled back on any error.

        A connection found dead before BEGIN reached the server (the pool's idle connection after a server
        restart) is replaced once: nothing was sent, so trying again cannot apply anything twice.
        """
        for attempt in (1, 2):
            begun = False
            try:
                async with self._pool.acquire() as conn:
                    transaction = conn.transaction()
                    await transaction.start()
                    begun = True
                    try:
                        await _statements(conn, batch)
                    except BaseException:
                        with contextlib.suppress(*UNAVAILABLE):
                            await transaction.rollback()
                        raise
                    await transaction.commit()
                return
            except asyncpg.exceptions.IntegrityConstraintViolationError as exc:
                raise Conflict(str(exc)) from exc
            except REFUSED as exc:
                raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
            except UNAVAILABLE as exc:
                await self._pool.expire_connections()
                if begun or attempt == 2:
                    raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
                log.info("a write found its connection closed (%s); retrying once on a fresh one", exc)

    async def fetch_all(self, sql: Sql, params: Sequence[Any] = ()) -> list[Row]:
        text = numbered(sql if isinstance(sql, str) else sql.postgres)
        for attempt in (1, 2):
            try:
                async with self._pool.acquire() as conn:
                    return list(await conn.fetch(text, *params))
            except REFUSED as exc:
                raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
            except UNAVAILABLE as exc:
                if not isinstance(exc, asyncpg.exceptions.QueryCanceledError):
                    # The server may have restarted: every idle connection is replaced on its next acquire.
                    await self._pool.expire_connections()
                if attempt == 2 or isinstance(exc, asyncpg.exceptions.QueryCanceledError):
                    raise StorageUnavailable(f"{type(exc).__name__}: {exc}") from exc
                log.info("a read lost its connection (%s); retrying once on a fresh one", exc)
        raise AssertionError("unreachable")

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            return await schema_version(conn)

    async def in_one_transaction(self, work: Callable[[Connection], Awaitable[None]]) -> None:
        """``work`` on one connection inside one transaction, rolled back if it raises: for writes too large to
        collect as one batch first (``migrate-db`` streams every table). Any failure is a :class:`DatabaseError`."""
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await work(conn)
        except FAILED_WRITES as exc:
            raise DatabaseError(f"the write into PostgreSQL failed and was rolled back: {exc}") from exc


async def _statements(conn: Connection, batch: Transaction) -> None:
    for statement in batch.statements:
        sql = numbered(statement.sql if isinstance(statement.sql, str) else statement.sql.postgres)
        if statement.many:
            await conn.executemany(sql, [statement.bound(row) for row in statement.params])
        elif _returns_rows(sql):
            statement.pending.rows = list(await conn.fetch(sql, *statement.bound(statement.params)))
            statement.pending.rowcount = len(statement.pending.rows)
        else:
            status = await conn.execute(sql, *statement.bound(statement.params))
            statement.pending.rowcount = _rowcount(status)
        statement.check()


_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)


def _returns_rows(sql: str) -> bool:
    """Whether a statement hands back rows (fetched, so a later ``Returned`` can read them) or only a status."""
    head = sql.lstrip().split(None, 1)[0].upper()
    return head in ("SELECT", "WITH") or _RETURNING.search(sql) is not None


def _rowcount(status: str) -> int:
    """``UPDATE 3`` / ``DELETE 0`` / ``INSERT 0 1``: the last word is the number of rows."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


async def schema_version(conn: Connection) -> int:
    """The applied migration version, 0 for a new database (``schema_version`` looked up on the search path)."""
    if await conn.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    value = await conn.fetchval("SELECT version FROM schema_version")
    return int(value) if value is not None else 0


async def found(conn: Connection) -> tuple[Found, str]:
    """What the schema the bot would create its tables in holds, for :func:`~bot.storage.ownership.identify`, and
    its name: only that schema's tables count (another schema of the ``search_path`` is not the bot's to take), and
    not an extension's (``CREATE EXTENSION pg_stat_statements`` puts its views in ``public``, which is no other
    program's data and would have refused a new install there)."""
    schema, quoted = await _row(conn, "SELECT current_schema(), quote_ident(current_schema())")
    names = await conn.fetch(
        "SELECT lower(c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT EXISTS ("
        "SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')"
    )
    tables = frozenset(str(row[0]) for row in names)
    if VERSION_TABLE not in tables:
        return Found(tables), schema
    columns = await conn.fetch(
        "SELECT lower(a.attname), lower(format_type(a.atttypid, a.atttypmod)), a.attnotnull FROM pg_attribute a "
        "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND lower(c.relname) = $1 AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum",
        VERSION_TABLE,
    )
    probe = Found(tables, tuple((str(name), str(kind), bool(required)) for name, kind, required in columns))
    if not probe.dicebot_version_table:
        return probe, schema
    rows = await conn.fetch(f"SELECT version FROM {quoted}.{VERSION_TABLE} LIMIT 2")
    return Found(tables, probe.version_columns, tuple(row[0] for row in rows)), schema


async def _require_schema(conn: Connection, where: str, setting: str) -> None:
    """Raise :class:`DatabaseError` when no schema of the ``search_path`` can be used: one that does not exist
    (``?search_path=dicebot`` before ``CREATE SCHEMA dicebot``), or one the role may not use, which PostgreSQL
    leaves out of the path as if it did not exist. The first migration failed with PostgreSQL's "no schema has been
    selected to create in", which names neither the schema nor the setting; and a schema without USAGE read "does
    not exist", which sent an admin looking for the wrong problem."""
    if await conn.fetchval("SELECT current_schema()") is not None:
        return
    search_path: str = await conn.fetchval("SHOW search_path")
    # "$user" stands for a schema named as the role, which PostgreSQL's default path lists first and skips when absent.
    named = [name.strip().strip('"') for name in search_path.split(",") if name.strip() not in ("", '"$user"', "$user")]
    # With no schema of the path usable, every one of them that exists is one the role may not use.
    existing = await conn.fetchval(
        "SELECT s.name FROM unnest($1::text[]) WITH ORDINALITY AS s(name, position) "
        "JOIN pg_namespace n ON n.nspname = s.name ORDER BY s.position LIMIT 1",
        named,
    )
    if existing is not None:
        schema, role = await _row(conn, "SELECT quote_ident($1), quote_ident(current_user)", existing)
        raise DatabaseError(
            f"schema {existing} exists in the database {where} ({setting}) but role {role} may not use it: grant it "
            f"(GRANT USAGE, CREATE ON SCHEMA {schema} TO {role}) or name another schema in the search_path of {setting}"
        )
    schema = named[0] if named else "dicebot"
    raise DatabaseError(
        f"schema {schema} does not exist in the database {where} ({setting}): create it (CREATE SCHEMA {schema}) "
        f"or name an existing schema in the search_path of {setting}"
    )


async def _require_create(conn: Connection, where: str, setting: str) -> None:
    """Raise :class:`DatabaseError` when the role may not create tables in the schema the migrations would create
    them in: the first migration failed with PostgreSQL's "permission denied for schema", naming neither the role,
    the setting nor the statement that grants it."""
    schema, quoted, role, allowed = await _row(
        conn,
        "SELECT current_schema(), quote_ident(current_schema()), quote_ident(current_user), "
        "has_schema_privilege(current_schema(), 'CREATE')",
    )
    if not allowed:
        raise DatabaseError(
            f"role {role} may not create tables in schema {schema} of the database {where} ({setting}), which "
            f"updating the bot's tables needs: grant it (GRANT CREATE ON SCHEMA {quoted} TO {role}) or name "
            f"another schema in the search_path of {setting}"
        )


async def _row(conn: Connection, sql: str, *params: object) -> asyncpg.Record:
    """The one row a query of values (no table) returns."""
    row = await conn.fetchrow(sql, *params)
    assert row is not None
    return row


async def _migrate(conn: Connection, migrations: list[Migration], where: str, setting: str) -> None:
    """Apply every migration newer than the database, each in its own transaction with its version bump.

    A newer database, and one that is not dicebot's (:mod:`bot.storage.ownership`), is refused before anything is
    written. The advisory lock makes processes that start together wait for each other rather than apply the same
    migration twice; a database that is up to date takes no lock, so a start waits for nobody. The statement
    timeout, meant for the statements of clicks, is off while migrating: a backfill on a big database, or the wait
    for another process's, may take longer, and cutting it short would stop the bot from starting.
    """
    facts, schema = await found(conn)
    current = identify(facts, migrations, where, setting, schema)
    if not migrations or current >= migrations[-1].version:
        return
    await _require_create(conn, where, setting)
    await conn.execute("SET statement_timeout = 0")
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        current = await schema_version(conn)
        refuse_newer(current, migrations, where, setting)
        for migration in migrations:
            if migration.version <= current:
                continue
            log.info("applying migration %s (PostgreSQL)", migration.name)
            async with conn.transaction():
                await conn.execute(migration.sql)
                await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                await conn.execute("DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", migration.version)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        await conn.execute("RESET statement_timeout")


__all__ = ["UNAVAILABLE", "DatabaseError", "PostgresDatabase", "describe_url", "schema_version"]
