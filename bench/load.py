"""Many channels playing Kniffel at once: dicebot's clicks per second and latency against the floor bot's.

Run: ``.venv/bin/python -m bench.load [--channels 20] [--seconds 30 | --games N] [--warmup 5] [--only dicebot]
[--shards N] [--database postgresql://postgres@127.0.0.1:5432/test] [--no-pin]``.

With ``--database`` dicebot runs a second time in the same run, on PostgreSQL (a new schema of that database,
dropped afterwards), so its throughput and p99 stand next to SQLite's measured minutes apart on the same machine;
with ``--shards`` too, both the single process and the shard processes use PostgreSQL (the sharded deployment).

fakediscord and the simulated players run in this process; the bot under test runs as a separate process (dicebot
as ``python -m bot`` on a fresh database, then ``bench/floor_bot.py``), so its CPU time and memory are its own.
With two or more CPUs this process runs on the first it may use and the bot on the others (``--no-pin``: wherever
the scheduler puts them, which was often one core for both, halving the throughput of whichever bot ran).
Each of the N channels has two players who play whole Kniffel games the way people do: one click at a time,
each waiting for the answer before the next (roll, hold the dice showing the most common face, roll again
twice, pick the best box), and a new game when one ends. There is no think time: every channel clicks as fast
as the bot answers, so the figures are the bot's capacity. The floor bot gets the same shape of load: a lobby,
Join, Start, then turns of roll, two holds, two rolls and a pick, alternating between the two players.

A click's latency runs from the simulated user's click to the bot's interaction callback arriving at
fakediscord. Clicks are counted when their answer arrives inside the measured window (after ``--warmup``
seconds); a click with no answer within Discord's 3 s is "unanswered" (the user saw "This interaction failed")
and the player carries on from what the message shows. Whatever happens, the run ends and prints its table.

``--shards N`` compares dicebot with itself instead of the floor bot: the channels are spread over N guilds, one
on each of N shards, and the same load is played against one process (every shard, as without sharding) and then
against N processes (``SHARD_COUNT=N``, ``SHARD_IDS=0`` … ``N-1``) sharing one SQLite file; it prints their
throughput ratio. Every dicebot run starts measuring only once its start-up is over (strategy tables built and
loaded, heap frozen).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from bench.collector import collector_paused
from bench.launch import DICEBOT, FLOOR, TOKEN, BotProcess, settled, start_bot, wait_connected
from bench.measure import MB, Latencies, Stopwatch, Summary
from fakediscord import Channel, FakeDiscord, FakeDiscordError, InteractionHandle, Message, User

#: Answers later than Discord's 3 s deadline fail; the players give up waiting a little after that.
ANSWER_TIMEOUT = 3.5
#: A game that needs more clicks than this is stuck (it should take about 150); the players end it.
MAX_CLICKS_PER_GAME = 600
#: The name of dicebot's run on PostgreSQL (``--database``) in the table.
POSTGRES_RUN = "dicebot on PostgreSQL"
FLOOR_TURNS = 26  # 13 boxes for each of the two players


@dataclass
class Room:
    """One channel and its two players."""

    channel: Channel
    host: User
    guest: User


class Clicker:
    """Sends one interaction at a time for a player and records when (and whether) the bot answered it."""

    def __init__(self, stopwatch: Stopwatch, latencies: Latencies) -> None:
        self._stopwatch = stopwatch
        self.latencies = latencies

    async def send(self, action: Callable[[], Awaitable[InteractionHandle]]) -> InteractionHandle | None:
        """Click (or run a command) and wait for the answer; None if the client refused it or no answer came."""
        clicked = time.perf_counter()
        try:
            handle = await action()
        except FakeDiscordError:
            self.latencies.refused += 1  # e.g. a button that an edit disabled a moment ago
            return None
        answered = await self._stopwatch.answered(handle, ANSWER_TIMEOUT)
        self.latencies.record(clicked, answered)
        if answered is None:
            return None
        if handle.source is not None and handle.original is not None and handle.original.ephemeral:
            self.latencies.rejected += 1  # "not your turn", "outdated": the player's view was behind
        return handle


class Players:
    """How the two players of a room play a game with one bot; ``play`` returns when the game ended or ``stop``."""

    def __init__(self, server: FakeDiscord, clicker: Clicker, stop: asyncio.Event) -> None:
        self.server = server
        self.clicker = clicker
        self.stop = stop

    async def play(self, room: Room) -> bool:
        """Play one game in ``room``; True if it ran to its end (not stopped, not abandoned)."""
        raise NotImplementedError

    async def open_table(self, room: Room) -> Message | None:
        """The host opens a lobby, the guest joins, the host starts; the table's message, or None."""
        handle = await self.clicker.send(lambda: self.server.slash(room.host, room.channel, "kniffel start"))
        if handle is None or handle.original is None or handle.original.ephemeral:
            return None
        message = handle.original
        for user, label in ((room.guest, "Join"), (room.host, "Start")):
            if self.stop.is_set() or await self.click_label(user, message, label) is None:
                return None
        return message

    async def click_label(self, user: User, message: Message, label: str) -> InteractionHandle | None:
        return await self.clicker.send(lambda: self.server.click_button(user, message, label=label))

    async def click_id(self, user: User, message: Message, custom_id: str) -> InteractionHandle | None:
        return await self.clicker.send(lambda: self.server.click(user, message, custom_id))

    async def pick(self, user: User, message: Message, custom_id: str, value: str) -> InteractionHandle | None:
        return await self.clicker.send(lambda: self.server.select(user, message, custom_id, [value]))


class DicebotPlayers(Players):
    """Reads whose turn it is, the dice and the boxes from the game message, as a person would."""

    async def play(self, room: Room) -> bool:
        message = await self.open_table(room)
        if message is None:
            await self.end(room)
            return False
        clicks = 0
        while in_play(message) and not self.stop.is_set():
            # The board's own line (the ping of the player to act) comes last, under the turn's announcements.
            turn_line = message.content.splitlines()[-1] if message.content else ""
            player = room.host if turn_line.startswith(room.host.mention) else room.guest
            made = await self.turn(player, message)
            clicks += made
            if self.stop.is_set():
                return False
            if not made or clicks > MAX_CLICKS_PER_GAME:
                # Nothing to click (the game never started) or a game that will not end: give up on it.
                await self.end(room)
                return False
        return not in_play(message)

    async def turn(self, user: User, message: Message) -> int:
        """Roll, keep the most common face, roll twice more, score the best box; returns the clicks made."""
        clicks = 0
        for _ in range(3):
            roll = next((b for b in message.buttons if b.custom_id and ":roll:" in b.custom_id), None)
            if roll is None or roll.disabled or self.stop.is_set():
                break
            clicks += 1
            if await self.click_id(user, message, roll.custom_id or "") is None:
                return clicks
            for index in self.to_toggle(message):
                hold = next((b for b in message.buttons if f":hold:{index}:" in (b.custom_id or "")), None)
                if hold is None or hold.disabled or self.stop.is_set():
                    break
                clicks += 1
                await self.click_id(user, message, hold.custom_id or "")
        select = next(iter(message.selects), None)
        if select is not None and select.custom_id and not self.stop.is_set():
            clicks += 1
            await self.pick(user, message, select.custom_id, best_box(message))
        return clicks

    @staticmethod
    def to_toggle(message: Message) -> list[int]:
        """Dice to press so that exactly those showing the most common face are held."""
        dice = [b for b in message.buttons if b.custom_id and ":hold:" in b.custom_id]
        faces = [int(b.label.split()[-1]) if b.label and b.label[-1].isdigit() else 0 for b in dice]
        if not any(faces):
            return []
        common = Counter(faces).most_common(1)[0][0]
        return [index for index, (b, face) in enumerate(zip(dice, faces, strict=True)) if (face == common) != held(b)]

    async def end(self, room: Room) -> None:
        """End a stuck or half-opened game so the next one can start in the channel."""
        await self.clicker.send(lambda: self.server.slash(room.host, room.channel, "kniffel end"))


def in_play(message: Message) -> bool:
    """Whether the board still offers a move (a finished board keeps Review and Rematch, but no dice or boxes)."""
    return bool(message.selects) or any(b.custom_id and ":roll:" in b.custom_id for b in message.buttons)


def held(button: object) -> bool:
    return getattr(button, "emoji", None) == "🔒"


def best_box(message: Message) -> str:
    """The Score… option worth the most points (labels read "Box — points ..."), the first on a tie."""

    def points(label: str) -> int:
        parts = label.split(" — ")
        figure = parts[1].split(" ")[0].replace("−", "-") if len(parts) > 1 else ""
        return int(figure) if figure.lstrip("+-").isdigit() else -999

    options = message.select().options
    return max(options, key=lambda option: points(option.label)).value


class FloorPlayers(Players):
    """The same shape of game on the floor bot's message, whose turns the players keep themselves."""

    async def play(self, room: Room) -> bool:
        message = await self.open_table(room)
        if message is None:
            return False
        for turn in range(FLOOR_TURNS):
            user = room.host if turn % 2 == 0 else room.guest
            for custom_id in ("floor:roll", "floor:hold:0", "floor:hold:1", "floor:roll", "floor:roll"):
                if self.stop.is_set():
                    return False
                await self.click_id(user, message, custom_id)
            if self.stop.is_set():
                return False
            await self.pick(user, message, "floor:score", "chance")
        return True


@dataclass(frozen=True)
class Setup:
    """What runs under the load: a bot, in how many processes (one shard each), the channels over how many guilds."""

    name: str
    command: tuple[str, ...]
    processes: int = 1
    guilds: int = 1
    #: A PostgreSQL database to run on (in a new schema of it) instead of a new SQLite file.
    postgres: str | None = None

    @property
    def dicebot(self) -> bool:
        return self.command == DICEBOT


@dataclass(frozen=True)
class Result:
    name: str
    channels: int
    summary: Summary
    refused: int
    rejected: int
    games: int
    cpu_seconds: float
    peak_rss: int
    generator_cpu: float
    exit_code: int

    @property
    def cpu_per_1000(self) -> float:
        return self.cpu_seconds / self.summary.clicks * 1000 if self.summary.clicks else float("nan")


@contextlib.asynccontextmanager
async def fresh_schema(url: str) -> AsyncIterator[str]:
    """A new schema in the PostgreSQL database ``url`` for one run: its URL (``search_path``); dropped afterwards."""
    import asyncpg

    schema = f"dicebot_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{url}{'&' if '?' in url else '?'}search_path={schema}"
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


#: Strategy tables kept between runs (built by the first), as an installation keeps them beside its database.
TABLES = Path.home() / ".cache" / "dicebot-bench" / "strategy"


async def prebuilt_tables() -> Path:
    """The strategy tables' folder, built before the bot starts (the first time only), not while it is measured."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.strategy", "--dir", str(TABLES), "build", "--missing",
        stdout=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    if await process.wait() != 0:
        raise RuntimeError("could not build the strategy tables")
    return TABLES


@dataclass(frozen=True)
class Load:
    """How the bots are loaded: channels at once, for how long, and where the bot processes may run."""

    channels: int
    seconds: float | None
    games: int | None
    warmup: float
    #: The CPUs of the bot processes (None: any, shared with this process as the scheduler likes).
    bot_cpus: set[int] | None


async def run_one(setup: Setup, load: Load) -> Result:
    """One bot (in one or more processes) under the load, in a fresh fakediscord and (dicebot) a fresh database."""
    if setup.postgres is None:
        return await _run(setup, load, None)
    async with fresh_schema(setup.postgres) as url:
        return await _run(setup, load, url)


async def _run(setup: Setup, load: Load, postgres: str | None) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
        workdir = Path(folder)
        async with FakeDiscord(token=TOKEN, bot_name=setup.name, shard_count=setup.processes) as server:
            guilds = [server.add_guild(f"Busy community {n}", shard=(n, setup.guilds)) for n in range(setup.guilds)]
            rooms = [
                Room(
                    server.add_channel(guilds[i % len(guilds)], f"dice-{i}"),
                    server.add_user(f"A{i}"),
                    server.add_user(f"B{i}"),
                )
                for i in range(load.channels)
            ]
            # One guild: commands synced to it at once; several: global commands, invocable in every guild.
            target = guilds[0] if len(guilds) == 1 else None
            database: Path | str | None = workdir / "dicebot.sqlite3" if setup.dicebot else None
            if setup.dicebot:
                # An installation builds its strategy tables once; the bot's start-up then only checks them. They
                # live beside the SQLite file, or in ``data/`` of the working directory with PostgreSQL.
                tables = workdir / "strategy"
                if postgres is not None:
                    database = postgres
                    tables = workdir / "data" / "strategy"
                    tables.parent.mkdir(exist_ok=True)
                tables.symlink_to(await prebuilt_tables(), target_is_directory=True)
            bots: list[BotProcess] = []
            try:
                # One after the other: the first creates the schema, the next ones find it current.
                for shard in range(setup.processes):
                    sharded = {"SHARD_COUNT": str(setup.processes), "SHARD_IDS": str(shard)}
                    name = setup.name if setup.processes == 1 else f"{setup.name}-shard-{shard}"
                    bots.append(
                        await start_bot(
                            name,
                            setup.command,
                            server,
                            target,
                            workdir,
                            database=database,
                            settings=sharded if setup.processes > 1 else None,
                            log_level="INFO" if setup.dicebot else "WARNING",
                            cpus=load.bot_cpus,
                        )
                    )
                    await wait_connected(bots[-1], server, target, shard=shard if setup.processes > 1 else None)
                if setup.dicebot:
                    waited = max([await settled(bot) for bot in bots])
                    print(f"{setup.name}: start-up (strategy tables, heap) finished {waited:.0f} s after connecting")
                return await drive(setup.name, server, bots, rooms, load)
            finally:
                for bot in bots:
                    await bot.stop()


async def drive(
    name: str,
    server: FakeDiscord,
    bots: list[BotProcess],
    rooms: list[Room],
    load: Load,
) -> Result:
    stop = asyncio.Event()
    latencies = Latencies()
    clicker = Clicker(Stopwatch(server.world), latencies)
    players = (DicebotPlayers if name.startswith("dicebot") else FloorPlayers)(server, clicker, stop)
    played = Counter[int]()

    async def room_loop(index: int, room: Room) -> None:
        while not stop.is_set() and (load.games is None or played[index] < load.games):
            played[index] += await players.play(room)

    with collector_paused():
        tasks = [asyncio.create_task(room_loop(i, room)) for i, room in enumerate(rooms)]
        everything = asyncio.gather(*tasks)
        await asyncio.wait({everything}, timeout=load.warmup)
        start, cpu_start, own_start = time.perf_counter(), cpu(bots), time.process_time()
        await asyncio.wait({everything}, timeout=load.seconds)
        end, cpu_end, own_end = time.perf_counter(), cpu(bots), time.process_time()
        peak = sum(bot.probe.peak_rss() for bot in bots)
        # The clicks in flight at the window's end are still waited for with the collector paused: its first full
        # collection stopped this process for longer than the players wait at 500 channels, and every one of them
        # counted as unanswered.
        stop.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(everything), ANSWER_TIMEOUT * 3)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    exit_code = max([await bot.stop() for bot in bots], key=abs)
    return Result(
        name=name,
        channels=len(rooms),
        summary=latencies.window(start, end),
        refused=latencies.refused,
        rejected=latencies.rejected,
        games=sum(played.values()),
        cpu_seconds=cpu_end - cpu_start,
        peak_rss=peak,
        generator_cpu=(own_end - own_start) / (end - start) if end > start else float("nan"),
        exit_code=exit_code,
    )


def cpu(bots: list[BotProcess]) -> float:
    """CPU seconds of every bot process together."""
    return sum(bot.probe.cpu_seconds() for bot in bots)


def table(results: list[Result]) -> str:
    head = (
        "| bot | channels | answered clicks | of them refusals | clicks/s | p50 / p95 / p99 ms | unanswered "
        "| bot CPU s per 1,000 clicks | bot peak RSS MB (all processes) | load generator CPU |\n" + "|---" * 10 + "|"
    )
    rows = [
        f"| {r.name} | {r.channels} | {r.summary.clicks} | {r.rejected} | {r.summary.per_second:.0f} | "
        f"{r.summary.percentile_ms(50):.0f} / {r.summary.percentile_ms(95):.0f} / {r.summary.percentile_ms(99):.0f} | "
        f"{r.summary.unanswered} | {r.cpu_per_1000:.2f} | {r.peak_rss / MB:.0f} | {r.generator_cpu:.0%} |"
        for r in results
    ]
    return "\n".join([head, *rows])


def ratios(dicebot: Result, floor: Result) -> str:
    throughput = dicebot.summary.per_second / floor.summary.per_second if floor.summary.per_second else float("nan")
    p99 = dicebot.summary.percentile_ms(99) / floor.summary.percentile_ms(99)
    cpu = dicebot.cpu_per_1000 / floor.cpu_per_1000
    return (
        f"dicebot / floor: throughput {throughput:.2f} (target >= 0.8), p99 {p99:.2f} (target <= 1.5), "
        f"CPU per click {cpu:.2f}"
    )


def shard_ratio(one: Result, sharded: Result) -> str:
    throughput = sharded.summary.per_second / one.summary.per_second if one.summary.per_second else float("nan")
    p99 = sharded.summary.percentile_ms(99) / one.summary.percentile_ms(99)
    return f"{sharded.name} / {one.name}: throughput {throughput:.2f}, p99 {p99:.2f}"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=20, help="channels playing at once (two players each)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--seconds", type=float, help="measure for this long after the warm-up (default 30)")
    length.add_argument("--games", type=int, help="instead: stop after this many games per channel")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring starts")
    parser.add_argument("--only", choices=("dicebot", "floor"), help="run one bot only (no ratios)")
    parser.add_argument(
        "--shards", type=int, default=1, help="N > 1: dicebot in one process against N shard processes (no floor bot)"
    )
    parser.add_argument(
        "--database", metavar="URL", help="also run dicebot on this PostgreSQL database (postgresql://...)"
    )
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        help="the load generator on one CPU and the bot on the others (default: with 2+ CPUs and no --shards)",
    )
    args = parser.parse_args()
    if args.channels < 1:
        parser.error("--channels must be at least 1")
    if args.shards < 1 or (args.shards > 1 and args.only):
        parser.error("--shards must be at least 1, and --shards N > 1 compares dicebot with itself (no --only)")
    if args.seconds is None and args.games is None:
        args.seconds = 30.0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if args.pin is None:
        args.pin = usable >= 2 and args.shards == 1
    if args.pin and usable < 2:
        parser.error("--pin needs at least 2 CPUs this process may run on (and Linux's sched_setaffinity)")
    return args


async def main() -> None:
    args = parse_args()
    if args.shards > 1:
        # Shard processes share one database: PostgreSQL when given (the sharded deployment), else one SQLite file.
        setups = [
            Setup("dicebot", DICEBOT, guilds=args.shards, postgres=args.database),
            Setup(
                f"dicebot-{args.shards}-shards", DICEBOT, processes=args.shards, guilds=args.shards,
                postgres=args.database,
            ),
        ]  # fmt: skip
    else:
        everything = [Setup("dicebot", DICEBOT), Setup("floor", FLOOR)]
        setups = [s for s in everything if args.only in (None, s.name)]
        if args.database and args.only in (None, "dicebot"):
            setups.insert(1, Setup(POSTGRES_RUN, DICEBOT, postgres=args.database))
    length = f"{args.seconds:g} s" if args.seconds is not None else f"{args.games} games per channel"
    bot_cpus, placement = None, ""
    if args.pin:
        # Discord's servers are not on the bot's machine: each side gets a core of its own, so the scheduler cannot
        # put the bot and the load generator that wakes it on one core (runs then fell into a mode at half the
        # throughput of the other, whichever bot ran).
        generator, *others = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {generator})
        bot_cpus = set(others)
        placement = f"; load generator on CPU {generator}, the bots on {others}"
    print(
        f"{args.channels} channels, {length} after a {args.warmup:g} s warm-up; {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start" + placement
    )
    load = Load(args.channels, args.seconds, args.games, args.warmup, bot_cpus)
    results = []
    for setup in setups:
        results.append(await run_one(setup, load))
        done = results[-1]
        print(
            f"{setup.name}: {done.games} games finished, {done.refused} clicks refused by the client (control gone), "
            f"exit code {done.exit_code}"
        )
    print(table(results))
    by_name = {result.name: result for result in results}
    if args.shards > 1:
        print(shard_ratio(*results))
    elif "dicebot" in by_name and "floor" in by_name:
        print(ratios(by_name["dicebot"], by_name["floor"]))
    if "dicebot" in by_name and POSTGRES_RUN in by_name:
        sqlite, postgres = by_name["dicebot"].summary, by_name[POSTGRES_RUN].summary
        print(
            f"PostgreSQL / SQLite: throughput {postgres.per_second / sqlite.per_second:.2f}, "
            f"p99 {postgres.percentile_ms(99) / sqlite.percentile_ms(99):.2f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
