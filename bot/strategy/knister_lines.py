"""Knister line machinery shared by the players: line contents as indexed multisets, "add this number" as a
table lookup, and each content's potential (its expected score once full, the empty cells filled by random
rolls of two dice).

Line contents are the multisets of 0..5 numbers (4368 of them); ``ADD`` makes a placement a few table lookups,
so compiled (numba) self-play and rollouts cost microseconds a game.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import knister as engine

NUMBERS = tuple(range(engine.LOWEST, engine.HIGHEST + 1))
CHANCE = np.array([(6 - abs(7 - n)) / 36 for n in NUMBERS])
"""Chance of each sum of two dice."""
CUMULATIVE = np.cumsum(CHANCE)
SIZE = engine.SIZE
CELLS = engine.CELLS
LINES = np.array(
    [[r * SIZE + c for c in range(SIZE)] for r in range(SIZE)]
    + [[r * SIZE + c for r in range(SIZE)] for c in range(SIZE)]
    + [[i * SIZE + i for i in range(SIZE)], [i * SIZE + SIZE - 1 - i for i in range(SIZE)]]
)
WEIGHTS = np.array([1.0] * (2 * SIZE) + [2.0, 2.0])
"""Diagonals count double (RULES.md section 3)."""
CONTENTS: tuple[tuple[int, ...], ...] = tuple(
    line for size in range(SIZE + 1) for line in combinations_with_replacement(NUMBERS, size)
)
CONTENT_INDEX = {line: i for i, line in enumerate(CONTENTS)}


def _cell_lines() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    lines = np.full((CELLS, 4), -1, dtype=np.int64)
    counts = np.zeros(CELLS, dtype=np.int64)
    for i, line in enumerate(LINES):
        for cell in line:
            lines[cell, counts[cell]] = i
            counts[cell] += 1
    return lines, counts


CELL_LINES, CELL_LINE_COUNTS = _cell_lines()
ADD = np.array(
    [[CONTENT_INDEX[tuple(sorted((*line, n)))] if len(line) < SIZE else -1 for n in NUMBERS] for line in CONTENTS],
    dtype=np.int64,
)
"""``ADD[content, number - 2]``: the content after writing the number into the line."""


@cache
def line_scores() -> NDArray[np.int64]:
    """The engine's score of every full line content: the exact rule data the learned values depend on.

    Digests hash these integers rather than :func:`potentials`, whose last bits depend on the CPU's
    floating-point kernels: a file trained on one machine must stay valid on another.
    """
    return np.array([engine.score_line(line) for line in CONTENTS if len(line) == SIZE], dtype=np.int64)


@cache
def potentials() -> NDArray[np.float64]:
    """Expected final score of every line content when its empty cells get random rolls (engine scoring)."""
    values = np.zeros(len(CONTENTS))
    for i, line in enumerate(CONTENTS):
        if len(line) == SIZE:
            values[i] = engine.score_line(line)
    for i in range(len(CONTENTS) - 1, -1, -1):
        if len(CONTENTS[i]) < SIZE:
            values[i] = CHANCE @ values[ADD[i]]
    return values


@njit(cache=True)
def place(grid: NDArray[np.int64], lines: NDArray[np.int64], cell: int, n: int) -> None:
    grid[cell] = n
    for j in range(CELL_LINE_COUNTS[cell]):
        line = CELL_LINES[cell, j]
        lines[line] = ADD[lines[line], n]


@njit(cache=True)
def draw() -> int:
    u = np.random.random()
    for i in range(CUMULATIVE.shape[0]):
        if u < CUMULATIVE[i]:
            return i
    return int(CUMULATIVE.shape[0] - 1)


def arrays(grid: engine.Grid) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """A grid as number indices (-1 empty) and the content index of each line."""
    flat = np.array([-1 if n is None else n - engine.LOWEST for row in grid for n in row], dtype=np.int64)
    lines = np.array(
        [CONTENT_INDEX[tuple(sorted(NUMBERS[flat[c]] for c in line if flat[c] >= 0))] for line in LINES],
        dtype=np.int64,
    )
    return flat, lines
