"""Fixtures every test package shares: the database URL of each storage backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.postgres import fresh_schema

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """``DATABASE_URL`` of a new, empty database on each backend: a SQLite file, or a PostgreSQL schema of its own
    (skipped, naming the variable, when no PostgreSQL server is configured)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'dicebot.sqlite3'}"
        return
    async with fresh_schema() as url:
        yield url
