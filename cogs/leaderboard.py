"""``/leaderboard``, ``/stats`` and ``/forget-me``: rankings and statistics over every finished game.

``/stats [user] [game]`` takes no subcommand because it is what people run most, and Discord cannot have a
command and subcommands under one name; deleting one's results is therefore its own ``/forget-me`` (the
stats footer points to it). Leaderboard paging edits the board in place for the person who ran the command;
anyone else who clicks gets their own private copy of that page, with their own rank underneath, so nobody
pages a board out from under its owner.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import astuple
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import alternatives, game_locale, t
from bot.rankings import METRICS, PERIODS, Metric, Period
from bot.storage import StatsRepository
from bot.ui import leaderboard as ui

if TYPE_CHECKING:
    from bot.app import DiceBot

log = logging.getLogger(__name__)


def game_choices(kinds: Iterable[str]) -> list[app_commands.Choice[str | int | float]]:
    """A slash-command choice per registered game, named through the catalogue like every command text."""
    return [app_commands.Choice(name=_(t(f"game.{kind}", "en"), key=f"game.{kind}"), value=kind) for kind in kinds]


def _locale(interaction: discord.Interaction[Any]) -> str:
    """The clicker's language: for what only they see (private pages, refusals, /forget-me)."""
    return str(interaction.locale)


async def _guarded(interaction: discord.Interaction[Any], handler: Callable[[], Awaitable[None]]) -> None:
    """Run a click handler; an unexpected error becomes a private apology, never "This interaction failed"."""
    try:
        await handler()
    except Exception:
        log.exception("leaderboard click %s failed", cast("dict[str, Any]", interaction.data or {}).get("custom_id"))
        text = t("play.unexpected_error", _locale(interaction))
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


class BoardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.BOARD_ID.pattern):
    """Previous/Next on any leaderboard message, however old: the custom id says which page to show."""

    def __init__(self, request: ui.BoardRequest) -> None:
        super().__init__(discord.ui.Button(custom_id=request.custom_id(request.page)))
        self.request = request

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> BoardButton:
        request = ui.BoardRequest.parse(match.string)
        assert request is not None
        return cls(request)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog(Leaderboard.__cog_name__)
        await _guarded(interaction, lambda: cog.turn_page(interaction, self.request))


class ForgetButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.FORGET_ID.pattern):
    """Confirm or Cancel under the private forget-me question; the custom id names the only user it obeys."""

    def __init__(self, action: str, user_id: int) -> None:
        super().__init__(discord.ui.Button(custom_id=f"lbforget:{action}:{user_id}"))
        self.action = action
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ForgetButton:
        return cls(match["action"], int(match["user"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog(Leaderboard.__cog_name__)
        await _guarded(interaction, lambda: cog.forget(interaction, self.action, self.user_id))


class Leaderboard(commands.Cog):
    """Rankings per game, metric, period and scope; personal statistics; deleting one's results."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.stats = StatsRepository(bot.db)
        self.kinds = tuple(bot.service.specs)
        # /stats shows the figures of a game with several rule sets per rule set, also against computers: they
        # score apart (Kniffel's classic has no bonuses). The leaderboards rank each game over all of them.
        self.rule_sets = {
            kind + suffix: spec.variants
            for kind, spec in bot.service.specs.items()
            if len(spec.variants) > 1
            for suffix in ("", ui.VS_COMPUTER)
        }
        # The game choices come from the registry the bot was built with, not from a list kept here: the
        # parameters of this cog's copies of the commands are set before the tree is synced.
        for command in (self.leaderboard, self.stats_command):
            command._params["game"].choices = game_choices(self.kinds)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(BoardButton, ForgetButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(BoardButton, ForgetButton)

    async def _public_locale(self, interaction: discord.Interaction[Any]) -> str:
        """The language of a message the whole channel reads, as a game's: the server's, not the caller's.

        The server's ``/settings language`` choice, else its preferred locale; outside a server the caller's.
        """
        guild_id = interaction.guild_id
        chosen = await self.bot.guild_settings.language(guild_id) if guild_id is not None else None
        return game_locale(chosen, interaction.guild_locale, interaction.locale)

    def _now(self) -> float:
        """The bot's clock (tests move it), which also stamped the results' ``finished_at``."""
        return self.bot.clock()

    # ------------------------------------------------------------------ /leaderboard

    @app_commands.command(
        name=_("leaderboard", key="cmd.leaderboard.name"),
        description=_("Show the best players of a game", key="cmd.leaderboard.description"),
    )
    @app_commands.describe(
        game=_("Which game", key="cmd.leaderboard.game"),
        metric=_(
            "Rank by wins, best score, average score (5+ games) or games played (default: wins)",
            key="cmd.leaderboard.metric",
        ),
        period=_("All time, the last 30 days or the last 7 days (default: all time)", key="cmd.leaderboard.period"),
        scope=_("This server or every server (default: this server)", key="cmd.leaderboard.scope"),
    )
    @app_commands.choices(
        metric=[
            app_commands.Choice(name=_("Wins", key="leaderboard.metric.wins"), value="wins"),
            app_commands.Choice(name=_("Best score", key="leaderboard.metric.best"), value="best"),
            app_commands.Choice(name=_("Average score", key="leaderboard.metric.average"), value="average"),
            app_commands.Choice(name=_("Games played", key="leaderboard.metric.games"), value="games"),
        ],
        period=[
            app_commands.Choice(name=_("All time", key="leaderboard.period.all"), value="all"),
            app_commands.Choice(name=_("Last 30 days", key="leaderboard.period.month"), value="month"),
            app_commands.Choice(name=_("Last 7 days", key="leaderboard.period.week"), value="week"),
        ],
        scope=[
            app_commands.Choice(name=_("This server", key="leaderboard.scope.server"), value="server"),
            app_commands.Choice(name=_("All servers", key="leaderboard.scope.global"), value="global"),
        ],
    )
    @app_commands.rename(
        game=_("game", key="cmd.option.game"),
        metric=_("metric", key="cmd.option.metric"),
        period=_("period", key="cmd.option.period"),
        scope=_("scope", key="cmd.option.scope"),
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        metric: str = "wins",
        period: str = "all",
        scope: str = "server",
    ) -> None:
        forged = self._forged(_locale(interaction), game=game, metric=metric, period=period, scope=scope)
        if forged is not None:
            await interaction.response.send_message(forged, ephemeral=True)
            return
        request = ui.BoardRequest(
            game, metric, period, "global" if scope == "global" else "server", 0, interaction.user.id
        )
        embed, view = await self._board(interaction, request, await self._public_locale(interaction))
        await interaction.response.send_message(embed=embed, view=view)

    def _forged(self, locale: str, **options: str | None) -> str | None:
        """The private answer to an option no client offers (a forged interaction), else None: a board titled with a
        catalogue key was posted in the channel for an unknown game, and an unknown metric was an internal error
        (QA). ``None`` is an option left out."""
        offered: dict[str, tuple[str, Iterable[str]]] = {
            "game": ("game", self.kinds),
            "metric": ("leaderboard.metric", METRICS),
            "period": ("leaderboard.period", PERIODS),
            "scope": ("leaderboard.scope", ("server", "global")),
        }
        for name, value in options.items():
            prefix, values = offered[name]
            if value is not None and value not in values:
                allowed = alternatives(prefix, values, locale)
                return t("error.bad_option", locale, name=t(f"cmd.option.{name}", locale), allowed=allowed)
        return None

    async def turn_page(self, interaction: discord.Interaction[Any], request: ui.BoardRequest) -> None:
        """Previous/Next: the owner's board changes in place; anyone else gets that page privately.

        The board in the channel keeps the server's language whoever pages it; a private copy is the clicker's, on
        every page of it.
        """
        if self._forged(_locale(interaction), game=request.kind, metric=request.metric, period=request.period):
            await interaction.response.send_message(t("leaderboard.outdated", _locale(interaction)), ephemeral=True)
            return
        if interaction.user.id != request.owner:
            private = request.for_user(interaction.user.id)
            embed, view = await self._board(interaction, private, _locale(interaction), seen_by_owner_only=True)
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
            return
        # A private copy's own pages stay private: "you", in the clicker's language.
        ephemeral = interaction.message is not None and interaction.message.flags.ephemeral
        locale = _locale(interaction) if ephemeral else await self._public_locale(interaction)
        embed, view = await self._board(interaction, request, locale, seen_by_owner_only=ephemeral)
        await interaction.response.edit_message(embed=embed, view=view)

    async def _board(
        self,
        interaction: discord.Interaction[Any],
        request: ui.BoardRequest,
        locale: str,
        *,
        seen_by_owner_only: bool = False,
    ) -> tuple[discord.Embed, discord.ui.View]:
        # Outside a server there is no "this server": such a board spans every server.
        guild_id = interaction.guild_id if request.scope == "server" else None
        page = await self.stats.leaderboard(
            request.kind,
            cast(Metric, request.metric),
            cast(Period, request.period),
            guild_id,
            page=request.page,
            caller_id=request.owner,
            now=self._now(),
            apart=request.kind + ui.VS_COMPUTER,
        )
        return ui.render_board(page, request, locale, seen_by_owner_only=seen_by_owner_only)

    # ------------------------------------------------------------------ /stats

    @app_commands.command(
        name=_("stats", key="cmd.stats.name"),
        description=_("Show a player's game statistics", key="cmd.stats.description"),
    )
    @app_commands.describe(
        user=_("Whose statistics (default: yours)", key="cmd.stats.user"),
        game=_("Only this game (default: every game played)", key="cmd.stats.game"),
    )
    @app_commands.rename(user=_("user", key="cmd.option.user"), game=_("game", key="cmd.option.game"))
    async def stats_command(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None, game: str | None = None
    ) -> None:
        forged = self._forged(_locale(interaction), game=game)
        if forged is not None:
            await interaction.response.send_message(forged, ephemeral=True)
            return
        who = user or interaction.user
        kinds = (game,) if game else self.kinds
        # Games against computers are their own standings, shown after each game's own.
        found = await self.stats.user_stats(
            who.id, [k for kind in kinds for k in (kind, kind + ui.VS_COMPUTER)], rule_sets=self.rule_sets
        )
        # Posted in the channel for everyone: the server's language, as the boards.
        locale = await self._public_locale(interaction)
        embed = ui.render_stats(who.display_name, found, game, locale, own=who.id == interaction.user.id)
        await interaction.response.send_message(embed=embed)

    # ------------------------------------------------------------------ /forget-me

    @app_commands.command(
        name=_("forget-me", key="cmd.forget_me.name"),
        description=_(
            "Delete your stored results (leaderboards, stats) and the move history of games no one else played",
            key="cmd.forget_me.description",
        ),
    )
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        user_id = interaction.user.id
        count, games = await self.stats.count_results(user_id), await self.stats.count_games_in_progress(user_id)
        text, view = ui.render_forget_prompt(count, games, user_id, _locale(interaction))
        await interaction.response.send_message(text, view=view, ephemeral=True)

    async def forget(self, interaction: discord.Interaction[Any], action: str, user_id: int) -> None:
        """Confirm deletes and says how many rows went; Cancel says nothing went. Only ``user_id`` may press."""
        locale = _locale(interaction)
        if interaction.user.id != user_id:
            await interaction.response.send_message(t("forget.not_yours", locale), ephemeral=True)
            return
        if action == "cancel":
            await interaction.response.edit_message(content=t("forget.cancelled", locale), view=None)
            return
        forgotten = await self.stats.forget(user_id)
        log.info("forget-me deleted %d results of a user, noted %d games in progress", *astuple(forgotten))
        if not forgotten.results and not forgotten.games:
            # The second click of a double click (the prompt only offers Confirm with something to do): the first
            # one's "N deleted" stays, not overwritten with a "0 deleted" that would say nothing was.
            await interaction.response.send_message(t("forget.nothing", locale), ephemeral=True)
            return
        done = ui.render_forgotten(forgotten.results, forgotten.games, locale)
        await interaction.response.edit_message(content=done, view=None)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(Leaderboard(bot))
