"""High roll's message: who rolled what, and a Roll button for the player whose turn it is."""

from __future__ import annotations

import discord

from bot.i18n import t
from bot.ui.render import Rendered, Table, custom_id
from tests.play.highroll.engine import State, is_over, to_act


class HighRollUI:
    def render(self, table: Table[State]) -> Rendered:
        state, locale = table.state, table.locale
        lines = [f"{table.name(p)}: {state.rolls.get(p, '—')}" for p in state.players]
        embed = discord.Embed(title=t("game.highroll", locale), description="\n".join(lines))
        rendered = Rendered(embeds=[embed])
        if not is_over(state):
            rendered.content = t("highroll.turn", locale, player=table.mention(to_act(state)[0]))
            rendered.layout.button(0, t("highroll.roll", locale), custom_id(table.game_id, "roll", "", table.stamp))
        return rendered

    def announce(self, table: Table[State]) -> list[str]:
        return [
            t("highroll.rolled", table.locale, name=table.name(event.params["player"]), face=event.params["face"])
            for event in table.state.events
            if event.key == "highroll.rolled"
        ]


UI = HighRollUI()
