"""Players who left rank after everyone who stayed, end to end: the final message, the post and stored results; their
card stays on the running and the ended board; a rematch does not invite them."""

from __future__ import annotations

import pytest

from bot.engine import kniffel
from fakediscord import Message, User
from tests.e2e.board import live_board
from tests.e2e.conftest import Harness
from tests.e2e.dice import play_to_end, play_turn
from tests.e2e.test_tutto import Script, play

pytestmark = pytest.mark.timeout(60)


async def test_a_leader_who_left_ranks_last_and_does_not_win(harness: Harness) -> None:
    script = Script(["bonus_200", "stop", "bonus_400"], [5, 2, 3, 4, 6, 6, 1, 1, 1, 2, 3, 4])
    alice, bob, carol = harness.alice, harness.bob, harness.carol
    game = await play(harness, script, [alice, bob, carol], target=1000)
    await game.press(alice, "draw")
    await game.pick(alice, 5)
    await game.press(alice, "stop")
    await harness.wait_post("Alice banks 50 — 50 in all.")
    left = await harness.command(alice, "tutto leave")
    assert (await left.message()).text == "You left the game."
    await harness.wait_post("Alice left the game.")
    await game.press(bob, "draw")
    await harness.wait_post("🛑 Bob drew Stop — turn over.")
    await game.press(carol, "draw")
    await game.pick(carol, 1, 1, 1)
    await game.press(carol, "stop")
    await harness.wait_post("🏆 Winner: Carol!")
    # Alice's 50 beat Bob's 0, but she left: she ranks last, without a medal.
    shown = game.text.replace("\N{NO-BREAK SPACE}", " ")  # the no-break spaces that keep a score with its name
    assert "🥈 Bob — **0**" in shown
    assert "3. Alice (left) — **50**" in shown  # no medal for a leaver
    record = await harness.record()
    assert record is not None
    assert harness.bot is not None
    rows = await harness.bot.results.for_game(record.id)
    assert [(row.display_name, row.score, row.rank, row.won) for row in rows] == [
        ("Carol", 1000, 1, True),
        ("Bob", 0, 2, False),
        ("Alice", 50, 3, False),
    ]


async def test_plus_minus_spares_a_leader_who_left_and_charges_the_leader_still_playing(harness: Harness) -> None:
    script = Script(["stop", "bonus_200", "bonus_200", "plus_minus"], [1, 2, 3, 4, 6, 6, 5, 2, 3, 4, 6, 6])
    script.script(1, 1, 1, 5, 5, 5)
    alice, bob, carol = harness.alice, harness.bob, harness.carol
    game = await play(harness, script, [alice, bob, carol])
    await game.press(alice, "draw")
    await harness.wait_post("🛑 Alice drew Stop — turn over.")
    await game.press(bob, "draw")
    await game.pick(bob, 1)
    await game.press(bob, "stop")
    await harness.wait_post("Bob banks 100 — 100 in all.")
    await game.press(carol, "draw")
    await game.pick(carol, 5)
    await game.press(carol, "stop")
    await harness.wait_post("Carol banks 50 — 50 in all.")
    left = await harness.command(bob, "tutto leave")
    assert (await left.message()).text == "You left the game."
    await harness.wait_post("Bob left the game.")
    await game.press(alice, "draw")
    await game.pick(alice, 1, 1, 1, 5, 5, 5)
    await game.press(alice, "roll_on")
    await harness.wait_post("➕➖ Plus/Minus: Alice +1,000, Carol −50")
    state = await harness.state()
    assert state.scores == {str(alice.id): 1000, str(bob.id): 100, str(carol.id): 0}


def scores(board: Message) -> list[str]:
    """The lines of the board's Scores field (its code block)."""
    (value,) = [field["value"] for field in board.embeds[0]["fields"] if field["name"] == "Scores"]
    return value.strip("`\n").splitlines()


def mention(user: User) -> str:
    return f"<@{user.id}>"


async def test_who_left_stays_on_the_running_and_the_ended_board_marked(running: Harness) -> None:
    """QA 15/16: the totals of Alice, then of Bob, vanished from the board when they left; the card stays."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob, h.carol])
    await play_turn(h, board, chase=False)
    assert (await (await h.command(h.alice, "kniffel leave")).message()).text == "You left the game."
    board = await live_board(h)
    lines = scores(board)
    assert len(lines) == 3 and "Alice" in lines[-1] and lines[-1].endswith("(left)")
    assert not any("(left)" in line for line in lines[:2])
    for user in (h.bob, h.carol):
        await (await h.command(user, "kniffel leave")).message()
    await h.server.wait_for(lambda: "No people are left — the game is abandoned." in board.content, what="the end")
    assert board.embeds[0]["title"] == "Kniffel — ended"
    lines = scores(board)
    assert len(lines) == 3 and all(line.endswith("(left)") for line in lines)


async def test_a_rematch_invites_nobody_who_left_but_anybody_may_join(running: Harness) -> None:
    """QA 44: the rematch lobby pinged Bob, who had left the game in its first turn."""
    h = running
    await h.start_game("kniffel", [h.alice, h.bob, h.carol], rules="classic")
    await (await h.command(h.bob, "kniffel leave")).message()
    await play_to_end(h, await live_board(h), kniffel, chase=False)
    final = await live_board(h)
    lobby = await (await h.server.click_button(h.alice, final, label="Rematch")).message()
    assert mention(h.carol) in (lobby.content or "") and mention(h.bob) not in (lobby.content or "")
    record = await h.record()
    assert record is not None and record.status == "lobby" and record.options["invited"] == [str(h.carol.id)]
    await h.click(h.bob, lobby, "Join")
    record = await h.record()
    assert record is not None and [seat.player for seat in record.seats] == [str(h.alice.id), str(h.bob.id)]
