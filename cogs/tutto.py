"""``/tutto``: Tutto with its 56-card deck, six dice and a target score, played with buttons."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.engine import tutto
from bot.play.cog import COMPUTER_DESCRIBE, COMPUTER_RENAME, LEVEL_CHOICES, GameCog
from bot.play.spec import GameSpec
from bot.play.transitions import most_opponents
from bot.ui.render import Click
from bot.ui.tutto import UI

MIN_TARGET = 1000
MAX_TARGET = 20000

_ACTIONS: dict[str, Callable[[], tutto.AnyAction]] = {
    "draw": tutto.Draw,
    "roll": tutto.Roll,
    "select_scoring": tutto.SelectScoring,
    "roll_on": tutto.RollOn,
    "stop": tutto.Stop,
    "continue": tutto.Continue,
}


def to_action(click: Click) -> tutto.AnyAction:
    """``die`` carries the index of the die to toggle; every other action stands alone."""
    if click.action == "die":
        return tutto.ToggleSelect(index=int(click.arg))
    return _ACTIONS[click.action]()


def turn_key(state: tutto.State) -> Hashable:
    """Changes when the dice pass on, also from a solo player to themself, and when the game ends."""
    return (state.current, state.turn, tutto.is_over(state))


def engine_options(options: Mapping[str, Any], variant: str) -> dict[str, Any]:
    return {"target": int(options.get("target", tutto.DEFAULT_TARGET))}


SPEC = GameSpec(
    kind="tutto",
    engine=tutto,
    ui=UI,
    min_players=1,
    max_players=10,
    variants=("standard",),
    timeout_minutes=(5, 1, 60),
    to_action=to_action,
    turn_key=turn_key,
    engine_options=engine_options,
    option_ranges={"target": (MIN_TARGET, MAX_TARGET)},
    counters=("tuttos",),
    forced=tutto.forced_step,
    news_keeps_turn_end=True,
)
#: The declared range of ``/tutto start opponents:``: what the game seats.
OPPONENTS = most_opponents(SPEC)


class TuttoCog(
    GameCog, group_name=_("tutto", key="cmd.tutto.name"), group_description=_("Play Tutto", key="cmd.tutto.description")
):
    spec = SPEC

    @app_commands.command(
        name=_("start", key="cmd.start.name"),
        description=_("Open a Tutto lobby in this channel", key="cmd.tutto.start.description"),
    )
    @app_commands.describe(
        target=_("Points to win (1,000–20,000, default 6,000)", key="cmd.tutto.start.target"),
        turn_timeout=_("Minutes per turn before the bot plays for you (1–60, default 5)", key="cmd.start.turn_timeout"),
        **COMPUTER_DESCRIBE,
    )
    @app_commands.rename(
        target=_("target", key="cmd.option.target"),
        turn_timeout=_("turn_timeout", key="cmd.option.turn_timeout"),
        **COMPUTER_RENAME,
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        target: app_commands.Range[int, MIN_TARGET, MAX_TARGET] = tutto.DEFAULT_TARGET,
        turn_timeout: app_commands.Range[int, 1, 60] = 5,
        opponents: app_commands.Range[int, 0, OPPONENTS] = 0,
        level: str = "normal",
    ) -> None:
        await self.open(interaction, "standard", {"timeout": turn_timeout, "target": target}, opponents, level)


async def setup(bot: Any) -> None:
    await bot.add_cog(TuttoCog(bot))
