"""``/kniffel``: Kniffel and its classic variant, played with buttons and a score select."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.engine import kniffel
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
from bot.ui.kniffel import UI
from bot.ui.render import Click


def to_action(click: Click) -> kniffel.Action:
    return dice_action(click, kniffel.score_action)


SPEC = GameSpec(
    kind="kniffel",
    engine=kniffel,
    ui=UI,
    min_players=1,
    max_players=8,
    variants=kniffel.RULESETS,
    timeout_minutes=(5, 1, 60),
    to_action=to_action,
    turn_key=lambda state: (state.current, state.turns[state.current_player], state.over),
    engine_options=lambda options, variant: {"ruleset": variant},
    private_views={"card": PrivateView(UI.render_card, watchers=CARD_WATCHERS)},
    stamp_of=dice_stamp,
    in_effect=hold_in_effect,
    counters=("kniffels", "upper_bonus"),
)
#: The declared range of ``/kniffel start opponents:``: what the game seats.
OPPONENTS = most_opponents(SPEC)


class KniffelCog(
    ScorecardGameCog,
    group_name=_("kniffel", key="cmd.kniffel.name"),
    group_description=_("Play Kniffel", key="cmd.kniffel.description"),
):
    spec = SPEC

    @app_commands.command(
        name=_("start", key="cmd.start.name"),
        description=_("Open a Kniffel lobby in this channel", key="cmd.kniffel.start.description"),
    )
    @app_commands.describe(
        rules=_("Rule set: Kniffel (bonuses, joker) or Classic (none)", key="cmd.kniffel.start.rules"),
        turn_timeout=_("Minutes per turn before the bot plays for you (1–60, default 5)", key="cmd.start.turn_timeout"),
        **COMPUTER_DESCRIBE,
    )
    @app_commands.rename(
        rules=_("rules", key="cmd.option.rules"),
        turn_timeout=_("turn_timeout", key="cmd.option.turn_timeout"),
        **COMPUTER_RENAME,
    )
    @app_commands.choices(
        rules=[
            app_commands.Choice(name=_("Kniffel", key="variant.kniffel"), value="kniffel"),
            app_commands.Choice(name=_("Classic", key="variant.classic"), value="classic"),
        ],
        level=LEVEL_CHOICES,
    )
    async def start(
        self,
        interaction: discord.Interaction[Any],
        rules: str = "kniffel",
        turn_timeout: app_commands.Range[int, 1, 60] = 5,
        opponents: app_commands.Range[int, 0, OPPONENTS] = 0,
        level: str = "normal",
    ) -> None:
        await self.open(interaction, rules, {"timeout": turn_timeout}, opponents, level)


async def setup(bot: Any) -> None:
    await bot.add_cog(KniffelCog(bot))
