"""``/dicepoker``: Russian dice poker, with the same dice buttons and score select as Kniffel."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.engine import dicepoker
from bot.play.cog import (
    CARD_WATCHERS,
    COMPUTER_DESCRIBE,
    COMPUTER_RENAME,
    LEVEL_CHOICES,
    ScorecardGameCog,
    dice_action,
    dice_stamp,
    hold_in_effect,
)
from bot.play.spec import GameSpec, PrivateView
from bot.play.transitions import most_opponents
from bot.ui.dicepoker import UI
from bot.ui.render import Click


def to_action(click: Click) -> dicepoker.Action:
    return dice_action(click, dicepoker.choice_action)


SPEC = GameSpec(
    kind="dicepoker",
    engine=dicepoker,
    ui=UI,
    min_players=1,
    max_players=6,
    variants=("russian",),
    timeout_minutes=(5, 1, 60),
    to_action=to_action,
    turn_key=lambda state: (state.current, state.turns[state.current_player], state.over),
    private_views={"card": PrivateView(UI.render_card, watchers=CARD_WATCHERS)},
    stamp_of=dice_stamp,
    in_effect=hold_in_effect,
    counters=("settlement",),
)
#: The declared range of ``/dicepoker start opponents:``: what the game seats.
OPPONENTS = most_opponents(SPEC)


class DicePokerCog(
    ScorecardGameCog,
    group_name=_("dicepoker", key="cmd.dicepoker.name"),
    group_description=_("Play Russian dice poker", key="cmd.dicepoker.description"),
):
    spec = SPEC

    @app_commands.command(
        name=_("start", key="cmd.start.name"),
        description=_("Open a dice poker lobby in this channel", key="cmd.dicepoker.start.description"),
    )
    @app_commands.describe(
        turn_timeout=_("Minutes per turn before the bot plays for you (1–60, default 5)", key="cmd.start.turn_timeout"),
        **{
            **COMPUTER_DESCRIBE,
            # Six seats: five computers beside the host, not the seven of the other games.
            "opponents": _("Computer players to seat at once (0–5, default 0)", key="cmd.dicepoker.start.opponents"),
        },
    )
    @app_commands.rename(turn_timeout=_("turn_timeout", key="cmd.option.turn_timeout"), **COMPUTER_RENAME)
    @app_commands.choices(level=LEVEL_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        turn_timeout: app_commands.Range[int, 1, 60] = 5,
        opponents: app_commands.Range[int, 0, OPPONENTS] = 0,
        level: str = "normal",
    ) -> None:
        await self.open(interaction, "russian", {"timeout": turn_timeout}, opponents, level)


async def setup(bot: Any) -> None:
    await bot.add_cog(DicePokerCog(bot))
