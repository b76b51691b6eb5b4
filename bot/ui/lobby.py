"""The lobby message every game shares: who hosts, which rules, who joined, Join/Leave/Start/Cancel, and the
host's controls to add and remove computer players."""

from __future__ import annotations

import discord

from bot.i18n import has, t
from bot.ui.common import COLOUR_ABANDONED, COLOUR_LOBBY
from bot.ui.render import Lobby, Rendered, custom_id


def render(lobby: Lobby) -> Rendered:
    locale = lobby.locale
    title = t("lobby.title", locale, game=t(f"game.{lobby.kind}", locale))
    embed = discord.Embed(title=title, colour=COLOUR_LOBBY if lobby.open else COLOUR_ABANDONED)
    embed.add_field(name=t("lobby.host", locale), value=lobby.mention(lobby.host), inline=True)
    if lobby.show_variant:
        embed.add_field(name=t("lobby.rules", locale), value=t(f"variant.{lobby.variant}", locale), inline=True)
    players = "\n".join(f"{index}. {seat.mention}" for index, seat in enumerate(lobby.seats, 1))
    embed.add_field(
        name=t("lobby.players", locale, count=len(lobby.seats), max=lobby.max_players),
        value=players or t("lobby.nobody", locale),
        inline=False,
    )
    settings = [
        t(f"lobby.option.{name}", locale, value=value)
        for name, value in lobby.options.items()
        if has(f"lobby.option.{name}")
    ]
    if settings:
        embed.add_field(name=t("lobby.settings", locale), value="\n".join(settings), inline=False)
    rendered = Rendered(embeds=[embed])
    if lobby.invited and lobby.open:
        players = " ".join(lobby.mention(player) for player in lobby.invited)
        rendered.content = t("lobby.rematch_invite", locale, players=players)
    if not lobby.open:
        embed.description = t("lobby.closed", locale)
        return rendered
    embed.description = t("lobby.description", locale, min=lobby.min_players, max=lobby.max_players)
    if not lobby.hints and not lobby.hints_chosen:
        embed.description += "\n" + t("lobby.hints_off_people", locale)
    game, stamp = lobby.game_id, lobby.stamp
    rendered.layout.button(
        0, t("lobby.join", locale), custom_id(game, "join", "", stamp), style=discord.ButtonStyle.primary
    ).button(0, t("lobby.leave", locale), custom_id(game, "leave", "", stamp)).button(
        0, t("lobby.start", locale), custom_id(game, "start", "", stamp), style=discord.ButtonStyle.success
    ).button(0, t("lobby.cancel", locale), custom_id(game, "cancel", "", stamp), style=discord.ButtonStyle.danger)
    if lobby.computer_levels and len(lobby.seats) < lobby.max_players:
        levels = [(t(f"computer.level.{level}", locale), level, None) for level in lobby.computer_levels]
        rendered.layout.select(1, t("lobby.add_computer", locale), custom_id(game, "add_computer", "", stamp), levels)
    rendered.layout.button(
        2, t("lobby.hints_on" if lobby.hints else "lobby.hints_off", locale), custom_id(game, "hints", "", stamp)
    )
    if any(seat.kind == "computer" for seat in lobby.seats):
        rendered.layout.button(2, t("lobby.remove_computer", locale), custom_id(game, "remove_computer", "", stamp))
    return rendered
