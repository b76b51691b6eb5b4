"""A person's click takes the steps after it that leave no choice: Tutto's roll after a card, in the same outcome."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import tutto
from bot.play import transitions as tr
from bot.play.computer import chooser
from bot.play.transitions import Actor, Game
from bot.storage import GameRecord, Seat
from cogs.tutto import SPEC
from tests.scripted import ScriptedRandom, act, scripted_dice, take, tutto_table

NOW = 1_800_000_000.0
ALICE = Actor("101", "Alice")
BOB = Actor("102", "Bob")
COMPUTER = Actor("cpu-normal-1", "Robo", kind="computer")
FALLBACK = chooser(None, SPEC, random.Random(0))


def running(state: tutto.State, *actors: Actor) -> Game:
    """A running Tutto game of ``actors`` (Alice and Bob when not given) at ``state``."""
    seats = tuple(Seat(actor.player, actor.name, actor.kind) for actor in actors or (ALICE, BOB))
    record = GameRecord(
        id=1, kind="tutto", variant="standard", guild_id=10, channel_id=20, host=ALICE.player, status="running",
        version=3, created_at=NOW, updated_at=NOW, options={"timeout": 5}, deadline_at=NOW + 300, seats=seats,
        state=state.dump(),
    )  # fmt: skip
    return Game(record, state)


def table(*deck: str) -> tutto.State:
    return tutto_table(deck, {ALICE.player: 0, BOB.player: 0})


def steps(outcome: tr.Outcome) -> list[tuple[str, str, str]]:
    return [(m.player, m.source, json.loads(m.action)["kind"]) for m in outcome.moves]


def test_a_draw_rolls_at_once_in_one_outcome_that_keeps_both_steps() -> None:
    game = running(table("bonus_300"))
    outcome = tr.move(SPEC, game, ALICE, tutto.Draw(), scripted_dice(1, 2, 3, 4, 6, 6), NOW + 5)
    state = outcome.after.state
    assert (state.phase, state.card, state.roll) == ("select", "bonus_300", [1, 2, 3, 4, 6, 6])
    assert steps(outcome) == [(ALICE.player, "player", "draw"), (ALICE.player, "player", "roll")]
    # each step is stored with the state it was applied to, so a review or a replay sees both
    drawn = tutto.State.load(outcome.moves[1].state)
    assert outcome.moves[0].state == game.record.state
    assert (drawn.phase, drawn.card) == ("roll", "bonus_300")
    # the news is told from the events of both steps, in order; the state saved is the rolled one
    assert [event.key for event in state.events] == ["tutto.card", "tutto.rolled"]
    assert outcome.after.record.state == state.dump()
    assert outcome.after.record.deadline_at == game.record.deadline_at  # the same turn: the same deadline


def test_a_stop_card_ends_the_turn_without_a_roll() -> None:
    outcome = tr.move(SPEC, running(table("stop")), ALICE, tutto.Draw(), scripted_dice(), NOW + 5)
    state = outcome.after.state
    assert (state.phase, state.current) == ("draw", BOB.player)
    assert steps(outcome) == [(ALICE.player, "player", "draw")]


def test_a_null_on_the_roll_after_the_card_ends_the_turn() -> None:
    outcome = tr.move(SPEC, running(table("bonus_300")), ALICE, tutto.Draw(), scripted_dice(2, 2, 3, 3, 4, 6), NOW)
    state = outcome.after.state
    assert (state.phase, state.current) == ("draw", BOB.player)
    assert [event.key for event in state.events] == ["tutto.card", "tutto.rolled", "tutto.null", "tutto.turn"]


def test_a_tutto_leaves_the_choice_and_continuing_draws_and_rolls() -> None:
    state = take(act(act(table("bonus_300", "double"), tutto.Draw()), tutto.Roll(), 1, 1, 1, 5, 5, 1), 1, 1, 1, 5, 5)
    state = take(state, 1)
    outcome = tr.move(SPEC, running(state), ALICE, tutto.RollOn(), scripted_dice(), NOW)
    assert outcome.after.state.phase == "tutto"  # Stop or Continue: a choice, never taken for the player
    assert steps(outcome) == [(ALICE.player, "player", "roll_on")]
    continued = tr.move(SPEC, outcome.after, ALICE, tutto.Continue(), scripted_dice(5, 2, 3, 4, 6, 6), NOW)
    assert (continued.after.state.card, continued.after.state.roll) == ("double", [5, 2, 3, 4, 6, 6])
    assert steps(continued) == [(ALICE.player, "player", "continue"), (ALICE.player, "player", "roll")]


def test_a_fireworks_tutto_rolls_all_six_again_at_once() -> None:
    state = take(act(act(table("fireworks"), tutto.Draw()), tutto.Roll(), 1, 1, 1, 5, 5, 1), 1, 1, 1, 5, 5, 1)
    outcome = tr.move(SPEC, running(state), ALICE, tutto.RollOn(), scripted_dice(5, 2, 3, 4, 6, 6), NOW)
    after = outcome.after.state
    assert (after.phase, after.roll, after.secured) == ("select", [5, 2, 3, 4, 6, 6], 1200)
    assert steps(outcome) == [(ALICE.player, "player", "roll_on"), (ALICE.player, "player", "roll")]


def fireworks_roll(*dice: int) -> tutto.State:
    return act(act(table("fireworks"), tutto.Draw()), tutto.Roll(), *dice)


def test_under_fireworks_take_all_rolls_on_in_the_same_click() -> None:
    """The card demands every scoring die and forbids stopping: the tap that takes them is the tap that rolls on."""
    game = running(fireworks_roll(1, 5, 2, 3, 4, 6))
    outcome = tr.move(SPEC, game, ALICE, tutto.SelectScoring(), scripted_dice(1, 2, 3, 4), NOW)
    after = outcome.after.state
    assert (after.phase, after.aside, after.roll, after.selected) == ("select", [1, 5], [1, 2, 3, 4], [])
    assert steps(outcome) == [(ALICE.player, "player", "select_scoring"), (ALICE.player, "player", "roll_on")]
    assert [event.key for event in after.events][-1] == "tutto.rolled"


def test_under_fireworks_the_last_scoring_die_tapped_rolls_on() -> None:
    game = running(fireworks_roll(1, 5, 2, 3, 4, 6))
    first = tr.move(SPEC, game, ALICE, tutto.ToggleSelect(index=0), scripted_dice(), NOW)
    assert first.after.state.selected == [0] and len(first.moves) == 1  # the 5 is still to take: nothing rolls
    second = tr.move(SPEC, first.after, ALICE, tutto.ToggleSelect(index=1), scripted_dice(1, 2, 3, 4), NOW)
    assert (second.after.state.aside, second.after.state.roll) == ([1, 5], [1, 2, 3, 4])
    assert steps(second)[1:] == [(ALICE.player, "player", "roll_on")]


def test_under_fireworks_a_null_after_take_all_ends_the_turn_with_the_points_kept() -> None:
    game = running(fireworks_roll(1, 5, 2, 3, 4, 6))
    outcome = tr.move(SPEC, game, ALICE, tutto.SelectScoring(), scripted_dice(2, 3, 4, 6), NOW)
    after = outcome.after.state
    assert (after.current, after.phase, after.scores[ALICE.player]) == (BOB.player, "draw", 150)


def test_a_bonus_card_never_rolls_on_for_the_player() -> None:
    """Outside Fireworks a complete selection still leaves Roll on or Stop to the player."""
    state = act(act(table("bonus_300"), tutto.Draw()), tutto.Roll(), 1, 5, 2, 3, 4, 6)
    outcome = tr.move(SPEC, running(state), ALICE, tutto.SelectScoring(), scripted_dice(), NOW)
    assert outcome.after.state.selected == [0, 1] and len(outcome.moves) == 1


def test_a_selection_is_never_completed_for_the_player() -> None:
    state = act(act(table("bonus_300"), tutto.Draw()), tutto.Roll(), 1, 2, 3, 4, 6, 6)
    outcome = tr.move(SPEC, running(state), ALICE, tutto.ToggleSelect(index=0), scripted_dice(), NOW)
    assert outcome.after.state.selected == [0] and outcome.after.state.phase == "select"
    assert len(outcome.moves) == 1


def test_a_computer_still_draws_and_rolls_one_paced_step_at_a_time() -> None:
    game = running(tutto_table(["bonus_300"], {COMPUTER.player: 0, ALICE.player: 0}), COMPUTER, ALICE)
    state = tr.computer_step(SPEC, game, FALLBACK, random.Random(2), NOW).after.state
    assert (state.phase, state.card) == ("roll", "bonus_300")


def test_a_computers_take_all_goes_on_to_the_action_it_prepares() -> None:
    """Take all only picks dice, as a toggle does: the computer's one paced step also rolls on or stops."""
    seats = tutto_table(["bonus_300"], {COMPUTER.player: 0, ALICE.player: 0})
    game = running(act(act(seats, tutto.Draw()), tutto.Roll(), 1, 2, 3, 4, 6, 6), COMPUTER, ALICE)
    outcome = tr.computer_step(SPEC, game, FALLBACK, scripted_dice(), NOW)
    assert steps(outcome) == [(COMPUTER.player, "computer", "select_scoring"), (COMPUTER.player, "computer", "stop")]
    assert outcome.after.state.current == ALICE.player


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_no_click_takes_a_step_for_the_player_that_had_a_choice(seed: int) -> None:
    """A random game of two people, driven through ``move``: the steps after each click had one legal action."""
    pick = random.Random(seed)
    rng = ScriptedRandom(seed=seed)
    game = running(tutto.new_game([ALICE.player, BOB.player], rng))
    for _ in range(400):
        state = game.state
        if tutto.is_over(state):
            break
        actor = ALICE if state.current == ALICE.player else BOB
        outcome = tr.move(SPEC, game, actor, pick.choice(tutto.legal_actions(state, actor.player)), rng, NOW)
        for row in outcome.moves[1:]:
            before = tutto.State.load(row.state)
            legal = tutto.legal_actions(before, actor.player)
            if legal != [tutto.Roll()]:
                # Fireworks with every scoring die selected: besides rolling on, only toggles that spoil the selection
                assert before.card is not None and tutto.card_kind(before.card) == tutto.FIREWORKS
                assert json.loads(row.action)["kind"] == "roll_on"
                for other in (action for action in legal if action != tutto.RollOn()):
                    assert isinstance(other, tutto.ToggleSelect)
                    spoilt = tutto.apply(before, actor.player, other, random.Random(0))
                    assert tutto.RollOn() not in tutto.legal_actions(spoilt, actor.player)
            assert (before.current, before.turn) == (actor.player, state.turn)
        after = outcome.after.state
        assert tutto.is_over(after) or after.phase != "roll"
        game = outcome.after
