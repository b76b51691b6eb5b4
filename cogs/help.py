"""``/help``: the games and every command, built from the synced command tree so it never goes stale."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import localized, t
from bot.ui.common import COLOUR_LOBBY

if TYPE_CHECKING:
    from bot.app import DiceBot


def _name(command: app_commands.Command[Any, ..., Any] | app_commands.Group, locale: discord.Locale) -> str:
    return localized(command.name, getattr(command, "_locale_name", None), locale)


#: A game's subcommands in the order a player meets them: open a game, read the rules, look at the card (Knister's
#: grid) while playing, review it afterwards; leaving and ending last. Others follow in the order declared.
PLAYER_ORDER = ("start", "rules", "scorecard", "grid", "review", "leave", "end")


def _description(command: app_commands.Command[Any, ..., Any] | app_commands.Group, locale: discord.Locale) -> str:
    return localized(command.description, getattr(command, "_locale_description", None), locale)


def _in_player_order(group: app_commands.Group) -> list[app_commands.Command[Any, ..., Any] | app_commands.Group]:
    """The group's subcommands in :data:`PLAYER_ORDER`; a cog declares the shared ones first, so ``start`` came last."""
    subs = group.commands
    return sorted(subs, key=lambda sub: PLAYER_ORDER.index(sub.name) if sub.name in PLAYER_ORDER else len(PLAYER_ORDER))


def command_lines(
    tree: app_commands.CommandTree[Any], locale: discord.Locale, games: Collection[str] = ()
) -> list[str]:
    """``/group sub — description`` for every slash command, groups expanded, as ``locale`` shows them.

    A game's group lists its subcommands only: ``games`` are described above the commands. Any other group (the
    server's ``/settings``) says what it is for after them.
    """
    lines = []
    found = tree.get_commands(type=discord.AppCommandType.chat_input)
    for command in sorted(found, key=lambda c: _name(c, locale)):
        if isinstance(command, app_commands.Group):
            subs = ", ".join(f"`{_name(sub, locale)}`" for sub in _in_player_order(command))
            about = "" if command.name in games else f" — {_description(command, locale)}"
            lines.append(f"**/{_name(command, locale)}** {subs}{about}")
        else:
            lines.append(f"**/{_name(command, locale)}** — {_description(command, locale)}")
    return lines


class Help(commands.Cog):
    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=_("help", key="cmd.help.name"),
        description=_("Show the games and their commands", key="cmd.help.description"),
    )
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        embed = discord.Embed(
            title=t("help.title", locale), description=t("help.description", locale), colour=COLOUR_LOBBY
        )
        games = [
            f"**{t(f'game.{kind}', locale)}** — {t(f'help.about.{kind}', locale)}" for kind in self.bot.service.specs
        ]
        if games:
            embed.add_field(name=t("help.games", locale), value="\n".join(games), inline=False)
        lines = command_lines(self.bot.tree, locale, self.bot.service.specs)
        embed.add_field(name=t("help.commands", locale), value="\n".join(lines), inline=False)
        embed.set_footer(text=t("help.footer", locale))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(Help(bot))
