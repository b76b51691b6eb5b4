"""The wire protocol checked with a bare aiohttp client: gateway handshake, compression, resume, REST errors."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import yarl

from fakediscord import FakeDiscord, Guild, InvalidInput
from fakediscord.gateway import HEARTBEAT_ACK_DELAY

from .conftest import TOKEN

pytestmark = pytest.mark.timeout(10)


class RawClient:
    """A minimal gateway client that decodes text frames and zlib-stream binary frames."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.inflate = zlib.decompressobj()
        self.binary_frames: list[bytes] = []

    async def recv(self) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=5)
        if msg.type is aiohttp.WSMsgType.BINARY:
            self.binary_frames.append(msg.data)
            return json.loads(self.inflate.decompress(msg.data))
        assert msg.type is aiohttp.WSMsgType.TEXT, msg
        return json.loads(msg.data)

    async def send(self, op: int, d: Any) -> None:
        await self.ws.send_json({"op": op, "d": d})

    async def identify(self, token: str = TOKEN, intents: int = 1) -> dict[str, Any]:
        await self.send(2, {"token": token, "intents": intents, "properties": {}})
        return await self.recv()


@pytest.fixture
async def world() -> AsyncIterator[tuple[FakeDiscord, Guild]]:
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Raw")
        server.add_channel(guild, "dice")
        yield server, guild


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def connect(http: aiohttp.ClientSession, server: FakeDiscord, query: str = "v=10&encoding=json") -> RawClient:
    return RawClient(await http.ws_connect(f"{server.gateway_url}?{query}"))


async def test_plain_json_handshake_heartbeat_and_ready(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, guild = world
    client = await connect(http, server)
    hello = await client.recv()
    assert hello["op"] == 10
    assert hello["d"]["heartbeat_interval"] == 41250
    await client.send(1, None)
    assert (await client.recv())["op"] == 11
    ready = await client.identify()
    assert (ready["t"], ready["s"]) == ("READY", 1)
    assert ready["d"]["resume_gateway_url"] == server.gateway_url
    assert ready["d"]["application"] == {"id": str(server.application_id), "flags": 0}
    assert ready["d"]["guilds"] == [{"id": str(guild.id), "unavailable": True}]
    guild_create = await client.recv()
    assert (guild_create["t"], guild_create["s"]) == ("GUILD_CREATE", 2)
    assert [c["name"] for c in guild_create["d"]["channels"]] == ["dice"]
    assert {r["name"] for r in guild_create["d"]["roles"]} == {"@everyone", "dicebot"}
    await server.wait_until_ready(timeout=1)


async def test_a_heartbeat_is_acknowledged_after_a_network_round_trip_not_at_once(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
):
    """An ACK in the same instant raced discord.py's keep-alive thread: the event loop read the ACK before the thread
    noted when it sent the heartbeat, so the client logged "Can't keep up, websocket is 41.3s behind" (the whole
    interval) every few minutes in the playground (QA). Discord's ACK comes a round trip later; so does this one."""
    server, _ = world
    client = await connect(http, server)
    assert (await client.recv())["op"] == 10
    loop = asyncio.get_running_loop()
    sent = loop.time()
    await client.send(1, None)
    assert (await client.recv())["op"] == 11
    assert loop.time() - sent >= HEARTBEAT_ACK_DELAY > 0


async def test_a_heartbeats_ack_is_not_sent_once_the_client_has_gone(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
):
    """The ACK waits a round trip; a connection closed meanwhile gets none (it was logged as sent after the close)."""
    server, _ = world
    client = await connect(http, server)
    assert (await client.recv())["op"] == 10
    assert (await client.identify())["t"] == "READY"
    session = server.gateway.current
    assert session is not None
    await client.send(1, None)
    await server.wait_for(lambda: server.gateway.heartbeats or None, what="the heartbeat")
    await client.ws.close()
    await server.wait_for(lambda: session.connection is None, what="the server to see the close")
    # A timer set now fires after the ACK's, which was set when the heartbeat arrived.
    due = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(HEARTBEAT_ACK_DELAY, due.set_result, None)
    await due
    assert [f for f in server.gateway_frames if f.direction == "sent" and f.op == 11] == []


async def test_zlib_stream_frames_end_with_sync_flush(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    client = await connect(http, server, "v=10&encoding=json&compress=zlib-stream")
    assert (await client.recv())["op"] == 10
    assert (await client.identify())["t"] == "READY"
    assert (await client.recv())["t"] == "GUILD_CREATE"
    assert len(client.binary_frames) == 3
    assert all(frame.endswith(b"\x00\x00\xff\xff") for frame in client.binary_frames)


@pytest.mark.skipif(importlib.util.find_spec("zstandard") is not None, reason="zstandard is installed")
async def test_zstd_stream_without_the_module_closes_with_a_reason(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
):
    server, _ = world
    client = await connect(http, server, "v=10&encoding=json&compress=zstd-stream")
    msg = await client.ws.receive(timeout=5)
    assert msg.type is aiohttp.WSMsgType.CLOSE
    assert "zstandard" in msg.extra
    assert server.gateway.errors
    assert "zstandard" in server.gateway.errors[0]


async def test_wrong_token_closes_with_4004(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    client = await connect(http, server)
    await client.recv()
    await client.send(2, {"token": "nope", "intents": 1, "properties": {}})
    msg = await client.ws.receive(timeout=5)
    assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, 4004)


async def test_opcode_before_identify_closes_with_4003(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, guild = world
    client = await connect(http, server)
    await client.recv()
    await client.send(8, {"guild_id": str(guild.id), "query": "", "limit": 0})
    msg = await client.ws.receive(timeout=5)
    assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, 4003)


async def test_resume_replays_what_was_missed(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, guild = world
    first = await connect(http, server)
    await first.recv()
    session_id = (await first.identify())["d"]["session_id"]
    assert (await first.recv())["s"] == 2
    await first.ws.close(code=4000)
    await server.wait_for(lambda: not server.gateway.ready, what="the disconnect")
    server.add_channel(guild, "while-away")  # CHANNEL_CREATE, buffered as seq 3

    second = await connect(http, server)
    await second.recv()
    await second.send(6, {"token": TOKEN, "session_id": session_id, "seq": 2})
    replayed, resumed = await second.recv(), await second.recv()
    assert (replayed["t"], replayed["s"], replayed["d"]["name"]) == ("CHANNEL_CREATE", 3, "while-away")
    assert (resumed["t"], resumed["s"]) == ("RESUMED", 4)


async def test_resume_after_a_normal_close_is_refused(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    first = await connect(http, server)
    await first.recv()
    session_id = (await first.identify())["d"]["session_id"]
    await first.ws.close(code=1000)
    await server.wait_for(lambda: server.gateway.current is None, what="the session to end")
    second = await connect(http, server)
    await second.recv()
    await second.send(6, {"token": TOKEN, "session_id": session_id, "seq": 2})
    assert await second.recv() == {"op": 9, "d": False}


async def test_rest_errors_use_discord_format(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    auth = {"Authorization": f"Bot {TOKEN}"}
    async with http.get(f"{server.api_base}/users/@me", headers={"Authorization": "Bot wrong"}) as r:
        assert (r.status, await r.json()) == (401, {"code": 0, "message": "401: Unauthorized"})
    async with http.get(f"{server.api_base}/guilds/1/audit-logs", headers=auth) as r:
        assert (r.status, (await r.json())["code"]) == (404, 0)
    assert [str(r) for r in server.unhandled_requests] == ["GET /guilds/1/audit-logs -> 404"]
    async with http.get(f"{server.api_base}/gateway/bot", headers=auth) as r:
        assert (await r.json())["url"] == server.gateway_url
    async with http.get(f"{server.api_base}/channels/123", headers=auth) as r:
        assert (r.status, (await r.json())["code"]) == (404, 10003)


async def test_an_ipv6_host_is_in_brackets_in_every_url(http: aiohttp.ClientSession) -> None:
    """``http://::1:PORT`` made discord.py's gateway URL fail with "port can't be converted to integer" (QA)."""
    async with FakeDiscord(token=TOKEN, host="::1") as server:
        port = yarl.URL(server.api_base).port
        assert (server.url, server.api_base, server.gateway_url) == (
            f"http://[::1]:{port}/",
            f"http://[::1]:{port}/api/v10",
            f"ws://[::1]:{port}/gateway",
        )
        assert yarl.URL(server.gateway_url).port == port
        async with http.get(f"{server.api_base}/gateway/bot", headers={"Authorization": f"Bot {TOKEN}"}) as r:
            assert (await r.json())["url"] == server.gateway_url


async def test_injected_server_error_then_recovery(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    fault = server.inject_rest_error("GET", r"^/users/@me$", 502, times=2)
    auth = {"Authorization": f"Bot {TOKEN}"}
    statuses = []
    for _ in range(3):
        async with http.get(f"{server.api_base}/users/@me", headers=auth) as r:
            statuses.append(r.status)
    assert statuses == [502, 502, 200]
    assert (fault.hits, fault.remaining) == (2, 0)


async def test_global_rate_limit_headers(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    server.inject_rest_error("*", r"^/users/@me$", 429, retry_after=2.5, global_=True)
    async with http.get(f"{server.api_base}/users/@me", headers={"Authorization": f"Bot {TOKEN}"}) as r:
        body = await r.json()
        assert r.status == 429
        assert body["retry_after"] == 2.5
        assert body["global"] is True
        assert r.headers["X-RateLimit-Global"] == "true"
        assert r.headers["Via"]
        assert r.headers["X-RateLimit-Reset-After"] == "2.500"


@pytest.mark.parametrize(
    ("after_identify", "code"),
    [
        (json.dumps({"op": 2, "d": {"token": TOKEN, "intents": 1}}), 4005),
        ('{"op": 42, "d": null}', 4001),
        ("not json", 4002),
    ],
)
async def test_protocol_violations_close_the_socket(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession, after_identify: str, code: int
) -> None:
    server, _ = world
    client = await connect(http, server)
    await client.recv()
    await client.identify()
    await client.recv()  # GUILD_CREATE
    await client.ws.send_str(after_identify)
    msg = await client.ws.receive(timeout=5)
    assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, code)


async def test_privileged_intents_must_be_allowed(http: aiohttp.ClientSession) -> None:
    async with FakeDiscord(token=TOKEN, allowed_intents=0) as server:
        client = await connect(http, server)
        await client.recv()
        await client.send(2, {"token": TOKEN, "intents": 1 << 15, "properties": {}})
        msg = await client.ws.receive(timeout=5)
        assert (msg.type, msg.data) == (aiohttp.WSMsgType.CLOSE, 4014)


async def test_member_chunks_and_message_content_intent(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
) -> None:
    server, guild = world
    alice = server.add_user("Alice")
    client = await connect(http, server)
    await client.recv()
    await client.identify(intents=1 | 1 << 9)  # GUILDS | GUILD_MESSAGES, no MESSAGE_CONTENT
    guild_create = await client.recv()
    assert [m["user"]["id"] for m in guild_create["d"]["members"]] == [str(server.bot.id)]
    assert guild_create["d"]["member_count"] == 2
    await client.send(8, {"guild_id": str(guild.id), "query": "", "limit": 0, "nonce": "n1"})
    chunk = await client.recv()
    assert chunk["t"] == "GUILD_MEMBERS_CHUNK"
    assert chunk["d"]["nonce"] == "n1"
    assert {m["user"]["id"] for m in chunk["d"]["members"]} == {str(server.bot.id), str(alice.id)}
    await server.post_message(alice, guild.channels[0], "hello bot")
    created = await client.recv()
    assert created["t"] == "MESSAGE_CREATE"
    assert created["d"]["content"] == ""
    assert created["d"]["author"]["id"] == str(alice.id)


async def test_deleted_messages_and_channels_reach_the_gateway(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
) -> None:
    server, guild = world
    channel = guild.channels[0]
    alice, moderator = server.add_user("Alice"), server.add_user("Mod", permissions=1 << 13)
    client = await connect(http, server)
    await client.recv()
    await client.identify(intents=1 | 1 << 9)  # GUILDS | GUILD_MESSAGES
    await client.recv()  # GUILD_CREATE
    posted = [await server.post_message(alice, channel, text) for text in ("one", "two", "three")]
    assert [(await client.recv())["t"] for _ in posted] == ["MESSAGE_CREATE"] * 3
    with pytest.raises(InvalidInput):
        server.delete_message(server.add_user("Bob"), posted[0])  # neither the author nor a moderator
    server.delete_message(moderator, posted[0])
    deleted = await client.recv()
    assert (deleted["t"], deleted["d"]["id"], deleted["d"]["channel_id"]) == (
        "MESSAGE_DELETE",
        str(posted[0].id),
        str(channel.id),
    )
    server.bulk_delete(moderator, posted[1:])
    bulk = await client.recv()
    assert (bulk["t"], bulk["d"]["ids"]) == ("MESSAGE_DELETE_BULK", [str(m.id) for m in posted[1:]])
    server.delete_channel(channel)
    gone = await client.recv()
    assert (gone["t"], gone["d"]["id"]) == ("CHANNEL_DELETE", str(channel.id))
    auth = {"Authorization": f"Bot {TOKEN}"}
    async with http.get(f"{server.api_base}/channels/{channel.id}/messages", headers=auth) as r:
        assert (r.status, (await r.json())["code"]) == (404, 10003)


async def test_threads_and_a_kick_reach_the_gateway(
    world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession
) -> None:
    server, guild = world
    channel = guild.channels[0]
    kept, doomed = server.add_thread(channel, "kept"), server.add_thread(channel, "doomed")
    client = await connect(http, server)
    await client.recv()
    await client.identify(intents=1)  # GUILDS
    created = await client.recv()
    threads = created["d"]["threads"]
    assert [(t["id"], t["parent_id"], t["type"]) for t in threads] == [
        (str(kept.id), str(channel.id), 11),
        (str(doomed.id), str(channel.id), 11),
    ]
    server.delete_thread(doomed)
    gone = await client.recv()
    assert (gone["t"], gone["d"]) == (
        "THREAD_DELETE",
        {"id": str(doomed.id), "guild_id": str(guild.id), "parent_id": str(channel.id), "type": 11},
    )
    auth = {"Authorization": f"Bot {TOKEN}"}
    async with http.get(f"{server.api_base}/channels/{doomed.id}/messages", headers=auth) as r:
        assert (r.status, (await r.json())["code"]) == (404, 10003)
    server.guild_outage(guild)
    outage = await client.recv()
    assert (outage["t"], outage["d"]) == ("GUILD_DELETE", {"id": str(guild.id), "unavailable": True})
    async with http.get(f"{server.api_base}/channels/{kept.id}/messages", headers=auth) as r:
        assert r.status == 200
    server.remove_bot(guild)
    kicked = await client.recv()
    assert (kicked["t"], kicked["d"]) == ("GUILD_DELETE", {"id": str(guild.id)})
    for place in (channel, kept):
        async with http.get(f"{server.api_base}/channels/{place.id}/messages", headers=auth) as r:
            assert (r.status, (await r.json())["code"]) == (403, 50001)


async def test_an_injected_refusal_carries_discords_code(world: tuple[FakeDiscord, Guild], http: aiohttp.ClientSession):
    server, _ = world
    with pytest.raises(ValueError, match="error code"):
        server.inject_rest_error("GET", r"^/users/@me$", 400)  # a 4xx needs Discord's code
    server.inject_rest_error("GET", r"^/users/@me$", 400, code=50035)
    async with http.get(f"{server.api_base}/users/@me", headers={"Authorization": f"Bot {TOKEN}"}) as r:
        assert (r.status, await r.json()) == (400, {"code": 50035, "message": "Invalid Form Body"})
