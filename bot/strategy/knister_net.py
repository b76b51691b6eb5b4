"""The value of a whole Knister grid: per-line tables plus a small network that sees how lines compete.

A sum of per-line values, however it is learned, plays about 61 on its own: it cannot see that two lines want
the same number for the one empty cell they share, or that four lines are waiting for sevens. Here the value of
a grid after ``t`` placements (an afterstate: the number written, the next roll not yet known) is

    sum over the 12 lines of  weight(line) * tables[kind(line), t, content(line)]  +  v . tanh(W x + b) + c

where ``x`` is a sparse 0/1 vector: per cell, which number it holds or that it is empty; per line and number,
whether the line holds that number at least 1, 2, 3 or 4 times. Writing a number changes only a handful of
those features, so the hidden layer's input is updated by adding a few rows of ``W`` (:func:`place`), and
valuing every empty cell for a roll costs a few hundred multiplications each.

The weights are learned by TD(λ) self-play in :mod:`bot.strategy.knister_train` (a few minutes of one core;
too slow for a table build at start-up), committed as ``knister_net.npz`` beside this module, and carry the
hash of the line scores they were trained for: when the engine's scoring changes, :func:`load` finds no valid
network and ``perfect`` falls back to rollouts over the line values (:mod:`bot.strategy.knister`) until the
file is rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.strategy import knister_lines, tables
from bot.strategy.knister_lines import ADD, CELL_LINE_COUNTS, CELL_LINES, CELLS, WEIGHTS

LINE_COUNT = knister_lines.LINES.shape[0]
NUMBER_COUNT = len(knister_lines.NUMBERS)
MAX_COUNT = 4
"""Per line and number, features for holding it at least 1..MAX_COUNT times."""
LINE_FEATURES = LINE_COUNT * NUMBER_COUNT * MAX_COUNT
CELL_STATES = NUMBER_COUNT + 1
"""A cell holds one of the 11 numbers or is empty (the last state)."""
EMPTY = NUMBER_COUNT
FEATURES = LINE_FEATURES + knister_lines.CELLS * CELL_STATES
KIND = np.array([0, 1, 2, 1, 0, 0, 1, 2, 1, 0, 3, 3], dtype=np.int64)
"""Lines alike under the square's symmetries share a table: outer, inner and middle rows and columns, diagonals."""
KINDS = 4
PATH = Path(__file__).with_name("knister_net.npz")


@dataclass(frozen=True)
class Net:
    """Line tables ``[kind, t, content]`` and the network's weights (see the module docstring)."""

    tables: NDArray[np.float64]
    w: NDArray[np.float64]
    b: NDArray[np.float64]
    v: NDArray[np.float64]
    c: float


def digest(hidden: int) -> str:
    """The hash a weights file must carry: the line scores it was trained for and the network's layout."""
    return tables.rules_hash(["knister-net", knister_lines.line_scores().tobytes(), FEATURES, hidden])


@cache
def load(path: Path = PATH) -> Net | None:
    """The committed network, or None when it is missing or was trained for other line scores."""
    if not path.exists():
        return None
    with np.load(path) as stored:
        w = np.asarray(stored["w"], dtype=np.float64)
        if str(stored["digest"]) != digest(w.shape[1]):
            return None
        return Net(
            np.asarray(stored["tables"], dtype=np.float64),
            w,
            np.asarray(stored["b"], dtype=np.float64),
            np.asarray(stored["v"], dtype=np.float64),
            float(stored["c"]),
        )


def save(net: Net, path: Path) -> None:
    """Store the weights (single precision: half the size, no measurable loss) with their digest."""
    np.savez_compressed(
        path,
        tables=net.tables.astype(np.float32),
        w=net.w.astype(np.float32),
        b=net.b.astype(np.float32),
        v=net.v.astype(np.float32),
        c=np.float32(net.c),
        digest=np.array(digest(net.w.shape[1])),
    )


@njit(cache=True)
def counts_of(grid: NDArray[np.int64]) -> NDArray[np.int64]:
    """``counts[line, number]``: how often each line holds each number index (grid: -1 for an empty cell)."""
    counts = np.zeros((LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
    for cell in range(CELLS):
        if grid[cell] >= 0:
            for j in range(CELL_LINE_COUNTS[cell]):
                counts[CELL_LINES[cell, j], grid[cell]] += 1
    return counts


@njit(cache=True)
def active(grid: NDArray[np.int64], counts: NDArray[np.int64], out: NDArray[np.int64]) -> int:
    """Write the indices of the features that are 1 into ``out``; returns how many."""
    m = 0
    for cell in range(CELLS):
        out[m] = LINE_FEATURES + cell * CELL_STATES + (EMPTY if grid[cell] < 0 else grid[cell])
        m += 1
    for line in range(LINE_COUNT):
        for n in range(NUMBER_COUNT):
            for k in range(min(counts[line, n], MAX_COUNT)):
                out[m] = (line * NUMBER_COUNT + n) * MAX_COUNT + k
                m += 1
    return m


@njit(cache=True)
def hidden_input(
    grid: NDArray[np.int64], counts: NDArray[np.int64], w: NDArray[np.float64], b: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The hidden layer's input ``W x + b`` from scratch."""
    out = np.zeros(CELLS + LINE_COUNT * NUMBER_COUNT * MAX_COUNT, dtype=np.int64)
    h = b.copy()
    for i in range(active(grid, counts, out)):
        h += w[out[i]]
    return h


@njit(cache=True)
def place(
    grid: NDArray[np.int64],
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    w: NDArray[np.float64],
    cell: int,
    n: int,
) -> None:
    """Write number index ``n`` into ``cell``, updating the line contents, counts and hidden input in place."""
    h += w[LINE_FEATURES + cell * CELL_STATES + n] - w[LINE_FEATURES + cell * CELL_STATES + EMPTY]
    for j in range(CELL_LINE_COUNTS[cell]):
        line = CELL_LINES[cell, j]
        k = counts[line, n]
        if k < MAX_COUNT:
            h += w[(line * NUMBER_COUNT + n) * MAX_COUNT + k]
        counts[line, n] = k + 1
        lines[line] = ADD[lines[line], n]
    grid[cell] = n


@njit(cache=True)
def _table_value(lines: NDArray[np.int64], placed: int, line_tables: NDArray[np.float64]) -> float:
    total = 0.0
    for line in range(LINE_COUNT):
        total += WEIGHTS[line] * line_tables[KIND[line], placed, lines[line]]
    return total


@njit(cache=True)
def _after_value(
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    cell: int,
    n: int,
    placed: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    base: float,
    scratch: NDArray[np.float64],
) -> float:
    """The value of the grid after writing ``n`` into ``cell`` (``placed`` placements then), without writing it:
    ``base`` is the line tables' total at ``placed`` before the write."""
    scratch[:] = h
    scratch += w[LINE_FEATURES + cell * CELL_STATES + n] - w[LINE_FEATURES + cell * CELL_STATES + EMPTY]
    value = base
    for j in range(CELL_LINE_COUNTS[cell]):
        line = CELL_LINES[cell, j]
        k = counts[line, n]
        if k < MAX_COUNT:
            scratch += w[(line * NUMBER_COUNT + n) * MAX_COUNT + k]
        table = line_tables[KIND[line], placed]
        value += WEIGHTS[line] * (table[ADD[lines[line], n]] - table[lines[line]])
    if placed == CELLS:
        return value
    value += c
    for i in range(scratch.shape[0]):
        value += v[i] * np.tanh(scratch[i])
    return value


@njit(cache=True)
def best_after(
    grid: NDArray[np.int64],
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    n: int,
    placed: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    scratch: NDArray[np.float64],
) -> tuple[int, float]:
    """The empty cell where number index ``n`` leaves the most valuable grid, and that value (``placed``:
    placements once it is written; first cell on a tie)."""
    base = _table_value(lines, placed, line_tables)
    best = -np.inf
    pick = -1
    for cell in range(CELLS):
        if grid[cell] < 0:
            value = _after_value(counts, lines, h, cell, n, placed, line_tables, w, v, c, base, scratch)
            if value > best:
                best = value
                pick = cell
    return pick, best


@njit(cache=True)
def next_roll(
    grid: NDArray[np.int64],
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    placed: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    chance: NDArray[np.float64],
    scratch: NDArray[np.float64],
    picks: NDArray[np.int64],
) -> float:
    """The value of a grid with ``placed`` numbers (``placed`` < 25) before the next roll by one roll of
    lookahead: the mean over the roll of the best grid it can make. ``picks[m]`` gets that best cell for each
    number index ``m``, so a caller that then rolls needs no second scan."""
    expected = 0.0
    for m in range(NUMBER_COUNT):
        picks[m], value = best_after(grid, counts, lines, h, m, placed + 1, line_tables, w, v, c, scratch)
        expected += chance[m] * value
    return expected


@njit(cache=True)
def _expected(
    grid: NDArray[np.int64],
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    placed: int,
    depth: int,
    width: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    chance: NDArray[np.float64],
    scratch: NDArray[np.float64],
) -> float:
    """The value of a grid with ``placed`` numbers before the next roll: the expectation over the roll of the
    best placement, looking ``depth`` rolls ahead (1: the network values the grids one roll on). Beyond the
    first roll only the ``width`` cells the network likes best for each number are searched deeper."""
    if placed == CELLS:
        return _table_value(lines, CELLS, line_tables)
    if depth == 1 or placed + 1 == CELLS:
        picks = np.empty(NUMBER_COUNT, dtype=np.int64)
        return next_roll(grid, counts, lines, h, placed, line_tables, w, v, c, chance, scratch, picks)
    expected = 0.0
    base = _table_value(lines, placed + 1, line_tables)
    after = np.empty(CELLS)
    g2 = grid.copy()
    c2 = counts.copy()
    l2 = lines.copy()
    h2 = h.copy()
    for m in range(NUMBER_COUNT):
        for cell in range(CELLS):
            after[cell] = -np.inf
            if grid[cell] < 0:
                after[cell] = _after_value(counts, lines, h, cell, m, placed + 1, line_tables, w, v, c, base, scratch)
        best = -np.inf
        for cell in np.argsort(-after)[:width]:
            if after[cell] == -np.inf:
                break
            g2[:] = grid
            c2[:, :] = counts
            l2[:] = lines
            h2[:] = h
            place(g2, c2, l2, h2, w, cell, m)
            deeper = _expected(g2, c2, l2, h2, placed + 1, depth - 1, width, line_tables, w, v, c, chance, scratch)
            best = max(best, deeper)
        expected += chance[m] * best
    return expected


@njit(cache=True)
def search_values(
    grid: NDArray[np.int64],
    lines: NDArray[np.int64],
    n: int,
    top: int,
    width: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    chance: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Per empty cell (NaN for a filled one), the expected final score after writing ``n`` there: one roll of
    lookahead for every cell, two for the ``top`` cells the first look ranks best (``width`` cells per number
    searched on the second roll)."""
    counts = counts_of(grid)
    h = hidden_input(grid, counts, w, b)
    placed = 1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            placed += 1
    scratch = np.empty_like(h)
    means = np.full(CELLS, np.nan)
    g2 = grid.copy()
    c2 = counts.copy()
    l2 = lines.copy()
    h2 = h.copy()
    for depth in (1, 2):
        cells = np.arange(CELLS)[grid < 0]
        if depth == 2:
            cells = cells[np.argsort(-means[cells])[:top]]
        for cell in cells:
            g2[:] = grid
            c2[:, :] = counts
            l2[:] = lines
            h2[:] = h
            place(g2, c2, l2, h2, w, cell, n)
            means[cell] = _expected(g2, c2, l2, h2, placed, depth, width, line_tables, w, v, c, chance, scratch)
    return means
