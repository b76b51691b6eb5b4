"""The n-tuple prototype (bench/knister_ntuple.py): tables shared across the square's symmetries value a grid and
its images alike, a placement valued incrementally matches the grid valued from scratch, and the line tables alone
score a full grid as the engine does."""

from __future__ import annotations

import numpy as np
import pytest

from bench.knister_ntuple import RAW_SHAPES, Layout, _best, _value, indices, initial, symmetries
from bot.engine import knister as engine
from bot.strategy import knister
from bot.strategy.knister_lines import CELLS


def _layout() -> tuple[Layout, dict[str, np.ndarray], np.ndarray]:
    layout = Layout(["line", "pair", "raw"], 1, [RAW_SHAPES["row1"], RAW_SHAPES["block3"]])
    arrays = layout.arrays()
    lut = np.random.default_rng(5).random(int(arrays["offsets"][-1]), dtype=np.float32)
    return layout, arrays, lut


def _grid(rng: np.random.Generator, filled: int) -> np.ndarray:
    grid = np.full(CELLS, -1, dtype=np.int64)
    grid[rng.choice(CELLS, size=filled, replace=False)] = rng.integers(0, 11, size=filled)
    return grid


def _worth(grid: np.ndarray, arrays: dict[str, np.ndarray], lut: np.ndarray) -> float:
    idx = indices(grid, arrays["inst_start"], arrays["cell_inst"], arrays["cell_count"])
    placed = int(np.count_nonzero(grid >= 0))
    return _value(idx, placed, lut, arrays["inst_table"], arrays["offsets"], arrays["stage_of"], arrays["strides"])


@pytest.mark.parametrize("filled", [3, 12, 20])
def test_a_grid_and_its_images_under_the_symmetries_are_worth_the_same(filled: int) -> None:
    _, arrays, lut = _layout()
    grid = _grid(np.random.default_rng(filled), filled)
    worth = _worth(grid, arrays, lut)
    for g in symmetries():
        image = np.full(CELLS, -1, dtype=np.int64)
        image[g] = grid
        assert _worth(image, arrays, lut) == pytest.approx(worth, rel=1e-5)


def test_the_best_placement_is_valued_as_the_grid_it_makes() -> None:
    _, arrays, lut = _layout()
    grid = _grid(np.random.default_rng(7), 9)
    idx = indices(grid, arrays["inst_start"], arrays["cell_inst"], arrays["cell_count"])
    cell, value = _best(
        grid,
        idx,
        4,
        10,
        lut,
        arrays["inst_table"],
        arrays["offsets"],
        arrays["stage_of"],
        arrays["strides"],
        arrays["cell_inst"],
        arrays["cell_count"],
    )
    grid[cell] = 4
    assert value == pytest.approx(_worth(grid, arrays, lut), rel=1e-5)


def test_the_line_tables_alone_score_a_full_grid_as_the_engine() -> None:
    layout = Layout(["line"], 1, [])
    arrays = layout.arrays()
    lut = initial(layout, arrays, knister.load().learned)
    grid = _grid(np.random.default_rng(3), CELLS)
    rows = [[int(grid[r * 5 + c]) + engine.LOWEST for c in range(5)] for r in range(5)]
    assert _worth(grid, arrays, lut) == pytest.approx(engine.score_grid(rows))
