"""PostgreSQL going away under a running bot: a click during the outage is answered "try again" and changes
nothing; once the server is back (or after an administrator ended every connection) the game goes on."""

from __future__ import annotations

import uuid
from pathlib import Path

import asyncpg
import pytest

from tests.e2e.conftest import world
from tests.postgres import fresh_schema, server_url
from tests.tcp_proxy import Relay

pytestmark = pytest.mark.timeout(120)

TRY_AGAIN = "Please try again"


async def test_a_click_during_an_outage_changes_nothing_and_the_game_continues_after_it(tmp_path: Path) -> None:
    async with fresh_schema(server_url()) as url, Relay.to(url) as relay, world(tmp_path, relay.url(url)) as h:
        await h.start_bot()
        message = await h.start_game("kniffel", [h.alice])
        before = await h.record()

        await relay.down()  # the server restarts: every connection is gone, new ones are refused
        handle = await h.click(h.alice, message, "Roll")
        assert TRY_AGAIN in (await handle.message()).text
        handle = await h.click(h.alice, message, "Roll")  # and again, still down
        assert TRY_AGAIN in (await handle.message()).text

        relay.up()
        assert await h.record() == before
        await h.click(h.alice, message, "Roll")
        assert (await h.state()).rolls == 1


async def test_connections_ended_by_the_server_are_replaced_without_a_failed_click(tmp_path: Path) -> None:
    base = server_url()
    name = f"dicebot-{uuid.uuid4().hex[:8]}"
    async with fresh_schema(base) as url, world(tmp_path, f"{url}&application_name={name}") as h:
        await h.start_bot()
        message = await h.start_game("kniffel", [h.alice])
        await h.click(h.alice, message, "Roll")

        admin = await asyncpg.connect(base)
        try:
            # The bot's sessions first, then only those: the server is shared with other tests and their sessions.
            found = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE application_name = $1", name)
            pids = [row[0] for row in found]
            assert pids, "the bot holds at least one connection"
            await admin.execute("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", pids)
            # pg_terminate_backend only signals: wait until the server has really ended those sessions (the bot may
            # meanwhile open new ones, under the same name: those are not waited for).
            while await admin.fetchval("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = ANY($1::int[])", pids):
                await admin.execute("SELECT pg_stat_clear_snapshot()")
        finally:
            await admin.close()

        handle = await h.click(h.alice, message, "Roll (2/3)")
        assert handle.ephemeral_messages == []  # no "try again": the message was edited in place
        assert (await h.state()).rolls == 2
