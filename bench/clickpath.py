"""The click path of one process without Discord: the service, SQLite and the rendering, in CPU milliseconds per click.

Run: ``.venv/bin/python -m bench.clickpath [--channels 20] [--seconds 10] [--warmup 2]``.

``bench.load`` measures the whole bot against the floor, but on a shared 2-core machine its CPU per click moves by
a fifth between identical runs, and most of it is discord.py and aiohttp, which the floor pays too. This drives
``GameService.on_click`` directly on a new SQLite file, with the answer's JSON built as the bot sends it
(``discord_io.update_payload``) and no network: N channels, two players each, playing Kniffel the way
``bench.load``'s players do (roll, hold the most common face, roll up to twice more, score the best box), one click
at a time per channel. It prints the clicks per second and this process's CPU time per click over the measured
window. Only public calls of the service are used, so it measures an older checkout too
(``PYTHONPATH=<checkout> python -m bench.clickpath``); compare trees by running them alternately.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from itertools import count
from pathlib import Path
from typing import Any

import discord

from bot.play.discord_io import update_payload
from bot.play.ports import Edit
from bot.play.service import GameService
from bot.play.transitions import Actor
from bot.storage import Database, GameRecord, GamesRepository, HistoryRepository
from bot.ui.render import Click, Rendered, parse_custom_id
from cogs.kniffel import SPEC

MESSAGE_IDS = count(10**6)


class Channels:
    """Writing to channels succeeds at once (the bench's boards never move: nobody posts below them)."""

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        return Edit.DONE

    async def send(self, record: GameRecord, rendered: Rendered) -> int | Edit:
        return next(MESSAGE_IDS)

    async def delete(self, record: GameRecord, message_id: int) -> Edit:
        return Edit.DONE

    async def below(self, record: GameRecord) -> int | None:
        return 0


class Request:
    """A click or command on a public message, answered by keeping what was rendered (and encoding the type-7 JSON)."""

    def __init__(self, user: int, channel: int, message_id: int | None = None) -> None:
        self.actor = Actor(str(user), f"player {user}")
        self.locale = "en-US"
        self.guild_locale: str | None = "en-US"
        self.guild_id: int | None = 1
        self.channel_id: int | None = channel
        self.message_id = message_id
        self.message_is_private = False
        self.message_owner: str | None = None
        self.message_by_bot = True
        self.message_games = frozenset[int]()
        self.rendered: Rendered | None = None
        self.sent = 0

    def expired(self) -> bool:
        return False

    async def refuse(self, key: str, **params: Any) -> None:
        raise RuntimeError(f"the bench's click was refused: {key}")

    async def confirm(self, key: str) -> None:
        return None

    async def send(self, rendered: Rendered) -> int:
        self.rendered, self.sent = rendered, next(MESSAGE_IDS)
        return self.sent

    async def show_private(self, rendered: Rendered) -> None:
        return None

    async def update(self, rendered: Rendered) -> None:
        self.rendered = rendered
        discord.utils._to_json(update_payload(rendered, None))

    async def acknowledge(self) -> None:
        return None

    async def defer_private(self) -> None:
        return None

    async def edit_private(self, rendered: Rendered) -> None:
        return None

    def private_message(self) -> Any:
        raise NotImplementedError("the bench opens no private view")


def components(rendered: Rendered | None) -> list[dict[str, Any]]:
    assert rendered is not None, "the click was not answered with a message"
    return [component for row in rendered.layout.components() for component in row["components"]]


def find(rendered: Rendered | None, action: str) -> dict[str, Any]:
    return next(c for c in components(rendered) if f":{action}:" in c.get("custom_id", ""))


class Table:
    """One channel's two players and its game message."""

    def __init__(self, service: GameService, channel: int, clicks: list[int]) -> None:
        self.service = service
        self.channel = channel
        self.players = (channel * 10 + 1, channel * 10 + 2)
        self.clicks = clicks
        self.message_id = 0

    async def click(self, user: int, component: dict[str, Any], values: tuple[str, ...] = ()) -> Rendered | None:
        click = parse_custom_id(component["custom_id"], values)
        assert isinstance(click, Click)
        request = Request(user, self.channel, self.message_id)
        await self.service.on_click(request, click)
        self.clicks[0] += 1
        return request.rendered

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            host, guest = self.players
            request = Request(host, self.channel)
            await self.service.open_lobby(request, SPEC, "kniffel", {})
            self.message_id = request.sent
            joined = await self.click(guest, find(request.rendered, "join"))
            rendered = await self.click(host, find(joined, "start"))
            await self.turns(rendered, stop)

    async def turns(self, rendered: Rendered | None, stop: asyncio.Event) -> None:
        game_id = int(find(rendered, "roll")["custom_id"].split(":")[1])
        while not stop.is_set():
            game = self.service.cache.get(game_id)
            if game is None or game.record.status != "running":
                return
            state = game.state
            user = int(state.current_player)
            face, most = Counter(state.dice).most_common(1)[0] if state.dice else (0, 0)
            wanted = [die == face for die in state.dice]
            toggles = [index for index in range(5) if state.rolls and wanted[index] != state.held[index]]
            if 0 < state.rolls < 3 and most < 5 and toggles:
                rendered = await self.click(user, find(rendered, f"hold:{toggles[0]}.{int(wanted[toggles[0]])}"))
            elif state.rolls < 3 and most < 5:
                rendered = await self.click(user, find(rendered, "roll"))
            else:
                select = find(rendered, "score")
                best = max(select["options"], key=lambda option: int(option["label"].split("— ")[1].split()[0]))
                rendered = await self.click(user, select, (best["value"],))


async def measure(channels: int, seconds: float, warmup: float) -> tuple[int, float, float]:
    """Clicks answered, wall seconds and CPU seconds of the measured window."""
    with tempfile.TemporaryDirectory(prefix="bench-clickpath-") as folder:
        db = await Database.open(Path(folder) / "bench.sqlite3")
        service = GameService(GamesRepository(db), {SPEC.kind: SPEC}, Channels(), history=HistoryRepository(db))
        stop, clicks = asyncio.Event(), [0]
        tables = [asyncio.create_task(Table(service, n, clicks).play(stop)) for n in range(1, channels + 1)]
        await asyncio.sleep(warmup)
        first, cpu, wall = clicks[0], time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        answered = clicks[0] - first
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        stop.set()
        await asyncio.gather(*tables)
        await db.close()
    return answered, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=20, help="channels playing at once (two players each)")
    parser.add_argument("--seconds", type=float, default=10, help="measure for this long after the warm-up")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of clicks before measuring starts")
    args = parser.parse_args()
    answered, wall, cpu = asyncio.run(measure(args.channels, args.seconds, args.warmup))
    print(
        f"{args.channels} channels: {answered} clicks in {wall:.1f} s, {answered / wall:.0f} clicks/s, "
        f"{1000 * cpu / answered:.3f} ms of CPU per click"
    )


if __name__ == "__main__":
    main()
