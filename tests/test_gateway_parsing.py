"""What discord.py parses of the gateway's events per click: only what some part of the bot reads.

MESSAGE_UPDATE, the echo of every edit the bot makes, is parsed only when something reads edits; a game click's
INTERACTION_CREATE is parsed with only what the service reads of its message.
"""

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
        # As after READY: the bot knows who it is.
        bot._connection.user = discord.ClientUser(state=bot._connection, data=echo()["author"])
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


def click(custom_id: str) -> dict[str, Any]:
    """A click on a board as the gateway delivers it: the interaction with the whole clicked message."""
    message = echo()
    message["interaction_metadata"] = {
        "id": "99",
        "type": 2,
        "user": {"id": "1", "username": "alice", "discriminator": "0", "avatar": None},
    }
    message["flags"] = 64
    message["mentions"] = [{"id": "1", "username": "alice", "discriminator": "0", "avatar": None}]
    return {
        "id": "42",
        "application_id": str(BOT),
        "type": 3,
        "token": "token",
        "version": 1,
        "guild_id": str(GUILD),
        "channel_id": str(CHANNEL),
        "locale": "en-US",
        "guild_locale": "de",
        "member": {
            "user": {"id": "1", "username": "alice", "discriminator": "0", "avatar": None},
            "roles": [],
            "joined_at": "2026-11-25T12:00:00+00:00",
            "permissions": "8192",
            "flags": 0,
            "deaf": False,
            "mute": False,
        },
        "app_permissions": "0",
        "attachment_size_limit": 8388608,
        "entitlements": [],
        "authorizing_integration_owners": {},
        "data": {"custom_id": custom_id, "component_type": 2},
        "message": message,
    }


async def clicked(bot: DiceBot, payload: dict[str, Any]) -> discord.Interaction[Any]:
    interactions: asyncio.Future[discord.Interaction[Any]] = asyncio.get_running_loop().create_future()

    async def on_interaction(interaction: discord.Interaction[Any]) -> None:
        interactions.set_result(interaction)

    bot.add_listener(on_interaction)
    bot._connection.parsers["INTERACTION_CREATE"](payload)
    return await asyncio.wait_for(interactions, 10)


async def test_a_game_click_keeps_what_the_service_reads_of_its_message(bot: DiceBot) -> None:
    payload = click("g:7:roll::3")
    interaction = await clicked(bot, payload)
    message = interaction.message
    assert message is not None
    assert (message.id, message.author.id, message.flags.ephemeral) == (MESSAGE, BOT, True)
    assert message.interaction_metadata is not None and message.interaction_metadata.user.id == 1
    assert (interaction.guild_locale, interaction.permissions.manage_messages) == (discord.Locale.german, True)
    assert message.content == ""
    assert message.embeds == message.components == message.mentions == message.role_mentions == []
    assert payload["message"]["embeds"] and payload["message"]["components"]  # the gateway's payload is untouched


async def test_any_other_click_gets_its_whole_message(bot: DiceBot) -> None:
    interaction = await clicked(bot, click("lb:kniffel:wins:all:server:2:1"))
    assert interaction.message is not None
    assert interaction.message.embeds[0].title == "Kniffel"
    assert interaction.message.components
    assert [user.id for user in interaction.message.mentions] == [1]
