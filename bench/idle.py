"""10,000 games in progress: dicebot's memory, its time from start to the first answered click, its idle CPU.

Run: ``.venv/bin/python -m bench.idle [--games 10000] [--idle 65]``.

A fresh database gets one real game, played through fakediscord up to the first player's turn (its message has
live buttons), and the bot is measured on it. Then ``--games`` minus one more games in progress are added
through the bot's own repository: two in five are lobbies (every game kind, expiring in 15 minutes as the
bot sets them), the others running games of every kind with two players, a few moves in (the engine's own
timeout moves), each with a turn deadline 5 to 60 minutes ahead. So deadlines are pending but none falls due
during the run. The bot is started again on that database and measured the same way:

- time from spawning ``python -m bot`` to its gateway session, and to the first click on the real game being
  answered (the click is sent as soon as the session exists, and again if it got no answer);
- resident memory after that click, and the peak (the kernel's high-water mark);
- CPU of the whole bot process over ``--idle`` seconds with nothing due and nobody clicking (this bounds the
  deadline scheduler's; the default spans two of its 30-second re-checks).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import platform
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.launch import DICEBOT, TOKEN, BotProcess, start_bot, wait_connected
from bench.measure import MB, Stopwatch
from bot import registry
from bot.play.spec import AnySpec
from bot.play.transitions import open_deadline
from bot.storage import Database, GamesRepository, Seat
from fakediscord import Channel, FakeDiscord, Guild, Message, User

LOBBY_SHARE = 0.4
#: A bench channel id range far from fakediscord's snowflakes, so seeded games never collide with real ones.
FIRST_CHANNEL = 10_000
CLICK_TIMEOUT = 3.5


@dataclass(frozen=True)
class Figures:
    games: int
    to_session: float
    to_click: float
    click_attempts: int
    rss: int
    peak_rss: int
    idle_seconds: float
    idle_cpu: float


@dataclass
class Scene:
    server: FakeDiscord
    guild: Guild
    channel: Channel
    players: tuple[User, User]
    workdir: Path
    database: Path


async def open_real_game(scene: Scene) -> Message:
    """Open, join and start a Kniffel game in the scene's channel with a running bot; its message."""
    alice, bob = scene.players
    opened = await scene.server.slash(alice, scene.channel, "kniffel start")
    message = await opened.message()
    await (await scene.server.click_button(bob, message, label="Join")).response()
    await (await scene.server.click_button(alice, message, label="Start")).response()
    return message


async def measure_start(scene: Scene, message: Message, games: int, idle: float) -> Figures:
    """Start the bot, click Roll on the real game as soon as it can hear, then watch it sit idle."""
    server = scene.server
    stopwatch = Stopwatch(server.world)
    identifies = server.gateway.identifies
    spawned = time.perf_counter()
    bot = await start_bot("dicebot", DICEBOT, server, scene.guild, scene.workdir, database=scene.database)
    try:
        await server.wait_for(
            lambda: server.gateway.identifies > identifies and server.gateway.ready, 120, "the bot's new session"
        )
        session = time.perf_counter()
        turn_line = message.content.splitlines()[-1]  # the board pings the player to act on its last line
        player = next(user for user in scene.players if turn_line.startswith(user.mention))
        roll = next(b.custom_id for b in message.buttons if b.custom_id and ":roll:" in b.custom_id)
        attempts, answered = 0, None
        while answered is None:
            attempts += 1
            handle = await server.click(player, message, roll)
            answered = await stopwatch.answered(handle, CLICK_TIMEOUT)
            if attempts >= 10 and answered is None:
                raise RuntimeError(f"no click was answered after {attempts} attempts\n{bot.log_tail()}")
        rss = bot.probe.rss()
        await wait_connected(bot, server, scene.guild)
        cpu_before, idle_start = bot.probe.cpu_seconds(), time.perf_counter()
        await asyncio.sleep(idle)  # nothing happens on purpose: this is the idle bot being measured
        idle_seconds = time.perf_counter() - idle_start
        idle_cpu = bot.probe.cpu_seconds() - cpu_before
        return Figures(
            games=games,
            to_session=session - spawned,
            to_click=answered - spawned,
            click_attempts=attempts,
            rss=rss,
            peak_rss=bot.probe.peak_rss(),
            idle_seconds=idle_seconds,
            idle_cpu=idle_cpu,
        )
    finally:
        await stop(bot)


async def stop(bot: BotProcess) -> None:
    code = await bot.stop()
    if code != 0:
        raise RuntimeError(f"the bot exited with {code}\n{bot.log_tail()}")


async def seed(database: Path, guild: Guild, games: int, rng: random.Random) -> None:
    """Add ``games`` games in progress through the bot's repository, in their own channels."""
    specs = registry.load_specs()
    db = await Database.open(database)
    try:
        repository = GamesRepository(db)
        now = time.time()
        for index in range(games):
            spec = rng.choice(list(specs.values()))
            host = Seat.user(1_000_000 + 2 * index, f"Host {index}")
            guest = Seat.user(1_000_001 + 2 * index, f"Guest {index}")
            variant = spec.variants[0]
            options = {"timeout": rng.randint(5, 60)}
            record = await repository.create(
                kind=spec.kind,
                variant=variant,
                guild_id=guild.id,
                channel_id=FIRST_CHANNEL + index,
                host=host,
                locale="en-US",
                options=options,
                deadline_at=open_deadline(now),
            )
            if rng.random() < LOBBY_SHARE:
                continue
            state = running_state(spec, (host.player, guest.player), variant, options, rng)
            running = dataclasses.replace(
                record,
                status="running",
                state=state,
                seats=(host, guest),
                deadline_at=now + options["timeout"] * 60,
            )
            await repository.save(running, before=record)
    finally:
        await db.close()


def running_state(
    spec: AnySpec, players: tuple[str, str], variant: str, options: dict[str, int], rng: random.Random
) -> str:
    """A game a few moves in, as its engine plays them when a player times out."""
    engine = spec.engine
    state = engine.new_game(list(players), rng, **spec.engine_options(options, variant))
    for _ in range(rng.randint(0, 30)):
        acting = engine.to_act(state)
        if engine.is_over(state) or not acting:
            break
        state = engine.apply(state, acting[0], engine.timeout_action(state, acting[0]), rng)
    return state.dump()


def report(figures: list[Figures]) -> str:
    head = (
        "| games in progress | start → gateway session s | start → first answered click s | clicks sent "
        "| RSS after the click MB | peak RSS MB | idle CPU (s over s) |\n|---|---|---|---|---|---|---|"
    )
    rows = [
        f"| {f.games:,} | {f.to_session:.2f} | {f.to_click:.2f} | {f.click_attempts} | {f.rss / MB:.0f} "
        f"| {f.peak_rss / MB:.0f} | {f.idle_cpu:.3f} over {f.idle_seconds:.0f} ({f.idle_cpu / f.idle_seconds:.2%}) |"
        for f in figures
    ]
    return "\n".join([head, *rows])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in progress in the database")
    parser.add_argument("--idle", type=float, default=65.0, help="seconds to watch the idle bot's CPU")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    if args.games < 1 or args.idle <= 0:
        parser.error("--games must be at least 1 and --idle positive")
    print(f"{args.games:,} games; Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as folder:
        workdir = Path(folder)
        async with FakeDiscord(token=TOKEN) as server:
            guild = server.add_guild("Idle community")
            scene = Scene(
                server,
                guild,
                server.add_channel(guild, "dice"),
                (server.add_user("Alice"), server.add_user("Bob")),
                workdir,
                workdir / "dicebot.sqlite3",
            )
            bot = await start_bot("dicebot", DICEBOT, server, guild, workdir, database=scene.database)
            await wait_connected(bot, server, guild)
            message = await open_real_game(scene)
            await stop(bot)
            figures = [await measure_start(scene, message, 1, args.idle)]
            began = time.perf_counter()
            await seed(scene.database, guild, args.games - 1, random.Random(args.seed))
            print(f"seeded {args.games - 1:,} games in {time.perf_counter() - began:.1f} s")
            figures.append(await measure_start(scene, message, args.games, args.idle))
    print(report(figures))


if __name__ == "__main__":
    asyncio.run(main())
