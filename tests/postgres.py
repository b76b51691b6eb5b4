"""A PostgreSQL schema of its own for a test, on the server named by ``DICEBOT_TEST_POSTGRES``.

Every test gets a schema no other test uses at the same time and a URL whose ``search_path`` names it, so tests
running in parallel (pytest-xdist) on one database never see each other's tables: a new empty one
(:func:`fresh_schema`, created, then dropped with everything in it), or one at the newest migration
(:func:`migrated_schema`, kept by the worker and emptied between its tests). Without the variable the PostgreSQL
variants skip with a message naming it; ``.ci/run`` sets it, so in CI they always run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.storage import Database

POSTGRES_ENV = "DICEBOT_TEST_POSTGRES"
SKIP_REASON = f"PostgreSQL tests need {POSTGRES_ENV}, e.g. {POSTGRES_ENV}=postgresql://postgres@127.0.0.1:5432/test"


def server_url() -> str:
    """The server to test against, or skip the test."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if not url:
        pytest.skip(SKIP_REASON)
    return url


def with_search_path(url: str, schema: str) -> str:
    """``url`` with the connection settings ``search_path`` and ``synchronous_commit=off`` (asyncpg passes unknown
    query parameters on).

    Without waiting for its WAL to reach the disk, a commit is as atomic and as visible to other sessions as
    before; only a crash of the server could lose the last ones, which no test does. Hundreds of commits per test
    each waited for an fsync: seconds of wall time in the leaderboard tests.
    """
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}&synchronous_commit=off"


@asynccontextmanager
async def fresh_schema(url: str | None = None) -> AsyncIterator[str]:
    """A new empty schema for the block: its URL; dropped afterwards with everything in it."""
    base = url or server_url()
    schema = f"dicebot_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(base)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await admin.close()
    try:
        yield with_search_path(base, schema)
    finally:
        admin = await asyncpg.connect(base)
        try:
            await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await admin.close()


@asynccontextmanager
async def schema_of_another_role(granted: str = "") -> AsyncIterator[tuple[str, str, str]]:
    """A new schema, and a new login role granted only ``granted`` on it (``"USAGE"``, or nothing): the schema, the
    role and a URL that connects as that role with the schema as its ``search_path``. Both are named for the block
    alone, so blocks running in parallel never meet, and are dropped afterwards (the role's grants with it)."""
    base = server_url()
    suffix = uuid.uuid4().hex[:12]
    schema, role = f"dicebot_test_{suffix}", f"dicebot_role_{suffix}"
    admin = await asyncpg.connect(base)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"; CREATE ROLE "{role}" LOGIN')
        if granted:
            await admin.execute(f'GRANT {granted} ON SCHEMA "{schema}" TO "{role}"')
        address = urlsplit(base)
        as_role = urlunsplit(address._replace(netloc=f"{role}@{address.hostname}:{address.port or 5432}"))
        yield schema, role, with_search_path(as_role, schema)
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE; DROP OWNED BY "{role}"; DROP ROLE "{role}"')
        await admin.close()


#: What a schema's tables, columns, constraints, functions and triggers are: equal before and after a test that
#: changed none of them.
SHAPE = """
SELECT md5(string_agg(part, ',' ORDER BY part)) FROM (
    SELECT c.relname || ':' || c.relkind::text || ':' || coalesce(a.attname, '') || ':'
        || coalesce(format_type(a.atttypid, a.atttypmod), '') || ':' || coalesce(a.attnotnull::text, '') AS part
    FROM pg_class c LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE c.relnamespace = $1::regnamespace
    UNION ALL SELECT conname || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = $1::regnamespace
    UNION ALL SELECT proname || md5(prosrc) FROM pg_proc WHERE pronamespace = $1::regnamespace
    UNION ALL SELECT t.tgname || t.tgfoid::text || t.tgenabled::text
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace
) parts
"""


@dataclass(frozen=True)
class _Migrated:
    """A worker's migrated schema and what emptying it takes."""

    schema: str
    #: The statements that bring it back to the state the migrations left: the tables they left empty emptied (no
    #: triggers: the rows go, nothing recounts them), the identity sequences restarted.
    reset: str
    #: :data:`SHAPE` plus the rows of the tables the migrations filled (``schema_version``), as the migrations left
    #: them: a schema whose fingerprint differs after a test is dropped, not reused.
    fingerprint: str
    fingerprint_sql: str


_migrated: dict[str, _Migrated] = {}


@asynccontextmanager
async def migrated_schema(url: str | None = None) -> AsyncIterator[str]:
    """A schema at the newest migration and without rows of its own for the block: its URL.

    Creating a schema, applying every migration in it and dropping it cost about 50 ms of the server's CPU and
    8 ms of the test's per test; emptying the worker's kept one about half of that. After the block the schema is
    emptied and kept when its shape and its ``schema_version`` are what the migrations made, else dropped (a test
    that altered a table, or anything failed), so every block starts like a fresh migrated schema, identity
    sequences included. The kept schemas stay when the worker ends, as a killed test's :func:`fresh_schema` does.
    """
    base = url or server_url()
    kept = _migrated.pop(base, None) or await _migrate_new(base)
    try:
        yield with_search_path(base, kept.schema)
    finally:
        admin = await asyncpg.connect(base)
        try:
            if await _emptied(admin, kept):
                _migrated[base] = kept
            else:
                await admin.execute(f'DROP SCHEMA "{kept.schema}" CASCADE')
        finally:
            await admin.close()


async def _emptied(admin: asyncpg.Connection, kept: _Migrated) -> bool:
    """Empty ``kept`` if the test left its shape as the migrations made it; False when it could not be reused (a
    changed shape, or a server user that may not skip triggers: not the superuser ``.ci/run`` uses)."""
    if await admin.fetchval(kept.fingerprint_sql, kept.schema) != kept.fingerprint:
        return False
    try:
        async with admin.transaction():  # rolled back on a refusal, so the caller can still drop the schema
            await admin.execute(kept.reset)
    except asyncpg.PostgresError:
        return False
    return True


async def _migrate_new(base: str) -> _Migrated:
    """A new schema with every migration applied, and how to fingerprint and empty it."""
    schema = f"dicebot_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(base)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
        await (await Database.open(with_search_path(base, schema))).close()
        tables = [row[0] for row in await admin.fetch("SELECT tablename FROM pg_tables WHERE schemaname = $1", schema)]
        filled = [
            table for table in tables if await admin.fetchval(f'SELECT EXISTS (SELECT FROM "{schema}"."{table}")')
        ]
        sequences = await admin.fetch("SELECT sequencename FROM pg_sequences WHERE schemaname = $1", schema)
        rows = " || ".join(
            f"(SELECT coalesce(string_agg(t::text, ',' ORDER BY t::text), '') FROM \"{schema}\".\"{table}\" t)"
            for table in filled
        )
        fingerprint_sql = f"SELECT ({SHAPE}) || {rows or repr('')}"
        restarts = ", ".join(f'setval(\'"{schema}"."{row[0]}"\', 1, false)' for row in sequences)
        reset = "; ".join(
            [
                "SET LOCAL session_replication_role = replica",
                *(f'DELETE FROM "{schema}"."{table}"' for table in tables if table not in filled),
                *([f"SELECT {restarts}"] if restarts else []),
            ]
        )
        fingerprint = await admin.fetchval(fingerprint_sql, schema)
    finally:
        await admin.close()
    return _Migrated(schema, reset, fingerprint, fingerprint_sql)
