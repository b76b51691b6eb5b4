"""/kniffel end to end: whole games through clicks and the select, joker, timeouts, restarts, lobby rules."""

from __future__ import annotations

import copy
import dataclasses

import discord
import pytest

from bot.engine import kniffel
from bot.ui.render import in_markdown
from tests.discord_limits import assert_pings_only_people
from tests.e2e.board import ALREADY, CHANGED, live_board, settle
from tests.e2e.conftest import Harness
from tests.e2e.dice import best_option, forge, play_to_end, play_turn
from tests.reliability.conftest import forged as forged_button

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
async def test_complete_two_player_game(running: Harness, ruleset: str) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob], rules=ruleset)
    await h.wait_post("Roll-off")
    await play_to_end(h, message, kniffel)

    state = await h.state()
    record = await h.record()
    assert record is not None and record.status == "finished"
    totals = {player: kniffel.card_totals(state, player) for player in state.players}
    for player in state.players:
        assert len(state.cards[player]) == 13
        assert totals[player].total == kniffel.total(state.cards[player], state.bonuses[player], ruleset)
    assert "final scores" in message.text
    for player, sums in totals.items():
        assert h.user(player).name in message.text
        assert str(sums.total) in message.text
    assert [button.label for button in message.buttons] == ["🔍 Review", "Rematch"]  # the post-game review and Rematch

    stored = await h.bot.results.for_game(record.id)
    assert {(row.user_id, row.score) for row in stored} == {(int(p), s.total) for p, s in totals.items()}
    best = max(s.total for s in totals.values())
    assert all(row.won == (row.score == best) for row in stored)
    assert all("kniffels" in row.counters and row.variant == ruleset for row in stored)
    if ruleset == "classic":
        assert all(s.upper_bonus == 0 and s.extra_bonus == 0 for s in totals.values())
        # No upper bonus under these rules: stored as not applicable, so /stats leaves the game out of the rate.
        assert all("upper_bonus" not in row.counters for row in stored)
    else:
        assert all(row.counters["upper_bonus"] == int(totals[str(row.user_id)].upper_bonus > 0) for row in stored)
    await h.wait_post("Winner")


async def test_joker_and_extra_kniffel_bonus_through_the_select(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    h.rng.script(5, 5, 5, 5, 5)
    await h.click(h.alice, message, "Roll")
    assert [o.value for o in message.select().options][-2:] == ["kniffel", "chance"]
    await (await h.server.select(h.alice, message, message.select().custom_id, ["kniffel"])).response()

    h.rng.script(5, 5, 5, 5, 5)
    await h.click(h.alice, message, "Roll")
    options = message.select().options
    assert [o.value for o in options] == ["fives"]
    assert options[0].label == "Fives — 25 (+100 bonus)"
    await (await h.server.select(h.alice, message, message.select().custom_id, ["fives"])).response()

    h.rng.script(5, 5, 5, 5, 5)
    await h.click(h.alice, message, "Roll")
    labels = {o.value: o.label for o in message.select().options}
    assert labels["full_house"] == "Full house — 25 (+100 bonus)"
    assert labels["large_straight"] == "Large straight — 40 (+100 bonus)"
    assert "fives" not in labels and "ones" not in labels
    await (await h.server.select(h.alice, message, message.select().custom_id, ["large_straight"])).response()
    await h.wait_post("Alice: 40 in Large straight and +100 extra Kniffel bonus!")

    state = await h.state()
    card = state.cards[str(h.alice.id)]
    assert card == {"kniffel": 50, "fives": 25, "large_straight": 40}
    assert state.bonuses[str(h.alice.id)] == 200


async def test_the_box_that_reaches_63_says_it_earns_the_upper_bonus(running: Harness) -> None:
    """Scoring it added 35 to the total without a word, where an extra Kniffel's +100 is named twice (QA)."""
    h = running
    message = await h.start_game("kniffel", [h.alice])
    for faces, box in (((6, 6, 6, 6, 1), "sixes"), ((5, 5, 5, 5, 1), "fives")):  # 24 + 20
        h.rng.script(*faces)
        await h.click(h.alice, message, "Roll")
        await (await h.server.select(h.alice, message, message.select().custom_id, [box])).response()
    h.rng.script(4, 4, 4, 4, 3)
    await h.click(h.alice, message, "Roll")
    labels = {o.value: o.label for o in message.select().options}
    assert labels["fours"] == "Fours — 16"  # 60: not there yet
    assert labels["threes"] == "Threes — 3"
    await (await h.server.select(h.alice, message, message.select().custom_id, ["fours"])).response()

    h.rng.script(3, 3, 3, 2, 1)
    await h.click(h.alice, message, "Roll")
    labels = {o.value: o.label for o in message.select().options}
    assert labels["threes"] == "Threes — 9 (+35 bonus)"
    assert labels["twos"] == "Twos — 2"  # 62: one short
    assert labels["chance"] == "Chance — 12"
    await (await h.server.select(h.alice, message, message.select().custom_id, ["threes"])).response()
    await h.wait_post("Alice: 9 in Threes and +35 bonus for 63 in the upper section!")
    card = kniffel.card_totals(await h.state(), str(h.alice.id))
    assert (card.upper, card.upper_bonus, card.total) == (69, 35, 104)


async def test_only_the_current_player_may_act(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob])
    state = await h.state()
    waiting = h.bob if state.current_player == str(h.alice.id) else h.alice
    before = await h.state()
    acting = h.alice if waiting is h.bob else h.bob
    reply = await h.click(waiting, message, "Roll")
    assert (await reply.message()).text == f"Not your turn: {acting.name} is playing."
    assert (await reply.message()).ephemeral
    assert (await h.state()) == before

    outsider = await h.click(h.carol, message, "Roll")
    assert "not playing" in (await outsider.message()).text

    # Once the turn is theirs, "Not your turn" under the board that says it is went (QA: both were on screen).
    refusal = await reply.message()
    await h.click(acting, message, "Roll")
    assert not refusal.deleted  # still not their turn
    await (await h.server.select(acting, message, message.select().custom_id, [best_option(message)])).response()
    await h.server.wait_for(lambda: refusal.deleted, what="the refusal to go once it is their turn")


async def test_double_click_on_roll_rolls_once(running: Harness) -> None:
    """QA: the second press was answered "This message is outdated — use the latest game message." on the latest
    game message itself, later "nothing was done", read as the roll failing; it says the first press went
    through, and the board shows the roll."""
    h = running
    message = await h.start_game("kniffel", [h.alice])
    shown = h.snapshot(message)
    first = await h.server.click_button(h.alice, shown, label="Roll")
    second = await h.server.click_button(h.alice, shown, label="Roll")
    await first.response()
    await second.response()
    state = await h.state()
    assert state.rolls == 1
    replies = [m.text for handle in (first, second) for m in handle.ephemeral_messages]
    assert replies == [ALREADY]
    await h.server.wait_for(lambda: message.button(label="Roll (2/3)"), what="the board showing the roll")


async def test_score_from_an_outdated_message_is_refused(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    shown = h.snapshot(message)
    option = best_option(message)
    await h.click(h.alice, message, "Roll (2/3)")
    before = await h.state()
    stale = await h.server.select(h.alice, shown, shown.select().custom_id, [option])
    assert (await stale.message()).text == CHANGED
    assert await h.state() == before


async def test_restart_mid_turn_continues_on_the_same_message(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    record = await h.record()
    hold = await h.server.click_button(h.alice, message, prefix=f"g:{record.id}:hold:0.")
    await hold.response()
    before = await h.state()
    await h.restart()
    assert await h.state() == before
    await h.click(h.alice, message, "Roll (2/3)")
    after = await h.state()
    assert after.rolls == 2
    assert after.dice[0] == before.dice[0]
    await (await h.server.select(h.alice, message, message.select().custom_id, [best_option(message)])).response()
    assert (await h.state()).turns[str(h.alice.id)] == 1


async def test_timeout_scores_the_best_box_and_three_timeouts_remove(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob], turn_timeout=1)
    first = (await h.state()).current_player
    await h.advance(59)
    assert (await h.state()).turns[first] == 0
    await h.advance(2)
    state = await h.state()
    assert state.turns[first] == 1
    await h.wait_post("ran out of time")
    assert state.current_player != first
    # What happened in order: the timeout, the box the bot scored for them, then whose turn it is.
    name = h.user(first).name
    lines = (message.content or "").splitlines()
    assert len(lines) == 3, lines
    assert lines[0] == f"⏰ {name} ran out of time; the bot played for them."
    assert lines[1].startswith(f"{name}: ")
    assert lines[2] == f"<@{state.current_player}>, your turn."

    # the other player plays normally; the first player times out twice more and is removed
    for _ in range(2):
        await play_turn(h, message, chase=False)
        await h.advance(61)
    record = await h.record()
    assert record.seat(first).status == "removed"
    await h.wait_post("removed")
    # The removal follows the move the bot played for the third timeout.
    lines = (message.content or "").splitlines()
    assert lines[0] == f"⏰ {name} ran out of time; the bot played for them."
    assert lines[1].startswith(f"{name}: ")
    assert lines[2] == f"{name} timed out 3 times in a row and was removed."
    state = await h.state()
    assert first in state.left
    assert record.status == "running"


async def test_lobby_join_leave_cancel_and_host_rules(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic")
    assert "Classic" in lobby.text
    as_opened = h.snapshot(lobby)  # as a client that missed the edits still shows it
    await h.click(h.bob, lobby, "Join")
    again = await h.click(h.bob, lobby, "Join")
    assert "already in this game" in (await again.message()).text
    start = await h.click(h.bob, lobby, "Start")
    assert "Only the host" in (await start.message()).text
    await h.click(h.bob, lobby, "Leave")
    record = await h.record()
    assert [seat.display_name for seat in record.seats] == ["Alice"]
    cancel = await h.click(h.bob, lobby, "Cancel")
    assert "Only the host" in (await cancel.message()).text
    await h.click(h.alice, lobby, "Cancel")
    assert (await h.record()).status == "abandoned"
    assert lobby.components == []
    await h.wait_post("cancelled")
    late = await h.server.click_button(h.carol, as_opened, label="Join")
    # QA: "That game is over, …" about a game that never started.
    assert (await late.message()).text == "That lobby is closed, and no game is running in this channel now."


async def test_second_game_in_the_channel_is_refused_with_a_link(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    reply = await h.command(h.bob, "dicepoker start")
    text = (await reply.message()).text
    # One game per channel, said as such, with where to go: another channel, or the game that holds this one.
    lobby_open = "Only one game runs per channel, and a Kniffel lobby is open here. Start yours in another channel, "
    assert text.startswith(lobby_open + "or join that one: "), "a lobby is not a game running"
    assert str(lobby.id) in text
    await h.click(h.alice, lobby, "Start")
    reply = await h.command(h.bob, "kniffel start")
    text = (await reply.message()).text
    running_here = (
        "Only one game runs per channel, and a Kniffel game is running here. Start yours in another channel, "
    )
    assert text.startswith(running_here + "or here once that one is over: ")
    assert str(lobby.id) in text


async def test_lobby_expires_after_fifteen_minutes(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    await h.advance(15 * 60 + 1)
    assert (await h.record()).status == "abandoned"
    # The lobby message is edited after the deadline is handled: wait for the edit, never assume it.
    await h.server.wait_for(lambda: lobby.components == [], what="the expired lobby's buttons to be removed")
    await h.wait_post("expired")


async def test_leave_and_end_commands(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob])
    left = await h.command(h.bob, "kniffel leave")
    assert (await left.message()).text == "You left the game."
    state = await h.state()
    assert str(h.bob.id) in state.left
    assert state.current_player == str(h.alice.id)

    refused = await h.command(h.carol, "kniffel end")
    assert "Only the host" in (await refused.message()).text
    ended = await h.command(h.alice, "kniffel end")
    assert (await ended.message()).text == "The game was ended."
    record = await h.record()
    assert record.status == "abandoned"
    assert await h.bot.results.for_game(record.id) == []
    assert message.components == []


async def test_a_game_the_host_ended_reads_as_over_and_says_so_once(running: Harness) -> None:
    """QA 35: an ended board kept its colour, the turn prompt and its ping, and said twice that it does not count."""
    h = running
    await h.start_game("kniffel", [h.alice, h.bob, h.carol], rules="classic")
    message = await live_board(h)
    await play_turn(h, message, chase=False)
    board = await live_board(h)
    ended = await h.command(h.alice, "kniffel end")
    assert (await ended.message()).text == "The game was ended."
    await settle(h)
    await h.server.wait_for(lambda: "ended by Alice" in board.text, what="the board to show the end")
    assert board.content == "The Kniffel game was ended by Alice."
    assert board.text.count("does not count") == 1
    assert "Turn of" not in board.text and "Press **Roll**" not in board.text
    (embed,) = board.embeds
    assert embed["title"] == "Kniffel — ended"
    assert embed["color"] == discord.Colour.dark_grey().value
    assert all(user.name in board.text for user in (h.alice, h.bob, h.carol))  # the scores as they stood
    assert board.components == []


async def test_scorecard_command_and_button(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob])
    await play_turn(h, message, chase=False)
    card = await (await h.command(h.carol, "kniffel scorecard", player=h.alice)).message()
    assert card.ephemeral
    assert "Alice" in card.text and "Total" in card.text
    assert card.content == "", "a card asked for by name needs no word on whose it is"
    own = await (await h.click(h.bob, message, "Scorecard")).message()
    assert own.ephemeral and "Bob" in own.text
    assert own.content == ""


@pytest.mark.parametrize("game", ["kniffel", "dicepoker"])
async def test_someone_watching_who_presses_scorecard_sees_the_card_of_the_player_to_act(
    running: Harness, game: str
) -> None:
    """QA: Carol, watching, pressed Scorecard and read "You are not playing in this game.", though
    ``/kniffel scorecard player:`` shows anyone's card. A watcher's press (or the command without a player) shows
    the card of the player to act, privately, under a line that says so (QA: "no word that he is not playing and no
    way to pick a player"); the players keep seeing their own, without it."""
    h = running
    message = await h.start_game(game, [h.alice, h.bob])
    for _ in range(2):
        to_act = h.user((await h.state()).current_player)
        other = h.bob if to_act is h.alice else h.alice
        command = f"`/{game} scorecard player:`"
        note = f"👀 You're watching: this is {to_act.name}'s card (their turn). {command} shows anyone's."
        watched = await (await h.click(h.carol, message, "Scorecard")).message()
        assert watched.ephemeral and to_act.name in watched.text and "Total" in watched.text, watched.text
        assert other.name not in watched.text
        assert watched.content == note
        commanded = await (await h.command(h.carol, f"{game} scorecard")).message()
        assert commanded.ephemeral and to_act.name in commanded.text
        assert commanded.content == note
        own = await (await h.click(other, message, "Scorecard")).message()
        assert own.ephemeral and other.name in own.text and to_act.name not in own.text
        assert own.content == ""
        await play_turn(h, message, chase=False)


@pytest.mark.parametrize(
    ("game", "command"), [("kniffel", "/kniffel block spieler:"), ("dicepoker", "/würfelpoker block spieler:")]
)
async def test_a_watchers_card_says_whose_it_is_in_the_watchers_language(
    running: Harness, game: str, command: str
) -> None:
    """The line above a watcher's card is in their language, with the command as their client lists it (a German
    client has no ``/dicepoker scorecard``), and the name safe for markdown, pinging nobody."""
    h = running
    h.carol.locale = "de"
    prankster = h.server.add_user("@everyone **Bo**")
    h.users.append(prankster)
    message = await h.start_game(game, [prankster])
    name = in_markdown(prankster.name)
    note = f"👀 Du schaust zu: Das ist der Block von {name} (am Zug). `{command}` zeigt jeden Block."
    watched = await (await h.click(h.carol, message, "Scorecard")).message()
    assert watched.content == note
    commanded = await (await h.command(h.carol, f"{game} scorecard")).message()
    assert commanded.content == note
    named = await (await h.command(h.carol, f"{game} scorecard", player=prankster)).message()
    assert named.content == "" and in_markdown(prankster.name) in named.text
    assert_pings_only_people(h.server)


async def test_member_with_manage_messages_may_end_the_game(running: Harness) -> None:
    h = running
    moderator = h.server.add_user("Mod", permissions=int(discord.Permissions(manage_messages=True).value))
    h.users.append(moderator)
    await h.start_game("kniffel", [h.alice, h.bob])
    ended = await h.command(moderator, "kniffel end")
    assert (await ended.message()).text == "The game was ended."
    assert (await h.record()).status == "abandoned"
    await h.wait_post("ended by Mod")


async def test_pending_timeout_fires_after_a_restart(running: Harness) -> None:
    h = running
    await h.start_game("kniffel", [h.alice], turn_timeout=2)
    await h.restart()
    await h.advance(121)
    state = await h.state()
    assert state.turns[str(h.alice.id)] == 1
    await h.wait_post("ran out of time")


async def test_forged_box_in_the_select_is_refused_without_effect(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    await (await h.server.select(h.alice, message, message.select().custom_id, ["chance"])).response()
    await h.click(h.alice, message, "Roll")
    before, version = await h.state(), (await h.record()).version
    for value, expected in (
        ("no_such_box", "That is not allowed right now."),
        ("chance", "That box is already filled."),
    ):
        reply = await forge(h, message, h.alice, value, "Forged")
        assert (await reply.message()).text == expected
        assert (await reply.message()).ephemeral
    doctored = dataclasses.replace(message, components=copy.deepcopy(message.components))
    for row in doctored.components:
        for component in row.get("components", []):
            if component.get("type") == 3:
                component["max_values"] = 2
    several = await h.server.select(h.alice, doctored, message.select().custom_id, ["ones", "twos"])
    assert (await several.message()).text == "That is not allowed right now."  # QA: it scored the first
    die = next(b.custom_id or "" for b in message.buttons if ":hold:" in (b.custom_id or ""))
    game, hold, stamp = die.rpartition(":")[0].rpartition(":")[0], die.split(":")[3], die.rpartition(":")[2]
    assert hold.endswith((".0", ".1"))  # a die's button: hold it (1) or release it (0)
    for target in ("0.7", "0", "x.1"):
        forged = f"{game}:{target}:{stamp}"
        reply = await h.server.click(h.alice, forged_button(message, forged), forged)
        assert (await reply.message()).text == "That is not allowed right now.", target
    assert await h.state() == before
    assert (await h.record()).version == version


async def test_a_name_with_markdown_and_everyone_is_shown_as_typed_and_pings_nobody(running: Harness) -> None:
    h = running
    prankster = h.server.add_user("@everyone **Bo** _x_ ~~s~~")
    h.users.append(prankster)
    message = await h.open_lobby("kniffel", prankster)
    await h.click(h.bob, message, "Join")
    refused = await h.click(h.bob, message, "Start")
    escaped = in_markdown(prankster.name)
    assert refused.ephemeral_messages[0].text == f"Only the host ({escaped}) can do that."
    await h.click(prankster, message, "Start")
    assert h.bot is not None
    await h.bot.service.drain(10)
    await play_turn(h, message)
    await play_turn(h, message)
    assert escaped == "@\u200beveryone " + r"\*\*Bo\*\* \_x\_ \~\~s\~\~"
    said = h.said()
    assert any(escaped in text for text in said)  # the roll-off and the scored box name the player
    assert not [text for text in said if prankster.name in text]
    assert_pings_only_people(h.server)


async def test_the_board_shows_the_upper_section_of_the_player_to_act_against_63(running: Harness) -> None:
    """Only the private scorecard said how far the upper bonus was (QA); classic rules have none to show."""
    h = running
    message = await h.start_game("kniffel", [h.alice])
    assert "⬆️ Upper section: 0/63 for +35" in message.text
    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")
    await (await h.server.select(h.alice, message, message.select().custom_id, ["sixes"])).response()
    await h.server.wait_for(lambda: "⬆️ Upper section: 30/63 for +35" in message.text, what="the upper sum")
    h.rng.script(5, 5, 5, 5, 5)
    await h.click(h.alice, message, "Roll")
    await (await h.server.select(h.alice, message, message.select().custom_id, ["fives"])).response()
    await h.server.wait_for(lambda: "⬆️ Upper section: 55/63 for +35" in message.text, what="the upper sum")
    h.rng.script(4, 4, 1, 1, 1)
    await h.click(h.alice, message, "Roll")
    await (await h.server.select(h.alice, message, message.select().custom_id, ["fours"])).response()
    await h.server.wait_for(lambda: "⬆️ Upper section: 63 ✅ +35" in message.text, what="the bonus made")


async def test_a_classic_board_shows_no_upper_bonus(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    assert "Upper section" not in message.text


async def test_a_scorecard_goes_when_another_is_opened_and_once_its_player_scored(running: Harness) -> None:
    """On a phone a tall card left under the board pushed the dice off screen, and went on showing boxes as open
    that had been scored since (QA). Rolling leaves it: the card is what the player reads to choose a box."""
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob])
    player = h.user((await h.state()).current_player)
    first = await (await h.server.click_button(player, message, label="Scorecard")).message()
    second = await (await h.server.click_button(player, message, label="Scorecard")).message()
    await h.server.wait_for(lambda: first.deleted, what="the older card to go")
    await h.click(player, message, "Roll")
    assert not second.deleted
    await (await h.server.select(player, message, message.select().custom_id, [best_option(message)])).response()
    await h.server.wait_for(lambda: second.deleted, what="the card to go once its player scored")
    watcher = h.alice if player is h.bob else h.bob
    watched = await (await h.command(watcher, "kniffel scorecard")).message()
    assert (await (await h.command(watcher, "kniffel end")).message()).text == "The game was ended."
    await h.server.wait_for(lambda: watched.deleted, what="every card to go with the game")
