"""Another program's database is refused before anything writes to it, on both backends (``bot.storage.ownership``).

QA found a PostgreSQL schema holding another program's ``schema_version(version int)`` of 3 taken over (overwritten
with 19, dicebot's tables added), and another program's SQLite file switched to WAL for good before it failed with
``no such table: main.game_players``.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.storage import Database, DatabaseError
from bot.storage.backend import Migration, PerDialect, bundled_migrations
from bot.storage.copy import migrate
from bot.storage.ownership import Found, identify, tables_at
from tests.postgres import SHAPE, fresh_schema, server_url

#: Another program's tables, as QA met them: a version table of its own, and tables of dicebot's names among others.
FOREIGN: dict[str, list[str]] = {
    "a schema_version of another shape": [
        "CREATE TABLE schema_version (version int)",
        "INSERT INTO schema_version VALUES (3)",
        "CREATE TABLE games (id int, title text)",
    ],
    "dicebot's version table at a version whose tables it lacks": [
        "CREATE TABLE schema_version (version INTEGER NOT NULL)",
        "INSERT INTO schema_version VALUES (19)",
        "CREATE TABLE games (id int, title text)",
        "CREATE TABLE results (id int)",
    ],
    "other tables alone": ["CREATE TABLE games (id int, title text)", "CREATE TABLE players (id int)"],
}


def test_the_tables_of_each_version_follow_creates_drops_and_renames() -> None:
    migrations = [
        Migration(
            1, "0001_a.sql", "-- CREATE TABLE commented (x int)\nCREATE TABLE a (x int);\nCREATE TABLE b (x int);"
        ),
        Migration(2, "0002_b.sql", "CREATE TEMP TABLE scratch AS SELECT 1;\nDROP TABLE scratch;\nDROP TABLE a;"),
        Migration(3, "0003_c.sql", "CREATE TABLE IF NOT EXISTS b_new (x int);\nALTER TABLE b_new RENAME TO c;"),
    ]
    assert tables_at(migrations) == {
        1: {"a", "b", "schema_version"},
        2: {"b", "schema_version"},
        3: {"b", "c", "schema_version"},
    }


def test_a_newer_version_needs_the_tables_every_version_has_had() -> None:
    migrations = bundled_migrations("sqlite")
    shape = (("version", "integer", True),)
    newer = Found(frozenset({"schema_version", "games", "results", "something_new"}), shape, (99999,))
    with pytest.raises(DatabaseError, match="newer than this dicebot"):
        identify(newer, migrations, "db.sqlite3", "DATABASE_URL")
    bare = Found(frozenset({"schema_version"}), shape, (99999,))
    with pytest.raises(DatabaseError) as refused:
        identify(bare, migrations, "db.sqlite3", "DATABASE_URL")
    assert str(refused.value) == (
        "the database db.sqlite3 (DATABASE_URL) is not a dicebot database: it has table schema_version but no games, "
        "results (which every dicebot schema version has); it was left untouched: point DATABASE_URL at dicebot's "
        "database or at a new one"
    )


async def test_the_tables_derived_from_the_migrations_are_those_a_migrated_database_has(db: Database) -> None:
    listed = PerDialect(
        sqlite="SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'",
        postgres="SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
    )
    tables = {row[0] for row in await db.fetch_all(listed)}
    migrations = bundled_migrations(db.dialect)
    assert tables_at(migrations)[migrations[-1].version] == tables


async def test_a_dicebot_database_with_a_table_of_the_admins_beside_it_opens(database_url: str) -> None:
    await (await Database.open(database_url)).close()
    if database_url.startswith("sqlite:///"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as conn:
            conn.execute("CREATE TABLE admin_notes (text TEXT)")
        conn.close()
    else:
        conn = await asyncpg.connect(database_url)
        await conn.execute("CREATE TABLE admin_notes (text text)")
        await conn.close()
    db = await Database.open(database_url)
    assert await db.schema_version() == bundled_migrations(db.dialect)[-1].version
    await db.close()


def test_dicebot_tables_gone_from_its_database_are_damage_not_another_program() -> None:
    """A table an admin dropped by hand was refused as "not a dicebot database", pointing at another database:
    with dicebot's version and most of its tables it is the admin's own, to be restored from a backup."""
    migrations = bundled_migrations("sqlite")
    shape = (("version", "integer", True),)
    latest = migrations[-1].version
    tables = tables_at(migrations)[latest]
    dropped = Found(tables - {"game_seats", "standings"}, shape, (latest,))
    with pytest.raises(DatabaseError) as refused:
        identify(dropped, migrations, "db.sqlite3", "DATABASE_URL")
    assert str(refused.value) == (
        "the database db.sqlite3 (DATABASE_URL) is a damaged dicebot database: it lacks tables game_seats, standings, "
        f"which dicebot's schema version {latest} has; it was left untouched: stop the bot and restore the database "
        'from a backup (README, "Backups")'
    )
    newer = Found(frozenset({"schema_version", "games", "something_new"}), shape, (99999,))
    with pytest.raises(DatabaseError, match="is a damaged dicebot database: it lacks table results, which every "):
        identify(newer, migrations, "db.sqlite3", "DATABASE_URL")


def drop_game_moves(path: Path) -> bytes:
    """Drop a table of dicebot's from its SQLite file by hand, as an admin might; the file's bytes after it."""
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE game_moves")
    conn.close()
    return contents(path)


def contents(path: Path) -> bytes:
    return path.read_bytes()


async def test_a_table_dropped_by_hand_is_named_and_the_database_left_as_it_was(database_url: str) -> None:
    await (await Database.open(database_url)).close()
    if database_url.startswith("sqlite:///"):
        path = Path(database_url.removeprefix("sqlite:///"))
        before: object = drop_game_moves(path)
    else:
        admin = await asyncpg.connect(database_url)
        await admin.execute("DROP TABLE game_moves")
        before = await fingerprint(admin)
    with pytest.raises(DatabaseError) as refused:
        await Database.open(database_url)
    latest = bundled_migrations("sqlite")[-1].version
    damaged = "(DATABASE_URL) is a damaged dicebot database: it lacks table game_moves, which dicebot's schema version"
    assert f"{damaged} {latest} has; it was left untouched: stop the bot and restore the database" in str(refused.value)
    if database_url.startswith("sqlite:///"):
        assert contents(path) == before
    else:
        assert await fingerprint(admin) == before
        await admin.close()


# SQLite


def foreign_file(path: Path, statements: list[str]) -> Path:
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return path


def files_in(folder: Path) -> list[str]:
    return sorted(item.name for item in folder.iterdir())


@pytest.mark.parametrize("case", FOREIGN)
async def test_another_programs_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path: Path, case: str) -> None:
    """journal_mode=WAL was set before the refusal, and stays in the file for good."""
    path = foreign_file(tmp_path / "other.sqlite3", FOREIGN[case])
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match=r"\(DATABASE_URL\) is not a dicebot database: "):
        await Database.open(path)
    assert path.read_bytes() == before
    assert files_in(tmp_path) == ["other.sqlite3"]  # no -wal, no -shm


async def test_the_refusal_names_what_the_file_has_and_what_it_lacks(tmp_path: Path) -> None:
    """It read ``no such table: main.game_players``, naming neither the file's owner nor what was wrong."""
    path = foreign_file(
        tmp_path / "other.sqlite3",
        [
            "CREATE TABLE schema_version (version INTEGER NOT NULL)",
            "INSERT INTO schema_version VALUES (3)",
            "CREATE TABLE games (id INTEGER)",
            "CREATE TABLE results (id INTEGER)",
            "CREATE TABLE scores (x INTEGER)",
        ],
    )
    with pytest.raises(DatabaseError) as refused:
        await Database.open(path)
    assert str(refused.value) == (
        f"the database {path} (DATABASE_URL) is not a dicebot database: it has tables games, results, schema_version, "
        "scores but no game_players, player_names, standings (which dicebot's schema version 3 has); it was left "
        "untouched: point DATABASE_URL at dicebot's database or at a new one"
    )
    versions = foreign_file(tmp_path / "shape.sqlite3", FOREIGN["a schema_version of another shape"])
    with pytest.raises(DatabaseError, match=r"its schema_version has the columns \(version int\), not dicebot's"):
        await Database.open(versions)


async def test_migrate_db_refuses_another_programs_file_by_what_it_lacks(tmp_path: Path) -> None:
    path = foreign_file(tmp_path / "other.sqlite3", FOREIGN["other tables alone"])
    with pytest.raises(DatabaseError) as refused:
        await migrate(f"sqlite:///{path}", "postgresql://nobody@127.0.0.1:1/db")
    assert str(refused.value) == (
        f"the database {path} (--from) is not a dicebot database: it has tables games, players but no schema_version; "
        "it was left untouched: point --from at dicebot's database"
    )


# PostgreSQL


async def fingerprint(conn: asyncpg.Connection) -> tuple[str, list[asyncpg.Record]]:
    """The schema's shape and its schema_version rows, if it has that table."""
    shape = await conn.fetchval(SHAPE, await conn.fetchval("SELECT current_schema()"))
    has_versions = await conn.fetchval("SELECT to_regclass('schema_version')") is not None
    return shape, await conn.fetch("SELECT * FROM schema_version") if has_versions else []


@pytest.fixture(params=FOREIGN)
async def foreign_schema(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A schema of its own holding another program's tables (dropped afterwards): its URL."""
    async with fresh_schema(server_url()) as url:
        conn = await asyncpg.connect(url)
        try:
            for statement in FOREIGN[request.param]:
                await conn.execute(statement)
        finally:
            await conn.close()
        yield url


async def test_another_programs_postgresql_schema_is_refused_and_left_as_it_was(foreign_schema: str) -> None:
    conn = await asyncpg.connect(foreign_schema)
    try:
        before = await fingerprint(conn)
        schema = await conn.fetchval("SELECT current_schema()")
        with pytest.raises(DatabaseError) as refused:
            await Database.open(foreign_schema)
        assert str(refused.value).startswith(f"schema {schema} of the database postgresql://")
        assert "(DATABASE_URL) is not a dicebot database: " in str(refused.value)
        assert await fingerprint(conn) == before
    finally:
        await conn.close()


async def test_an_extensions_views_in_the_schema_do_not_make_it_another_programs() -> None:
    """``CREATE EXTENSION`` puts its tables and views in ``public``: a new install there is still a new database.
    In a database of its own, since an extension is created once per database."""
    base = server_url()
    name = f"dicebot_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(base)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = urlunsplit(urlsplit(base)._replace(path=f"/{name}"))
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE EXTENSION pg_buffercache")
        finally:
            await conn.close()
        db = await Database.open(url)
        await db.close()
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_the_version_table_qa_met_is_named_in_the_refusal() -> None:
    async with fresh_schema(server_url()) as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE schema_version (version int); INSERT INTO schema_version VALUES (3)")
            with pytest.raises(DatabaseError) as refused:
                await Database.open(url)
            assert await conn.fetch("SELECT version FROM schema_version") == [(3,)]
        finally:
            await conn.close()
    assert "is not a dicebot database: its schema_version has the columns (version integer), not dicebot's " in str(
        refused.value
    )


async def test_a_postgresql_version_no_dicebot_wrote_is_refused() -> None:
    """PostgreSQL's migrations start at 8: a version table of dicebot's shape holding 3 is another program's."""
    async with fresh_schema(server_url()) as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(
                "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (3)"
            )
            with pytest.raises(DatabaseError, match="its schema_version holds 3, a version no dicebot database of"):
                await Database.open(url)
        finally:
            await conn.close()


async def test_migrate_db_refuses_another_programs_schema_as_its_target(tmp_path: Path, foreign_schema: str) -> None:
    path = tmp_path / "dicebot.sqlite3"
    await (await Database.open(path)).close()
    conn = await asyncpg.connect(foreign_schema)
    try:
        before = await fingerprint(conn)
        with pytest.raises(DatabaseError, match=r"\(--to\) is not a dicebot database: "):
            await migrate(f"sqlite:///{path}", foreign_schema)
        assert await fingerprint(conn) == before
    finally:
        await conn.close()
