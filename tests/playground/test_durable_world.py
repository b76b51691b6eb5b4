"""A running playground without the browser: what the bot was told exists is in the world file by then (a
playground killed right after keeps it), and refusals of what only the bot's commands check stay short."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.http
import pytest
import pytest_asyncio

import bot.playground
from bot.playground import Playground
from fakediscord import Message


@pytest_asyncio.fixture(loop_scope="session")  # the playground's tests share one loop (see conftest.py)
async def playground(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Playground]:
    monkeypatch.setattr(bot.playground, "SAVE_DELAY", 3600.0)  # only a save before the answer can be seen here
    running = Playground(port=0, data_dir=tmp_path)
    await running.start()
    try:
        yield running
    finally:
        await running.stop()


def saved_messages(playground: Playground) -> dict[int, dict[str, Any]]:
    data = json.loads(playground.world_file.read_text(encoding="utf-8"))
    return {message["id"]: message for message in data["messages"]}


async def test_a_message_the_bot_posted_or_edited_is_saved_before_the_bot_is_told(playground: Playground) -> None:
    server = playground.server
    assert server is not None
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    knister = next(c for c in server.world.channels.values() if c.name == "knister")
    handle = await server.slash(alice, knister, "knister start")
    lobby: Message = await handle.message()
    await server.wait_for(lambda: handle.requests and handle.requests[-1].status, what="the answer to the bot")
    assert lobby.id in saved_messages(playground)
    edits = lobby.edits
    bob = next(u for u in server.world.users.values() if u.name == "Bob")
    join = await server.click_button(bob, lobby, label="Join")
    await server.wait_for(lambda: lobby.edits > edits and join.requests[-1].status, what="the board's edit")
    assert saved_messages(playground)[lobby.id]["edits"] == lobby.edits


async def test_a_refusal_of_an_option_repeats_a_long_value_only_in_part(playground: Playground) -> None:
    server = playground.server
    assert server is not None
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    knister = next(c for c in server.world.channels.values() if c.name == "knister")
    body = {"user": str(alice.id), "channel": str(knister.id), "command": "knister start", "options": {}}
    for options in ({"level": "x" * 5000}, {"round_timeout": "9" * 4000}):
        url = f"{playground.url}ui/api/command"
        async with aiohttp.ClientSession() as session, session.post(url, json={**body, "options": options}) as reply:
            assert reply.status == 400
            error = (await reply.json())["error"]
        assert "…" in error
        assert len(error) < 300


async def test_a_write_saved_before_its_answer_leaves_no_second_save_waiting(playground: Playground) -> None:
    """The delayed save a change schedules was scheduled after the save before the answer, and wrote the same world
    again a moment later."""
    server = playground.server
    assert server is not None
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    knister = next(c for c in server.world.channels.values() if c.name == "knister")
    handle = await server.slash(alice, knister, "knister start")
    await handle.message()
    await server.wait_for(lambda: handle.requests and handle.requests[-1].status, what="the answer to the bot")
    assert playground._pending_save is None


async def test_a_save_that_fails_is_logged_and_the_bots_post_made_once(
    playground: Playground, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A failing save (a full disk) answered the bot's post with a 500 after the message was made, and discord.py
    posted it again: five messages for one."""

    def full_disk(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bot.playground, "save_world", full_disk)
    server, dicebot = playground.server, playground.bot
    assert server is not None and dicebot is not None
    knister = next(c for c in server.world.channels.values() if c.name == "knister")
    await dicebot.http.send_message(knister.id, params=discord.http.handle_message_parameters(content="hello"))
    assert [message.content for message in server.world.messages.values() if message.channel is knister] == ["hello"]
    assert "could not save the playground's world" in caplog.text
