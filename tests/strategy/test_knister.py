"""The Knister player: line potentials from the engine's scoring, and stronger play than the greedy one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bot import strategy
from bot.engine import knister as engine
from bot.strategy import knister


def test_a_full_line_is_worth_its_score() -> None:
    assert knister.potentials("perfect")[(3, 4, 5, 6, 7)] == engine.score_line([3, 4, 5, 6, 7])


def test_one_empty_cell_with_plain_rolls() -> None:
    # 7-7-7-7 and one cell to go: a 7 (chance 6/36) makes five equal (10), anything else four equal (6).
    assert knister.potentials("normal")[(7, 7, 7, 7)] == pytest.approx(6 / 36 * 10 + 30 / 36 * 6)


def test_placement_prefers_the_line_it_completes() -> None:
    grid: engine.Grid = [[None] * 5 for _ in range(5)]
    grid[0][:4] = [2, 3, 4, 5]
    state = engine.new_game(["p"], random.Random(0)).model_copy(update={"grids": {"p": grid}, "dice": [3, 3]})
    assert strategy.choose(state, "p", "perfect", random.Random(0)) == engine.Place(cell=4)


def test_perfect_beats_the_greedy_player() -> None:
    assert np.mean(knister.play_solo("perfect", 60, seed=1)) > np.mean(knister.play_solo("easy", 60, seed=1)) + 5
