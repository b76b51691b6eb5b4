"""Moving a running installation from SQLite to PostgreSQL with ``migrate-db``: after the copy the bot, now on
PostgreSQL, continues the game in progress on the same message and fires its pending deadline."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.copy import migrate
from tests.e2e.conftest import world
from tests.e2e.dice import best_option
from tests.postgres import fresh_schema, server_url

pytestmark = pytest.mark.timeout(120)


async def test_a_game_in_progress_continues_on_postgresql_after_migrate_db(tmp_path: Path) -> None:
    async with fresh_schema(server_url()) as url, world(tmp_path) as h:
        await h.start_bot()
        message = await h.start_game("kniffel", [h.alice, h.bob], turn_timeout=1)
        first = (await h.state()).current_player
        await h.click(h.user(first), message, "Roll")
        before, record = await h.state(), await h.record()
        await h.stop_bot()

        copied = await migrate(f"sqlite:///{h.database}", url)
        assert (copied.counts["games"], copied.counts["game_seats"]) == (1, 2)

        h.database_url = url
        await h.start_bot()
        assert await h.record() == record
        assert await h.state() == before
        await h.click(h.user(first), message, "Roll (2/3)")
        assert (await h.state()).rolls == 2
        pick = await h.server.select(h.user(first), message, message.select().custom_id, [best_option(message)])
        await pick.response()
        second = (await h.state()).current_player
        assert second != first
        # The second player's turn timeout is a stored deadline: it fires on PostgreSQL as it did on SQLite.
        await h.advance(61)
        await h.wait_post("ran out of time")
        assert (await h.state()).turns[second] == 1
