"""``strategy.keep_values``: every keep of a five-dice roll valued from one solve of the turn, the very floats that
valuing one copy of the state per keep (the hint's way before) gave."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import strategy
from bot.engine import dicepoker, kniffel, knister, tutto
from bot.engine.fivedice import ROLLS

RULE_SETS = {"kniffel": (kniffel, {"ruleset": "kniffel"}), "classic": (kniffel, {"ruleset": "classic"})}
RULE_SETS["dicepoker"] = (dicepoker, {})


def per_copy(state: Any, player: str, table_dir: Path) -> list[tuple[tuple[int, ...], float]]:
    """The reference: for every distinct keep that rerolls a die, ``strategy.evaluate`` on a copy of the state
    holding exactly those dice, and the value of its roll; best first, ties in the order of the hold masks."""
    keeps: dict[tuple[int, ...], float] = {}
    for mask in range(1 << len(state.dice)):
        held = [bool(mask >> index & 1) for index in range(len(state.dice))]
        kept = tuple(sorted(die for die, hold in zip(state.dice, held, strict=True) if hold))
        if kept in keeps or all(held):
            continue
        trial = state.model_copy(update={"held": held})
        values = strategy.evaluate(trial, player, directory=table_dir)
        keeps[kept] = next(entry.value for entry in values if entry.action.kind == "roll")
    return sorted(keeps.items(), key=lambda item: -item[1])


def reroll_positions(engine: Any, seed: int, players: int, **options: Any) -> Iterator[Any]:
    """Every state of a seeded random game in which the player to act may reroll: any card, dice and holds a game
    can reach."""
    rng = random.Random(seed)
    state = engine.new_game([str(n) for n in range(players)], rng, **options)
    while not engine.is_over(state):
        if 0 < state.rolls < ROLLS:
            yield state
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)


@pytest.mark.parametrize("rule_set", list(RULE_SETS))
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), skip=st.integers(0, 40), players=st.integers(1, 3))
def test_every_keep_is_worth_what_a_copy_holding_it_is_worth(
    rule_set: str, seed: int, skip: int, players: int, table_dir: Path
) -> None:
    engine, options = RULE_SETS[rule_set]
    # Four states of the game a few turns apart (the states of one turn share their dice and keeps).
    for state in islice(reroll_positions(engine, seed, players, **options), skip, skip + 28, 7):
        player = engine.to_act(state)[0]

        keeps = strategy.keep_values(state, player, directory=table_dir)

        assert [(entry.action, entry.value) for entry in keeps] == [
            (strategy.Keep(kept), value) for kept, value in per_copy(state, player, table_dir)
        ]
        for other in state.players:
            if other != player:
                assert strategy.keep_values(state, other, directory=table_dir) == []


def chance_only(rolls: int) -> kniffel.State:
    """Classic (no bonus), every box but chance filled with 0, 6 5 1 2 3 on the table after ``rolls`` rolls."""
    state = kniffel.new_game(["p"], random.Random(0), ruleset="classic")
    card = {box: 0 for box in kniffel.BOXES if box != "chance"}
    update = {"cards": {"p": card}, "turns": {"p": len(card)}, "dice": [6, 5, 1, 2, 3], "rolls": rolls}
    return state.model_copy(update=update)


def test_hand_checked_keeps_for_the_last_box_chance(table_dir: Path) -> None:
    # One reroll left: a rerolled die adds 3.5. Two left: it is kept on 4-6 the second time, 4.25.
    last = {keep.action.dice: keep.value for keep in strategy.keep_values(chance_only(2), "p", directory=table_dir)}
    assert len(last) == 31  # five different faces: every proper subset
    assert last[(5, 6)] == pytest.approx(11 + 3 * 3.5)
    assert last[()] == pytest.approx(5 * 3.5)
    assert last[(1, 2, 3, 5)] == pytest.approx(11 + 3.5)
    two = strategy.keep_values(chance_only(1), "p", directory=table_dir)
    assert two[0].action == strategy.Keep((5, 6)) and two[0].value == pytest.approx(11 + 3 * 4.25)
    assert {keep.action.dice: keep.value for keep in two}[(1, 6)] == pytest.approx(
        6 + 3.5 + 3 * 4.25
    )  # the 1 is rerolled next time


def test_no_keeps_before_the_first_roll_after_the_last_or_outside_five_dice(table_dir: Path) -> None:
    assert strategy.keep_values(chance_only(0), "p", directory=table_dir) == []
    assert strategy.keep_values(chance_only(3), "p", directory=table_dir) == []
    for engine in (tutto, knister):
        assert strategy.keep_values(engine.new_game(["a", "b"], random.Random(0)), "a", directory=table_dir) == []


def test_the_dice_held_do_not_change_the_keeps(table_dir: Path) -> None:
    state = chance_only(1)
    for held in ([True] * 5, [False, True, False, True, False]):
        held_state = state.model_copy(update={"held": held})
        assert strategy.keep_values(held_state, "p", directory=table_dir) == strategy.keep_values(
            state, "p", directory=table_dir
        )
