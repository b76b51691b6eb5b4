"""Fixtures for the fakediscord tests: a server with a small world, and a tiny real discord.py bot on it.

The bot is deliberately not dicebot: it exercises each discord.py feature fakediscord must support (a command
group with options, an autocomplete, a DynamicItem button, a persistent select view, ephemeral replies, deferrals,
modals, attachments, channel sends) in one small, readable place.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.endpoints import configure_endpoints
from fakediscord import Channel, FakeDiscord, Guild, User

TOKEN = "fakediscord-test-token"


class JoinButton(discord.ui.DynamicItem[discord.ui.Button], template=r"join:(?P<game>\d+)"):
    """A stateless button: everything it needs is in its custom_id, so it survives bot restarts."""

    def __init__(self, game: int) -> None:
        super().__init__(discord.ui.Button(label="Join", style=discord.ButtonStyle.primary, custom_id=f"join:{game}"))
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: object
    ) -> JoinButton:
        return cls(int(match["game"]))  # type: ignore[index]

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"{interaction.user.display_name} joined game {self.game}")


class ScoreView(discord.ui.View):
    """A persistent view (timeout None, fixed custom_id) registered in setup_hook."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="score:pick",
        placeholder="Pick a box",
        max_values=2,
        options=[
            discord.SelectOption(label="Full House", value="full_house"),
            discord.SelectOption(label="Chance", value="chance"),
            discord.SelectOption(label="Kniffel", value="kniffel"),
        ],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"scored {', '.join(select.values)}")


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}")


class StubBot(commands.Bot):
    """Records the API errors its commands hit so tests can assert the bot saw them."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.api_errors: list[discord.HTTPException] = []
        #: ``/game sleepy`` answers only once a test sets this (after moving the server's clock past the deadline).
        self.answer_now = asyncio.Event()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py waits 5 s before every re-IDENTIFY to respect Discord's limit; no need locally."""

    async def setup_hook(self) -> None:
        self.add_dynamic_items(JoinButton)
        self.add_view(ScoreView())
        self.tree.add_command(game)
        await self.tree.sync()


game = app_commands.Group(name="game", description="Dice games")


@game.command(description="Start a game")
@app_commands.describe(rules="Rule set", players="How many players")
@app_commands.choices(rules=[app_commands.Choice(name="Classic", value="classic")])
async def start(interaction: discord.Interaction, rules: str, players: app_commands.Range[int, 1, 6] = 2) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(JoinButton(interaction.id))
    embed = discord.Embed(title="Kniffel", description=f"{players} players")
    await interaction.response.send_message(f"new game ({rules})", embed=embed, view=view)


@game.command(description="Show the score sheet")
async def score(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("score sheet", view=ScoreView())


@game.command(description="An answer only you see")
async def secret(interaction: discord.Interaction) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(JoinButton(1))
    await interaction.response.send_message("only for you", ephemeral=True, view=view)


@game.command(description="Think first")
async def slow(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.followup.send("done thinking")


@game.command(description="Answer too late")
async def sleepy(interaction: discord.Interaction) -> None:
    await interaction.client.answer_now.wait()  # type: ignore[attr-defined]
    try:
        await interaction.response.send_message("finally")
    except discord.HTTPException as exc:
        interaction.client.api_errors.append(exc)  # type: ignore[attr-defined]


@game.command(description="Send an invalid button")
async def broken(interaction: discord.Interaction) -> None:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="x" * 81, custom_id="too-long-label"))
    try:
        await interaction.response.send_message("broken", view=view)
    except discord.HTTPException as exc:
        interaction.client.api_errors.append(exc)  # type: ignore[attr-defined]


@game.command(description="Challenge someone")
async def challenge(interaction: discord.Interaction, opponent: discord.Member) -> None:
    await interaction.response.send_message(f"{interaction.user.display_name} challenges {opponent.display_name}")


@game.command(description="Resume a saved game")
async def resume(interaction: discord.Interaction, save: int) -> None:
    await interaction.response.send_message(f"resuming save {save}")


@resume.autocomplete("save")
async def saves(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """The saves whose number starts with what was typed: Discord sends the text typed, even for an integer."""
    return [app_commands.Choice(name=f"Save #{n}", value=n) for n in (1, 12, 20) if str(n).startswith(current)]


@game.command(description="Ask for a name")
async def name(interaction: discord.Interaction) -> None:
    await interaction.response.send_modal(NameModal())


@game.command(description="Upload the roll log")
async def log(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("log", file=discord.File(io.BytesIO(b"6 6 6 6 6"), filename="roll.txt"))


@game.command(description="Post and edit a channel message")
async def board(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("posting", ephemeral=True)
    assert isinstance(interaction.channel, discord.TextChannel)
    message = await interaction.channel.send("scoreboard v1")
    await message.edit(content="scoreboard v2")


@dataclass
class Scene:
    """The world the tests act in."""

    server: FakeDiscord
    guild: Guild
    channel: Channel
    alice: User
    bob: User


@pytest.fixture
async def server() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(token=TOKEN) as fake:
        yield fake


@pytest.fixture
def scene(server: FakeDiscord) -> Scene:
    guild = server.add_guild("Test")
    channel = server.add_channel(guild, "dice")
    return Scene(server, guild, channel, server.add_user("Alice"), server.add_user("Bob"))


@pytest.fixture
async def bot(scene: Scene) -> AsyncIterator[StubBot]:
    """The stub bot, logged in, connected and with its commands synced; endpoints restored afterwards."""
    configure_endpoints(scene.server.api_base, scene.server.gateway_url)
    client = StubBot()
    runner = asyncio.create_task(client.start(TOKEN))
    try:
        ready = asyncio.create_task(scene.server.wait_for_commands(names=["game"]))
        await asyncio.wait({runner, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            runner.result()  # the bot died before syncing: surface its exception
        ready.result()
        await scene.server.wait_until_ready()
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(runner, 5)
        configure_endpoints(None, None)
