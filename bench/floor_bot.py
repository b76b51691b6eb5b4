"""The floor: the thinnest discord.py bot that can take the load benchmark's clicks, to measure dicebot against.

Same client library and endpoints as dicebot, but no storage, no engine and no rendering: ``/kniffel start``
posts one message with the controls a Kniffel table has (Join and Start, five dice, Roll, a Score select), and
every click or pick on it is answered with an edit of that message (callback type 7, the content only). Whatever
dicebot spends beyond this per click is its own cost; what both spend is discord.py's and the machine's.

Run by ``bench/load.py`` as a separate process, configured like dicebot through the environment:
``DISCORD_TOKEN``, ``DISCORD_API_BASE``, ``DISCORD_GATEWAY_URL`` and ``DEV_GUILD_ID`` (where to sync the command).
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import discord
from discord import app_commands

from bot.endpoints import configure_endpoints

#: Box names of the Score select, so its payload is as big as a Kniffel card's.
BOXES = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "kniffel",
    "chance",
)


def table_view() -> discord.ui.View:
    """The controls of a Kniffel table, with fixed custom ids: the floor keeps no state to put in them."""
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Join", custom_id="floor:join", row=0))
    view.add_item(discord.ui.Button(label="Start", custom_id="floor:start", row=0))
    for index in range(5):
        view.add_item(discord.ui.Button(label=f"⚀ {index + 1}", custom_id=f"floor:hold:{index}", row=1))
    view.add_item(discord.ui.Button(label="Roll", custom_id="floor:roll", style=discord.ButtonStyle.success, row=2))
    options = [discord.SelectOption(label=f"{box} — 0 points", value=box) for box in BOXES]
    view.add_item(discord.ui.Select(custom_id="floor:score", placeholder="Score…", options=options, row=3))
    return view


class FloorBot(discord.Client):
    """Answers ``/kniffel start`` with a table message and every component interaction with an edit of it."""

    def __init__(self, guild_id: int | None) -> None:
        intents = discord.Intents.none()
        # Guilds only: the thinnest bot needs no message events. dicebot also asks for guild messages (the live
        # board's tail), so it receives each edit's MESSAGE_UPDATE too (docs/benchmarks.md, "Load").
        intents.guilds = True
        super().__init__(intents=intents)
        self.tree = app_commands.CommandTree(self)
        self._guild = None if guild_id is None else discord.Object(guild_id)
        group = app_commands.Group(name="kniffel", description="Play Kniffel")

        @group.command(name="start", description="Open a table")
        async def start(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message(f"{interaction.user.mention}, your turn.", view=table_view())

        self.tree.add_command(group, guild=self._guild)

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=self._guild)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.component:
            custom_id = (interaction.data or {}).get("custom_id", "")
            await interaction.response.edit_message(content=f"{interaction.user.mention} pressed {custom_id}.")


async def run(bot: FloorBot, token: str) -> None:
    """Run until SIGTERM or SIGINT, like dicebot's entry point."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(token)


def main() -> None:
    configure_endpoints(os.environ.get("DISCORD_API_BASE"), os.environ.get("DISCORD_GATEWAY_URL"))
    guild = os.environ.get("DEV_GUILD_ID")
    asyncio.run(run(FloorBot(int(guild) if guild else None), os.environ["DISCORD_TOKEN"]))


if __name__ == "__main__":
    main()
