"""Chaos run: N concurrent Kniffel games against the real bot process, SIGKILLed at random moments M times.

Run: ``.venv/bin/python bench/chaos.py [--games 100] [--kills 20] [--seed 1] [--keep DIR]``.

The bot runs as ``python -m bot`` (a subprocess, as an admin runs it) against fakediscord on 127.0.0.1. Every game
has its own channel and player, all opened at the same moment; each player then plays by what their game message
shows, as a person would: press Roll, then score the first option of the select. A click nobody answered (the
bot was dead, or killed mid-click) is simply tried again from whatever the message shows. Meanwhile a killer
sends SIGKILL at random moments and starts a new process on the same database.

At the end it checks, and prints:

- failed starts: ``/kniffel start`` answered with anything but a lobby (all starts happen before the kills);
- lost moves: a score the player was shown as accepted (the click answered with the updated game message) that
  the database's final card does not hold;
- stuck games: games that did not finish (no progress for ``--stuck-after`` seconds);
- unhandled exceptions: tracebacks in the bot's logs, across all its processes;
- ``PRAGMA integrity_check`` of the database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from fakediscord import Button, Channel, FakeDiscord, FakeDiscordError, Message, User

TOKEN = "chaos-token"
ROOT = Path(__file__).resolve().parents[1]
UPDATE_MESSAGE = 7


@dataclass
class Table:
    """One game as its player sees it, and what the bot acknowledged to them."""

    channel: Channel
    player: User
    message: Message | None = None
    acknowledged: list[str] = field(default_factory=list)
    finished: bool = False


@dataclass
class Counts:
    starts: int = 0
    failed_starts: int = 0
    clicks: int = 0
    answered: int = 0
    unanswered: int = 0
    refused: int = 0
    kills: int = 0


class Bot:
    """The bot as a subprocess on one database; every process writes its own log file."""

    def __init__(self, server: FakeDiscord, database: Path, logs: Path) -> None:
        self.server = server
        self.database = database
        self.logs = logs
        self.process: asyncio.subprocess.Process | None = None
        self.runs = 0

    async def start(self) -> None:
        identifies = self.server.gateway.identifies
        env = {key: value for key, value in os.environ.items() if not key.startswith(("DISCORD_", "DATABASE_"))}
        env.update(
            DISCORD_TOKEN=TOKEN,
            DATABASE_URL=f"sqlite:///{self.database}",
            DISCORD_API_BASE=self.server.api_base,
            DISCORD_GATEWAY_URL=self.server.gateway_url,
            LOG_LEVEL="WARNING",
        )
        self.runs += 1
        log = (self.logs / f"bot-{self.runs}.log").open("wb")
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=env, cwd=ROOT, stdout=log, stderr=log
        )
        log.close()
        await self.server.wait_for(
            lambda: self.server.gateway.identifies > identifies and self.server.gateway.ready,
            timeout=60,
            what="the bot's gateway session",
        )

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.process.wait(), 60)

    def tracebacks(self) -> int:
        return sum(path.read_text(errors="replace").count("Traceback") for path in self.logs.glob("bot-*.log"))


async def open_game(server: FakeDiscord, table: Table, counts: Counts) -> None:
    """``/kniffel start`` and Start; a start answered with anything but a public lobby counts as failed."""
    counts.starts += 1
    try:
        handle = await server.slash(table.player, table.channel, "kniffel start")
        lobby = await handle.message(timeout=30)
    except (FakeDiscordError, TimeoutError):
        counts.failed_starts += 1
        return
    if lobby.ephemeral or not lobby.buttons:
        counts.failed_starts += 1
        return
    table.message = lobby


async def play(server: FakeDiscord, table: Table, counts: Counts, stuck_after: float) -> None:
    """Play by what the game's live board shows until it shows the final scores (or nothing moves for too long).

    The lobby is started alone (its select would seat computers); in the game the first score option is taken
    when the select offers one, else Roll. The board can be posted anew (after a restart, or below other
    messages), so each step looks for the newest message carrying controls.
    """
    message = table.message
    assert message is not None
    loop = asyncio.get_running_loop()
    progress = loop.time()
    while loop.time() - progress < stuck_after:
        message = live_board(server, table.channel, message)
        if any(b.label == "Rematch" for b in message.buttons):
            table.finished = True
            return
        start, roll = enabled_button(message, "Start"), enabled_button(message, "Roll")
        select = None if start else next((s for s in message.selects if not s.disabled), None)
        if select is None and start is None and roll is None:
            await changed(server, message)
            continue
        value = select.values[0] if select is not None else None
        try:
            if select is not None:
                handle = await server.select(table.player, message, select.custom_id, [value])
            else:
                button = start or roll
                assert button is not None
                assert button.custom_id is not None
                handle = await server.click(table.player, message, button.custom_id)
        except (FakeDiscordError, TimeoutError):
            await changed(server, message)  # the bot is down or the message changed under us: look again
            continue
        counts.clicks += 1
        try:
            kind = await handle.response(timeout=15)
        except (FakeDiscordError, TimeoutError):
            counts.unanswered += 1
            continue
        if handle.ephemeral_messages:
            counts.refused += 1
            continue
        counts.answered += 1
        if kind == UPDATE_MESSAGE:
            progress = loop.time()
            if value is not None:
                table.acknowledged.append(value)


def enabled_button(message: Message, label: str) -> Button | None:
    return next((b for b in message.buttons if b.custom_id and not b.disabled and b.label == label), None)


def live_board(server: FakeDiscord, channel: Channel, message: Message) -> Message:
    """The channel's newest message by the bot with buttons, else ``message`` (the game's board moves, and an old
    board keeps no buttons)."""
    for candidate in reversed(server.channel_messages(channel)):
        if candidate.author.bot and candidate.buttons:
            return candidate
    return message


async def changed(server: FakeDiscord, message: Message, timeout: float = 1.0) -> None:
    """Wait for the next edit of the message (or a moment, when none comes: the bot may be restarting)."""
    edits = message.edits
    with contextlib.suppress(TimeoutError):
        await server.wait_for(lambda: message.edits != edits, timeout=timeout, what="an edit")


async def killer(bot: Bot, counts: Counts, kills: int, rng: random.Random, tables: list[Table]) -> None:
    for _ in range(kills):
        await asyncio.sleep(rng.uniform(0.5, 2.5))
        if all(table.finished for table in tables if table.message is not None):
            return
        await bot.kill()
        counts.kills += 1
        await bot.start()


def verify(database: Path, tables: list[Table]) -> dict[str, object]:
    """Compare what players were shown with what the database holds."""
    conn = sqlite3.connect(database)
    try:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute("SELECT channel_id, status, state FROM games WHERE kind = 'kniffel'").fetchall()
    finally:
        conn.close()
    games = {channel: (status, json.loads(state) if state else None) for channel, status, state in rows}
    lost = stuck = 0
    for table in tables:
        if table.message is None:
            continue
        status, state = games.get(table.channel.id, (None, None))
        if status != "finished":
            stuck += 1
        card = (state or {}).get("cards", {}).get(str(table.player.id), {})
        lost += sum(1 for box in table.acknowledged if card.get(box) is None)
    return {
        "integrity": integrity,
        "lost": lost,
        "stuck": stuck,
        "finished": sum(s == "finished" for s, _ in games.values()),
    }


async def run(args: argparse.Namespace, folder: Path) -> dict[str, object]:
    rng = random.Random(args.seed)
    counts = Counts()
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Chaos club")
        tables = [
            Table(server.add_channel(guild, f"table-{n}"), server.add_user(f"Player {n}")) for n in range(args.games)
        ]
        bot = Bot(server, folder / "dicebot.sqlite3", folder)
        await bot.start()
        await server.wait_for_commands(names=["kniffel"], timeout=60)
        started = time.perf_counter()
        await asyncio.gather(*(open_game(server, table, counts) for table in tables))
        playing = [table for table in tables if table.message is not None]
        chaos = asyncio.create_task(killer(bot, counts, args.kills, rng, playing))
        await asyncio.gather(*(play(server, table, counts, args.stuck_after) for table in playing))
        await chaos
        elapsed = time.perf_counter() - started
        exit_code = await bot.stop()
        report = verify(bot.database, tables)
        report.update(vars(counts), seconds=round(elapsed, 1), exit_code=exit_code, tracebacks=bot.tracebacks())
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stuck-after", type=float, default=60.0, help="seconds without progress = stuck")
    parser.add_argument("--keep", type=Path, help="keep the database and bot logs in this folder")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        report = asyncio.run(run(args, args.keep))
    else:
        with tempfile.TemporaryDirectory() as folder:
            report = asyncio.run(run(args, Path(folder)))
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    for key, value in report.items():
        print(f"{key:>14}: {value}")
    ok = report["lost"] == report["stuck"] == report["failed_starts"] == report["tracebacks"] == 0
    sys.exit(0 if ok and report["integrity"] == "ok" else 1)


if __name__ == "__main__":
    main()
