"""The plumbing's decisions as pure functions: lobby, turns, timeouts, leaving, ending and results, no server."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from bot.engine import kniffel
from bot.engine.core import GameError
from bot.play import transitions as tr
from bot.play.computer import chooser
from bot.play.transitions import Actor, Game, Notice, Refusal
from bot.rankings import SOLO
from bot.storage import GameRecord
from cogs.kniffel import SPEC

NOW = 1_800_000_000.0
ALICE = Actor("101", "Alice")
BOB = Actor("102", "Bob")
CAROL = Actor("103", "Carol")
COMPUTER = Actor("cpu-normal-1", "Robo", kind="computer")
#: The decisions without strategy tables: the engine's timeout action.
FALLBACK = chooser(None, SPEC, random.Random(0))


def lobby(*actors: Actor, timeout: int = 5) -> Game:
    seats = tuple(actor.seat() for actor in actors)
    record = GameRecord(
        id=1, kind="kniffel", variant="kniffel", guild_id=10, channel_id=20, host=actors[0].player,
        status="lobby", version=3, created_at=NOW, updated_at=NOW, options={"timeout": timeout},
        deadline_at=tr.open_deadline(NOW), seats=seats,
    )  # fmt: skip
    return Game(record, None)


def started(*actors: Actor, seed: int = 1) -> Game:
    outcome = tr.start(SPEC, lobby(*actors), actors[0], random.Random(seed), NOW)
    return outcome.after


def test_join_seats_the_actor_and_refuses_twice_or_past_the_limit() -> None:
    joined = tr.join(SPEC, lobby(ALICE), BOB).after
    assert [seat.player for seat in joined.record.seats] == ["101", "102"]
    with pytest.raises(Refusal) as again:
        tr.join(SPEC, joined, BOB)
    assert again.value.key == "lobby.already_joined"
    full = lobby(*(Actor(str(200 + n), f"P{n}") for n in range(SPEC.max_players)))
    with pytest.raises(Refusal) as too_many:
        tr.join(SPEC, full, BOB)
    assert (too_many.value.key, too_many.value.params) == ("lobby.full", {"count": SPEC.max_players})


def test_a_lobby_full_with_a_computer_refuses_a_join_with_the_way_to_make_room() -> None:
    """Nobody's seat is reserved (the host may fill the lobby with computers and start at once), but the refusal
    says that the host can free a computer's seat, naming the host and the button."""
    full = lobby(ALICE, COMPUTER, *(Actor(str(200 + n), f"P{n}") for n in range(SPEC.max_players - 2)))
    with pytest.raises(Refusal) as refused:
        tr.join(SPEC, full, BOB)
    assert (refused.value.key, refused.value.params) == (
        "lobby.full_computers",
        {"name": "Alice", "button": "lobby.remove_computer"},
    )


def test_the_host_role_passes_on_and_the_last_person_out_closes_the_lobby() -> None:
    game = lobby(ALICE, COMPUTER, BOB)
    after = tr.leave_lobby(game, ALICE, NOW).after.record
    assert after.host == BOB.player and after.status == "lobby"
    emptied = tr.leave_lobby(Game(after, None), BOB, NOW)
    closed = emptied.after.record
    assert closed.status == "abandoned" and closed.finished_at == NOW and closed.deadline_at is None
    assert emptied.notices == (Notice("lobby.emptied"),)  # the channel is told why the lobby closed
    with pytest.raises(Refusal, match=r"lobby\.not_joined"):
        tr.leave_lobby(game, CAROL, NOW)


def test_only_the_host_starts_or_cancels() -> None:
    game = lobby(ALICE, BOB)
    for decide in (
        lambda: tr.start(SPEC, game, BOB, random.Random(1), NOW),
        lambda: tr.cancel(game, BOB, NOW),
        lambda: tr.lobby_action(SPEC, game, BOB, "start", random.Random(1), NOW),
    ):
        with pytest.raises(Refusal) as refused:
            decide()
        assert (refused.value.key, refused.value.params) == ("lobby.host_only", {"name": "Alice"})
    cancelled = tr.cancel(game, ALICE, NOW)
    assert cancelled.after.record.status == "abandoned"
    assert cancelled.notices == (Notice("lobby.cancelled"),)


def test_an_unknown_lobby_action_is_refused() -> None:
    with pytest.raises(Refusal, match=r"error\.illegal_action"):
        tr.lobby_action(SPEC, lobby(ALICE), ALICE, "explode", random.Random(1), NOW)


def test_start_deals_the_engine_state_and_sets_the_first_deadline() -> None:
    outcome = tr.start(SPEC, lobby(ALICE, BOB, timeout=7), ALICE, random.Random(1), NOW)
    game = outcome.after
    assert game.record.status == "running" and outcome.moved
    assert isinstance(game.state, kniffel.State) and sorted(game.state.players) == ["101", "102"]
    assert game.record.state == game.state.dump()
    assert game.record.deadline_at == NOW + 7 * 60
    assert outcome.before.record.status == "lobby"


def test_start_needs_enough_players() -> None:
    rules = replace(SPEC, min_players=2)
    with pytest.raises(Refusal) as refused:
        tr.start(rules, lobby(ALICE), ALICE, random.Random(1), NOW)
    assert (refused.value.key, refused.value.params) == ("lobby.too_few", {"count": 2})


def test_a_move_goes_through_the_engine_and_clears_the_players_strikes() -> None:
    game = started(ALICE, BOB)
    player = game.state.current_player
    actor = ALICE if player == ALICE.player else BOB
    struck = Game(replace(game.record, seats=tuple(replace(s, timeouts=2) for s in game.record.seats)), game.state)
    outcome = tr.move(SPEC, struck, actor, kniffel.Roll(), random.Random(2), NOW + 10)
    assert outcome.after.state.rolls == 1
    assert outcome.after.record.seat(player).timeouts == 0
    assert outcome.after.record.seat("102" if player == "101" else "101").timeouts == 2
    assert outcome.after.record.deadline_at == game.record.deadline_at  # same turn: same deadline


def test_an_illegal_move_raises_and_changes_nothing() -> None:
    game = started(ALICE, BOB)
    waiting = BOB if game.state.current_player == ALICE.player else ALICE
    before = game.record.state
    with pytest.raises(GameError):
        tr.move(SPEC, game, waiting, kniffel.Roll(), random.Random(2), NOW)
    assert game.record.state == before and game.state.dump() == before
    with pytest.raises(Refusal, match=r"play\.not_seated"):
        tr.move(SPEC, game, CAROL, kniffel.Roll(), random.Random(2), NOW)


@pytest.mark.parametrize(("status", "key"), [("left", "play.you_left_this_game"), ("removed", "play.you_were_removed")])
def test_a_player_no_longer_in_the_game_is_told_why_a_click_is_refused(status: str, key: str) -> None:
    """QA: a player who had left read "You are not playing in this game." as if they had never been in it."""
    game = started(ALICE, BOB, CAROL)
    seats = tuple(replace(seat, status=status) if seat.player == CAROL.player else seat for seat in game.record.seats)
    game = Game(replace(game.record, seats=seats), game.state)
    with pytest.raises(Refusal) as refused:
        tr.move(SPEC, game, CAROL, kniffel.Roll(), random.Random(2), NOW)
    assert refused.value.key == key


def test_a_deadline_before_its_time_or_of_a_finished_game_does_nothing() -> None:
    game = started(ALICE)
    assert tr.deadline(SPEC, game, FALLBACK, random.Random(1), game.record.deadline_at - 1) is None
    over = Game(replace(game.record, status="finished"), game.state)
    assert tr.deadline(SPEC, over, FALLBACK, random.Random(1), NOW + 10_000) is None


def test_an_expired_lobby_is_abandoned_with_a_notice() -> None:
    game = lobby(ALICE)
    outcome = tr.deadline(SPEC, game, FALLBACK, random.Random(1), game.record.deadline_at + 1)
    assert outcome is not None and outcome.after.record.status == "abandoned"
    assert outcome.notices == (Notice("lobby.expired"),)


def test_a_timeout_plays_the_turn_counts_a_strike_and_the_third_removes() -> None:
    game = started(ALICE, BOB)
    first = game.state.current_player
    now = game.record.deadline_at + 1
    outcome = tr.deadline(SPEC, game, FALLBACK, random.Random(3), now)
    assert outcome is not None
    after = outcome.after
    assert after.state.turns[first] == 1 and after.state.current_player != first
    assert after.record.seat(first).timeouts == 1
    name = after.record.seat(first).display_name
    assert Notice("play.timed_out", {"name": name}, cause=True) in outcome.notices  # told before the move
    assert after.record.deadline_at == now + 5 * 60  # a new turn: a new deadline
    struck = replace(after.record.seat(first), timeouts=2)
    seats = tuple(struck if s.player == first else s for s in after.record.seats)
    # the first player's next turn runs out too, this time the third in a row
    second = tr.timeout(SPEC, Game(replace(after.record, seats=seats), after.state), FALLBACK, random.Random(4), now)
    third = tr.timeout(SPEC, second.after, FALLBACK, random.Random(5), now)
    removed = third.after.record.seat(first)
    assert removed.status == "removed" and removed.timeouts == 3
    assert any(notice.key == "play.removed" for notice in third.notices)
    assert first in third.after.state.left


def test_leaving_a_running_game_keeps_the_card_and_the_last_person_out_abandons() -> None:
    game = started(ALICE, BOB)
    outcome = tr.leave(SPEC, game, ALICE, NOW)
    assert outcome.reply_key == "play.you_left"
    assert outcome.after.record.seat(ALICE.player).status == "left"
    assert outcome.after.record.status == "running"
    gone = tr.leave(SPEC, outcome.after, BOB, NOW)
    assert gone.after.record.status == "abandoned" and gone.results == ()
    assert gone.notices[-1] == Notice("play.abandoned")
    with pytest.raises(Refusal, match=r"play\.not_seated"):
        tr.leave(SPEC, gone.after, CAROL, NOW)


def test_only_people_keep_a_game_alive() -> None:
    game = started(ALICE, COMPUTER)
    outcome = tr.leave(SPEC, game, ALICE, NOW)
    assert outcome.after.record.status == "abandoned"


def test_the_host_or_a_moderator_ends_a_game() -> None:
    game = started(ALICE, BOB)
    with pytest.raises(Refusal, match=r"play\.end_not_allowed"):
        tr.end(game, BOB, NOW)
    ended = tr.end(game, replace(BOB, moderator=True), NOW)
    assert ended.after.record.status == "abandoned" and ended.reply_key == "play.you_ended"
    assert ended.notices == (Notice("play.ended", {"name": "Bob"}),)
    assert tr.end(game, ALICE, NOW).after.record.status == "abandoned"


def test_a_finished_game_stores_one_result_per_person_and_none_for_computers() -> None:
    game = started(ALICE, COMPUTER)
    rng = random.Random(9)
    actors = {ALICE.player: ALICE, COMPUTER.player: COMPUTER}
    outcome = None
    while game.record.status == "running":
        state = game.state
        player = state.current_player
        action = kniffel.timeout_action(state, player)
        outcome = tr.move(SPEC, game, actors[player], action, rng, NOW)
        game = outcome.after
    assert outcome is not None and game.record.status == "finished" and game.record.deadline_at is None
    assert [row.user_id for row in outcome.results] == [101]
    row = outcome.results[0]
    assert row.score == kniffel.card_totals(game.state, ALICE.player).total
    assert row.finished_at == NOW and set(row.counters) == {"kniffels", "upper_bonus", "vs_normal", "won_vs_normal"}
    # kept apart from the people-vs-people standings, with the level played against and whether it was beaten
    assert row.kind == "kniffel+computer" and (row.counters["vs_normal"], row.counters["won_vs_normal"]) == (1, row.won)


def test_the_transitions_need_no_discord() -> None:
    code = "import sys, bot.play.transitions; print('discord' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_renderers_import_neither_the_plumbing_nor_storage() -> None:
    """bot/ui depends on the engine and its render types only (docs/architecture.md)."""
    code = (
        "import sys, bot.ui.kniffel, bot.ui.dicepoker, bot.ui.knister, bot.ui.tutto, bot.ui.lobby, "
        "bot.ui.leaderboard, bot.ui.rules; "
        "print(sorted(m for m in sys.modules if m.startswith(('bot.play', 'bot.storage'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------- computer players


def name_of(player: str, locale: str) -> str:
    return f"bot {player} ({locale})"


def test_the_host_adds_computers_up_to_the_limit_and_removes_the_last_one() -> None:
    game = lobby(ALICE)
    for _ in range(SPEC.max_players - 1):
        game = tr.lobby_action(SPEC, game, ALICE, "add_computer", random.Random(1), NOW, ("normal",), name_of).after
    players = [seat.player for seat in game.record.seats]
    assert players[1:3] == ["cpu-normal-1", "cpu-normal-2"] and len(players) == SPEC.max_players
    assert game.record.seat("cpu-normal-2") == tr.Seat("cpu-normal-2", "bot cpu-normal-2 (en-US)", "computer")
    with pytest.raises(Refusal, match=r"lobby\.full"):
        tr.lobby_action(SPEC, game, ALICE, "add_computer", random.Random(1), NOW, ("easy",), name_of)
    removed = tr.lobby_action(SPEC, game, ALICE, "remove_computer", random.Random(1), NOW).after
    assert removed.record.seat(players[-1]) is None and len(removed.record.seats) == SPEC.max_players - 1


def test_only_the_host_adds_or_removes_computers_and_only_known_levels() -> None:
    game = lobby(ALICE, BOB)
    with pytest.raises(Refusal, match=r"lobby\.host_only"):
        tr.lobby_action(SPEC, game, BOB, "add_computer", random.Random(1), NOW, ("easy",), name_of)
    with pytest.raises(Refusal, match=r"error\.illegal_action"):
        tr.lobby_action(SPEC, game, ALICE, "add_computer", random.Random(1), NOW, ("godlike",), name_of)
    with pytest.raises(Refusal, match=r"lobby\.no_computer"):
        tr.lobby_action(SPEC, game, ALICE, "remove_computer", random.Random(1), NOW)


def test_a_computer_to_act_gets_a_short_deadline_and_plays_one_step_when_it_passes() -> None:
    # the first seed whose roll-off lets the computer start
    game = next(g for g in (started(ALICE, COMPUTER, seed=s) for s in range(50)) if g.state.current_player != "101")
    outcome = tr.paced(SPEC, tr.Outcome(game, game), NOW, 1.2)
    assert outcome.after.record.deadline_at == NOW + 1.2
    asked: list[tuple[str, str]] = []

    def choose(state: kniffel.State, player: str, level: str) -> kniffel.Action:
        asked.append((player, level))
        return kniffel.timeout_action(state, player)

    step = tr.deadline(SPEC, outcome.after, choose, random.Random(2), NOW + 2)
    assert step is not None and asked == [("cpu-normal-1", "normal")]
    assert step.after.state.rolls == 1 and step.after.state.current_player == COMPUTER.player  # one step: the roll
    assert tr.paced(SPEC, step, NOW + 2, 1.2).after.record.deadline_at == NOW + 3.2
    for _ in range(5):  # the computer's turn ends within its three rolls and a box
        if step.after.state.current_player != COMPUTER.player:
            break
        step = tr.computer_step(SPEC, step.after, choose, random.Random(3), NOW + 3)
    assert step.after.state.turns[COMPUTER.player] == 1 and step.after.state.current_player == ALICE.player
    assert step.after.record.deadline_at == NOW + 3 + 5 * 60  # a person's turn: the person's timeout
    assert tr.paced(SPEC, step, NOW + 3, 1.2) == step


def test_a_person_who_times_out_is_played_by_the_normal_computer() -> None:
    game = started(ALICE, BOB)
    first = game.state.current_player
    levels: set[str] = set()

    def choose(state: kniffel.State, player: str, level: str) -> kniffel.Action:
        levels.add(level)
        return kniffel.timeout_action(state, player)

    outcome = tr.deadline(SPEC, game, choose, random.Random(3), game.record.deadline_at + 1)
    assert outcome is not None and outcome.after.state.turns[first] == 1 and levels == {"normal"}


def test_start_options_seat_computers_within_the_game_and_refuse_the_rest() -> None:
    seats = tr.computer_seats(SPEC, 2, "perfect", "de", name_of)
    assert [(seat.player, seat.kind) for seat in seats] == [
        ("cpu-perfect-1", "computer"),
        ("cpu-perfect-2", "computer"),
    ]
    assert seats[0].display_name == "bot cpu-perfect-1 (de)"
    with pytest.raises(Refusal, match=r"play\.bad_option") as too_many:
        tr.computer_seats(SPEC, 8, "easy", "en", name_of)
    assert too_many.value.params == {"name": "opponents", "low": 0, "high": 7}
    with pytest.raises(Refusal, match=r"play\.bad_option"):
        tr.computer_seats(SPEC, 1, "godlike", "en", name_of)


def test_hints_default_on_for_one_person_and_the_host_switches_them() -> None:
    assert tr.hints_on(lobby(ALICE).record) and tr.hints_on(lobby(ALICE, COMPUTER).record)
    assert not tr.hints_on(lobby(ALICE, BOB).record)
    switched = tr.lobby_action(SPEC, lobby(ALICE, BOB), ALICE, "hints", random.Random(1), NOW).after
    assert tr.hints_on(switched.record) and switched.record.options == {"timeout": 5, "hints": 1}
    off = tr.lobby_action(SPEC, switched, ALICE, "hints", random.Random(1), NOW).after
    assert not tr.hints_on(off.record)
    with pytest.raises(Refusal, match=r"lobby\.host_only"):
        tr.lobby_action(SPEC, off, BOB, "hints", random.Random(1), NOW)


def test_a_player_who_used_a_hint_is_marked_once_and_in_the_results() -> None:
    game = started(ALICE)
    marked = tr.mark_hinted(game, ALICE)
    assert marked is not None and marked.after.record.options["hinted"] == ["101"]
    assert tr.mark_hinted(marked.after, ALICE) is None
    game = marked.after
    while game.record.status == "running":
        game = tr.move(SPEC, game, ALICE, kniffel.timeout_action(game.state, "101"), random.Random(2), NOW).after
    rows = tr.results(SPEC, game.record, game.state)
    assert rows[0].counters["hints_used"] == 1 and rows[0].kind == "kniffel"


def test_every_applied_action_is_in_the_outcomes_history_with_the_state_it_was_applied_to() -> None:
    game = started(ALICE, BOB)
    player = game.state.current_player
    actor = ALICE if player == ALICE.player else BOB
    moved = tr.move(SPEC, game, actor, kniffel.Roll(), random.Random(2), NOW + 10)
    assert [(m.player, m.source, m.action, m.state) for m in moved.moves] == [
        (player, "player", '{"kind":"roll"}', game.record.state)
    ]
    timed_out = tr.timeout(SPEC, moved.after, FALLBACK, random.Random(3), NOW + 20)
    assert {m.source for m in timed_out.moves} == {"timeout"} and timed_out.moves
    assert timed_out.moves[0].state == moved.after.state.dump()  # the state each step was applied to
    assert kniffel.parse_action(json.loads(timed_out.moves[-1].action)).kind == "score"
    assert tr.paced(SPEC, timed_out, NOW, 1.2).moves == timed_out.moves  # pacing keeps the history


def test_a_computers_steps_are_each_stored_with_their_own_state() -> None:
    game = next(g for g in (started(ALICE, COMPUTER, seed=s) for s in range(50)) if g.state.current_player != "101")
    step = tr.computer_step(SPEC, game, FALLBACK, random.Random(2), NOW)
    assert [(m.player, m.source) for m in step.moves] == [(COMPUTER.player, "computer")]
    assert step.moves[0].state == game.state.dump()
    # refused or unchanged outcomes carry no history: a lobby action, a hint mark
    assert tr.toggle_hints(lobby(ALICE), ALICE).moves == ()


def played_out(game: Game, *actors: Actor, seed: int = 5) -> tr.Outcome:
    """Every turn played with the engine's timeout action until the game ends; the finishing outcome."""
    rng = random.Random(seed)
    by_player = {actor.player: actor for actor in actors}
    while True:
        player = game.state.current_player
        outcome = tr.move(SPEC, game, by_player[player], kniffel.timeout_action(game.state, player), rng, NOW)
        if outcome.after.record.status != "running":
            return outcome
        game = outcome.after


def test_a_game_played_alone_is_never_a_win_and_is_marked_solo() -> None:
    outcome = played_out(started(ALICE), ALICE)
    assert outcome.after.record.status == "finished"
    (row,) = outcome.results
    assert (row.user_id, row.kind, row.rank, row.won) == (101, "kniffel", 1, False)
    assert row.score == kniffel.card_totals(outcome.after.state, ALICE.player).total
    assert row.counters[SOLO] == 1


def test_beating_a_computer_or_a_person_is_still_a_win() -> None:
    against_computer = played_out(started(ALICE, COMPUTER), ALICE, COMPUTER)
    (row,) = against_computer.results
    (alice,) = [result for result in kniffel.results(against_computer.after.state) if result.player == "101"]
    assert row.won == alice.won and SOLO not in row.counters
    two = played_out(started(ALICE, BOB), ALICE, BOB)
    engine = {int(result.player): result for result in kniffel.results(two.after.state)}
    assert sorted((row.user_id, row.rank, row.won) for row in two.results) == [
        (user, engine[user].rank, engine[user].won) for user in (101, 102)
    ]
    assert any(row.won for row in two.results) and not any(SOLO in row.counters for row in two.results)


def test_picking_dice_does_not_move_on_from_a_position_anything_else_does() -> None:
    """A hint stays while its player picks the dice it names, and goes after any other move (``moved_on``)."""
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    assert not tr.moved_on(tr.played("a", "player", kniffel.ToggleHold(index=2), state))
    assert tr.moved_on(tr.played("a", "player", kniffel.Roll(), state))
    assert tr.moved_on(tr.played("a", "timeout", kniffel.Score(box="chance"), state))
    assert not tr.moved_on(tr.MoveRow("a", "player", '{"kind":"select_scoring"}', "{}"))


def test_a_hints_mark_keeps_the_stamp_that_every_move_moves_on() -> None:
    """Noting a hint's use is saved (a new version) but changes nothing a control acts on: the controls' stamp stays,
    so a press crossing the mark is not outdated; a move after it moves the stamp on as before."""
    game = started(ALICE)
    marked = tr.mark_hinted(game, ALICE)
    assert marked is not None
    noted = replace(marked.after.record, version=game.record.version + 1)
    assert tr.stamp(noted) == tr.stamp(game.record) == game.record.version
    moved = tr.move(SPEC, Game(noted, marked.after.state), ALICE, kniffel.Roll(), random.Random(2), NOW).after
    assert tr.stamp(replace(moved.record, version=noted.version + 1)) == tr.stamp(game.record) + 1
