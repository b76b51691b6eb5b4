"""The gateway's share of a click: discord.py parsing a game click and the echo of its answer, in CPU µs per click.

Run: ``.venv/bin/python -m bench.gateway [--rounds 7] [--passes 20]``.

Every click reaches the bot as an INTERACTION_CREATE carrying the clicked board, and its answer (an edit of that
board) comes back as a MESSAGE_UPDATE carrying it again. This feeds both events, built by fakediscord from the
boards of a seeded two-player Kniffel game as the bot renders them, to a ``DiceBot`` that never connects: once
through discord.py's own parsers, once through the ones the bot installs (``DiceBot._interaction_created``,
``DiceBot._message_updated``), alternating in rounds so a shared machine's noise falls on both alike. JSON decoding
and decompression are left out: both sides pay them alike, and the floor bot too. It prints the median and the
spread of CPU µs per click (both events) over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import discord

from bot.app import create_bot
from bot.play.discord_io import update_payload
from bot.play.service import table
from bot.play.transitions import Game
from bot.settings import Settings
from bot.storage import GameRecord, Seat
from cogs.kniffel import SPEC
from fakediscord import Channel, Guild, Message, Role, User
from fakediscord.interactions import build_payload
from fakediscord.models import DEFAULT_PERMISSIONS

Parser = Callable[[dict[str, Any]], None]


def boards(count: int) -> list[dict[str, Any]]:
    """The type-7 answers' messages (content, embeds, components) of the first ``count`` states of a seeded game."""
    players = ["100000000000000001", "100000000000000002"]
    rng = random.Random(1)
    engine = SPEC.engine
    state = engine.new_game(players, rng)
    seats = tuple(Seat(player, f"player {index}") for index, player in enumerate(players))
    now = time.time()
    found = []
    while len(found) < count and not engine.is_over(state):
        record = GameRecord(
            id=12345, kind=SPEC.kind, variant="kniffel", guild_id=1, channel_id=2, host=players[0],
            status="running", version=len(found) + 1, created_at=now, updated_at=now, locale="en-US", seats=seats,
        )  # fmt: skip
        found.append(update_payload(SPEC.ui.render(table(Game(record, state))), None)["data"])
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
    return found


def events(count: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(INTERACTION_CREATE, MESSAGE_UPDATE) payloads of ``count`` clicks, as fakediscord sends them."""
    me = User(900000000000000001, "dicebot", bot=True)
    player = User(900000000000000002, "player")
    guild = Guild(900000000000000003, "bench", owner_id=player.id, members={player.id: player, me.id: me})
    channel = Channel(900000000000000004, "kniffel", guild=guild)
    guild.channels.append(channel)
    guild.roles.append(Role(id=guild.id, name="@everyone", permissions=DEFAULT_PERMISSIONS))
    pairs = []
    for index, board in enumerate(boards(count)):
        message = Message(
            id=900000000000001000 + index,
            channel=channel,
            author=me,
            content=board["content"] or "",
            embeds=board["embeds"],
            components=board["components"],
        )
        click = build_payload(
            interaction_id=900000000000002000 + index,
            token=f"token-{index}",
            application_id=me.id,
            kind=3,
            user=player,
            channel=channel,
            data={"custom_id": board["components"][1]["components"][0]["custom_id"], "component_type": 2},
            app_permissions=0,
            message=message,
        )
        pairs.append((click, message.payload()))
    return pairs


def per_click(
    interaction: Parser, update: Parser, pairs: list[tuple[dict[str, Any], dict[str, Any]]], passes: int
) -> float:
    """CPU µs per click of parsing both events (and dispatching: no listener reads them here)."""
    start = time.process_time()
    for _ in range(passes):
        for click, echo in pairs:
            interaction(click)
            update(echo)
    elapsed = time.process_time() - start
    return 1e6 * elapsed / (passes * len(pairs))


async def measure(rounds: int, passes: int) -> dict[str, list[float]]:
    settings = Settings(discord_token="bench", database_url="sqlite:///unused.sqlite3", _env_file=None)  # type: ignore[arg-type]
    async with create_bot(settings) as bot:
        pairs = events(40)
        me = pairs[0][1]["author"]
        bot._connection.user = discord.ClientUser(state=bot._connection, data=me)
        # The bot's on_interaction would answer; here the dispatched interaction goes nowhere.
        bot.on_interaction = _ignore  # type: ignore[method-assign]
        parsers = bot._connection.parsers
        sides: dict[str, tuple[Parser, Parser]] = {
            "discord.py": (bot._parse_interaction_create, bot._parse_message_update),
            "dicebot": (parsers["INTERACTION_CREATE"], parsers["MESSAGE_UPDATE"]),
        }
        figures: dict[str, list[float]] = {name: [] for name in sides}
        for side in sides.values():
            per_click(*side, pairs, 2)  # warm-up
        for _ in range(rounds):
            for name, side in sides.items():
                figures[name].append(per_click(*side, pairs, passes))
                await asyncio.sleep(0)  # let the dispatched tasks run and go
        return figures


async def _ignore(interaction: discord.Interaction[Any]) -> None:
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds of each side")
    parser.add_argument("--passes", type=int, default=20, help="passes over the 40 clicks per round")
    args = parser.parse_args()
    figures = asyncio.run(measure(args.rounds, args.passes))
    for name, values in figures.items():
        print(
            f"{name:>10}: median {statistics.median(values):6.1f} µs of CPU per click "
            f"(min {min(values):.1f}, max {max(values):.1f}, {len(values)} rounds)"
        )


if __name__ == "__main__":
    main()
