"""What only the PostgreSQL backend has: its migrations' numbering, a newer schema, statement timeouts, start-ups
that race, and the ``?`` placeholders translated to ``$n``."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.sharding import ShardScope
from bot.storage import Database, DatabaseError, GamesRepository, StorageUnavailable, claims, postgres
from bot.storage.backend import Migration, bundled_migrations, numbered
from tests.postgres import fresh_schema, migrated_schema, server_url, with_search_path
from tests.tcp_proxy import Relay


def test_placeholders_are_numbered_in_order_and_numbered_ones_kept() -> None:
    assert numbered("SELECT ? + ?, ?") == "SELECT $1 + $2, $3"
    assert numbered("UPDATE t SET a = ?1 WHERE b = ?2 AND a != ?1") == "UPDATE t SET a = $1 WHERE b = $2 AND a != $1"


def test_both_backends_reach_the_same_schema_version() -> None:
    sqlite, postgres = bundled_migrations("sqlite"), bundled_migrations("postgres")
    assert postgres[-1].version == sqlite[-1].version
    # From PostgreSQL's first file on, every migration has a file of the same number on both backends.
    assert [m.version for m in sqlite if m.version >= postgres[0].version] == [m.version for m in postgres]


async def test_a_newer_schema_is_refused_and_left_untouched() -> None:
    async with fresh_schema(server_url()) as url:
        await (await Database.open(url)).close()
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("UPDATE schema_version SET version = 99999")
            tables = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
            with pytest.raises(DatabaseError, match="newer than this dicebot"):
                await Database.open(url)
            assert await conn.fetchval("SELECT version FROM schema_version") == 99999
            after = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
            assert after == tables
        finally:
            await conn.close()


async def test_the_kept_migrated_schema_is_handed_on_as_the_migrations_left_it() -> None:
    """The storage tests' ``db`` on PostgreSQL: a worker's schema is reused, without the last test's rows or
    identities, and not reused at all once a test changed its shape."""
    base = server_url()

    latest = bundled_migrations("postgres")[-1].version

    async def state(url: str) -> tuple[str, int, int, int, bool]:
        """The schema, its version, its bot_meta rows, its next game id, whether it has the table ``extra``."""
        conn = await asyncpg.connect(url)
        try:
            return (
                await conn.fetchval("SELECT current_schema()"),
                await conn.fetchval("SELECT max(version) FROM schema_version"),
                await conn.fetchval("SELECT count(*) FROM bot_meta"),
                await conn.fetchval("SELECT nextval(pg_get_serial_sequence('games', 'id'))"),
                await conn.fetchval("SELECT to_regclass('extra') IS NOT NULL"),
            )
        finally:
            await conn.close()

    async def execute(url: str, *statements: str) -> None:
        conn = await asyncpg.connect(url)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    async with migrated_schema(base) as url:
        await execute(url, "INSERT INTO bot_meta (key, value) VALUES ('k', 'v')")
        schema, *_ = await state(url)
    async with migrated_schema(base) as url:
        assert await state(url) == (schema, latest, 0, 1, False)
        await execute(url, "CREATE TABLE extra (id INTEGER)")
    async with migrated_schema(base) as url:
        new_schema, *rest = await state(url)
        assert new_schema != schema
        assert rest == [latest, 0, 1, False]
        with pytest.raises(asyncpg.InvalidSchemaNameError):  # the changed one was dropped
            await execute(url, f'CREATE TABLE "{schema}".probe ()')


async def test_a_server_user_that_may_not_skip_triggers_gets_a_new_migrated_schema_each_time() -> None:
    """Emptying the kept schema turns triggers off, which only a superuser may: for anyone else each block migrates
    a schema of its own (the refused reset rolled back, so the old one can still be dropped)."""
    base = server_url()
    role = f"dicebot_plain_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(base)
    try:
        database = await admin.fetchval("SELECT current_database()")
        await admin.execute(f'CREATE ROLE "{role}" LOGIN; GRANT CREATE ON DATABASE "{database}" TO "{role}"')
        address = urlsplit(base)
        plain = urlunsplit(address._replace(netloc=f"{role}@{address.hostname}:{address.port or 5432}"))
        schemas = []
        for _ in range(2):
            async with migrated_schema(plain) as url:
                conn = await asyncpg.connect(url)
                try:
                    schemas.append(await conn.fetchval("SELECT current_schema()"))
                finally:
                    await conn.close()
        assert schemas[0] != schemas[1]
        left = await admin.fetchval("SELECT count(*) FROM pg_namespace WHERE nspname = ANY($1::text[])", schemas)
        assert left == 0
    finally:
        await admin.execute(f'REVOKE CREATE ON DATABASE "{database}" FROM "{role}"; DROP ROLE IF EXISTS "{role}"')
        await admin.close()


async def test_processes_starting_together_migrate_once() -> None:
    async with fresh_schema(server_url()) as url:
        first, second = await asyncio.gather(Database.open(url), Database.open(url))
        try:
            latest = bundled_migrations("postgres")[-1].version
            assert await first.schema_version() == await second.schema_version() == latest
        finally:
            await first.close()
            await second.close()


async def test_a_statement_over_the_timeout_is_cancelled_as_unavailable_and_the_pool_goes_on() -> None:
    async with fresh_schema(server_url()) as url:
        db = await Database.open(url, statement_timeout=0.5)
        try:
            with pytest.raises(StorageUnavailable, match="QueryCanceled"):
                await db.fetch_all("SELECT pg_sleep(5)")
            assert await GamesRepository(db).next_deadline() is None
        finally:
            await db.close()


async def test_migrations_are_not_cut_short_by_the_statement_timeout() -> None:
    """The timeout is for the statements of clicks: a migration's backfill on a big database, or the wait for
    another process migrating, may take longer, and cutting it short stopped the bot from starting."""
    bundled = bundled_migrations("postgres")
    slow = Migration(bundled[-1].version + 1, "9999_slow_backfill.sql", "SELECT pg_sleep(0.4)")
    async with fresh_schema(server_url()) as url:
        db = await Database.open(url, [*bundled, slow], statement_timeout=0.2)
        try:
            assert await db.fetch_all("SELECT version FROM schema_version") == [(slow.version,)]
            with pytest.raises(StorageUnavailable, match="QueryCanceled"):
                await db.fetch_all("SELECT pg_sleep(5)")
        finally:
            await db.close()


@pytest.mark.parametrize("before", ["", '"$user",'])
async def test_a_search_path_schema_that_does_not_exist_is_named_with_the_statement_that_creates_it(
    before: str,
) -> None:
    """PostgreSQL's own "no schema has been selected to create in" named neither (QA); after PostgreSQL's default
    "$user", which stands for no schema here, the missing schema is the one named (review: it named "$user")."""
    schema = f"dicebot_missing_{uuid.uuid4().hex[:12]}"
    with pytest.raises(DatabaseError) as caught:
        await Database.open(with_search_path(server_url(), before + schema))
    assert str(caught.value).startswith(f"schema {schema} does not exist in the database ")
    assert str(caught.value).endswith(
        f"(DATABASE_URL): create it (CREATE SCHEMA {schema}) or name an existing schema in the search_path of "
        "DATABASE_URL"
    )


async def test_an_unreachable_server_is_one_clear_error() -> None:
    where = r"postgresql://nobody@127\.0\.0\.1:1/x"
    with pytest.raises(DatabaseError, match=f"cannot connect to the database {where}") as caught:
        await Database.open("postgresql://nobody:secret@127.0.0.1:1/x", statement_timeout=2)
    assert "secret" not in str(caught.value)


@pytest.mark.parametrize(
    ("sql", "returns"),
    [
        ("INSERT INTO games (kind) VALUES (?) RETURNING id", True),
        ("INSERT INTO games (kind) VALUES (?)\nRETURNING id", True),
        ("insert into games (kind) values (?) returning id", True),
        ("  select 1", True),
        ("WITH x AS (SELECT 1) SELECT * FROM x", True),
        ("UPDATE games SET version = version + 1 WHERE id = ?", False),
        ("UPDATE games SET returning_note = ? WHERE id = ?", False),
    ],
)
def test_a_statement_returns_rows_whatever_its_spacing(sql: str, returns: bool) -> None:
    """A RETURNING after a newline must be fetched too, or a later ``Returned`` finds no row."""
    assert postgres._returns_rows(sql) is returns


async def test_a_transaction_the_server_rolls_back_for_a_deadlock_is_unavailable_and_changes_nothing() -> None:
    """Two saves locking the same games in different orders: the loser's deadlock was an unexpected error."""
    async with fresh_schema(server_url()) as url:
        db = await Database.open(url)
        try:
            with pytest.raises(StorageUnavailable, match="DeadlockDetected"):
                async with db.transaction() as tx:
                    tx.execute("UPDATE games SET shown_version = 1")
                    tx.execute("DO $$ BEGIN RAISE EXCEPTION 'deadlock' USING ERRCODE = '40P01'; END $$")
            assert await GamesRepository(db).next_deadline() is None
        finally:
            await db.close()


async def test_a_server_that_never_answers_is_named_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    """A port that takes the connection and says nothing: the line ended in "(DATABASE_URL): " (review)."""
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT", 0.2)
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        port = silent.getsockname()[1]
        with pytest.raises(DatabaseError) as caught:
            await Database.open(f"postgresql://nobody@127.0.0.1:{port}/x")
    finally:
        silent.close()
    assert str(caught.value) == (
        f"cannot connect to the database postgresql://nobody@127.0.0.1:{port}/x (DATABASE_URL): no answer within "
        "0.2 s: check the host and port, and that PostgreSQL listens there"
    )


@pytest.mark.parametrize(("query", "name"), [("", "dicebot"), ("application_name=bot-eu", "bot-eu")])
async def test_its_connections_are_named_in_pg_stat_activity(query: str, name: str) -> None:
    """Unnamed, the bot's connections could not be told from any other client's (QA); a URL's own name wins."""
    async with migrated_schema(server_url()) as url:
        named = f"{url}{'&' if '?' in url else '?'}{query}" if query else url
        db = await Database.open(named)
        try:
            row = await db.fetch_one("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        finally:
            await db.close()
    assert row is not None and row[0] == name


async def test_two_processes_never_run_the_same_games_of_one_schema() -> None:
    """Two bots on one database both started and both ran every game (QA); shard processes share it, a shard once."""
    async with migrated_schema(server_url()) as url, contextlib.AsyncExitStack() as opened:

        async def bot(shards: list[int] | None, count: int = 4) -> Database:
            scope = None if shards is None else ShardScope.of(count, shards)
            db = await Database.open(url, claim=True, shards=scope)
            opened.push_async_callback(db.close)
            return db

        every = await bot(None)
        with pytest.raises(DatabaseError, match=r"^another dicebot process uses the database .* SHARD_IDS"):
            await bot([0])
        await every.close()
        await bot([0, 1])
        with pytest.raises(DatabaseError, match=r"^another dicebot process runs shard 1 on the database .*"):
            await bot([1, 2])
        await bot([2, 3])  # nothing of the refused claim stayed held
        with pytest.raises(DatabaseError, match=r"^another dicebot process uses the database"):
            await bot(None)
        await (await Database.open(url)).close()  # a sync or a copy claims nothing
        async with migrated_schema(server_url()) as other:  # another schema of the same database: no conflict
            await (await Database.open(other, claim=True)).close()


async def test_shard_processes_with_another_shard_count_are_refused() -> None:
    """With SHARD_COUNT 2 in one process and 3 in another, both ran the servers their counts gave both (review)."""
    async with migrated_schema(server_url()) as url, contextlib.AsyncExitStack() as opened:

        async def bot(count: int, *shards: int) -> Database:
            db = await Database.open(url, claim=True, shards=ShardScope.of(count, shards))
            opened.push_async_callback(db.close)
            return db

        first = await bot(2, 0)
        with pytest.raises(
            DatabaseError, match=r"^another dicebot process runs with SHARD_COUNT=2 on .*, this one with 3; give"
        ):
            await bot(3, 2)
        await bot(2, 1)  # the same count: welcome, and nothing of the refused one stayed held
        async with migrated_schema(server_url()) as other:  # another schema: its own counts
            await (await Database.open(other, claim=True, shards=ShardScope.of(3, [2]))).close()
        await first.close()
        with pytest.raises(DatabaseError, match=r"SHARD_COUNT=2"):
            await bot(3, 0)  # shard 1 still runs with 2


async def test_two_shard_processes_starting_together_with_other_counts_never_both_run() -> None:
    """Each looks for the other's count under one lock, so two starting at the same moment cannot both miss it."""
    async with migrated_schema(server_url()) as url:
        for _ in range(5):
            started = await asyncio.gather(
                *(Database.open(url, claim=True, shards=ShardScope.of(count, [count - 1])) for count in (2, 3)),
                return_exceptions=True,
            )
            opened = [db for db in started if isinstance(db, Database)]
            for db in opened:
                await db.close()
            assert len(opened) == 1, started


async def test_the_claims_connection_probes_a_silent_peer_within_a_minute() -> None:
    """With the server's two-hour keepalive default a crashed host's claim locked its restarted bot out (review)."""
    async with migrated_schema(server_url()) as url:
        db = await Database.open(url, claim=True)
        try:
            assert isinstance(db, postgres.PostgresDatabase) and db.claim is not None
            connection = db.claim._connection
            assert connection is not None
            shown = {name: await connection.fetchval(f"SHOW {name}") for name in claims.KEEPALIVES}
        finally:
            await db.close()
    assert shown == {"tcp_keepalives_idle": "30", "tcp_keepalives_interval": "10", "tcp_keepalives_count": "3"}


async def claimed_by(url: str, holder: asyncpg.Connection) -> None:
    """Take every game of ``url``'s schema on ``holder``, as another bot would; waits while a session ends."""
    key = "hashtext($1 || current_schema())"
    await holder.execute(f"SELECT pg_advisory_lock({key}, $2)", claims.CLAIM_KEY, claims.EVERY_GAME)


async def test_a_claim_whose_old_session_lingers_on_the_server_is_taken_again_not_given_up() -> None:
    """A proxy dropped only the client's side: the retake was refused by the bot's own old session, and the bot
    stopped as if another process had taken its games (review)."""
    async with migrated_schema(server_url()) as url, Relay.to(url) as relay:
        db = await Database.open(relay.url(url), claim=True)
        try:
            assert isinstance(db, postgres.PostgresDatabase) and db.claim is not None
            relay.cut_clients()
            await asyncio.wait_for(db.claim.wait_taken(2), 30)
            assert not db.claim._overtaken.done()
        finally:
            await db.close()


async def test_a_claim_the_server_dropped_unheard_is_found_by_its_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """Partitioned, the client never heard that the server ended its session; another bot took the games and both
    ran them (review). The probe finds the silent connection; the retake then finds the games taken."""
    monkeypatch.setattr(claims, "PROBE_EVERY", 0.05)
    monkeypatch.setattr(claims, "PROBE_TIMEOUT", 0.5)
    async with migrated_schema(server_url()) as url, Relay.to(url) as relay:
        db = await Database.open(relay.url(url), claim=True)
        other = await asyncpg.connect(url)
        try:
            assert isinstance(db, postgres.PostgresDatabase) and db.claim is not None
            relay.stall()
            await other.execute("SELECT pg_terminate_backend($1)", db.claim._pid)
            await claimed_by(url, other)
            line = await asyncio.wait_for(db.overtaken(), 30)
            assert line.startswith("another dicebot process uses the database")
        finally:
            await other.close()
            await relay.down()  # the pool's stalled connections would never answer a graceful close
            await db.close()


async def test_a_claim_lost_with_its_connection_is_taken_again() -> None:
    """Lost for good when the server restarted or ended the session: a second bot then ran beside the first
    (review)."""
    async with migrated_schema(server_url()) as url:
        db = await Database.open(url, claim=True)
        try:
            assert isinstance(db, postgres.PostgresDatabase) and db.claim is not None
            admin = await asyncpg.connect(url)  # the same search_path: the claim's key
            try:
                ended = await admin.fetch(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 "
                    "AND classid = hashtext($1 || current_schema())::oid",
                    claims.CLAIM_KEY,
                )
            finally:
                await admin.close()
            assert [row[0] for row in ended] == [True]
            await asyncio.wait_for(db.claim.wait_taken(2), 30)
            with pytest.raises(DatabaseError, match=r"^another dicebot process uses the database"):
                await Database.open(url, claim=True)
        finally:
            await db.close()
