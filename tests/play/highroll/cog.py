"""``/highroll``: the cog and spec of the test game, exactly as a real game registers."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.play.cog import GameCog
from bot.play.spec import GameSpec
from bot.ui.render import Click
from tests.play.highroll import engine
from tests.play.highroll.ui import UI


def to_action(click: Click) -> engine.Action:
    if click.action == "roll":
        return engine.Roll()
    raise KeyError(click.action)


SPEC = GameSpec(
    kind="highroll",
    engine=engine,
    ui=UI,
    min_players=1,
    max_players=4,
    variants=("standard",),
    timeout_minutes=(1, 1, 5),
    to_action=to_action,
    turn_key=lambda state: tuple(engine.to_act(state)),
)


class HighRollCog(GameCog, group_name="highroll", group_description=_("Play high roll", key="cmd.highroll")):
    spec = SPEC

    @app_commands.command(name=_("start", key="cmd.start.name"), description=_("Open a lobby", key="cmd.start.x"))
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await self.open(interaction, "standard", {})


async def setup(bot: Any) -> None:
    await bot.add_cog(HighRollCog(bot))
