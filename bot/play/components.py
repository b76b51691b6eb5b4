"""The one handler behind every game button and select, however old the message it is on.

Component ids are described in ``bot/ui/render.py``; everything a click needs is in its id, so components keep
working after a restart without any view held in memory. Every interaction reaches :func:`dispatch` (the bot's
``on_interaction``), which hands the ones with a game id to the game service. Routed by the id alone: discord.py's
dynamic items, used before, built a ``View`` of every component on the clicked message just to find the one
clicked (about 5 % of the bot's CPU per click under load, docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any, cast

import discord

from bot.play.discord_io import InteractionRequest
from bot.play.service import GameService
from bot.storage import MAX_GAME_ID
from bot.ui.render import CUSTOM_ID, parse_custom_id


async def dispatch(interaction: discord.Interaction[Any], service: GameService) -> None:
    """A click on a game component goes to the service; any other interaction is left to discord.py.

    An id that matches the pattern but cannot be one of ours (too long, a game id past SQLite's range) is refused
    privately instead of reaching the service. As with discord.py's component dispatch, a click must come with
    the message it was on (Discord always sends it).
    """
    if interaction.type is not discord.InteractionType.component or interaction.message is None:
        return
    data = cast("dict[str, Any]", interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    if CUSTOM_ID.fullmatch(custom_id) is None:
        return
    request = InteractionRequest(interaction)
    click = parse_custom_id(custom_id, data.get("values", []))
    if click is None or click.game_id > MAX_GAME_ID:
        await request.refuse("error.illegal_action")
        return
    await service.on_click(request, click)
