"""The lobby message every game shares: who hosts, which rules, who joined, Join/Leave/Start/Cancel."""

from __future__ import annotations

import discord

from bot.i18n import has, t
from bot.play.components import custom_id
from bot.play.spec import GameSpec, Rendered, Table
from bot.ui.common import COLOUR_ABANDONED, COLOUR_LOBBY, mention


def render(spec: GameSpec, table: Table) -> Rendered:
    record, locale = table.record, table.locale
    open_lobby = record.status == "lobby"
    title = t("lobby.title", locale, game=t(f"game.{spec.kind}", locale))
    embed = discord.Embed(title=title, colour=COLOUR_LOBBY if open_lobby else COLOUR_ABANDONED)
    embed.add_field(name=t("lobby.host", locale), value=mention(record.host_id), inline=True)
    if len(spec.variants) > 1:
        embed.add_field(name=t("lobby.rules", locale), value=t(f"variant.{record.variant}", locale), inline=True)
    players = "\n".join(f"{index}. {mention(seat.user_id)}" for index, seat in enumerate(record.seats, 1))
    embed.add_field(
        name=t("lobby.players", locale, count=len(record.seats), max=spec.max_players),
        value=players or t("lobby.nobody", locale),
        inline=False,
    )
    settings = [
        t(f"lobby.option.{name}", locale, value=value)
        for name, value in record.options.items()
        if has(f"lobby.option.{name}")
    ]
    if settings:
        embed.add_field(name=t("lobby.settings", locale), value="\n".join(settings), inline=False)
    rendered = Rendered(embeds=[embed])
    if not open_lobby:
        embed.description = t("lobby.closed", locale)
        return rendered
    embed.description = t("lobby.description", locale, min=spec.min_players, max=spec.max_players)
    stamp = record.version
    rendered.layout.button(
        0, t("lobby.join", locale), custom_id(record.id, "join", "", stamp), style=discord.ButtonStyle.primary
    ).button(0, t("lobby.leave", locale), custom_id(record.id, "leave", "", stamp)).button(
        0, t("lobby.start", locale), custom_id(record.id, "start", "", stamp), style=discord.ButtonStyle.success
    ).button(0, t("lobby.cancel", locale), custom_id(record.id, "cancel", "", stamp), style=discord.ButtonStyle.danger)
    return rendered
