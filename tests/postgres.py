"""A PostgreSQL schema of its own for a test, on the server named by ``DICEBOT_TEST_POSTGRES``.

Every test gets a new schema (created, then dropped with everything in it) and a URL whose ``search_path`` names
it, so tests running in parallel (pytest-xdist) on one database never see each other's tables. Without the
variable the PostgreSQL variants skip with a message naming it; ``.ci/run`` sets it, so in CI they always run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

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
