"""Starting a bot as its own process against an in-process fakediscord, as an admin would start it.

The benchmarks run fakediscord and the simulated players in their own process and the bot in another, so the
bot's CPU and memory are its own. A bot's log goes to a file (an unread pipe would fill up and stall it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.measure import ProcessProbe
from bot.heap import SETTLED
from bot.settings import environment_names
from fakediscord import FakeDiscord, Guild

TOKEN = "bench-token"
REPOSITORY = Path(__file__).resolve().parent.parent
#: The settings dicebot reads from the environment; cleared so a developer's own .env values do not leak in.
SETTINGS = environment_names()
DICEBOT = ("-m", "bot")
FLOOR = ("-m", "bench.floor_bot")


@dataclass
class BotProcess:
    """A running bot: its process, the probe reading its CPU and memory, and where its log goes."""

    name: str
    process: asyncio.subprocess.Process
    probe: ProcessProbe
    log: Path

    async def stop(self, grace: float = 30.0) -> int:
        """SIGTERM, as a service manager stops it; killed if it has not exited after ``grace`` seconds."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), grace)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        return self.process.returncode if self.process.returncode is not None else -1

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


async def start_bot(
    name: str,
    command: Sequence[str],
    server: FakeDiscord,
    guild: Guild | None,
    workdir: Path,
    *,
    database: Path | str | None = None,
    log_level: str = "WARNING",
    settings: dict[str, str] | None = None,
    cpus: set[int] | None = None,
) -> BotProcess:
    """Spawn ``python <command>`` pointed at ``server`` (commands synced to ``guild``, or globally when None) with
    extra ``settings`` (e.g. ``SHARD_IDS``), on ``cpus`` only when given (its children too); returns once it
    started."""
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    env.update(
        DISCORD_TOKEN=server.token,
        DISCORD_API_BASE=server.api_base,
        DISCORD_GATEWAY_URL=server.gateway_url,
        LOG_LEVEL=log_level,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPOSITORY), env.get("PYTHONPATH")])),
        **(settings or {}),
    )
    if guild is not None:
        env["DEV_GUILD_ID"] = str(guild.id)
    if isinstance(database, Path):
        env["DATABASE_URL"] = f"sqlite:///{database}"
    elif database is not None:
        env["DATABASE_URL"] = database  # a postgresql:// URL
    log = workdir / f"{name}.log"
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *command, env=env, cwd=workdir, stdout=output, stderr=asyncio.subprocess.STDOUT
        )
    if cpus is not None:
        os.sched_setaffinity(process.pid, cpus)
    return BotProcess(name, process, ProcessProbe(process.pid), log)


async def wait_connected(
    bot: BotProcess, server: FakeDiscord, guild: Guild | None, timeout: float = 120.0, *, shard: int | None = None
) -> None:
    """Wait until the bot's ``/kniffel`` command is synced (to ``guild``, or globally) and its gateway session is
    up (``shard``'s, when given), or fail with its log."""
    waiting = asyncio.ensure_future(_connected(server, guild, timeout, shard))
    exited = asyncio.ensure_future(bot.process.wait())
    await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
    if not waiting.done():
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        raise RuntimeError(f"{bot.name} exited with {bot.process.returncode}:\n{bot.log_tail()}")
    exited.cancel()
    try:
        waiting.result()
    except TimeoutError as error:
        raise RuntimeError(f"{bot.name} did not connect: {error}\n{bot.log_tail()}") from None


async def _connected(server: FakeDiscord, guild: Guild | None, timeout: float, shard: int | None) -> None:
    await server.wait_for_commands(timeout, names=["kniffel"], guild=guild)
    await server.wait_until_ready(timeout, shards=None if shard is None else [shard])


async def settled(bot: BotProcess, timeout: float = 300.0) -> float:
    """Wait until the bot's start-up is over: its strategy tables built (a child process) and loaded, and its heap
    frozen (``bot/heap.py`` logs :data:`~bot.heap.SETTLED`); the seconds waited. Measuring before would measure
    the build's competition for the CPU and the one full collection of the start-up heap, not the bot's clicks.
    Needs the bot started with ``log_level="INFO"``."""
    started = time.perf_counter()
    deadline = started + timeout
    while SETTLED not in bot.log.read_text(errors="replace"):
        if bot.process.returncode is not None or time.perf_counter() > deadline:
            raise RuntimeError(f"{bot.name} did not finish starting up:\n{bot.log_tail()}")
        await asyncio.sleep(0.5)
    return time.perf_counter() - started
