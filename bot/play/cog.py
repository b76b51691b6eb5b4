"""The command group every game shares: ``/<game> leave``, ``/<game> end`` and ``/<game> rules``.

A game's cog subclasses :class:`GameCog` with ``group_name=`` and adds its own ``start`` (whose options differ
per game) and any private views; the shared commands come from here, written once. Cogs only translate Discord
into service calls: the service was given every game's spec by the registry before any cog loaded.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.engine import fivedice
from bot.i18n import t
from bot.play.discord_io import InteractionRequest, actor_of
from bot.play.spec import AnySpec, Watchers
from bot.ui import rules as rules_ui
from bot.ui.fivedice import roll_stamp
from bot.ui.render import Click

if TYPE_CHECKING:
    from bot.app import DiceBot


#: The ``level`` choices of every ``/<game> start``.
LEVEL_CHOICES = [
    app_commands.Choice(name=_("easy", key="computer.level.easy"), value="easy"),
    app_commands.Choice(name=_("normal", key="computer.level.normal"), value="normal"),
    app_commands.Choice(name=_("perfect", key="computer.level.perfect"), value="perfect"),
]
#: Descriptions and names of the computer options every ``/<game> start`` has.
COMPUTER_DESCRIBE = {
    "opponents": _("Computer players to seat at once (0–7, default 0)", key="cmd.start.opponents"),
    "level": _("How well those computers play (default normal)", key="cmd.start.level"),
}
COMPUTER_RENAME = {
    "opponents": _("opponents", key="cmd.option.opponents"),
    "level": _("level", key="cmd.option.level"),
}


class GameCog(commands.GroupCog):
    """Base for game cogs: the game's ``spec`` and its shared commands."""

    spec: ClassVar[AnySpec]

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def open(
        self,
        interaction: discord.Interaction[Any],
        variant: str,
        options: dict[str, Any],
        opponents: int = 0,
        level: str = "normal",
    ) -> None:
        """Post the lobby of a new game (called by each game's ``start`` command), with ``opponents`` computers."""
        await self.bot.service.open_lobby(
            InteractionRequest(interaction), self.spec, variant, options, opponents, level
        )

    @app_commands.command(
        name=_("leave", key="cmd.leave.name"),
        description=_("Leave the game in this channel", key="cmd.leave.description"),
    )
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.bot.service.leave(InteractionRequest(interaction), self.spec)

    @app_commands.command(
        name=_("end", key="cmd.end.name"),
        description=_(
            "End the game in this channel (host or Manage Messages); it is not counted", key="cmd.end.description"
        ),
    )
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        await self.bot.service.end(InteractionRequest(interaction), self.spec)

    @app_commands.command(
        name=_("rules", key="cmd.rules.name"), description=_("Show the rules of this game", key="cmd.rules.description")
    )
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            embed=rules_ui.render(self.spec.kind, str(interaction.locale)), ephemeral=True
        )

    @app_commands.command(
        name=_("review", key="cmd.review.name"),
        description=_("Review your decisions in a finished game, only to you", key="cmd.review.description"),
    )
    @app_commands.describe(game=_("Which game (default: your latest)", key="cmd.review.game"))
    @app_commands.rename(game=_("game", key="cmd.option.game"))
    async def review(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        await self.bot.service.review(InteractionRequest(interaction), self.spec, game)

    @review.autocomplete("game")
    async def review_games(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[int]]:
        """The caller's last finished games of this kind (game number and when it ended, UTC)."""
        games = await self.bot.service.reviews.menu(str(interaction.user.id), self.spec)
        locale = str(interaction.locale)
        choices = []
        for game in games:
            when = datetime.datetime.fromtimestamp(game.finished_at, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
            # The game's number as typed (``t`` would group digits like a quantity's: "#1,234").
            name = t("review.choice", locale, id=str(game.game_id), when=when)
            if current.strip() in name:
                choices.append(app_commands.Choice(name=name[:100], value=game.game_id))
        return choices


#: The five-dice cards' ``PrivateView.watchers``: the command that shows anyone's card is the one below.
CARD_WATCHERS = Watchers(command="scorecard", note="dice.watching")


class ScorecardGameCog(GameCog):
    """A five-dice game (Kniffel, dice poker): adds ``/<game> scorecard [player]``."""

    @app_commands.command(
        name=_("scorecard", key="cmd.scorecard.name"),
        description=_("Show a scorecard, only to you", key="cmd.scorecard.description"),
    )
    @app_commands.describe(player=_("Whose card (default: yours, or the player to act's)", key="cmd.scorecard.player"))
    @app_commands.rename(player=_("player", key="cmd.option.player"))
    async def scorecard(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        target = actor_of(player) if player is not None else None
        await self.bot.service.private(InteractionRequest(interaction), self.spec, "card", target)


def dice_action(click: Click, score: Callable[[str], Any]) -> Any:
    """The click → action mapping of the five-dice games: roll, hold a die, or score the selected option.

    The actions are the engine's shared instances (``fivedice.roll_action``, ``hold_action``, a game's score
    action), validated only for what they cannot be: a click's die or box that does not exist is refused as before.
    """
    if click.action == "roll":
        return fivedice.roll_action()
    if click.action == "hold":
        index, _, held = click.arg.partition(".")
        if held not in ("0", "1"):  # what a die's button asks for: held or not; anything else is forged
            raise ValueError(f"hold target {held!r}")
        return fivedice.hold_action(int(index))
    if click.action == "score":
        (box,) = click.values  # the select offers one choice; a forged several were read as their first (QA)
        return score(box)
    raise KeyError(click.action)


def dice_stamp(click: Click, version: int, state: Any) -> int:
    """Hold buttons carry the roll they belong to (see ``bot.ui.fivedice.roll_stamp``); the rest the version."""
    return roll_stamp(state) if click.action == "hold" else version


def hold_in_effect(click: Click, state: Any) -> bool:
    """A hold click (``hold:<die>.<1 hold | 0 release>``) whose die already is where it asks: a double click."""
    if click.action != "hold":
        return False
    index, _, target = click.arg.partition(".")
    if target not in ("0", "1") or not index.isdigit() or int(index) >= len(state.held):
        return False
    return bool(state.held[int(index)]) == (target == "1")
