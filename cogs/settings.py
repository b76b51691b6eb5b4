"""``/settings language``: the language of a server's public game messages (Manage Server only).

By default a game speaks the server's preferred locale (set by the server's owner in Discord); a server whose
players read another language picks it here. Games already running keep the language they started with.
Discord itself keeps the command to members with Manage Server (``default_permissions``; server admins may grant
it to other roles in their integration settings) and to servers (``guild_only``), and offers only our choices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import catalogue, language_of, languages, t

if TYPE_CHECKING:
    from bot.app import DiceBot

#: The choice that removes the server's setting, so games follow the server's preferred locale again.
AUTO = "auto"


def language_name(language: str) -> str:
    """A shipped language by its own name (``Deutsch``, ``Magyar``), as people look for it in a list."""
    return str(catalogue(language)["language.name"])


def spoken_name(language: str, locale: str | discord.Locale) -> str:
    """A shipped language as a sentence in ``locale`` names it: "polski" in Polish, "magyar" in Hungarian, "Polnisch"
    in German. An answer that put the list's own name into a sentence read "w języku Polski" and "szerveren Magyar"."""
    return t(f"language.names.{language}", locale)


def language_choices() -> list[app_commands.Choice[str]]:
    """Server default first, then every shipped language under its own name (never translated)."""
    auto = app_commands.Choice(name=_("Server default", key="settings.auto"), value=AUTO)
    return [auto, *(app_commands.Choice(name=language_name(code), value=code) for code in languages())]


class Settings(commands.Cog):
    """Server settings; only members who may manage the server change them."""

    settings = app_commands.Group(
        name=_("settings", key="cmd.settings.name"),
        description=_("Server settings for dicebot (Manage Server)", key="cmd.settings.description"),
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @settings.command(
        name=_("language", key="cmd.settings.language.name"),
        description=_("The language of this server's game messages", key="cmd.settings.language.description"),
    )
    @app_commands.describe(
        language=_("Leave empty to see the current choice", key="cmd.settings.language.language"),
    )
    @app_commands.rename(language=_("language", key="cmd.option.language"))
    @app_commands.choices(language=language_choices())
    async def language(self, interaction: discord.Interaction[Any], language: str | None = None) -> None:
        locale, guild_id = interaction.locale, interaction.guild_id
        assert guild_id is not None, "guild_only: Discord never sends this command outside a server"
        repository = self.bot.guild_settings
        if language is None:
            chosen = await repository.language(guild_id)
            text = (
                t("settings.current", locale, language=spoken_name(chosen, locale))
                if chosen in languages()
                else t("settings.current_auto", locale, language=self._server_language(interaction))
            )
        elif language != AUTO and language not in languages():
            # A forged value was stored, and every new game of the server then spoke a language nobody ships (QA).
            allowed = " / ".join([*(spoken_name(code, locale) for code in languages()), t("settings.auto", locale)])
            text = t("error.bad_option", locale, name=t("cmd.option.language", locale), allowed=allowed)
        elif language == AUTO:
            await repository.set_language(guild_id, None)
            text = t("settings.set_auto", locale, language=self._server_language(interaction))
        else:
            await repository.set_language(guild_id, language)
            text = t("settings.set", locale, language=spoken_name(language, locale))
        await interaction.response.send_message(text, ephemeral=True)

    @staticmethod
    def _server_language(interaction: discord.Interaction[Any]) -> str:
        return spoken_name(language_of(interaction.guild_locale), interaction.locale)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(Settings(bot))
