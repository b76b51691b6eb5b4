"""The Knister ceiling benchmark scores grids as the engine does and never reports less than it was given."""

from __future__ import annotations

import numpy as np

from bench.knister_ceiling import _best_arrangement, _score
from bot.engine import knister as engine
from bot.strategy.knister_lines import potentials

#: RULES.md's worked example, row by row: 53 points.
EXAMPLE = [7, 4, 8, 9, 11, 3, 7, 3, 7, 7, 5, 5, 10, 5, 5, 8, 9, 3, 6, 9, 8, 11, 8, 8, 7]


def _indices(numbers: list[int]) -> np.ndarray:
    return np.array([n - engine.LOWEST for n in numbers], dtype=np.int64)


def test_a_full_grid_scores_as_the_rules_worked_example() -> None:
    assert _score(_indices(EXAMPLE), potentials()) == 53


def test_the_search_finds_the_only_arrangement_of_equal_numbers_and_improves_on_a_given_one() -> None:
    assert _best_arrangement(_indices([7] * 25), 10, 1, potentials(), 1) == 14 * 10
    assert _best_arrangement(_indices(EXAMPLE), 20_000, 2, potentials(), 1) > 53
