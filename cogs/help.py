"""``/help``: the games and every command, built from the synced command tree so it never goes stale."""

from __future__ import annotations

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


def command_lines(tree: app_commands.CommandTree[Any], locale: discord.Locale) -> list[str]:
    """``/group sub — description`` for every slash command, groups expanded, as ``locale`` shows them."""
    lines = []
    found = tree.get_commands(type=discord.AppCommandType.chat_input)
    for command in sorted(found, key=lambda c: _name(c, locale)):
        if isinstance(command, app_commands.Group):
            subs = ", ".join(f"`{_name(sub, locale)}`" for sub in command.commands)
            lines.append(f"**/{_name(command, locale)}** {subs}")
        else:
            description = localized(command.description, getattr(command, "_locale_description", None), locale)
            lines.append(f"**/{_name(command, locale)}** — {description}")
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
        lines = command_lines(self.bot.tree, locale)
        embed.add_field(name=t("help.commands", locale), value="\n".join(lines), inline=False)
        embed.set_footer(text=t("help.footer", locale))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(Help(bot))
