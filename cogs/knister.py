"""``/knister``: everybody places the same 2d6 sum on a private 5x5 grid, 25 rounds, 1-12 players."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.engine import knister
from bot.play.cog import COMPUTER_DESCRIBE, COMPUTER_RENAME, LEVEL_CHOICES, GameCog
from bot.play.discord_io import InteractionRequest
from bot.play.spec import GameSpec, PrivateView
from bot.play.transitions import most_opponents
from bot.ui.knister import UI
from bot.ui.render import Click


def to_action(click: Click) -> knister.Roll | knister.Place:
    """``roll`` on the round message; ``place:<cell>`` on a private grid."""
    if click.action == "roll":
        return knister.Roll()
    if click.action == "place":
        return knister.Place(cell=int(click.arg))
    raise KeyError(click.action)


def turn_key(state: knister.State) -> Hashable:
    """A new round and the roll each restart the round timeout: first to roll, then to place."""
    return (state.round, state.dice is not None, state.over)


def stamp_of(click: Click, version: int, state: knister.State) -> int:
    """A grid's cells carry the round: other players placing must not outdate it, the next round must."""
    return state.round if click.action == "place" else version


SPEC = GameSpec(
    kind="knister",
    engine=knister,
    ui=UI,
    min_players=1,
    max_players=12,
    variants=("standard",),
    timeout_minutes=(2, 1, 60),
    to_action=to_action,
    turn_key=turn_key,
    private_views={"grid": PrivateView(UI.render_grid, follows=True)},
    private_refresh={"place": "grid"},
    stamp_of=stamp_of,
    option_fields={"timeout": "round_timeout"},
)
#: The declared range of ``/knister start opponents:``: what the game seats.
OPPONENTS = most_opponents(SPEC)


class KnisterCog(
    GameCog,
    group_name=_("knister", key="cmd.knister.name"),
    group_description=_("Play Knister", key="cmd.knister.description"),
):
    spec = SPEC

    @app_commands.command(
        name=_("start", key="cmd.start.name"),
        description=_("Open a Knister lobby in this channel", key="cmd.knister.start.description"),
    )
    @app_commands.describe(
        round_timeout=_(
            "Minutes per round before the bot rolls or places for you (1–60, default 2)",
            key="cmd.knister.start.round_timeout",
        ),
        **COMPUTER_DESCRIBE,
    )
    @app_commands.rename(round_timeout=_("round_timeout", key="cmd.option.round_timeout"), **COMPUTER_RENAME)
    @app_commands.choices(level=LEVEL_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        round_timeout: app_commands.Range[int, 1, 60] = 2,
        opponents: app_commands.Range[int, 0, OPPONENTS] = 0,
        level: str = "normal",
    ) -> None:
        await self.open(interaction, "standard", {"timeout": round_timeout}, opponents, level)

    @app_commands.command(
        name=_("grid", key="cmd.knister.grid.name"),
        description=_("Show your Knister grid, only to you", key="cmd.knister.grid.description"),
    )
    async def grid(self, interaction: discord.Interaction[Any]) -> None:
        await self.bot.service.private(InteractionRequest(interaction), self.spec, "grid")


async def setup(bot: Any) -> None:
    await bot.add_cog(KnisterCog(bot))
