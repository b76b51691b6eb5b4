"""Two bot processes, shards 0 and 1 of 2, on one database: the deployment of ``compose.yaml`` without Docker.

Each process is ``python -m bot`` with ``SHARD_COUNT=2`` and its own ``SHARD_IDS``, against one fakediscord that
routes every guild's events to its shard's connection. One process is killed with SIGKILL (its whole process
group, as a container runtime does) in the middle of a game whose computer player is about to move: a click in
the dead shard's guild goes unanswered, and once the dead shard's deadline is overdue the other process's games
are untouched and keep playing, without it ever firing that deadline. Restarted, the process resumes its games
and fires that deadline once.

The processes run :mod:`tests.e2e.paced_bot` (every child of the suite imports this tree first): computers move
at once (``COMPUTER_DELAY=0``, below what an admin may set) except in the first run of the process that is
killed, whose computer waits the admins' shortest delay (1 s), so the kill lands while its first step is pending
and the lost click's second makes that step overdue.

The database is a parameter (``database_url``): a shared SQLite file here, the PostgreSQL server where one is
configured (the storage backend decides; the test only reads games through :class:`Games`). ``DATA_DIR`` is a
filled tables volume, as at every start of compose's deployment but the first: the run's shared strategy tables
(building them in each process cost 7 s of CPU per start; the start-up build has its own test in
``tests/play/test_computer.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.settings import environment_names
from fakediscord import Channel, FakeDiscord, FakeDiscordError, Message, User
from tests.postgres import fresh_schema

pytestmark = pytest.mark.timeout(300)

TOKEN = "shards-token"
SHARDS = 2
#: The settings a developer's own environment could leak into the processes.
SETTINGS = environment_names()
#: The admins' shortest pace: the killed process's pending computer step outlives the kill by this much.
KILL_MARGIN = 1.0
#: A start includes opening the database, loading the cogs and the command check on a loaded machine.
START_TIMEOUT = 90.0
#: How long a player waits for the bot to answer or for a computer player's turn (a few seconds under load).
WAIT = 30.0
#: How often a wait on the database re-reads it besides after every change in the fake world. A process saves a
#: game before it edits the message that shows it, so the edit's change re-reads in time; the poll only backs that
#: up. At fakediscord's 20 ms every poll opened the database (on PostgreSQL in a thread with a loop of its own).
DATABASE_POLL = 0.25
#: How often a wait for a heartbeat looks at the health file, which no change in the fake world announces.
HEARTBEAT_POLL = 0.1


@pytest.fixture(params=["sqlite", "postgres"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The one database every process shares: a SQLite file (WAL makes it safe across processes on one machine),
    or a PostgreSQL schema of its own (the deployment of compose.yaml; skipped without DICEBOT_TEST_POSTGRES)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.sqlite3'}"
        return
    async with fresh_schema() as url:
        yield url


@dataclass(frozen=True)
class Stored:
    """What the test reads of a game straight from the database."""

    version: int
    status: str
    state: dict[str, Any]
    deadline_at: float | None


class Games:
    """Reads games from the shared database, independently of the bot processes."""

    def __init__(self, url: str) -> None:
        self._url = url

    def latest(self, channel: Channel) -> Stored:
        """The channel's newest game; a synchronous read (the waits poll it), on PostgreSQL from a helper thread."""
        if self._url.startswith("sqlite:///"):
            path = self._url[len("sqlite:///") :]
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
                row = conn.execute(LATEST.replace("$1", "?"), (channel.id,)).fetchone()
        else:
            with ThreadPoolExecutor(max_workers=1) as helper:
                row = helper.submit(asyncio.run, self._fetch(channel.id)).result()
        assert row is not None, f"no game in #{channel.name}"
        return Stored(row[0], row[1], json.loads(row[2]) if row[2] else {}, row[3])

    async def _fetch(self, channel_id: int) -> Any:
        conn = await asyncpg.connect(self._url)
        try:
            return await conn.fetchrow(LATEST, channel_id)
        finally:
            await conn.close()


LATEST = "SELECT version, status, state, deadline_at FROM games WHERE channel_id = $1 ORDER BY id DESC LIMIT 1"


class ShardProcess:
    """``python -m bot`` connecting one shard, started in its own process group so a kill takes its children."""

    def __init__(self, server: FakeDiscord, url: str, shard: int, folder: Path, data_dir: Path) -> None:
        self.server = server
        self.url = url
        self.shard = shard
        self.folder = folder
        self.data_dir = data_dir
        self.process: asyncio.subprocess.Process | None = None
        self.runs = 0
        self.started_at = 0.0

    @property
    def health_file(self) -> Path:
        return self.folder / f"shard-{self.shard}.health"

    def healthy(self) -> bool:
        """What the container's health check (``python -m bot health``) answers."""
        env = {**os.environ, "HEALTH_FILE": str(self.health_file)}
        checked = subprocess.run([sys.executable, "-m", "bot", "health"], env=env, cwd=self.folder, capture_output=True)
        return checked.returncode == 0

    async def wait_for_heartbeat(self) -> None:
        """Wait until this run touched its health file: once it is ready, about 2 s after it connected (discord.py's
        ``guild_ready_timeout``). A killed run's file stays behind, so only a touch since this run's start counts."""

        def touched() -> bool:
            with contextlib.suppress(FileNotFoundError):
                return self.health_file.stat().st_mtime >= self.started_at
            return False

        await self.server.wait_for(touched, WAIT, f"shard {self.shard}'s heartbeat", poll=HEARTBEAT_POLL)

    @property
    def logs(self) -> list[Path]:
        return sorted(self.folder.glob(f"shard-{self.shard}-*.log"))

    async def start(self, computer_delay: float = 0.0) -> None:
        """Start the process with its computers ``computer_delay`` seconds apart; return once its shard connected."""
        env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
        env.update(
            DISCORD_TOKEN=TOKEN,
            DATABASE_URL=self.url,
            DISCORD_API_BASE=self.server.api_base,
            DISCORD_GATEWAY_URL=self.server.gateway_url,
            LOG_LEVEL="INFO",
            COMPUTER_DELAY=str(computer_delay),
            SHARD_COUNT=str(SHARDS),
            SHARD_IDS=str(self.shard),
            HEALTH_FILE=str(self.health_file),
            DATA_DIR=str(self.data_dir),
        )
        self.runs += 1
        self.started_at = time.time()
        identifies = self.server.gateway.identifies
        with (self.folder / f"shard-{self.shard}-{self.runs}.log").open("wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.e2e.paced_bot",
                env=env,
                cwd=self.folder,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

        def connected() -> bool:
            session = self.server.gateway.shards.get(self.shard)
            return session is not None and session.identified > identifies and session.connection is not None

        await self.server.wait_for(connected, START_TIMEOUT, f"shard {self.shard} to connect")

    async def kill(self) -> None:
        """SIGKILL the bot and everything it started (its strategy table build), as a crashed container."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> int:
        """SIGTERM, as ``docker compose stop`` does; the exit code."""
        if self.process is None or self.process.returncode is not None:
            return 0 if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 60)
        except TimeoutError:
            os.killpg(self.process.pid, signal.SIGKILL)
            await self.process.wait()
            return -9

    def log_text(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.logs)

    def tracebacks(self) -> list[str]:
        return [path.name for path in self.logs if "Traceback" in path.read_text(errors="replace")]


@contextlib.asynccontextmanager
async def processes(server: FakeDiscord, url: str, folder: Path, tables: Path) -> AsyncIterator[list[ShardProcess]]:
    # The bot reads its tables from DATA_DIR/strategy: there, a link to the run's shared folder.
    data_dir = folder / "data"
    data_dir.mkdir()
    (data_dir / "strategy").symlink_to(tables, target_is_directory=True)
    bots = [ShardProcess(server, url, shard, folder, data_dir) for shard in range(SHARDS)]
    try:
        # One after the other: the first creates the schema, the second finds it current. Shard 1 is killed later.
        await bots[0].start()
        await bots[1].start(computer_delay=KILL_MARGIN)
        yield bots
    finally:
        # Both at once, as ``docker compose stop`` stops its services.
        await asyncio.gather(*(bot.stop() for bot in bots))


async def answered(action: Any) -> None:
    """Wait for the bot's answer to a click or command; a refusal (an ephemeral reply) fails the test."""
    handle = await action
    await handle.response(timeout=WAIT)
    assert not handle.ephemeral_messages, [m.text for m in handle.ephemeral_messages]


async def open_game(server: FakeDiscord, channel: Channel, host: User, *others: User, **options: Any) -> Message:
    handle = await server.slash(host, channel, "kniffel start", **options)
    lobby = await handle.message(timeout=WAIT)
    for user in others:
        await answered(server.click_button(user, lobby, label="Join"))
    await answered(server.click_button(host, lobby, label="Start"))
    return lobby


async def play_turn(server: FakeDiscord, message: Message, user: User) -> None:
    """Roll once and score the first box the select offers, once the message shows ``user``'s turn (the database
    may be a moment ahead of the message: a save comes before its edit)."""

    def ready() -> bool:
        rolls = [b for b in message.buttons if b.label == "Roll" and not b.disabled]
        # The board's own line comes last, under the latest announcements.
        lines = (message.content or "").splitlines()
        return bool(lines) and lines[-1].startswith(user.mention) and bool(rolls)

    await server.wait_for(ready, WAIT, f"{user.name}'s turn on the message")
    await answered(server.click_button(user, message, label="Roll"))
    select = message.select()
    await answered(server.select(user, message, select.custom_id, [select.values[0]]))


def turn_of(stored: Stored) -> str:
    state = stored.state
    return str(state["players"][state["current"]])


async def until(server: FakeDiscord, games: Games, channel: Channel, check: Any, what: str) -> Stored:
    """Wait (for the bot's edits of the channel, never for time) until ``check(stored game)`` holds."""

    def holds() -> Stored | None:
        stored = games.latest(channel)
        return stored if check(stored) else None

    return await server.wait_for(holds, WAIT, what, poll=DATABASE_POLL)


async def test_a_killed_shard_leaves_the_other_playing_and_resumes_its_games_once(
    database_url: str, tmp_path: Path, shared_tables: Path
) -> None:
    async with FakeDiscord(token=TOKEN, shard_count=SHARDS) as server:
        alice, bob = server.add_user("Alice"), server.add_user("Bob")
        guilds = [server.add_guild(f"Shard {shard}", shard=(shard, SHARDS)) for shard in range(SHARDS)]
        tables = [server.add_channel(guild, "table") for guild in guilds]
        robots = [server.add_channel(guild, "robot") for guild in guilds]
        games = Games(database_url)
        async with processes(server, database_url, tmp_path, shared_tables) as (zero, one):
            await server.wait_for_commands(names=["kniffel"], timeout=START_TIMEOUT)
            # Games on both shards: Alice against Bob, and a person against an easy computer player.
            duels = [await open_game(server, table, alice, bob) for table in tables]
            solos = [await open_game(server, robots[0], alice, opponents=1, level="easy")]
            for table, duel in zip(tables, duels, strict=True):
                await play_turn(server, duel, alice if turn_of(games.latest(table)) == str(alice.id) else bob)
            # Bob's solo game on shard 1, started last: kill shard 1 while its computer's first step is a pending
            # deadline, at once if the computer won the roll-off, else right after Bob's first turn.
            solos.append(await open_game(server, robots[1], bob, opponents=1, level="easy"))
            if turn_of(games.latest(robots[1])) == str(bob.id):
                await play_turn(server, solos[1], bob)
            await one.kill()
            frozen = games.latest(robots[1])
            computer = turn_of(frozen)
            assert frozen.status == "running" and computer.startswith("cpu-")
            assert frozen.deadline_at is not None

            # A click in shard 1's guild reaches nobody while shard 1 is down (Discord shows "interaction failed").
            waiting = alice if turn_of(games.latest(tables[1])) == str(alice.id) else bob
            server.interaction_timeout = KILL_MARGIN
            lost = await server.click_button(waiting, duels[1], label="Roll")
            with pytest.raises(FakeDiscordError):
                await lost.response(timeout=5)
            server.interaction_timeout = 3.0
            assert frozen.deadline_at < time.time(), "shard 1's computer step is overdue by now"

            # Shard 0 plays on: Alice's solo turn, then its computer's whole turn, fired by shard 0's deadlines
            # while shard 1's is overdue; shard 0 must leave that one alone.
            await until(server, games, robots[0], lambda s: turn_of(s) == str(alice.id), "Alice's turn")
            await play_turn(server, solos[0], alice)
            await until(server, games, robots[0], lambda s: turn_of(s) == str(alice.id), "shard 0's computer turn")
            duel_0 = games.latest(tables[0])
            await play_turn(server, duels[0], alice if turn_of(duel_0) == str(alice.id) else bob)
            assert games.latest(tables[0]).version > duel_0.version
            assert games.latest(robots[1]) == frozen, "shard 0 touched a game of shard 1"

            # Shard 1 restarts: its computer's overdue step fires (once), the rest of its turn follows.
            await one.start()
            resumed = await until(
                server, games, robots[1], lambda s: turn_of(s) == str(bob.id), "shard 1's computer to finish its turn"
            )
            assert resumed.state["turns"][computer] == frozen.state["turns"][computer] + 1, "one computer turn"
            # Both duels and Bob's solo game keep playing on their shards.
            await play_turn(server, solos[1], bob)
            for table, duel in zip(tables, duels, strict=True):
                await play_turn(server, duel, alice if turn_of(games.latest(table)) == str(alice.id) else bob)
            await until(server, games, robots[1], lambda s: turn_of(s) == str(bob.id), "the computer's second turn")
            assert games.latest(robots[1]).state["turns"][computer] == frozen.state["turns"][computer] + 2
            assert all(bot.process and bot.process.returncode is None for bot in (zero, one))
            for bot in (zero, one):
                await bot.wait_for_heartbeat()
            assert zero.healthy() and one.healthy()
        assert zero.process is not None and zero.process.returncode == 0
        assert one.process is not None and one.process.returncode == 0
        assert not zero.healthy() and not one.healthy(), "a stopped bot removes its heartbeat"
        assert zero.tracebacks() == [] and one.tracebacks() == []
        # No deadline was ever fired by two processes (the loser of the version check would say so).
        assert not any("already handled" in log.read_text() for log in zero.logs + one.logs)
