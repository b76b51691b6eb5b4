"""A player's refusals of presses on a board or their grid are one private message: each new one deletes the older
one, and the player's next accepted press deletes the last.

QA (a phone): seven "Not your turn: Carol is playing." in a row under the board pushed its controls off screen. As
with hints, the newest refusal shows right under the board and the older one goes through its interaction's token.
QA again: the refusal stayed once the player's turn came and their press went through, now wrong.
Refusals and hints are kept apart: a refusal never takes away the hint the player is reading, nor a hint a refusal.
"""

from __future__ import annotations

import pytest

from bot.engine import knister as kn
from fakediscord import Message, User
from tests.e2e.board import ALREADY
from tests.e2e.conftest import Harness
from tests.e2e.test_knister import EXTENSIONS as KNISTER
from tests.e2e.test_knister import Table as KnisterTable
from tests.e2e.test_knister import start_game as start_knister
from tests.e2e.test_knister_grids import ready_to_place
from tests.e2e.test_tutto import Script

pytestmark = pytest.mark.timeout(60)

EXTENSIONS = ("cogs.tutto",)
NOT_YOUR_TURN = "Not your turn: Alice is playing."
#: The route that deletes a private message through the token of the interaction that showed it.
ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"


def prefix(message: Message, action: str) -> str:
    return f"g:{int((message.buttons[0].custom_id or '').split(':')[1])}:{action}:"


async def press(h: Harness, user: User, message: Message, action: str) -> Message:
    """``user`` presses the first button of ``action`` on ``message``; the private answer."""
    return await (await h.server.click_button(user, message, prefix=prefix(message, action))).message()


def private(h: Harness, user: User) -> list[str]:
    """The private messages ``user`` still sees in the channel, oldest first."""
    return [message.text for message in h.server.visible_messages(h.channel, user) if message.ephemeral]


async def test_presses_out_of_turn_leave_one_refusal_on_screen(harness: Harness) -> None:
    h = harness
    h.rng = Script(start=0)  # Alice plays first
    await h.start_bot(EXTENSIONS)
    board = await h.start_game("tutto", [h.alice, h.bob])

    refusals = [await press(h, h.bob, board, "draw") for _ in range(3)]

    assert [refusal.text for refusal in refusals] == [NOT_YOUR_TURN] * 3
    await h.server.wait_for(lambda: refusals[0].deleted and refusals[1].deleted, what="the older refusals to go")
    assert not refusals[2].deleted
    assert private(h, h.bob) == [NOT_YOUR_TURN]


async def test_a_refusal_and_a_hint_never_take_each_other_away(harness: Harness) -> None:
    h = harness
    h.rng = Script(["bonus_300"], [1, 5, 2, 3, 4, 6])
    await h.start_bot(EXTENSIONS)
    board = await h.start_game("tutto", [h.alice], target=1000)  # alone: hints are on
    await press(h, h.alice, board, "draw")
    assert h.bot is not None
    loading = h.bot.brain.prepare(await h.state(), str(h.alice.id))
    if loading is not None:
        await loading
    hint = await press(h, h.alice, board, "hint")
    seen = h.snapshot(board)  # what a second client still shows
    await press(h, h.alice, board, "die")  # picking a die keeps the hint (it names the dice to pick)

    # The second client's press of the same die: the second of a double press, whose first went through.
    refusal = await (await h.server.click_button(h.alice, seen, prefix=prefix(seen, "die"))).message()
    assert refusal.text == ALREADY
    assert h.bot.service.hints.holds(h.channel.id, str(h.alice.id)) and not hint.deleted  # not handed to a deletion
    again = await press(h, h.alice, board, "hint")
    await h.server.wait_for(lambda: hint.deleted, what="the older hint to go")

    assert not refusal.deleted and not again.deleted
    assert private(h, h.alice) == [ALREADY, again.text]


async def test_an_accepted_press_takes_its_players_refusal_away(harness: Harness) -> None:
    """QA: "Not your turn: Alice is playing." stayed under the board once Bob's turn came and he played, now wrong."""
    h = harness
    h.rng = Script(["stop", "bonus_300"], [1, 2, 3, 4, 6, 6], start=0)
    await h.start_bot(EXTENSIONS)
    board = await h.start_game("tutto", [h.alice, h.bob])
    refusal = await press(h, h.bob, board, "draw")
    assert refusal.text == NOT_YOUR_TURN
    await press(h, h.alice, board, "draw")  # Stop: Bob's turn
    await h.wait_post("🛑 Alice drew Stop — turn over.")

    await press(h, h.bob, board, "draw")  # accepted: the card, and the roll it forces

    await h.server.wait_for(lambda: refusal.deleted, what="Bob's refusal to go")
    assert private(h, h.bob) == []


async def test_a_refusal_goes_when_the_turn_becomes_its_players_and_a_press_without_one_deletes_nothing(
    harness: Harness,
) -> None:
    """Bob's "Not your turn" goes once Alice's press hands him the turn (it sat under the board that said it was
    his; QA); a press of a player with no refusal on screen deletes nothing."""
    h = harness
    h.rng = Script(["stop", "bonus_300"], [1, 2, 3, 4, 6, 6], start=0)
    await h.start_bot(EXTENSIONS)
    assert h.bot is not None
    board = await h.start_game("tutto", [h.alice, h.bob])
    refusal = await press(h, h.bob, board, "draw")

    await press(h, h.alice, board, "draw")  # Alice drew Stop: the turn is Bob's
    await h.wait_post("🛑 Alice drew Stop — turn over.")
    await h.server.wait_for(lambda: refusal.deleted, what="Bob's refusal to go")
    refusals = h.bot.service.refusals
    assert len(refusals) == 0 and len(h.server.find_requests("DELETE", ORIGINAL)) == 1

    await press(h, h.bob, board, "draw")  # Bob has no refusal left: nothing more is deleted
    await h.wait_post("Bob drew")
    assert len(h.server.find_requests("DELETE", ORIGINAL)) == 1


async def test_refusals_of_presses_on_a_knister_grid_replace_each_other_and_go_once_a_placement_is_accepted(
    harness: Harness,
) -> None:
    """A Knister grid is a private message with its own buttons: a refused press on it (a cell of a round already
    placed, pressed on what a second client still shows) is one refusal on screen too, gone with the next placement."""
    h = harness
    await h.start_bot(KNISTER)
    table = KnisterTable(h, await start_knister(h, [h.alice, h.bob]))
    await table.roll()
    grid = await table.open_grid(h.alice)
    seen = h.snapshot(grid)  # round 1 with every cell open, as her other client still shows it
    assert await table.place(h.alice, grid, 0) is grid

    first = await table.place(h.alice, seen, 1)
    second = await table.place(h.alice, seen, 2)

    assert first.ephemeral and first is not grid and second.ephemeral and second is not grid
    await h.server.wait_for(lambda: first.deleted, what="the older refusal on the grid to go")
    assert not second.deleted and not grid.deleted
    await table.place_best(h.bob)
    state = await table.roll()
    await ready_to_place(h, grid, state)

    assert await table.place(h.alice, grid, kn.best_cell(state.grids[str(h.alice.id)], state.number or 0)) is grid

    await h.server.wait_for(lambda: second.deleted, what="the refusal to go with the accepted placement")
    assert not grid.deleted
    assert [message.id for message in h.server.visible_messages(h.channel, h.alice) if message.ephemeral] == [grid.id]
