"""Whole games end to end on each storage backend: the same tests as the game files, with ``harness`` on SQLite
and on PostgreSQL (``database_url`` from tests/conftest.py; the PostgreSQL runs skip, naming the variable, when
no server is configured).

The tests are the game files' own, imported here so they run against this module's ``harness``: complete games
of every kind, restarts mid-turn, a deadline after a restart, a double click, the one game per channel, the
leaderboards, /stats and /forget-me (also during a game). And a player whose display name PostgreSQL could not
store as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Harness, world
from tests.e2e.test_dicepoker import test_complete_two_player_game as test_dicepoker_complete_two_player_game
from tests.e2e.test_kniffel import (
    test_complete_two_player_game,
    test_double_click_on_roll_rolls_once,
    test_pending_timeout_fires_after_a_restart,
    test_restart_mid_turn_continues_on_the_same_message,
    test_second_game_in_the_channel_is_refused_with_a_link,
)
from tests.e2e.test_knister import knister, test_two_player_game_through_clicks
from tests.e2e.test_leaderboard import (
    bot,
    test_forget_me_removes_exactly_the_callers_results,
    test_leaderboard_ranks_in_each_scope_and_period,
    test_stats_show_every_game_and_its_counters,
)
from tests.e2e.test_review import test_forget_me_during_a_game_with_another_person_leaves_them_its_review
from tests.e2e.test_tutto import Script, play, test_a_game_to_a_low_target

pytestmark = pytest.mark.timeout(120)

__all__ = [
    "bot",
    "knister",
    "test_a_game_to_a_low_target",
    "test_complete_two_player_game",
    "test_dicepoker_complete_two_player_game",
    "test_double_click_on_roll_rolls_once",
    "test_forget_me_during_a_game_with_another_person_leaves_them_its_review",
    "test_forget_me_removes_exactly_the_callers_results",
    "test_leaderboard_ranks_in_each_scope_and_period",
    "test_pending_timeout_fires_after_a_restart",
    "test_restart_mid_turn_continues_on_the_same_message",
    "test_second_game_in_the_channel_is_refused_with_a_link",
    "test_stats_show_every_game_and_its_counters",
    "test_two_player_game_through_clicks",
]


@pytest.fixture
async def harness(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    async with world(tmp_path, database_url) as harness:
        yield harness


async def test_a_player_whose_name_holds_a_nul_joins_and_plays_to_the_end(harness: Harness) -> None:
    """PostgreSQL's text cannot hold a NUL: the name is stored (and shown) without its control characters."""
    alice, bob = harness.alice, harness.bob
    bob.global_name = "B\x00ob\x1f"
    game = await play(harness, Script(["stop", "bonus_400"], [1, 1, 1, 2, 3, 4]), [alice, bob], target=1000)
    await game.press(alice, "draw")
    await harness.wait_post("🛑 Alice drew Stop — turn over.")
    await game.press(bob, "draw")
    await game.pick(bob, 1, 1, 1)
    await game.press(bob, "stop")
    await harness.wait_post("🏆 Winner: Bob!")
    record = await harness.record()
    assert record is not None and record.status == "finished"
    assert [seat.display_name for seat in record.seats] == ["Alice", "Bob"]
    assert harness.bot is not None
    rows = await harness.bot.results.for_game(record.id)
    assert [(row.display_name, row.score) for row in rows] == [("Bob", 1000), ("Alice", 0)]
