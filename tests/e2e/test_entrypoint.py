"""``python -m bot`` as an admin runs it: pointed at a Discord-compatible server, stopped with SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sqlite3
import sys
import tomllib
from pathlib import Path

import asyncpg
import pytest

from bot import __main__ as bot_main
from bot.settings import environment_names
from bot.storage import claims
from fakediscord import FakeDiscord
from tests.newer import newer_sqlite
from tests.postgres import fresh_schema, schema_of_another_role

pytestmark = pytest.mark.timeout(90)

TOKEN = "entrypoint-token"
SETTINGS = environment_names()
#: A log record's first line, once the colour codes discord.py's formatter adds in a container are gone: its time.
RECORD = re.compile(r"^\[?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def bot_env(server: FakeDiscord, database: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    env.update(
        DISCORD_TOKEN=TOKEN,
        DATABASE_URL=f"sqlite:///{database}",
        DISCORD_API_BASE=server.api_base,
        DISCORD_GATEWAY_URL=server.gateway_url,
        LOG_LEVEL="INFO",
    )
    env.update(extra)
    return env


async def stopped(env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run ``python -m bot`` until it gives up by itself: its exit code and standard error."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", env=env, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, stderr.decode()


async def test_runs_answers_help_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Admins")
        channel = server.add_channel(guild, "general")
        admin = server.add_user("Admin")
        database = tmp_path / "nested" / "dicebot.sqlite3"
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            env=bot_env(server, database, DEV_GUILD_ID=str(guild.id)),
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await server.wait_for_commands(names=["help", "kniffel", "dicepoker"], guild=guild, timeout=30)
            await server.wait_until_ready(timeout=30)
            reply = await server.slash(admin, channel, "help")
            assert "/kniffel" in (await reply.message(timeout=10)).text
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, stderr.decode()
        assert TOKEN not in stderr.decode()
        # The bot joins no voice channel: discord.py's warnings about missing voice libraries are noise to an admin.
        assert "voice will NOT be supported" not in stderr.decode()
        with sqlite3.connect(database) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_database_from_a_newer_version_stops_with_one_line(tmp_path: Path) -> None:
    database = newer_sqlite(tmp_path / "dicebot.sqlite3")
    before = database.read_bytes()
    async with FakeDiscord(token=TOKEN) as server:
        returncode, stderr = await stopped(bot_env(server, database), tmp_path)
    lines = [line for line in stderr.splitlines() if line.startswith("dicebot:")]
    assert returncode == 2
    assert len(lines) == 1
    assert "newer than this dicebot" in lines[0]
    assert "Traceback" not in stderr
    assert database.read_bytes() == before


@pytest.mark.parametrize(
    ("granted", "problem"),
    [
        (
            "",
            "schema {schema} exists in the database {where} (DATABASE_URL) but role {role} may not use it: grant it "
            "(GRANT USAGE, CREATE ON SCHEMA {schema} TO {role}) or name another schema in the search_path of "
            "DATABASE_URL",
        ),
        (
            "USAGE",
            "role {role} may not create tables in schema {schema} of the database {where} (DATABASE_URL), which "
            "updating the bot's tables needs: grant it (GRANT CREATE ON SCHEMA {schema} TO {role}) or name another "
            "schema in the search_path of DATABASE_URL",
        ),
    ],
)
async def test_a_schema_the_role_may_not_use_stops_with_one_line_naming_the_grant(
    tmp_path: Path, granted: str, problem: str
) -> None:
    """PostgreSQL leaves a schema without USAGE out of the search path: the bot said it did not exist, which sent an
    admin looking for the wrong problem; one without CREATE failed the first migration with "permission denied"."""
    async with schema_of_another_role(granted) as (schema, role, url), FakeDiscord(token=TOKEN) as server:
        returncode, stderr = await stopped(bot_env(server, tmp_path / "db.sqlite3", DATABASE_URL=url), tmp_path)
    lines = [line for line in stderr.splitlines() if line.startswith("dicebot:")]
    assert returncode == 2
    assert lines == ["dicebot: " + problem.format(schema=schema, role=role, where=url)]
    assert "Traceback" not in stderr


async def test_another_programs_postgresql_schema_stops_with_one_line_and_is_left_as_it_was(tmp_path: Path) -> None:
    """Its ``schema_version(version int)`` of 3 was overwritten with 19 and dicebot's tables added beside its own
    (QA): a schema the admin pointed at by mistake lost its program's data."""
    async with fresh_schema() as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE schema_version (version int); INSERT INTO schema_version VALUES (3)")
            async with FakeDiscord(token=TOKEN) as server:
                env = bot_env(server, tmp_path / "db.sqlite3", DATABASE_URL=url)
                returncode, stderr = await stopped(env, tmp_path)
            tables = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            assert [tuple(row) for row in tables] == [("schema_version",)]
            assert await conn.fetch("SELECT version FROM schema_version") == [(3,)]
            schema = await conn.fetchval("SELECT current_schema()")
        finally:
            await conn.close()
    lines = [line for line in stderr.splitlines() if line.startswith("dicebot:")]
    assert returncode == 2
    assert lines == [
        f"dicebot: schema {schema} of the database {url} (DATABASE_URL) is not a dicebot database: its schema_version "
        "has the columns (version integer), not dicebot's (version integer not null); it was left untouched: point "
        "DATABASE_URL at dicebot's database or at a new one"
    ]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("where", ["folder", "through a file"])
async def test_a_health_file_the_bot_cannot_keep_stops_with_one_line(where: str, tmp_path: Path) -> None:
    """Accepted before, a folder made the bot unstoppable: removing the file at SIGTERM raised in close()."""
    (tmp_path / "file").touch()
    (tmp_path / "run").mkdir()
    path = tmp_path / "run" if where == "folder" else tmp_path / "file" / "dicebot.health"
    async with FakeDiscord(token=TOKEN) as server:
        returncode, stderr = await stopped(bot_env(server, tmp_path / "db.sqlite3", HEALTH_FILE=str(path)), tmp_path)
    lines = [line for line in stderr.splitlines() if line.startswith("dicebot:")]
    assert returncode == 2
    assert len(lines) == 1 and lines[0].startswith("dicebot: HEALTH_FILE ")
    assert "use a file path the bot may write" in lines[0]
    assert "Traceback" not in stderr


async def test_rejected_token_stops_with_one_line(tmp_path: Path) -> None:
    async with FakeDiscord(token="the-real-token") as server:
        returncode, stderr = await stopped(bot_env(server, tmp_path / "db.sqlite3"), tmp_path)
    assert returncode == 2
    assert "DISCORD_TOKEN was rejected" in stderr
    assert "Traceback" not in stderr


async def test_a_dev_server_the_bot_is_not_in_stops_with_one_line_that_says_so(tmp_path: Path) -> None:
    """Discord's 403 to the start-up command sync: not "cannot reach Discord, check the network"."""
    async with FakeDiscord(token=TOKEN) as server:
        returncode, stderr = await stopped(
            bot_env(server, tmp_path / "db.sqlite3", DEV_GUILD_ID="123456789012345678"), tmp_path
        )
    lines = [line for line in stderr.splitlines() if line.startswith("dicebot:")]
    assert returncode == 2
    assert lines == [
        "dicebot: Discord refused a start-up request (403 Missing Access): is the bot in the server "
        "DEV_GUILD_ID=123456789012345678 names? check the bot's invitation and permissions"
    ]
    assert "Traceback" not in stderr


async def test_sigterm_stops_a_bot_whose_gateway_it_cannot_reach(tmp_path: Path) -> None:
    """discord.py retries a shard that fails to connect every 5 s for ever, closed or not: the bot ignored SIGTERM
    until kill -9 while its gateway was out of reach (found with a SHARD_COUNT too large to send, QA)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    async with FakeDiscord(token=TOKEN) as server:
        env = bot_env(
            server, tmp_path / "db.sqlite3", SHARD_COUNT="1", DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{closed_port}/"
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        assert process.stderr is not None
        try:
            while b"Failed to connect for shard_id: 0" not in (
                line := await asyncio.wait_for(process.stderr.readline(), 30)
            ):
                assert process.returncode is None
            process.send_signal(signal.SIGTERM)
            _, rest = await asyncio.wait_for(process.communicate(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 0
    # Each attempt is one line, as a reconnect is (below), not the failed connection's traceback.
    assert (
        ANSI.sub("", line.decode())
        .rstrip()
        .endswith(f"(cannot connect to 127.0.0.1:{closed_port}: Connection refused)")
    )
    assert "Traceback" not in rest.decode()


async def test_a_gateway_outage_logs_one_line_per_reconnect_attempt(tmp_path: Path, shared_tables: Path) -> None:
    """discord.py logged every reconnect attempt with the failed connection's traceback: some fifty lines each,
    hundreds a minute in an admin's logs while Discord was down (QA). Each attempt is one line naming the reason."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "strategy").symlink_to(shared_tables, target_is_directory=True)
    async with FakeDiscord(token=TOKEN) as server:
        env = bot_env(server, tmp_path / "db.sqlite3", DATA_DIR=str(data_dir))
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        assert process.stderr is not None
        lines: list[str] = []
        try:
            await server.wait_until_ready(timeout=30)
            gateway = server.gateway_url.removeprefix("ws://").removesuffix("/gateway")
            await server.close()  # Discord is down: the connection drops, every new one is refused
            try:
                async with asyncio.timeout(60):  # discord.py's backoff: up to about 2 + 4 + 8 s, more when busy
                    while sum("Attempting a reconnect" in line for line in lines) < 3:
                        line = (await process.stderr.readline()).decode()
                        assert line, "the bot ended during the outage"
                        lines.append(ANSI.sub("", line.rstrip("\n")))
            except TimeoutError:
                pytest.fail("fewer than 3 reconnect attempts in 60 s:\n" + "\n".join(lines))
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            _, rest = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0
    assert "Traceback" not in "\n".join(lines) + rest.decode()
    outage = lines[next(i for i, line in enumerate(lines) if "Attempting a reconnect" in line) :]
    assert all(RECORD.match(line) for line in outage), outage
    attempts = [line for line in outage if "Attempting a reconnect" in line]
    assert all("WARNING" in attempt and re.search(r"in \d+\.\d+s \(.+\)$", attempt) for attempt in attempts), attempts
    # The first may meet the server while it closes (a reset connection); once it is gone, every one is refused.
    assert attempts[-1].endswith(f"(cannot connect to {gateway}: Connection refused)"), attempts


async def until_line(process: asyncio.subprocess.Process, marker: str) -> None:
    """Read standard error until a line holds ``marker`` (``-X importtime`` lines end with a module's name)."""
    assert process.stderr is not None
    while True:
        line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
        assert line, f"the bot ended before {marker!r}"
        if marker in line if not marker.startswith("| ") else line.rstrip().endswith(marker):
            return


#: What the bot imports or logs as its start goes on, in order: the first import of discord.py, the bot's own
#: modules (a second's worth of imports), logging in, opening and migrating its database, the command sync, the
#: shard connected. A signal is sent when the line appears; on a loaded machine it lands later, anywhere between two
#: of them (which is how the imports' Ctrl+C showed a SchemaError traceback, or exit code -2: ``bot/stopsignal.py``).
START_PHASES = [
    "| discord",
    "| bot.app",
    "logging in using static token",
    "applying migration 0001",
    "applying migration 0019",
    "synced",
    "has connected to Gateway",
]


@pytest.mark.parametrize("command", [[], ["playground"]])
def test_ctrl_c_while_importing_is_a_quiet_stop(monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    """A Ctrl+C in the first instants, before the bot or the playground notes it (``bot/stopsignal.py``), was a
    KeyboardInterrupt traceback and exit code 130 (QA): ``main`` ends it as a stop, exit code 0."""
    assert main_interrupted(monkeypatch, command) == 0


def main_interrupted(monkeypatch: pytest.MonkeyPatch, command: list[str]) -> int:
    """``main(command)``'s exit code when a Ctrl+C lands in the command itself, before any handler of its own."""

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    args = bot_main.parse(command)
    monkeypatch.setattr(bot_main, "parse", lambda argv: args)
    monkeypatch.setattr(args, "run", interrupted)
    monkeypatch.setattr(args, "reads_settings", False)
    return bot_main.main(command)


@pytest.mark.parametrize(
    ("command", "told"),
    [
        (["backup", "copy.sqlite3"], "before it finished; run it again\n"),
        # The rerun of a copy broken off after its commit is refused as not empty (review).
        (
            ["migrate-db", "--from", "sqlite:///a", "--to", "x"],
            "before it finished; run it again (should it find the target not empty, the copy had been committed and "
            "only its check was broken off)\n",
        ),
    ],
)
def test_ctrl_c_breaking_off_an_admin_command_says_so_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str], told: str
) -> None:
    """A backup or a copy interrupted said nothing and exited 0, as if it had succeeded (QA)."""
    assert main_interrupted(monkeypatch, command) == 130
    assert capsys.readouterr().err == f"dicebot: interrupted (Ctrl+C) {told}"


@pytest.mark.parametrize("phase", START_PHASES)
async def test_ctrl_c_at_any_moment_of_the_start_is_a_quiet_stop(tmp_path: Path, phase: str) -> None:
    """A Ctrl+C while importing was a KeyboardInterrupt traceback (exit code 130), while logging in a traceback of a
    closed connection (exit code 1), and once the bot was connected the deadlines and the catch-up, started after
    close() had closed the database, logged their errors (QA). Exit code 0, as a Ctrl+C once it runs gives."""
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Admins")
        server.add_channel(guild, "general")
        env = bot_env(server, tmp_path / "db.sqlite3", PYTHONPROFILEIMPORTTIME="1")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        try:
            await until_line(process, phase)
            process.send_signal(signal.SIGINT)
            _, stderr = await asyncio.wait_for(process.communicate(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    told = "\n".join(line for line in stderr.decode().splitlines() if "import time:" not in line)
    assert process.returncode == 0, told
    assert "Traceback" not in told
    assert "ERROR" not in told


async def test_a_second_bot_on_the_same_sqlite_file_is_refused_until_the_first_is_gone(tmp_path: Path) -> None:
    """Two processes handling every game of one file fought over its games (QA). The second start is refused with
    one line while the first keeps playing; once the first is killed (-9: no clean stop), a new start succeeds."""
    database = tmp_path / "data" / "dicebot.sqlite3"
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Admins")
        channel = server.add_channel(guild, "general")
        admin = server.add_user("Admin")
        env = bot_env(server, database, DEV_GUILD_ID=str(guild.id))
        first = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        try:
            await until_line(first, "has connected to Gateway")
            returncode, stderr = await stopped(env, tmp_path)
            assert returncode == 2
            assert stderr.splitlines() == [
                f"dicebot: another dicebot process uses the database {database} (DATABASE_URL); stop it first, or "
                "give this one its own DATABASE_URL (several processes share PostgreSQL, each with its SHARD_IDS: "
                "docs/deploy.md)"
            ]
            reply = await server.slash(admin, channel, "help")
            assert "/kniffel" in (await reply.message(timeout=10)).text
        finally:
            first.kill()
            await first.wait()
        again = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        try:
            await until_line(again, "has connected to Gateway")
            again.send_signal(signal.SIGTERM)
            await asyncio.wait_for(again.communicate(), 30)
        finally:
            if again.returncode is None:
                again.kill()
                await again.wait()
    assert again.returncode == 0


async def test_a_bot_whose_games_another_process_took_while_its_claim_was_lost_stops_with_one_line(
    tmp_path: Path,
) -> None:
    """Its claim's connection ended (a server restart, an admin), another process took the games before it could
    take them again: both ran them, which was only logged (review). It stops as a second start is refused."""
    async with FakeDiscord(token=TOKEN) as server, fresh_schema() as url:
        env = bot_env(server, tmp_path / "unused.sqlite3", DATABASE_URL=url)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=tmp_path, stderr=asyncio.subprocess.PIPE
        )
        try:
            await until_line(process, "has connected to Gateway")
            other = await asyncpg.connect(url)  # the same search_path: the claim's key
            try:
                key = "hashtext($1 || current_schema())"
                ended = await other.fetch(
                    f"SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 "
                    f"AND classid = {key}::oid",
                    claims.CLAIM_KEY,
                )
                assert [row[0] for row in ended] == [True]
                # Queued at once, so granted as the ended session lets go, before the bot can even reconnect.
                await other.execute(f"SELECT pg_advisory_lock({key}, $2)", claims.CLAIM_KEY, claims.EVERY_GAME)
                _, stderr = await asyncio.wait_for(process.communicate(), 60)
            finally:
                await other.close()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    lines = stderr.decode().splitlines()
    assert process.returncode == 2, lines
    assert lines[-1].startswith("dicebot: another dicebot process uses the database "), lines
    assert any("lost the claim" in line for line in lines)
    assert not any("Traceback" in line for line in lines), lines


def test_version_prints_the_installed_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    """There was no --version for an admin's bug report (QA)."""
    with pytest.raises(SystemExit) as ended:
        bot_main.parse(["--version"])
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    assert (ended.value.code, capsys.readouterr().out) == (0, f"dicebot {project['version']}\n")
