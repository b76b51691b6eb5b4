"""Migrations, transactions and the refusal to touch a database from a newer dicebot."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from bot.storage import Database, DatabaseError
from bot.storage.database import Migration, bundled_migrations


async def test_new_database_is_migrated_with_wal_and_foreign_keys(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "dir" / "db.sqlite3"
    db = await Database.open(path)
    try:
        row = await db.fetch_one("SELECT version FROM schema_version")
        assert row is not None
        assert row[0] == bundled_migrations()[-1].version
        row = await db.fetch_one("PRAGMA journal_mode")
        assert row is not None
        assert row[0] == "wal"
        row = await db.fetch_one("PRAGMA foreign_keys")
        assert row is not None
        assert row[0] == 1
    finally:
        await db.close()


async def test_reopening_applies_only_new_migrations(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Database.open(path)).close()
    extra = Migration(9999, "9999_extra.sql", "CREATE TABLE extra (id INTEGER PRIMARY KEY);")
    db = await Database.open(path, [*bundled_migrations(), extra])
    try:
        row = await db.fetch_one("SELECT version FROM schema_version")
        assert row is not None
        assert row[0] == 9999
    finally:
        await db.close()


async def test_newer_schema_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    await (await Database.open(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99999")
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match="newer than this dicebot"):
        await Database.open(path)
    assert path.read_bytes() == before


async def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    broken = Migration(1, "0001_broken.sql", "CREATE TABLE a (id INTEGER);\nTHIS IS NOT SQL;")
    with pytest.raises(DatabaseError):
        await Database.open(path, [broken])
    with sqlite3.connect(path) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "a" not in tables


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
async def test_unwritable_folder_is_a_clear_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(DatabaseError, match="DATABASE_URL"):
        await Database.open(locked / "x" / "db.sqlite3")


async def test_path_that_is_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="DATABASE_URL"):
        await Database.open(tmp_path)


async def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "db.sqlite3")
    try:
        with pytest.raises(RuntimeError):
            async with db.transaction() as tx:
                tx.execute(
                    "INSERT INTO games (kind, variant, channel_id, host_id, status, created_at, updated_at) "
                    "VALUES ('kniffel', 'kniffel', 1, 1, 'lobby', 0, 0)"
                )
                raise RuntimeError("boom")
        row = await db.fetch_one("SELECT COUNT(*) FROM games")
        assert row is not None
        assert row[0] == 0
    finally:
        await db.close()


@pytest.mark.parametrize(("dialect", "first"), [("sqlite", 1), ("postgres", 8)])
def test_the_bundled_migrations_are_numbered_one_after_another(dialect: str, first: int) -> None:
    """Two branches that each add "the next" migration would both ship 0014: a database one of them migrated would
    count as up to date and never get the other's change."""
    versions = [migration.version for migration in bundled_migrations(dialect)]  # type: ignore[arg-type]
    assert versions == list(range(first, first + len(versions)))
