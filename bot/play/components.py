"""The one handler behind every game button and select, however old the message it is on.

Component ids are described in ``bot/ui/render.py``. One :class:`discord.ui.DynamicItem` matches them all, so
components keep working after a restart without any view held in memory.
"""

from __future__ import annotations

import re
from typing import Any, cast

import discord

from bot.play.discord_io import InteractionRequest
from bot.ui.render import CUSTOM_ID, Click, parse_custom_id


class GameComponent(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID.pattern):
    """Hands every game click to the bot's game service (``interaction.client.service``).

    An id that matches the pattern but cannot be one of ours (too long, a game id past SQLite's range) is
    refused privately instead of reaching the service.
    """

    def __init__(self, click: Click | None, raw: str) -> None:
        super().__init__(discord.ui.Button(custom_id=raw[:100]))
        self.click = click

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GameComponent:
        data = cast("dict[str, Any]", interaction.data or {})
        values: list[str] = data.get("values", [])
        click = parse_custom_id(match.string, values)
        if click is not None and click.game_id >= 2**63:
            click = None
        return cls(click, match.string)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        request = InteractionRequest(interaction)
        if self.click is None:
            await request.refuse("error.illegal_action")
            return
        await interaction.client.service.on_click(request, self.click)
