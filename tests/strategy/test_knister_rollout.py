"""The Knister rollout prototype values cells as the network does and finishes a grid at its exact score."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bench.knister_rollout import candidate_values, fast_best_after, rollout_means
from bot.engine import knister as engine
from bot.strategy import knister, knister_lines, knister_net
from bot.strategy.knister_lines import CELLS


def _net() -> knister_net.Net:
    net = knister_net.load()
    assert net is not None, "the committed weights do not match the engine's line scores"
    return net


def _random_grid(filled: int, seed: int) -> engine.Grid:
    rng = random.Random(seed)
    grid: engine.Grid = [[None] * engine.SIZE for _ in range(engine.SIZE)]
    for cell in rng.sample(range(CELLS), filled):
        grid[cell // engine.SIZE][cell % engine.SIZE] = rng.randint(engine.LOWEST, engine.HIGHEST)
    return grid


@pytest.mark.parametrize("filled", [0, 7, 16, 24])
def test_the_fast_tanh_picks_the_cell_the_network_picks_at_nearly_its_value(filled: int) -> None:
    net = _net()
    flat, lines = knister_lines.arrays(_random_grid(filled, filled))
    counts = knister_net.counts_of(flat)
    h = knister_net.hidden_input(flat, counts, net.w, net.b)
    scratch = np.empty_like(h)
    for n in range(len(knister_lines.NUMBERS)):
        exact = knister_net.best_after(flat, counts, lines, h, n, filled + 1, net.tables, net.w, net.v, net.c, scratch)
        fast = fast_best_after(flat, counts, lines, h, n, filled + 1, net.tables, net.w, net.v, net.c, scratch)
        assert fast[0] == exact[0]
        assert fast[1] == pytest.approx(exact[1], abs=0.01)


def test_a_rollout_to_the_full_grid_is_worth_its_score() -> None:
    # Three empty cells: the number goes into the first, the two rolls fill the other two.
    net = _net()
    grid = _random_grid(22, 5)
    empty = [cell for cell in range(CELLS) if grid[cell // engine.SIZE][cell % engine.SIZE] is None]
    flat, lines = knister_lines.arrays(grid)
    rolls = np.array([[7 - engine.LOWEST, 7 - engine.LOWEST]])
    means = rollout_means(
        flat, lines, 9 - engine.LOWEST, np.array(empty[:1]), rolls, net.tables, net.w, net.b, net.v, net.c
    )
    for cell, number in zip(empty, (9, 7, 7), strict=True):
        grid[cell // engine.SIZE][cell % engine.SIZE] = number
    assert means[0] == pytest.approx(engine.score_grid(grid))


def test_only_the_rolled_out_cells_can_win_and_the_last_placements_keep_the_search() -> None:
    tabs = knister.load()
    grid = _random_grid(10, 6)
    searched = knister.placement_values(tabs, grid, 7, "perfect")
    values = candidate_values(tabs, grid, 7, 1, 3, 4, 20_000, 0.0)
    best = max(values, key=lambda cell: values[cell])
    assert best in sorted(searched, key=lambda cell: -searched[cell])[:3]
    late = _random_grid(23, 7)
    assert candidate_values(tabs, late, 7, 1, 3, 4, 20_000, 0.0) == knister.placement_values(tabs, late, 7, "perfect")
