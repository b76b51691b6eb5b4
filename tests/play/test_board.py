"""The live board's pure decisions: when it moves, what follows an edit, where an old click points, what a rematch
copies."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import count

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine import fivedice, kniffel
from bot.play import board
from bot.play import transitions as tr
from bot.play.ports import Edit
from bot.play.tail import ChannelTail
from bot.play.transitions import Game, Origin
from bot.storage.games import Seat
from cogs.kniffel import SPEC
from tests.play.test_transitions import ALICE, BOB, COMPUTER, NOW, lobby, started


def test_a_turn_starts_with_the_game_with_each_new_turn_and_at_the_end_never_in_between() -> None:
    waiting = lobby(ALICE, BOB)
    running = tr.start(SPEC, waiting, ALICE, random.Random(1), NOW).after
    assert board.turn_started(SPEC, waiting, running)
    player = running.state.current_player
    actor = ALICE if player == ALICE.player else BOB
    rolled = tr.move(SPEC, running, actor, fivedice.Roll(), random.Random(2), NOW).after
    assert not board.turn_started(SPEC, running, rolled)
    box = kniffel.Score(box="chance")
    scored = tr.move(SPEC, rolled, actor, box, random.Random(3), NOW).after
    assert board.turn_started(SPEC, rolled, scored)
    finished = Game(replace(scored.record, status="finished"), scored.state)
    assert board.turn_started(SPEC, scored, finished)
    abandoned = Game(replace(scored.record, status="abandoned"), scored.state)
    assert not board.turn_started(SPEC, scored, abandoned)


def test_the_board_moves_at_a_turn_start_below_anything_and_mid_turn_only_when_out_of_the_last_three() -> None:
    assert board.should_move(True, 1)
    assert not board.should_move(True, 0)
    assert not board.should_move(True, None)
    assert not board.should_move(False, 2)
    assert board.should_move(False, board.LOOK_BELOW)
    assert not board.should_move(False, None)


def test_only_the_bots_own_other_messages_in_the_channel_are_old_boards() -> None:
    record = replace(started(ALICE, BOB).record, message_id=500)
    here = Origin(record.guild_id, record.channel_id, 400, by_bot=True)
    assert board.from_old_board(record, here)
    assert not board.from_old_board(record, replace(here, message_id=500))  # the live board itself
    assert not board.from_old_board(record, replace(here, by_bot=False))  # somebody's own message: forged
    assert not board.from_old_board(record, replace(here, channel_id=99))  # elsewhere: the wrong place
    assert not board.from_old_board(record, replace(here, private=True))  # a private view
    assert not board.from_old_board(replace(record, message_id=None), here)  # a lobby to adopt


def test_a_press_the_game_moved_past_changed_under_it_on_the_live_board_and_is_outdated_elsewhere() -> None:
    """QA: a double click on the current board was told "outdated — use the latest game message"."""
    game = replace(started(ALICE, BOB).record, message_id=500)
    link = f"https://discord.com/channels/{game.guild_id}/{game.channel_id}/500"
    on_board = Origin(game.guild_id, game.channel_id, 500, by_bot=True)
    changed = board.Pointer("play.board_changed", {})
    assert board.stale_press(game, on_board) == changed
    grid = Origin(game.guild_id, game.channel_id, 700, private=True, owner=ALICE.player)
    assert board.stale_press(game, grid, followed=True) == changed  # the private view the bot keeps current
    assert board.stale_press(game, grid) == board.Pointer("play.outdated", {"link": link})  # an older one
    assert board.stale_press(game, replace(grid, message_id=500)) == board.Pointer("play.outdated", {"link": link})


def test_an_old_click_points_to_the_live_board_the_channels_current_game_or_nowhere() -> None:
    game = replace(started(ALICE, BOB).record, message_id=500)
    link = f"https://discord.com/channels/{game.guild_id}/{game.channel_id}/500"
    assert board.pointer(game, game) == board.Pointer("play.board_moved", {"link": link})
    other = replace(game, id=2, message_id=600)
    other_link = link.replace("/500", "/600")
    assert board.pointer(game, other) == board.Pointer("play.old_game", {"link": other_link})
    assert board.pointer(None, other) == board.Pointer("play.old_game", {"link": other_link})
    assert board.pointer(game, None) == board.Pointer("play.old_game_none", {})
    closed = replace(lobby(ALICE).record, status="abandoned", message_id=400)  # cancelled before it started
    assert board.pointer(closed, other) == board.Pointer("play.old_lobby", {"link": other_link})
    assert board.pointer(closed, None) == board.Pointer("play.old_lobby_none", {})  # QA: it said "that game is over"
    for action in tr.LOBBY_ACTIONS:  # an old lobby message of the game: the lobby is closed, the game is here
        assert board.pointer(game, game, action) == board.Pointer("lobby.already_started", {"link": link})
    assert board.pointer(game, game, "roll") == board.Pointer("play.board_moved", {"link": link})


def test_a_gone_board_is_posted_anew_while_the_game_is_active_and_once_with_final_scores_nobody_saw() -> None:
    running = started(ALICE, BOB).record
    assert board.post_anew_when_gone(lobby(ALICE).record) and board.post_anew_when_gone(running)
    finished = replace(running, status="finished")
    assert board.post_anew_when_gone(finished)
    followed = replace(finished, options={**finished.options, board.NEXT_GAME: 2})
    assert not board.post_anew_when_gone(followed)  # a next game is on: its old scores stay where they were
    assert not board.post_anew_when_gone(replace(running, status="abandoned"))


A = board.AfterEdit
#: What follows each edit of a board, by the game's standing: (lobby, running, finished, finished and followed by a
#: next game, abandoned).
AFTER_EDIT = {
    Edit.DONE: (A.SHOWN, A.SHOWN, A.SHOWN, A.SHOWN, A.SHOWN),
    Edit.RETRY: (A.RETRY, A.RETRY, A.RETRY, A.RETRY, A.RETRY),
    Edit.GONE: (A.REPOST, A.REPOST, A.REPOST, A.NOTHING, A.NOTHING),
    Edit.NO_CHANNEL: (A.ABANDON, A.ABANDON, A.NOTHING, A.NOTHING, A.NOTHING),
    Edit.REFUSED: (A.NOTHING, A.NOTHING, A.NOTHING, A.NOTHING, A.NOTHING),
}


@pytest.mark.parametrize("edit", list(Edit))
def test_what_follows_an_edit_of_the_board(edit: Edit) -> None:
    running = started(ALICE, BOB).record
    finished = replace(running, status="finished")
    followed = replace(finished, options={**finished.options, board.NEXT_GAME: 2})
    standings = (lobby(ALICE).record, running, finished, followed, replace(running, status="abandoned"))
    assert tuple(board.after_edit(edit, record) for record in standings) == AFTER_EDIT[edit]


def test_a_rematch_copies_the_options_but_not_what_the_old_game_recorded_and_invites_the_other_people() -> None:
    record = started(ALICE, COMPUTER, BOB).record
    record = replace(
        record,
        options={
            "timeout": 7,
            "hints": 1,
            "hinted": ["101"],
            "quiet_saves": 1,
            "next_game": 9,
            "invited": [],
            "news": ["x"],
        },
    )
    assert board.rematch_options(record) == {"timeout": 7, "hints": 1}
    assert board.invited(record, BOB.player) == [ALICE.player]
    assert board.invited(record, ALICE.player) == [BOB.player]
    gone = (Seat("104", "Dan", status="left"), Seat("105", "Eve", status="removed"))
    left = replace(record, seats=(*record.seats, *gone))
    assert board.invited(left, ALICE.player) == [BOB.player]  # not pinged: they may still press Join


def test_a_rematch_starts_at_once_only_for_the_one_person_of_a_game_against_computers() -> None:
    """A lobby with nobody to wait for is pointless; one that someone who left may join again is not."""
    assert board.starts_at_once(started(ALICE, COMPUTER).record)
    assert not board.starts_at_once(started(ALICE).record)  # alone: friends may join the next one
    assert not board.starts_at_once(started(ALICE, COMPUTER, BOB).record)
    record = started(ALICE, COMPUTER, BOB).record
    left = replace(record, seats=(record.seats[0], record.seats[1], replace(record.seats[2], status="left")))
    assert not board.starts_at_once(left)


def test_a_rematch_seats_the_computers_again_named_in_the_new_lobbys_language() -> None:
    record = started(ALICE, COMPUTER, BOB).record
    removed = replace(record.seats[1], status="removed", timeouts=3)
    record = replace(record, seats=(record.seats[0], removed, record.seats[2]))
    seats = board.rematch_computers(record, "de", lambda player, locale: f"{player} ({locale})")
    assert seats == (Seat(COMPUTER.player, f"{COMPUTER.player} (de)", "computer"),)


@given(
    st.lists(st.tuples(st.integers(1, 3), st.integers(1, 10**6)), max_size=60, unique_by=lambda p: p[1]),
    st.integers(1, 10**6),
)
def test_the_tail_counts_the_newest_messages_below_a_board(posts: list[tuple[int, int]], board_id: int) -> None:
    posts.sort(key=lambda post: post[1])  # a channel's message ids grow (Discord's snowflakes)
    tail = ChannelTail(channels=3)
    for channel, message in posts:
        tail.seen(channel, message)
    for channel in (1, 2, 3):
        last = [message for seen, message in posts if seen == channel][-board.LOOK_BELOW :]
        assert tail.below(channel, board_id) == sum(message > board_id for message in last)


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 40)), max_size=60), st.integers(0, 40))
def test_deleted_messages_leave_the_count_but_it_never_falls_below_what_is_there(
    steps: list[tuple[bool, int]], board_id: int
) -> None:
    """Post (``True``) a new message or delete (``False``) the ``n``-th one still there, in one channel."""
    tail, there, ids = ChannelTail(), [], count(1)
    for post, n in steps:
        if post:
            there.append(next(ids))
            tail.seen(1, there[-1])
        elif there:
            tail.deleted(1, {there.pop(n % len(there))})
        below = sum(message > board_id for message in there)
        assert min(below, board.LOOK_BELOW) <= tail.below(1, board_id) <= board.LOOK_BELOW


def test_chatter_deleted_again_is_not_below_the_board() -> None:
    tail = ChannelTail()
    for message in (100, 101, 102):  # the board, then two messages
        tail.seen(1, message)
    tail.deleted(1, {101, 102})
    tail.deleted(2, {5})  # a channel it does not watch
    assert tail.below(1, 100) == 0 and tail.complete_since(1, 100)
    for message in (103, 104, 105, 106):  # the tail holds the last three: 103 counts though it is not held
        tail.seen(1, message)
    tail.deleted(1, {106})
    assert tail.below(1, 100) == board.LOOK_BELOW
    assert tail.below(1, 104) == 1


def test_the_tail_forgets_the_least_recently_active_channel_first() -> None:
    tail = ChannelTail(channels=2)
    for channel in (1, 2, 1, 3):
        tail.seen(channel, 10)
    assert (tail.below(1, 5), tail.below(2, 5), tail.below(3, 5)) == (2, 0, 1)


def test_the_tail_vouches_only_for_boards_it_saw_posted() -> None:
    tail = ChannelTail(channels=2)
    tail.seen(1, 100)  # the first message seen in channel 1 since the tail began watching
    tail.seen(1, 105)
    assert tail.complete_since(1, 100) and tail.complete_since(1, 103)
    assert not tail.complete_since(1, 99)  # posted before the tail watched: something below may have been missed
    assert not tail.complete_since(2, 100)  # a channel it never saw
    for channel in (2, 3):
        tail.seen(channel, 200)
    assert not tail.complete_since(1, 103)  # forgotten for room, so it starts over


def test_a_new_gateway_session_forgets_every_tail() -> None:
    tail = ChannelTail()
    tail.seen(1, 100)
    tail.forget()
    assert not tail.complete_since(1, 100) and tail.below(1, 50) == 0
    tail.seen(1, 110)
    assert not tail.complete_since(1, 100) and tail.complete_since(1, 110)


def test_the_news_replaces_the_last_announcement_unless_the_game_keeps_how_the_last_turn_ended() -> None:
    options = board.noted({"timeout": 5}, ["A rolled"], turn_over=False, keep_turn_end=False, game_over=False)
    assert board.noted(options, ["A banked"], turn_over=True, keep_turn_end=False, game_over=False) == {
        "timeout": 5,
        "news": ["A banked"],
    }

    def step(options: dict[str, object], lines: list[str], turn_over: bool = False) -> dict[str, object]:
        return board.noted(options, lines, turn_over=turn_over, keep_turn_end=True, game_over=False)

    options = step({}, ["Order"], turn_over=True)  # the game started: its order ends no turn, but starts the first
    options = step(options, ["A drew and rolled"])
    assert options["news"] == ["Order", "A drew and rolled"]
    options = step(options, ["A rolled on"])  # the same turn: replaces its own line, keeps the one above
    assert options["news"] == ["Order", "A rolled on"]
    options = step(options, ["A: null"], turn_over=True)
    assert options["news"] == ["A: null"]  # what ended the turn before the current one, nothing older
    options = step(options, ["B drew and rolled"])  # within seconds: A's end stays in sight
    assert options["news"] == ["A: null", "B drew and rolled"]
    options = step(options, ["B banked 300"], turn_over=True)  # A's turn again: A's null is two turns old
    assert options["news"] == ["B banked 300"]
    options = step(options, ["A drew Stop"], turn_over=True)
    assert options["news"] == ["A drew Stop"]
    options = step(options, ["B drew and rolled", "B: null"], turn_over=True)
    assert options["news"] == ["B drew and rolled", "B: null"]
    options = step(options, ["A rolled on"])
    assert options["news"] == ["B drew and rolled", "B: null", "A rolled on"]
    options = step(options, ["A rolled on again"])
    assert options["news"] == ["B drew and rolled", "B: null", "A rolled on again"]
    record = replace(started(ALICE, BOB).record, options=options)
    assert board.rematch_options(record) == {}


def test_the_final_board_keeps_how_the_turn_before_the_last_ended() -> None:
    """QA: A drew Stop, then B's bank won the game; the final board said only B's bank and the winner, so A could
    not see why they scored nothing. The action that ends the game keeps the turn before it, as any other does."""

    def step(options: dict[str, object], lines: list[str], turn_over: bool = False) -> dict[str, object]:
        return board.noted(options, lines, turn_over=turn_over, keep_turn_end=True, game_over=False)

    options = step({}, ["A drew Stop"], turn_over=True)
    options = step(options, ["B drew and rolled"])
    final = board.noted(options, ["B banked 1000", "B won"], turn_over=True, keep_turn_end=True, game_over=True)
    assert final["news"] == ["A drew Stop", "B banked 1000", "B won"]
    alone = board.noted({}, ["A banked 1000", "A won"], turn_over=True, keep_turn_end=True, game_over=True)
    assert alone["news"] == ["A banked 1000", "A won"]
    other = board.noted(options, ["B scored", "B won"], turn_over=True, keep_turn_end=False, game_over=True)
    assert other["news"] == ["B scored", "B won"]  # a game whose news keeps no turn end keeps none at its end either


def test_every_flag_of_the_news_is_named_at_the_call() -> None:
    """Review: ``game_over`` had a default, so a new call site could forget it and lose the final board's news."""
    with pytest.raises(TypeError):
        board.noted({}, ["A won"], turn_over=True, keep_turn_end=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        board.noted({}, ["A won"], True, True, True)  # type: ignore[misc]
