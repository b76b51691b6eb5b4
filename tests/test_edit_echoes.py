"""MESSAGE_UPDATE, the echo of every edit the bot makes, is parsed only when something in the bot reads edits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import discord
import discord.state
import pytest

from bot.app import DiceBot, create_bot
from bot.settings import Settings

GUILD, CHANNEL, MESSAGE, BOT = 10**17 + 1, 10**17 + 2, 10**17 + 3, 10**17 + 4


def echo() -> dict[str, Any]:
    """A board's edit as the gateway reports it: the whole message, embeds and components included."""
    return {
        "id": str(MESSAGE),
        "channel_id": str(CHANNEL),
        "guild_id": str(GUILD),
        "author": {"id": str(BOT), "username": "dicebot", "discriminator": "0", "avatar": None, "bot": True},
        "content": "<@1>, your turn",
        "timestamp": "2026-11-25T12:00:00+00:00",
        "edited_timestamp": "2026-11-25T12:00:01+00:00",
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [{"type": "rich", "title": "Kniffel", "description": "# ⚀ ⚁ ⚂ ⚃ ⚄"}],
        "pinned": False,
        "type": 0,
        "flags": 0,
        "components": [
            {"type": 1, "components": [{"type": 2, "style": 2, "label": "Roll", "custom_id": "g:1:roll::3"}]}
        ],
    }


@pytest.fixture
async def bot() -> AsyncIterator[DiceBot]:
    """A bot that never connects: its gateway parsers are fed by hand."""
    async with create_bot(
        Settings(discord_token="token", database_url="sqlite:///unused.sqlite3", _env_file=None)
    ) as bot:
        yield bot


@pytest.fixture
def no_message_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(**kwargs: Any) -> None:
        raise AssertionError("a Message was built from the echo")

    monkeypatch.setattr(discord.state, "Message", refuse)


async def test_an_echo_nobody_reads_is_not_parsed(bot: DiceBot, no_message_built: None) -> None:
    bot._connection.parsers["MESSAGE_UPDATE"](echo())


async def test_an_edit_listener_gets_the_edit_as_discord_py_gives_it(bot: DiceBot) -> None:
    edited: asyncio.Future[discord.RawMessageUpdateEvent] = asyncio.get_running_loop().create_future()

    async def on_raw_message_edit(event: discord.RawMessageUpdateEvent) -> None:
        edited.set_result(event)

    bot.add_listener(on_raw_message_edit)
    bot._connection.parsers["MESSAGE_UPDATE"](echo())
    event = await asyncio.wait_for(edited, 10)
    assert event.message_id == MESSAGE
    assert event.message.embeds[0].title == "Kniffel"


async def test_wait_for_an_edit_still_sees_it(bot: DiceBot) -> None:
    waiting = asyncio.create_task(bot.wait_for("raw_message_edit"))
    await asyncio.sleep(0)  # the waiter registers when the task first runs
    bot._connection.parsers["MESSAGE_UPDATE"](echo())
    event = await asyncio.wait_for(waiting, 10)
    assert event.message_id == MESSAGE


async def test_a_view_tracked_for_the_message_is_still_updated(bot: DiceBot) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Roll", custom_id="g:1:roll::3"))
    bot._connection.store_view(view, MESSAGE)
    update = bot._connection._view_store.update_from_message
    seen: list[int] = []

    def noted(message_id: int, components: Any) -> None:
        seen.append(message_id)
        update(message_id, components)

    bot._connection._view_store.update_from_message = noted  # type: ignore[method-assign]
    bot._connection.parsers["MESSAGE_UPDATE"](echo())
    assert seen == [MESSAGE]
