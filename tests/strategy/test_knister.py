"""The Knister players: line potentials from the engine's scoring, rollouts on top, each stronger than the last."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest

from bot import strategy
from bot.engine import knister as engine
from bot.strategy import knister, knister_lines


def _potential(*numbers: int) -> float:
    return float(knister_lines.potentials()[knister_lines.CONTENT_INDEX[tuple(sorted(numbers))]])


def test_a_full_line_is_worth_its_score() -> None:
    assert _potential(3, 4, 5, 6, 7) == engine.score_line([3, 4, 5, 6, 7])


def test_one_empty_cell_with_a_random_roll() -> None:
    # 7-7-7-7 and one cell to go: a 7 (chance 6/36) makes five equal (10), anything else four equal (6).
    assert _potential(7, 7, 7, 7) == pytest.approx(6 / 36 * 10 + 30 / 36 * 6)


@pytest.mark.parametrize("level", ["normal", "perfect"])
def test_placement_completes_a_high_straight(table_dir: Path, level: str) -> None:
    grid: engine.Grid = [[None] * 5 for _ in range(5)]
    grid[0][:4] = [2, 3, 4, 5]
    state = engine.new_game(["p"], random.Random(0)).model_copy(update={"grids": {"p": grid}, "dice": [3, 3]})
    assert strategy.choose(state, "p", level, random.Random(0), directory=table_dir) == engine.Place(cell=4)


def test_learned_values_end_at_the_line_scores(knister_tables: knister.Tables) -> None:
    # After the last placement a line's value is its score; before it, a value the player can steer exceeds
    # what random filling promises for an empty line.
    assert np.array_equal(knister_tables.learned[engine.CELLS], knister_tables.potential)
    empty = knister_lines.CONTENT_INDEX[()]
    assert knister_tables.learned[0, empty] > knister_tables.potential[empty]


def test_each_level_beats_the_one_below(knister_tables: knister.Tables) -> None:
    # A hint's budget of rollouts keeps the test fast; it is still enough to beat the potential player.
    means = {
        level: np.mean(knister.play_solo(knister_tables, level, 8, seed=1, work=knister.HINT_WORK))
        for level in strategy.LEVELS
    }
    assert means["easy"] + 5 < means["normal"] < means["perfect"]


def test_perfect_searches_with_the_committed_grid_value(knister_tables: knister.Tables) -> None:
    # The weights beside the module match the engine's line scores, so perfect uses them, not the rollouts.
    assert knister_tables.net is not None


def test_rollouts_grow_as_the_grid_fills() -> None:
    # The same work buys few rollouts per cell for the first placement and many near the end, up to the cap.
    counts = [knister.rollouts(empty, knister.DECISION_WORK) for empty in range(engine.CELLS, 0, -1)]
    assert counts == sorted(counts)
    assert 256 <= counts[0] < counts[12] < knister.MAX_ROLLOUTS == counts[-1]
    assert knister.rollouts(engine.CELLS, knister.HINT_WORK) < counts[0]


def test_rollout_values_are_seeded(knister_tables: knister.Tables) -> None:
    # Without a grid value for these rules, perfect plays rollouts. Their rolls come from the seed alone: the
    # same seed gives the same values, another seed other ones.
    lines_only = dataclasses.replace(knister_tables, net=None)
    grid: engine.Grid = [[None] * 5 for _ in range(5)]
    grid[0][:3] = [7, 7, 7]

    def values(seed: int) -> dict[int, float]:
        return knister.placement_values(lines_only, grid, 7, "perfect", seed=seed, work=knister.HINT_WORK)

    assert values(3) == values(3) != values(4)
    assert sorted(values(3)) == list(range(3, engine.CELLS))
