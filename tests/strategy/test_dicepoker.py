"""The exact dice poker solver: hand-checked rows, first-roll doubling, passes and a simulation check."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from bot import strategy
from bot.engine import dicepoker as engine
from bot.strategy import dicepoker

LOWER_ALL = (1 << len(engine.LOWER)) - 1


def _only(row: str) -> int:
    return LOWER_ALL & ~(1 << engine.LOWER.index(row))


def _state(card: dict[str, int], dice: list[int], rolls: int, turns: int) -> engine.State:
    state = engine.new_game(["p"], random.Random(0))
    return state.model_copy(update={"cards": {"p": card}, "turns": {"p": turns}, "dice": dice, "rolls": rolls})


def test_last_turn_with_only_chance_is_five_dice_rolled_three_times(dicepoker_tables: dicepoker.Tables) -> None:
    per_die = (2 / 6) * 5.5 + (4 / 6) * ((3 / 6) * 5 + (3 / 6) * 3.5)  # chance is never doubled
    assert dicepoker_tables.lower["perfect"][_only("chance"), 1] == pytest.approx(5 * per_die)


def test_a_turn_without_a_row_is_worth_nothing(dicepoker_tables: dicepoker.Tables) -> None:
    assert dicepoker_tables.lower["perfect"][_only("chance"), 0] == 0


def test_the_bonus_needs_a_non_negative_upper_sum(dicepoker_tables: dicepoker.Tables) -> None:
    full = (1 << len(engine.UPPER)) - 1
    upper = dicepoker_tables.upper["perfect"]
    zero = -dicepoker.LOWEST_UPPER
    assert upper[full, zero] - upper[full, zero - 1] == pytest.approx(50)
    assert upper[full, zero + 1] == pytest.approx(upper[full, zero])


def test_a_first_roll_large_straight_is_written_doubled(table_dir: Path) -> None:
    state = _state(dict.fromkeys(engine.UPPER, 0), [2, 3, 4, 5, 6], 1, 6)
    best = strategy.evaluate(state, "p", directory=table_dir)[0]
    tabs = dicepoker.load(table_dir)
    rest = tabs.lower["perfect"][1 << engine.LOWER.index("large_straight"), 8]
    # Upper sum 0 earns the bonus: 50 on the card already, 40 for the doubled straight.
    assert best.action == engine.Score(row="large_straight")
    assert best.value == pytest.approx(50 + 40 + rest)


def test_the_pass_is_valued_as_the_card_stands(table_dir: Path) -> None:
    card = dict.fromkeys(engine.UPPER, 0) | {row: 10 for row in engine.LOWER if row != "poker"}
    state = _state(card, [1, 2, 3, 5, 6], 3, 14)
    values = strategy.evaluate(state, "p", directory=table_dir)
    assert [(v.action, v.value) for v in values] == [(engine.Pass(), engine.total(card))]


def test_simulated_games_average_the_table_value(dicepoker_tables: dicepoker.Tables) -> None:
    totals = dicepoker.simulate(dicepoker_tables, "perfect", 4000, seed=5)
    error = totals.std() / np.sqrt(len(totals))
    assert abs(totals.mean() - dicepoker_tables.expected_score()) < 4 * error


def test_levels_are_ordered(dicepoker_tables: dicepoker.Tables) -> None:
    means = {level: dicepoker.simulate(dicepoker_tables, level, 2000, seed=3).mean() for level in strategy.LEVELS}
    assert means["easy"] < means["normal"] < means["perfect"] - 3
