"""The Knister grid value: incremental updates agree with a fresh computation, the search is exact at the end,
the committed weights are only used for the rules they were trained for, and training moves the weights."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from bot.engine import knister as engine
from bot.strategy import knister_lines, knister_net, knister_train
from bot.strategy.knister_lines import CELLS, CHANCE


def _net() -> knister_net.Net:
    net = knister_net.load()
    assert net is not None, "the committed weights do not match the engine's line scores"
    return net


def _random_grid(filled: int, seed: int) -> engine.Grid:
    rng = random.Random(seed)
    grid: engine.Grid = [[None] * 5 for _ in range(5)]
    for cell in rng.sample(range(CELLS), filled):
        grid[cell // 5][cell % 5] = rng.randint(2, 12)
    return grid


def test_placing_updates_the_hidden_input_as_a_fresh_computation_would() -> None:
    net = _net()
    flat, lines = knister_lines.arrays(_random_grid(9, 1))
    counts = knister_net.counts_of(flat)
    h = knister_net.hidden_input(flat, counts, net.w, net.b)
    for cell, n in ((int(np.flatnonzero(flat < 0)[0]), 5), (int(np.flatnonzero(flat < 0)[1]), 5)):
        knister_net.place(flat, counts, lines, h, net.w, cell, n)
    assert np.array_equal(counts, knister_net.counts_of(flat))
    assert np.allclose(h, knister_net.hidden_input(flat, counts, net.w, net.b))


@pytest.mark.parametrize(("top", "width"), [(0, 0), (4, 3)])
def test_the_last_placement_is_worth_the_final_score(top: int, width: int) -> None:
    net = _net()
    grid = _random_grid(24, 2)
    empty = next(cell for cell in range(CELLS) if grid[cell // 5][cell % 5] is None)
    flat, lines = knister_lines.arrays(grid)
    values = knister_net.search_values(flat, lines, 7 - 2, top, width, net.tables, net.w, net.b, net.v, net.c, CHANCE)
    grid[empty // 5][empty % 5] = 7
    assert values[empty] == pytest.approx(engine.score_grid(grid))
    assert np.count_nonzero(~np.isnan(values)) == 1


def test_one_roll_before_the_end_the_search_is_exact() -> None:
    # Two empty cells: the value of each is the mean over the last roll of the final score, exactly.
    net = _net()
    grid = _random_grid(23, 3)
    empty = [cell for cell in range(CELLS) if grid[cell // 5][cell % 5] is None]
    flat, lines = knister_lines.arrays(grid)
    values = knister_net.search_values(flat, lines, 9 - 2, 0, 0, net.tables, net.w, net.b, net.v, net.c, CHANCE)
    for cell, other in (empty, empty[::-1]):
        expected = 0.0
        for number, chance in zip(knister_lines.NUMBERS, CHANCE, strict=True):
            filled = [row[:] for row in grid]
            filled[cell // 5][cell % 5] = 9
            filled[other // 5][other % 5] = number
            expected += chance * engine.score_grid(filled)
        assert values[cell] == pytest.approx(expected)


def test_the_next_roll_is_valued_by_its_best_cell_for_every_sum() -> None:
    # One empty cell: every sum goes there, and the mean over the roll is the expected final score, exactly.
    net = _net()
    grid = _random_grid(24, 4)
    empty = next(cell for cell in range(CELLS) if grid[cell // 5][cell % 5] is None)
    flat, lines = knister_lines.arrays(grid)
    counts = knister_net.counts_of(flat)
    h = knister_net.hidden_input(flat, counts, net.w, net.b)
    picks = np.full(len(knister_lines.NUMBERS), -1, dtype=np.int64)
    scratch = np.empty_like(h)
    value = knister_net.next_roll(flat, counts, lines, h, 24, net.tables, net.w, net.v, net.c, CHANCE, scratch, picks)
    expected = 0.0
    for number, chance in zip(knister_lines.NUMBERS, CHANCE, strict=True):
        grid[empty // 5][empty % 5] = number
        expected += chance * engine.score_grid(grid)
    assert value == pytest.approx(expected)
    assert (picks == empty).all()


def test_weights_for_other_line_scores_are_not_used(tmp_path: Path) -> None:
    net = _net()
    path = tmp_path / "net.npz"
    knister_net.save(net, path)
    assert knister_net.load(path) is not None
    with np.load(path) as stored:
        arrays = {key: stored[key] for key in stored.files}
    np.savez(path, **{**arrays, "digest": np.array("trained-for-other-rules")})
    knister_net.load.cache_clear()
    assert knister_net.load(path) is None
    assert knister_net.load(tmp_path / "missing.npz") is None


@pytest.mark.parametrize(("expected", "explore"), [(False, 0.0), (True, 0.0), (False, 0.2), (True, 0.2)])
def test_training_moves_the_weights_and_plays_whole_games(expected: bool, explore: float) -> None:
    net = _net()
    tables, w, b, v = net.tables.copy(), net.w[:, :4].copy(), net.b[:4].copy(), net.v[:4].copy()
    c = np.zeros(1)
    potential = knister_lines.potentials()
    mean = knister_train._train(20, 1, tables, w, b, v, c, potential, 0.5, 0.003, 0.0005, expected, explore)
    assert 0 < mean < 200
    assert not np.array_equal(w, net.w[:, :4]) and not np.array_equal(tables, net.tables)
    scores = knister_train.greedy_scores(5, 1, tables, w, b, v, float(c[0]), potential)
    assert scores.shape == (5,) and (scores >= 0).all()


def test_the_digest_hashes_exact_line_scores_not_float_arithmetic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CPU whose floating-point kernels round the last bit differently must still accept the committed file."""
    before = knister_net.digest(64)
    nudged = knister_lines.potentials() * (1 + 1e-15)
    monkeypatch.setattr(knister_lines, "potentials", lambda: nudged)
    assert knister_net.digest(64) == before
    assert _net() is not None


def test_exploring_writes_into_random_empty_cells_only() -> None:
    grid = np.full(knister_lines.CELLS, -1, dtype=np.int64)
    grid[[0, 6, 12, 18, 24]] = 5
    drawn = {knister_train._random_empty(grid) for _ in range(2_000)}
    assert drawn == {cell for cell in range(knister_lines.CELLS) if grid[cell] < 0}


def test_placing_every_number_at_random_scores_below_the_value_s_own_choice() -> None:
    net = _net()
    potential = knister_lines.potentials()

    def self_play(explore: float) -> float:
        tables, w, b, v = net.tables.copy(), net.w.copy(), net.b.copy(), net.v.copy()
        c = np.array([net.c])
        return knister_train._train(200, 3, tables, w, b, v, c, potential, 0.5, 0.0, 0.0, False, explore)

    assert self_play(1.0) < self_play(0.0) - 10
