"""fakediscord's sharding: IDENTIFY with ``shard``, each guild's events on its shard's connection only,
``GET /gateway/bot`` recommending a count, and discord.py's ``AutoShardedClient`` connecting against it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from bot.endpoints import configure_endpoints
from fakediscord import FakeDiscord

from .conftest import TOKEN
from .test_protocol import RawClient, connect

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def identify(client: RawClient, shard: Any) -> dict[str, Any]:
    assert (await client.recv())["op"] == 10
    await client.send(2, {"token": TOKEN, "intents": 1, "properties": {}, "shard": shard})
    return await client.recv()


def test_guild_ids_are_picked_on_the_shard_asked_for() -> None:
    server = FakeDiscord(token=TOKEN)
    for count in (1, 2, 3, 16):
        for shard in range(count):
            guild = server.add_guild(f"g{count}-{shard}", shard=(shard, count))
            assert (guild.id >> 22) % count == shard
    ids = list(server.world.guilds)
    assert ids == sorted(ids), "ids stay increasing, like Discord's"


async def test_each_shard_gets_only_its_guilds_and_their_events(http: aiohttp.ClientSession) -> None:
    async with FakeDiscord(token=TOKEN, shard_count=2) as server:
        even = server.add_guild("Even", shard=(0, 2))
        odd = server.add_guild("Odd", shard=(1, 2))
        zero, one = await connect(http, server), await connect(http, server)
        ready_0, ready_1 = await identify(zero, [0, 2]), await identify(one, [1, 2])
        assert ready_0["d"]["shard"] == [0, 2] and ready_1["d"]["shard"] == [1, 2]
        assert ready_0["d"]["guilds"] == [{"id": str(even.id), "unavailable": True}]
        assert ready_1["d"]["guilds"] == [{"id": str(odd.id), "unavailable": True}]
        assert (await zero.recv())["d"]["id"] == str(even.id)
        assert (await one.recv())["d"]["id"] == str(odd.id)
        await server.wait_until_ready(timeout=2, shards=[0, 1])
        # A channel added later, and a new guild, reach only their shard's connection.
        server.add_channel(odd, "later")
        created = await one.recv()
        assert (created["t"], created["d"]["guild_id"]) == ("CHANNEL_CREATE", str(odd.id))
        late = server.add_guild("Late even", shard=(0, 2))
        joined = await zero.recv()
        assert (joined["t"], joined["d"]["id"]) == ("GUILD_CREATE", str(late.id))
        with pytest.raises(asyncio.TimeoutError):
            await one.ws.receive(timeout=0.3)


async def test_direct_messages_go_to_shard_0(http: aiohttp.ClientSession) -> None:
    async with FakeDiscord(token=TOKEN) as server:
        user = server.add_user("Dee")
        one = await connect(http, server)
        await identify(one, [1, 2])
        assert server.gateway.session_for(None) is None
        zero = await connect(http, server)
        await identify(zero, [0, 2])
        session = server.gateway.session_for(server.dm_channel(user).guild_id)
        assert session is not None and session.shard == [0, 2]


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], [0], "0,1", [True, 2]])
async def test_an_invalid_shard_is_closed_with_4010(http: aiohttp.ClientSession, shard: Any) -> None:
    async with FakeDiscord(token=TOKEN) as server:
        client = await connect(http, server)
        assert (await client.recv())["op"] == 10
        await client.send(2, {"token": TOKEN, "intents": 1, "properties": {}, "shard": shard})
        closed = await client.ws.receive(timeout=5)
        assert (closed.type, closed.data, closed.extra) == (aiohttp.WSMsgType.CLOSE, 4010, "Invalid shard.")
        assert server.gateway.errors == [f"IDENTIFY with an invalid shard {shard!r}"]


async def test_gateway_bot_recommends_the_configured_count(http: aiohttp.ClientSession) -> None:
    async with FakeDiscord(token=TOKEN, shard_count=3) as server:
        headers = {"Authorization": f"Bot {TOKEN}"}
        async with http.get(f"{server.api_base}/gateway/bot", headers=headers) as response:
            body = await response.json()
        assert body["shards"] == 3
        assert body["url"] == server.gateway_url
        assert body["session_start_limit"]["max_concurrency"] == 1


class Sharded(discord.AutoShardedClient):
    """discord.py's own sharded client, as dicebot uses it, with no 5 s pause between IDENTIFYs and no 2 s wait for
    late GUILD_CREATEs after each READY (fakediscord sends them all at once; READY already lists every guild)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(guild_ready_timeout=0.0, **options)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return None


@contextlib.asynccontextmanager
async def running(client: discord.AutoShardedClient) -> AsyncIterator[discord.AutoShardedClient]:
    task = asyncio.create_task(client.start(TOKEN))
    try:
        await asyncio.wait_for(client.wait_until_ready(), 15)
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_discord_py_connects_the_recommended_shards_or_the_ones_it_is_given() -> None:
    async with FakeDiscord(token=TOKEN, shard_count=2) as server:
        configure_endpoints(server.api_base, server.gateway_url)
        try:
            even = server.add_guild("Even", shard=(0, 2))
            odd = server.add_guild("Odd", shard=(1, 2))
            intents = discord.Intents.none()
            intents.guilds = True
            async with running(Sharded(intents=intents)) as everything:
                assert everything.shard_count == 2
                assert sorted(everything.shards) == [0, 1]
                assert {g.id for g in everything.guilds} == {even.id, odd.id}
            async with (
                running(Sharded(intents=intents, shard_count=2, shard_ids=[0])) as zero,
                running(Sharded(intents=intents, shard_count=2, shard_ids=[1])) as one,
            ):
                assert [g.id for g in zero.guilds] == [even.id]
                assert [g.id for g in one.guilds] == [odd.id]
                assert server.gateway.connected_shards() == {0, 1}
                late = server.add_guild("Late odd", shard=(1, 2))
                await server.wait_for(lambda: one.get_guild(late.id), 5, "the late guild on shard 1")
                assert zero.get_guild(late.id) is None
        finally:
            configure_endpoints(None, None)
