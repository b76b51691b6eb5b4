"""A player's hint is one private message: each press of Hint shows a new one and deletes the older one.

At phone width every private message pushes the board's controls up; a review and two hints used to push Roll
and Score a full screen away. A new message for each press lands right under the board, where the player looks,
and never goes to a hint the player dismissed (an edit of that one would be unseen). A player who used a hint is
marked 💡 on the final board, and /stats counts their games with hints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine import kniffel
from tests.e2e.board import live_board, settle
from tests.e2e.conftest import Harness
from tests.e2e.dice import play_to_end

pytestmark = pytest.mark.timeout(180)

HINT = "💡 Hint"


@pytest.fixture
async def bot(harness: Harness, shared_tables: Path) -> Harness:
    harness.strategy_dir = shared_tables
    await harness.start_bot()
    return harness


async def test_each_hint_press_shows_a_new_message_and_deletes_the_older_one(bot: Harness) -> None:
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")  # alone: hints are on by default
    await h.tables_ready(str(h.alice.id))
    first = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    assert first.ephemeral

    second = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await h.server.wait_for(lambda: first.deleted, what="the first hint to go")

    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")
    third = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await h.server.wait_for(lambda: second.deleted, what="the second hint to go")
    assert "**score Kniffel (50 points)**" in third.text and third.ephemeral and not third.deleted


async def test_the_next_game_in_the_channel_takes_the_last_games_hint_away(bot: Harness) -> None:
    """One hint on screen per player and channel: a game ended (or finished, then a rematch) leaves none behind."""
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.tables_ready(str(h.alice.id))
    old = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    assert (await (await h.command(h.alice, "kniffel end")).message()).text == "The game was ended."
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    new = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await h.server.wait_for(lambda: old.deleted, what="the ended game's hint to go")
    assert not new.deleted


async def test_a_knister_hint_letters_its_cells_on_a_map_of_the_players_grid(bot: Harness) -> None:
    """The grid's buttons carry no row or column numbers, so "row 4, column 2" alone had nothing to count against."""
    h = bot
    message = await h.start_game("knister", [h.alice])
    await h.tables_ready(str(h.alice.id))
    h.rng.script(6, 6)
    await h.click(h.alice, message, "Roll")
    hint = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    # "preparing" first if the Knister value network is still loading: it becomes the hint by itself
    await h.server.wait_for(lambda: "Best move" in hint.text, what="the hint")
    lines = hint.text.splitlines()
    assert [line[:4] for line in lines[1:4]] == ["`A` ", "`B` ", "`C` "], hint.text
    grid = lines[lines.index("```") + 1 : -1]
    assert len(grid) == 5 and all(len(row.split()) == 5 for row in grid), hint.text
    assert sorted(cell for row in grid for cell in row.split() if cell != "·") == ["A", "B", "C"], hint.text


async def test_a_hint_stays_while_the_player_picks_dice_and_goes_once_they_move_on(bot: Harness) -> None:
    """A hint left under the board after its move kept advising a position that was gone ("score Ones" at turn 2)."""
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.tables_ready(str(h.alice.id))
    h.rng.script(6, 6, 6, 2, 3)
    await h.click(h.alice, message, "Roll")
    hint = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await h.click(h.alice, message, "⚅ 6")  # holding the dice the hint names: it stays to be read
    record = await h.record()
    assert h.bot is not None and record is not None
    assert h.bot.service.hints.holds(record.channel_id, str(h.alice.id))  # not even handed to a deletion
    assert not hint.deleted
    h.rng.script(6, 6)
    await h.click(h.alice, message, "Roll (2/3)")
    await h.server.wait_for(lambda: hint.deleted, what="the hint of the roll before to go")


async def test_the_hints_go_when_the_game_ends(bot: Harness) -> None:
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.tables_ready(str(h.alice.id))
    hint = await (await h.server.click_button(h.alice, message, label=HINT)).message()
    assert (await (await h.command(h.alice, "kniffel end")).message()).text == "The game was ended."
    await h.server.wait_for(lambda: hint.deleted, what="the ended game's hint to go")


async def test_a_game_played_with_a_hint_is_marked_on_the_final_board_and_counted_in_stats(bot: Harness) -> None:
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.tables_ready(str(h.alice.id))
    await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await settle(h)  # the hint's mark redraws the board: the next click is on the new one
    await play_to_end(h, message, kniffel, chase=False)

    final = await live_board(h)
    (embed,) = final.embeds
    (standing,) = [line for line in embed["description"].splitlines() if "\N{NO-BREAK SPACE}—" in line]
    assert standing.startswith("🏁 Alice 💡\N{NO-BREAK SPACE}—\N{NO-BREAK SPACE}"), standing
    assert embed["footer"]["text"] == "💡 played with hints"
    assert any(line.startswith("🏁 Alice 💡 finished with ") for line in final.content.splitlines()), final.content

    stats = await (await h.command(h.alice, "stats")).message()
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert "💡 Games with hints **1**" in fields["Kniffel (rules: Classic)"].splitlines()


async def test_the_hints_mark_outdates_no_button_of_the_board_it_redraws(bot: Harness) -> None:
    """Noting that a player used a hint saves the game, but no move: a Roll pressed on the board as it was before
    that save (the press and the mark crossing, as when a hint's tables finish loading while the player plays on)
    rolls instead of answering "outdated"."""
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.tables_ready(str(h.alice.id))
    before_hint = h.snapshot(message)
    version = (await h.record()).version
    await (await h.server.click_button(h.alice, message, label=HINT)).message()
    await settle(h)
    assert (await h.record()).version == version + 1  # the mark was saved

    roll = await h.click(h.alice, before_hint, "Roll")
    assert roll.ephemeral_messages == []
    assert (await h.state()).rolls == 1


async def test_a_hint_asked_out_of_turn_names_whose_turn_it_is(bot: Harness) -> None:
    """Out of turn, Hint answered only "It is not your turn."; it now says who plays, as Roll does."""
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic")
    await h.click(h.bob, lobby, "Join")
    await h.click(h.alice, lobby, "💡 Hints: off")  # two people: hints start off, the host turns them on
    await h.click(h.alice, lobby, "Start")
    assert h.bot is not None
    await h.bot.service.drain(10)
    acting, waiting = (h.alice, h.bob) if (await h.state()).current_player == str(h.alice.id) else (h.bob, h.alice)
    reply = await h.click(waiting, await live_board(h), HINT)
    answer = await reply.message()
    assert answer.ephemeral and answer.text == f"Not your turn: {acting.name} is playing."
