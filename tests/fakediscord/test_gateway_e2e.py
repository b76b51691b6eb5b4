"""Gateway disturbances with the real client: RECONNECT, INVALID_SESSION and dropped sockets."""

from __future__ import annotations

import asyncio

import pytest

from .conftest import Scene, StubBot

pytestmark = pytest.mark.timeout(20)


def received_ops(scene: Scene) -> list[int]:
    return [f.op for f in scene.server.gateway_frames if f.direction == "received" and f.op != 1]


async def test_reconnect_resumes_and_replays_missed_events(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    session = server.gateway.current
    reconnecting = asyncio.create_task(server.reconnect_gateway())
    await asyncio.sleep(0)  # op 7 is queued; the interaction below follows it on the dying socket
    reply = await server.slash(scene.alice, scene.channel, "game score")
    await reconnecting
    assert (await reply.message()).content == "score sheet"  # replayed after RESUME
    assert server.gateway.current is session
    assert session is not None
    assert session.resumes == 1
    assert received_ops(scene) == [2, 6]  # IDENTIFY once, then RESUME
    assert "RESUMED" in [f.t for f in server.gateway_frames]
    assert server.gateway.identifies == 1
    later = await server.slash(scene.bob, scene.channel, "game score")
    assert (await later.message()).content == "score sheet"


async def test_invalid_session_makes_the_bot_identify_again(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    first = server.gateway.current
    await server.invalidate_session(resumable=False)
    assert server.gateway.identifies == 2
    assert server.gateway.current is not first
    assert received_ops(scene) == [2, 2]
    reply = await server.slash(scene.alice, scene.channel, "game score")
    assert (await reply.message()).content == "score sheet"


async def test_resumable_invalid_session_resumes(scene: Scene, bot: StubBot) -> None:
    await scene.server.invalidate_session(resumable=True)
    assert scene.server.gateway.identifies == 1
    assert received_ops(scene) == [2, 6]


async def test_dropped_socket_is_resumed(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    await server.drop_gateway(code=4000)
    reply = await server.slash(scene.alice, scene.channel, "game start", rules="classic")
    assert (await reply.message()).content == "new game (classic)"
    assert server.gateway.identifies == 1


async def test_guild_added_while_connected_reaches_the_bot(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    guild = server.add_guild("Later")
    channel = server.add_channel(guild, "late-dice")
    cached = await server.wait_for(lambda: bot.get_channel(channel.id), what="the new channel in the bot's cache")
    assert cached.guild.id == guild.id
    reply = await server.slash(scene.alice, channel, "game score")
    assert (await reply.message()).channel is channel
