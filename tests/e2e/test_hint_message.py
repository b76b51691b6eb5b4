"""A player's hint is one private message: later presses of Hint edit it in place instead of adding another.

At phone width every private message pushes the board's controls up; a review and two hints used to push Roll
and Score a full screen away. The hint follows nothing by itself (it answers a press), but each press updates
the message the last one showed while its interaction token lives and the board has not moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakediscord.interactions import DEFERRED_UPDATE_MESSAGE
from tests.e2e.conftest import Harness

pytestmark = pytest.mark.timeout(180)

HINT = "💡 Hint"


@pytest.fixture
async def bot(harness: Harness, shared_tables: Path) -> Harness:
    harness.strategy_dir = shared_tables
    await harness.start_bot()
    return harness


async def test_hint_presses_in_a_turn_and_after_a_roll_edit_one_message(bot: Harness) -> None:
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")  # alone: hints are on by default
    await h.tables_ready(str(h.alice.id))
    first = await h.server.click_button(h.alice, message, label=HINT)
    hint = await first.message()
    assert hint.ephemeral
    before_roll = hint.text

    again = await h.server.click_button(h.alice, message, label=HINT)
    assert await again.response() == DEFERRED_UPDATE_MESSAGE  # answered silently: nothing new under the board
    assert not again.ephemeral_messages

    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")
    after_roll = await h.server.click_button(h.alice, message, label=HINT)
    assert await after_roll.response() == DEFERRED_UPDATE_MESSAGE
    assert not after_roll.ephemeral_messages
    await h.server.wait_for(lambda: hint.text != before_roll, what="the hint to show the rolled dice")
    assert "**score Kniffel**" in hint.text and not hint.deleted
    assert first.ephemeral_messages == [hint]
