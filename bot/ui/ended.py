"""The board of a game that ended early: it reads as over, whatever point the game had reached.

Every game's renderer shows an abandoned game (``Table.ended``) through :func:`ended_embed`: the game's name and
"ended" as the title, one line saying it does not count, and the grey of a closed lobby. What stood when play
stopped (the scores) the game adds as fields; the plumbing shows who ended it (or that everybody left) on top.
"""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.ui.common import COLOUR_ABANDONED
from bot.ui.render import Table


def ended_embed(table: Table, kind: str) -> discord.Embed:
    """The embed of an abandoned game, without a turn prompt or a mention: nobody is to act any more."""
    locale = table.locale
    return discord.Embed(
        title=t("play.ended_title", locale, game=t(f"game.{kind}", locale)),
        description=t("play.ended_note", locale),
        colour=COLOUR_ABANDONED,
    )
