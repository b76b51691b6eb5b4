"""Defect 2: a move saved but not shown (callback refused, interaction expired, process killed) reaches the channel."""

from __future__ import annotations

import logging

import pytest

from bot.engine import knister
from fakediscord import Message
from tests.e2e.dice import best_option
from tests.reliability.conftest import Harness, lobby

pytestmark = pytest.mark.timeout(120)

EDIT_MESSAGE = r"^/channels/\d+/messages/\d+$"


def shows_version(message: Message, version: int) -> bool:
    """Every version-stamped button on the message carries ``version`` (hold buttons carry their roll instead)."""
    stamped = [b.custom_id for b in message.buttons if b.custom_id and ":hold:" not in b.custom_id]
    return bool(stamped) and all(custom_id.endswith(f":{version}") for custom_id in stamped)


@pytest.mark.parametrize("fault", ["503", "429"])
async def test_a_score_whose_answer_fails_is_shown_and_announced(
    running: Harness, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    # discord.py retries the callback after the 503 (1 s) or the rate limit (0.4 s): by then the interaction expired.
    h.server.interaction_timeout = 0.3
    if fault == "503":
        h.server.inject_rest_error("POST", r"/callback$", 503)
    else:
        h.server.inject_rest_error("POST", r"/callback$", 429, retry_after=0.4)
    caplog.set_level(logging.WARNING)
    handle = await h.server.select(h.alice, message, message.select().custom_id, [best_option(message)])
    await handle.wait_failed()
    await h.wait_post(f"{h.alice.name}: ")
    record = await h.record()
    assert record is not None and (await h.state()).turns[str(h.alice.id)] == 1
    await h.server.wait_for(lambda: shows_version(message, record.version), what="the game message to be edited")
    assert [r for r in caplog.records if r.exc_info] == []
    assert len([r for r in caplog.records if "saved but not answered" in r.getMessage()]) == 1


def fail_next_answer(h: Harness) -> None:
    """The next interaction callback fails and discord.py's retry (after 1 s) finds the interaction expired."""
    h.server.interaction_timeout = 0.3
    h.server.inject_rest_error("POST", r"/callback$", 503)


@pytest.mark.parametrize("kind", ["kniffel", "dicepoker", "tutto", "knister"])
async def test_a_restart_shows_what_a_kill_between_save_and_edit_left_behind(running: Harness, kind: str) -> None:
    """The effect of a kill after the save: the database is ahead of the message. A restart repairs it.

    In Knister the round message kept "placed" with Roll disabled while the database waited for the next roll.
    """
    h = running
    message = await h.start_game(kind, [h.alice])
    record = await h.record()
    assert record is not None
    if kind == "knister":
        await h.click(h.alice, message, "Roll")
        grid_handle = await h.server.click_button(h.alice, message, prefix=f"g:{record.id}:grid:")
        grid = await grid_handle.message()
        state = await h.state()
        assert state.number is not None
        cell = knister.best_cell(state.grids[str(h.alice.id)], state.number)
        fail_next_answer(h)
        edits = h.server.inject_rest_error("PATCH", EDIT_MESSAGE, 503, times=5)
        placed = await h.server.click(h.alice, grid, grid.button(prefix=f"g:{record.id}:place:{cell}:").custom_id)
    else:
        fail_next_answer(h)
        edits = h.server.inject_rest_error("PATCH", EDIT_MESSAGE, 503, times=5)
        action = "draw" if kind == "tutto" else "roll"
        placed = await h.server.click_button(h.alice, message, prefix=f"g:{record.id}:{action}:")
    await placed.wait_failed()
    await h.server.wait_for(lambda: edits.hits == 1, what="the failed edit of the game message")
    saved = await h.record()
    assert saved is not None and saved.version > record.version
    assert not shows_version(message, saved.version)
    h.server.clear_faults()
    h.server.interaction_timeout = 3.0

    await h.restart()
    await h.server.wait_for(lambda: shows_version(message, saved.version), what="the message shown again")
    if kind == "knister":
        assert (await h.state()).round == 2
        assert not message.button(prefix=f"g:{record.id}:roll:").disabled


async def test_the_lobby_message_id_comes_with_the_callback(running: Harness) -> None:
    """No second request (GET @original) whose failure would leave a posted lobby without its stored id."""
    h = running
    message = await lobby(h, "kniffel", h.alice)
    assert message.id
    assert h.server.find_requests("GET", "@original") == []


async def test_a_failed_edit_is_retried_while_the_bot_runs(running: Harness) -> None:
    """No restart and no further click: in Knister nobody could click (Roll stays disabled on the old message)."""
    h = running
    message = await h.start_game("knister", [h.alice])
    record = await h.record()
    assert record is not None
    await h.click(h.alice, message, "Roll")
    grid = await (await h.server.click_button(h.alice, message, prefix=f"g:{record.id}:grid:")).message()
    state = await h.state()
    assert state.number is not None
    cell = knister.best_cell(state.grids[str(h.alice.id)], state.number)
    edits = h.server.inject_rest_error("PATCH", EDIT_MESSAGE, 503)
    placed = await h.server.click(h.alice, grid, grid.button(prefix=f"g:{record.id}:place:{cell}:").custom_id)
    await placed.response()
    saved = await h.record()
    assert saved is not None and (await h.state()).round == 2
    await h.server.wait_for(lambda: edits.hits == 1, what="the failed edit of the round message")
    await h.server.wait_for(lambda: shows_version(message, saved.version), timeout=15, what="the edit retried")
    assert not message.button(prefix=f"g:{record.id}:roll:").disabled
