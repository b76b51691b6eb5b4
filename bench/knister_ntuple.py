"""Prototype: an n-tuple network as the Knister grid value, learned by TD(λ) self-play (docs/strategy.md,
"Tried on 27 November 2026 (n-tuple)").

The value of a grid after ``t`` placements is a sum of table entries, one per tuple instance, every instance of a
tuple shape sharing one table across the square's 8 symmetries (they map rows, columns and diagonals to lines of
the same kind, so the rules cannot tell the images apart):

- ``line``: each line's content (the multiset of its numbers, 4,368) per placement count ``t``: the line tables of
  the committed value, started from the Monte Carlo line values;
- ``pair``: for two crossing lines whose shared cell is still empty, the contents of both lines' other four
  cells (1,365 × 1,365), per stage (``t`` bucketed): what the two lines want from the one cell they share;
- ``raw``: ordered cells of a shape (a row, a 2×3 block), each cell empty or one of the 11 numbers (12 states).

Learning as in :mod:`bot.strategy.knister_train` (afterstates, λ-returns, a share of random placements with the
λ-return cut there), with per-entry temporal-coherence step sizes (Jaśkowski's TC: |Σ error| / Σ |error|) or a
constant step, each divided by the number of active entries. Greedy on the same 5,000 fixed games as the
committed file's training prints after every chunk; ``--hybrid`` learns the tuples on top of the committed
network (kept fixed) instead.

    python -m bench.knister_ntuple train --features line,pair --tc --chunks 40 --games 50000 --out pair.npz
    python -m bench.knister_ntuple compare pair.npz                          # greedy, 20,000 games, paired
    python -m bench.knister_ntuple compare pair.npz --perfect 300 --seed 1   # the two-roll search, paired

The tables hold tens of millions of entries (hundreds of MB in memory with the ``raw`` shapes): a prototype, not
something to ship as it is.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import knister as engine
from bot.strategy import knister, knister_train
from bot.strategy.knister_lines import ADD, CELLS, CHANCE, LINES, SIZE, arrays, draw
from bot.strategy.knister_net import (
    LINE_COUNT,
    NUMBER_COUNT,
    _after_value,
    _table_value,
    hidden_input,
)
from bot.strategy.knister_net import place as net_place

EVALUATION_GAMES = 5_000
EVALUATION_SEED = 12_345
STATES = 12
"""A cell in a raw tuple: empty (0) or number index + 1."""
PARTIAL = 1365
"""Line contents of 0..4 numbers come first in ``CONTENTS``: the other four cells of a line."""
Ints = NDArray[np.int64]
Common = tuple[Ints, Ints, Ints, Ints, Ints, Ints, Ints]
"""The layout's arrays every kernel takes, in their order (:meth:`Layout.arrays`)."""
RAW, LINE, PAIR_A, PAIR_B, PAIR_X = 0, 1, 2, 3, 4
"""Roles of a cell in an instance: how writing a number there moves the instance's index."""


def symmetries() -> list[NDArray[np.int64]]:
    """The 8 maps of the square as cell permutations."""
    maps = []
    for k in range(8):
        image = np.zeros(CELLS, dtype=np.int64)
        for r in range(SIZE):
            for c in range(SIZE):
                rr, cc = r, c
                for _ in range(k % 4):
                    rr, cc = cc, SIZE - 1 - rr
                if k >= 4:
                    cc = SIZE - 1 - cc
                image[r * SIZE + c] = rr * SIZE + cc
        maps.append(image)
    return maps


class Layout:
    """Instances, their tables and, per cell, the instances it belongs to with its role there."""

    def __init__(self, features: list[str], stages: int, raw_shapes: list[list[int]]) -> None:
        self.syms = symmetries()
        self.tables: list[tuple[str, int, int]] = []  # name, stage count, stride
        self.instances: list[tuple[int, list[tuple[int, int, int]], int]] = []  # table, [(cell, role, mult)], start
        if "line" in features:
            self._lines()
        if "pair" in features:
            self._pairs(stages)
        if "raw" in features:
            for shape in raw_shapes:
                self._raw(shape, stages)

    def _table(self, name: str, stage_count: int, stride: int) -> int:
        self.tables.append((name, stage_count, stride))
        return len(self.tables) - 1

    def _lines(self) -> None:
        kinds = {0: "outer", 1: "inner", 2: "middle"}
        ids = {name: self._table(f"line-{name}", CELLS + 1, 4368) for name in (*kinds.values(), "diagonal")}
        for i, line in enumerate(LINES):
            name = "diagonal" if i >= 2 * SIZE else kinds[min(i % SIZE, SIZE - 1 - i % SIZE)]
            self.instances.append((ids[name], [(int(cell), LINE, 0) for cell in line], 0))

    def _pairs(self, stages: int) -> None:
        line_sets = [frozenset(int(c) for c in line) for line in LINES]
        done: set[tuple[frozenset[int], frozenset[int]]] = set()
        for a, la in enumerate(line_sets):
            for b, lb in enumerate(line_sets):
                if a == b or len(la & lb) != 1 or (la, lb) in done or (lb, la) in done:
                    continue
                table = self._table(f"pair-{a}-{b}", stages, PARTIAL * PARTIAL)
                for g in self.syms:
                    ga = frozenset(int(g[c]) for c in la)
                    gb = frozenset(int(g[c]) for c in lb)
                    if (ga, gb) in done:
                        continue
                    done.add((ga, gb))
                    (x,) = ga & gb
                    roles = [(c, PAIR_A, 0) for c in sorted(ga - {x})] + [(c, PAIR_B, 0) for c in sorted(gb - {x})]
                    self.instances.append((table, [*roles, (x, PAIR_X, 0)], 0))

    def _raw(self, shape: list[int], stages: int) -> None:
        table = self._table(f"raw-{'-'.join(map(str, shape))}", stages, STATES ** len(shape))
        seen: set[tuple[int, ...]] = set()
        for g in self.syms:
            cells = tuple(int(g[c]) for c in shape)
            if cells in seen:
                continue
            seen.add(cells)
            self.instances.append((table, [(c, RAW, STATES**k) for k, c in enumerate(cells)], 0))

    def arrays(self) -> dict[str, NDArray[np.int64]]:
        offsets = np.zeros(len(self.tables) + 1, dtype=np.int64)
        for i, (_, count, stride) in enumerate(self.tables):
            offsets[i + 1] = offsets[i] + count * stride
        stage_of = np.zeros((len(self.tables), CELLS + 1), dtype=np.int64)
        for i, (_, count, _stride) in enumerate(self.tables):
            for t in range(CELLS + 1):
                stage_of[i, t] = t if count == CELLS + 1 else min(count - 1, (t - 1) * count // CELLS if t else 0)
        inst_table = np.array([table for table, _, _ in self.instances], dtype=np.int64)
        inst_start = np.array([start for _, _, start in self.instances], dtype=np.int64)
        per_cell: list[list[tuple[int, int, int]]] = [[] for _ in range(CELLS)]
        for i, (_, roles, _) in enumerate(self.instances):
            for cell, role, mult in roles:
                per_cell[cell].append((i, role, mult))
        width = max(len(p) for p in per_cell)
        cell_inst = np.full((CELLS, width, 3), -1, dtype=np.int64)
        cell_count = np.array([len(p) for p in per_cell], dtype=np.int64)
        for cell, p in enumerate(per_cell):
            for j, entry in enumerate(p):
                cell_inst[cell, j] = entry
        strides = np.array([stride for _, _, stride in self.tables], dtype=np.int64)
        return {
            "offsets": offsets,
            "stage_of": stage_of,
            "strides": strides,
            "inst_table": inst_table,
            "inst_start": inst_start,
            "cell_inst": cell_inst,
            "cell_count": cell_count,
        }


@njit(cache=True)
def _moved(index: int, role: int, mult: int, n: int) -> int:
    """An instance's index after number index ``n`` is written into a cell with ``role`` (-1: no entry)."""
    if index < 0:
        return -1
    if role == RAW:
        return index + (n + 1) * mult
    if role == LINE:
        return int(ADD[index, n])
    if role == PAIR_A:
        return int(ADD[index // PARTIAL, n]) * PARTIAL + index % PARTIAL
    if role == PAIR_B:
        return (index // PARTIAL) * PARTIAL + int(ADD[index % PARTIAL, n])
    return -1


@njit(cache=True)
def _entry(
    inst: int,
    index: int,
    t: int,
    inst_table: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
) -> int:
    table = inst_table[inst]
    return int(offsets[table] + stage_of[table, t] * strides[table]) + index


@njit(cache=True)
def _value(
    idx: NDArray[np.int64],
    t: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
) -> float:
    total = 0.0
    for i in range(idx.shape[0]):
        if idx[i] >= 0:
            total += lut[_entry(i, idx[i], t, inst_table, offsets, stage_of, strides)]
    return total


@njit(cache=True)
def _best(
    grid: NDArray[np.int64],
    idx: NDArray[np.int64],
    n: int,
    t: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
) -> tuple[int, float]:
    """The empty cell where number index ``n`` leaves the most valuable grid (``t`` placements then)."""
    base = _value(idx, t, lut, inst_table, offsets, stage_of, strides)
    best = -np.inf
    pick = -1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        value = base
        for j in range(cell_count[cell]):
            inst = cell_inst[cell, j, 0]
            old = idx[inst]
            new = _moved(old, cell_inst[cell, j, 1], cell_inst[cell, j, 2], n)
            if old >= 0:
                value -= lut[_entry(inst, old, t, inst_table, offsets, stage_of, strides)]
            if new >= 0:
                value += lut[_entry(inst, new, t, inst_table, offsets, stage_of, strides)]
        if value > best:
            best = value
            pick = cell
    return pick, best


@njit(cache=True)
def _place(
    grid: NDArray[np.int64],
    idx: NDArray[np.int64],
    cell: int,
    n: int,
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
) -> None:
    grid[cell] = n
    for j in range(cell_count[cell]):
        inst = cell_inst[cell, j, 0]
        idx[inst] = _moved(idx[inst], cell_inst[cell, j, 1], cell_inst[cell, j, 2], n)


@njit(cache=True)
def _random_empty(grid: NDArray[np.int64]) -> int:
    empty = 0
    for cell in range(CELLS):
        if grid[cell] < 0:
            empty += 1
    k = np.random.randint(empty)
    for cell in range(CELLS):
        if grid[cell] < 0:
            if k == 0:
                return cell
            k -= 1
    return -1


@njit(cache=True)
def _final(grid: NDArray[np.int64], potential: NDArray[np.float64]) -> float:
    """The engine's score of a full grid (potential of a full line is its score; diagonals doubled)."""
    total = 0.0
    for line in range(LINES.shape[0]):
        content = 0
        for k in range(SIZE):
            content = ADD[content, grid[LINES[line, k]]]
        total += (2.0 if line >= 2 * SIZE else 1.0) * potential[content]
    return total


@njit(cache=True)
def train(
    games: int,
    seed: int,
    lut: NDArray[np.float32],
    err_sum: NDArray[np.float32],
    abs_sum: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    inst_start: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    potential: NDArray[np.float64],
    lam: float,
    step: float,
    tc: bool,
    explore: float,
    expected: bool,
) -> float:
    """Self-play ``games`` games, each followed by a TD(λ) pass over its afterstates; returns the mean score.

    ``expected``: the one-step part of each target is the mean over the next roll of the best grid each sum can
    make (the last roll exact), not the grid the rolled sum made (``knister_train --expected``)."""
    np.random.seed(seed)
    count = inst_start.shape[0]
    idxs = np.zeros((CELLS + 1, count), dtype=np.int64)
    values = np.zeros(CELLS + 1)
    explored = np.zeros(CELLS + 1, dtype=np.bool_)
    picks = np.zeros(CHANCE.shape[0], dtype=np.int64)
    total = 0.0
    for _ in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        idx = inst_start.copy()
        for t in range(1, CELLS + 1):
            n = draw()
            if expected and t > 1:
                cell = picks[n]
            else:
                cell, values[t] = _best(
                    grid, idx, n, t, lut, inst_table, offsets, stage_of, strides, cell_inst, cell_count
                )
            explored[t] = explore > 0.0 and np.random.random() < explore
            if explored[t]:
                cell = _random_empty(grid)
            _place(grid, idx, cell, n, cell_inst, cell_count)
            idxs[t] = idx
            if expected and t < CELLS:
                values[t + 1] = 0.0
                for m in range(CHANCE.shape[0]):
                    picks[m], value = _best(
                        grid, idx, m, t + 1, lut, inst_table, offsets, stage_of, strides, cell_inst, cell_count
                    )
                    if t + 1 == CELLS:
                        grid[picks[m]] = m
                        value = _final(grid, potential)
                        grid[picks[m]] = -1
                    values[t + 1] += CHANCE[m] * value
        score = _final(grid, potential)
        total += score
        target = score
        for t in range(CELLS - 1, 0, -1):
            if explored[t + 1]:
                target = values[t + 1]
            else:
                following = values[t + 1] if expected or t + 1 < CELLS else score
                target = (1 - lam) * following + lam * target
            active = 0
            out = 0.0
            for i in range(count):
                if idxs[t, i] >= 0:
                    active += 1
                    out += lut[_entry(i, idxs[t, i], t, inst_table, offsets, stage_of, strides)]
            error = target - out
            rate = step * error / active
            for i in range(count):
                if idxs[t, i] >= 0:
                    e = _entry(i, idxs[t, i], t, inst_table, offsets, stage_of, strides)
                    if tc:
                        coherence = 1.0 if abs_sum[e] == 0 else abs(err_sum[e]) / abs_sum[e]
                        lut[e] += rate * coherence
                        err_sum[e] += error
                        abs_sum[e] += abs(error)
                    else:
                        lut[e] += rate
    return total / games


@njit(cache=True)
def greedy_scores(
    games: int,
    seed: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    inst_start: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    potential: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Final scores of seeded games writing each roll where the value is highest (the dice of
    ``knister_train.greedy_scores`` for the same seed: one draw per placement)."""
    np.random.seed(seed)
    scores = np.zeros(games)
    for g in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        idx = inst_start.copy()
        for t in range(1, CELLS + 1):
            n = draw()
            cell, _ = _best(grid, idx, n, t, lut, inst_table, offsets, stage_of, strides, cell_inst, cell_count)
            _place(grid, idx, cell, n, cell_inst, cell_count)
        scores[g] = _final(grid, potential)
    return scores


@njit(cache=True)
def indices(
    grid: NDArray[np.int64], inst_start: NDArray[np.int64], cell_inst: NDArray[np.int64], cell_count: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Every instance's index for a grid (number indices, -1 empty): its numbers written one by one."""
    idx = inst_start.copy()
    empty = np.full(CELLS, -1, dtype=np.int64)
    for cell in range(CELLS):
        if grid[cell] >= 0:
            _place(empty, idx, cell, grid[cell], cell_inst, cell_count)
    return idx


@njit(cache=True)
def _expected(
    grid: NDArray[np.int64],
    idx: NDArray[np.int64],
    placed: int,
    depth: int,
    width: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    potential: NDArray[np.float64],
    chance: NDArray[np.float64],
) -> float:
    """A grid with ``placed`` numbers before the next roll: the mean over the roll of the best placement,
    ``depth`` rolls ahead (beyond the first only the ``width`` best cells per number); the last roll exact."""
    if placed == CELLS:
        return _final(grid, potential)
    if placed + 1 == CELLS:
        last = 0
        for cell in range(CELLS):
            if grid[cell] < 0:
                last = cell
        total = 0.0
        g2 = grid.copy()
        for m in range(chance.shape[0]):
            g2[last] = m
            total += chance[m] * _final(g2, potential)
        return total
    expected = 0.0
    if depth == 1:
        for m in range(chance.shape[0]):
            _, value = _best(
                grid, idx, m, placed + 1, lut, inst_table, offsets, stage_of, strides, cell_inst, cell_count
            )
            expected += chance[m] * value
        return expected
    after = np.empty(CELLS)
    g2 = grid.copy()
    i2 = idx.copy()
    for m in range(chance.shape[0]):
        for cell in range(CELLS):
            after[cell] = -np.inf
            if grid[cell] < 0:
                g2[:] = grid
                i2[:] = idx
                _place(g2, i2, cell, m, cell_inst, cell_count)
                after[cell] = _value(i2, placed + 1, lut, inst_table, offsets, stage_of, strides)
        best = -np.inf
        for cell in np.argsort(-after)[:width]:
            if after[cell] == -np.inf:
                break
            g2[:] = grid
            i2[:] = idx
            _place(g2, i2, cell, m, cell_inst, cell_count)
            deeper = _expected(
                g2,
                i2,
                placed + 1,
                depth - 1,
                width,
                lut,
                inst_table,
                offsets,
                stage_of,
                strides,
                cell_inst,
                cell_count,
                potential,
                chance,
            )
            best = max(best, deeper)
        expected += chance[m] * best
    return expected


@njit(cache=True)
def search_values(
    grid: NDArray[np.int64],
    n: int,
    top: int,
    width: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    inst_start: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    potential: NDArray[np.float64],
    chance: NDArray[np.float64],
) -> NDArray[np.float64]:
    """As ``knister_net.search_values``: one roll of lookahead for every empty cell, two for the ``top`` best."""
    idx = indices(grid, inst_start, cell_inst, cell_count)
    placed = 1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            placed += 1
    means = np.full(CELLS, np.nan)
    g2 = grid.copy()
    i2 = idx.copy()
    for depth in (1, 2):
        cells = np.arange(CELLS)[grid < 0]
        if depth == 2:
            cells = cells[np.argsort(-means[cells])[:top]]
        for cell in cells:
            g2[:] = grid
            i2[:] = idx
            _place(g2, i2, cell, n, cell_inst, cell_count)
            means[cell] = _expected(
                g2,
                i2,
                placed,
                depth,
                width,
                lut,
                inst_table,
                offsets,
                stage_of,
                strides,
                cell_inst,
                cell_count,
                potential,
                chance,
            )
    return means


@njit(cache=True)
def _net_value(
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    t: int,
    line_tables: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
) -> float:
    """The committed grid value of a grid after ``t`` placements (its hidden input ``h``)."""
    value = _table_value(lines, t, line_tables)
    if t == CELLS:
        return value
    value += c
    for i in range(h.shape[0]):
        value += v[i] * np.tanh(h[i])
    return value


@njit(cache=True)
def _hybrid_best(
    grid: NDArray[np.int64],
    counts: NDArray[np.int64],
    lines: NDArray[np.int64],
    h: NDArray[np.float64],
    idx: NDArray[np.int64],
    n: int,
    t: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    scratch: NDArray[np.float64],
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
) -> tuple[int, float]:
    """The empty cell where number index ``n`` leaves the best grid by the committed value plus the tuples."""
    base = _table_value(lines, t, line_tables) + _value(idx, t, lut, inst_table, offsets, stage_of, strides)
    best = -np.inf
    pick = -1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        value = _after_value(counts, lines, h, cell, n, t, line_tables, w, v, c, base, scratch)
        for j in range(cell_count[cell]):
            inst = cell_inst[cell, j, 0]
            old = idx[inst]
            new = _moved(old, cell_inst[cell, j, 1], cell_inst[cell, j, 2], n)
            if old >= 0:
                value -= lut[_entry(inst, old, t, inst_table, offsets, stage_of, strides)]
            if new >= 0:
                value += lut[_entry(inst, new, t, inst_table, offsets, stage_of, strides)]
        if value > best:
            best = value
            pick = cell
    return pick, best


@njit(cache=True)
def hybrid_train(
    games: int,
    seed: int,
    lut: NDArray[np.float32],
    err_sum: NDArray[np.float32],
    abs_sum: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    inst_start: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    potential: NDArray[np.float64],
    lam: float,
    step: float,
    tc: bool,
    explore: float,
) -> float:
    """As :func:`train`, the value being the committed one (kept fixed) plus the tuples (learned)."""
    np.random.seed(seed)
    count = inst_start.shape[0]
    idxs = np.zeros((CELLS + 1, count), dtype=np.int64)
    values = np.zeros(CELLS + 1)
    fixed = np.zeros(CELLS + 1)
    explored = np.zeros(CELLS + 1, dtype=np.bool_)
    scratch = np.zeros(b.shape[0])
    total = 0.0
    for _ in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        counts = np.zeros((LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
        lines = np.zeros(LINE_COUNT, dtype=np.int64)
        h = hidden_input(grid, counts, w, b)
        idx = inst_start.copy()
        for t in range(1, CELLS + 1):
            n = draw()
            cell, values[t] = _hybrid_best(
                grid,
                counts,
                lines,
                h,
                idx,
                n,
                t,
                line_tables,
                w,
                v,
                c,
                scratch,
                lut,
                inst_table,
                offsets,
                stage_of,
                strides,
                cell_inst,
                cell_count,
            )
            explored[t] = explore > 0.0 and np.random.random() < explore
            if explored[t]:
                cell = _random_empty(grid)
            _place(grid.copy(), idx, cell, n, cell_inst, cell_count)
            net_place(grid, counts, lines, h, w, cell, n)
            idxs[t] = idx
            fixed[t] = _net_value(lines, h, t, line_tables, v, c)
        score = _final(grid, potential)
        total += score
        target = score
        for t in range(CELLS - 1, 0, -1):
            if explored[t + 1]:
                target = values[t + 1]
            else:
                following = values[t + 1] if t + 1 < CELLS else score
                target = (1 - lam) * following + lam * target
            active = 0
            out = fixed[t]
            for i in range(count):
                if idxs[t, i] >= 0:
                    active += 1
                    out += lut[_entry(i, idxs[t, i], t, inst_table, offsets, stage_of, strides)]
            if active == 0:
                continue
            error = target - out
            rate = step * error / active
            for i in range(count):
                if idxs[t, i] >= 0:
                    e = _entry(i, idxs[t, i], t, inst_table, offsets, stage_of, strides)
                    if tc:
                        coherence = 1.0 if abs_sum[e] == 0 else abs(err_sum[e]) / abs_sum[e]
                        lut[e] += rate * coherence
                        err_sum[e] += error
                        abs_sum[e] += abs(error)
                    else:
                        lut[e] += rate
    return total / games


@njit(cache=True)
def hybrid_greedy(
    games: int,
    seed: int,
    lut: NDArray[np.float32],
    inst_table: NDArray[np.int64],
    inst_start: NDArray[np.int64],
    offsets: NDArray[np.int64],
    stage_of: NDArray[np.int64],
    strides: NDArray[np.int64],
    cell_inst: NDArray[np.int64],
    cell_count: NDArray[np.int64],
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    potential: NDArray[np.float64],
) -> NDArray[np.float64]:
    """:func:`greedy_scores` with the committed value plus the tuples."""
    np.random.seed(seed)
    scores = np.zeros(games)
    scratch = np.zeros(b.shape[0])
    for g in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        counts = np.zeros((LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
        lines = np.zeros(LINE_COUNT, dtype=np.int64)
        h = hidden_input(grid, counts, w, b)
        idx = inst_start.copy()
        for t in range(1, CELLS + 1):
            n = draw()
            cell, _ = _hybrid_best(
                grid,
                counts,
                lines,
                h,
                idx,
                n,
                t,
                line_tables,
                w,
                v,
                c,
                scratch,
                lut,
                inst_table,
                offsets,
                stage_of,
                strides,
                cell_inst,
                cell_count,
            )
            _place(grid.copy(), idx, cell, n, cell_inst, cell_count)
            net_place(grid, counts, lines, h, w, cell, n)
        scores[g] = _final(grid, potential)
    return scores


def initial(layout: Layout, arrays: dict[str, NDArray[np.int64]], learned: NDArray[np.float64]) -> NDArray[np.float32]:
    """Line tables from the Monte Carlo line values (a diagonal's doubled), every other entry 0."""
    lut = np.zeros(int(arrays["offsets"][-1]), dtype=np.float32)
    for i, (name, count, stride) in enumerate(layout.tables):
        if name.startswith("line-"):
            factor = 2.0 if name == "line-diagonal" else 1.0
            start = int(arrays["offsets"][i])
            lut[start : start + count * stride] = (factor * learned[:count]).ravel()
    return lut


RAW_SHAPES = {
    "row0": [0, 1, 2, 3, 4],
    "row1": [5, 6, 7, 8, 9],
    "row2": [10, 11, 12, 13, 14],
    "block0": [0, 1, 2, 5, 6, 7],
    "block1": [1, 2, 3, 6, 7, 8],
    "block2": [5, 6, 7, 10, 11, 12],
    "block3": [6, 7, 8, 11, 12, 13],
}


def _load(path: str) -> tuple[dict[str, NDArray[np.int64]], NDArray[np.float32], bool]:
    with np.load(path) as stored:
        raw = [RAW_SHAPES[name] for name in str(stored["raw"]).split(",") if name]
        layout = Layout(str(stored["features"]).split(","), int(stored["stages"]), raw)
        return layout.arrays(), stored["lut"].copy(), bool(stored["hybrid"])


def _train_command(args: argparse.Namespace) -> None:
    layout = Layout(args.features.split(","), args.stages, [RAW_SHAPES[s] for s in args.raw.split(",") if s])
    arr = layout.arrays()
    tabs = knister.load()
    lut = initial(layout, arr, tabs.learned) * (0.0 if args.hybrid else 1.0)
    err_sum = np.zeros(lut.shape[0] if args.tc else 1, dtype=np.float32)
    abs_sum = np.zeros_like(err_sum)
    if args.start:
        with np.load(args.start) as stored:
            lut = stored["lut"].copy()
            if args.tc:
                err_sum, abs_sum = stored["err_sum"].copy(), stored["abs_sum"].copy()
    print(f"{len(layout.tables)} tables, {len(layout.instances)} instances, {lut.shape[0]:,} entries", flush=True)
    common = _common(arr)
    net = tabs.net
    if net is None:
        raise SystemExit("the committed grid value is missing or stale")
    fixed = (net.tables, net.w, net.b, net.v, net.c)
    for chunk in range(args.chunks):
        start = time.process_time()
        chunk_seed = args.seed * 1_000_003 + chunk + 1
        if args.hybrid:
            mean = hybrid_train(
                args.games,
                chunk_seed,
                lut,
                err_sum,
                abs_sum,
                *common,
                *fixed,
                tabs.potential,
                args.lam,
                args.step,
                args.tc,
                args.explore,
            )
        else:
            mean = train(
                args.games,
                chunk_seed,
                lut,
                err_sum,
                abs_sum,
                *common,
                tabs.potential,
                args.lam,
                args.step,
                args.tc,
                args.explore,
                args.expected,
            )
        played = time.process_time() - start
        if args.hybrid:
            scores = hybrid_greedy(EVALUATION_GAMES, EVALUATION_SEED, lut, *common, *fixed, tabs.potential)
        else:
            scores = greedy_scores(EVALUATION_GAMES, EVALUATION_SEED, lut, *common, tabs.potential)
        print(
            f"chunk {chunk + 1}/{args.chunks}: self-play {mean:.2f}, greedy {scores.mean():.2f} ± "
            f"{scores.std() / np.sqrt(len(scores)):.2f} ({played:.0f} s CPU training, "
            f"{time.process_time() - start - played:.0f} s greedy)",
            flush=True,
        )
        np.savez(
            args.out,
            lut=lut,
            err_sum=err_sum,
            abs_sum=abs_sum,
            features=args.features,
            raw=args.raw,
            stages=args.stages,
            hybrid=args.hybrid,
        )


def _common(arr: dict[str, NDArray[np.int64]]) -> Common:
    return (
        arr["inst_table"],
        arr["inst_start"],
        arr["offsets"],
        arr["stage_of"],
        arr["strides"],
        arr["cell_inst"],
        arr["cell_count"],
    )


def _paired(mine: NDArray[np.float64], committed: NDArray[np.float64], label: str) -> None:
    d = mine - committed
    print(
        f"{label}: {mine.mean():.2f} against {committed.mean():.2f}, paired {d.mean():+.2f} ± "
        f"{d.std(ddof=1) / np.sqrt(len(d)):.2f} (same final score in {np.mean(d == 0) * 100:.0f} %, per-game "
        f"spread of the difference {d.std(ddof=1):.1f}, {len(d)} games)",
        flush=True,
    )


def _compare_command(args: argparse.Namespace) -> None:
    """Paired against the committed grid value on the same dice: greedy (``knister_train.greedy_scores``'s seed
    and draws) or ``perfect`` (``knister.play_solo``, the tuples valuing the same two-roll search)."""
    arr, lut, hybrid = _load(args.file)
    common = _common(arr)
    tabs = knister.load()
    net = tabs.net
    if net is None:
        raise SystemExit("the committed grid value is missing or stale")
    if args.perfect == 0:
        if hybrid:
            mine = hybrid_greedy(
                args.games, args.seed, lut, *common, net.tables, net.w, net.b, net.v, net.c, tabs.potential
            )
        else:
            mine = greedy_scores(args.games, args.seed, lut, *common, tabs.potential)
        ref = knister_train.greedy_scores(args.games, args.seed, net.tables, net.w, net.b, net.v, net.c, tabs.potential)
        _paired(mine, ref, f"greedy, {args.games} games, seed {args.seed}")
        return
    if hybrid:
        raise SystemExit("the search takes tuples alone")
    inst_table, inst_start, offsets, stage_of, strides, cell_inst, cell_count = common
    committed_values = knister.placement_values

    def tuple_values(
        tabs_: knister.Tables,
        grid: engine.Grid,
        number: int,
        level: str,
        seed: int = 0,
        work: int = knister.DECISION_WORK,
    ) -> dict[int, float]:
        if level != "perfect":
            return committed_values(tabs_, grid, number, level, seed, work)
        flat, _ = arrays(grid)
        top, width = (knister.SEARCH_CELLS, knister.SEARCH_WIDTH) if work >= knister.DECISION_WORK else (0, 0)
        means = search_values(
            flat,
            number - engine.LOWEST,
            top,
            width,
            lut,
            inst_table,
            inst_start,
            offsets,
            stage_of,
            strides,
            cell_inst,
            cell_count,
            tabs_.potential,
            CHANCE,
        )
        return {cell: float(means[cell]) for cell in range(CELLS) if flat[cell] < 0}

    with mock.patch.object(knister, "placement_values", tuple_values):
        start = time.process_time()
        mine = np.array(knister.play_solo(tabs, "perfect", args.perfect, args.seed), dtype=np.float64)
        decision = (time.process_time() - start) / args.perfect / CELLS * 1000
    print(f"tuples searched: {mine.mean():.2f} ({decision:.1f} ms of CPU a decision)", flush=True)
    start = time.process_time()
    ref = np.array(knister.play_solo(tabs, "perfect", args.perfect, args.seed), dtype=np.float64)
    decision = (time.process_time() - start) / args.perfect / CELLS * 1000
    print(f"committed: {ref.mean():.2f} ({decision:.1f} ms of CPU a decision)", flush=True)
    _paired(mine, ref, f"perfect, {args.perfect} games, seed {args.seed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    learn = commands.add_parser("train", help="TD(λ) self-play, greedy on the fixed games after every chunk")
    learn.add_argument("--features", default="line,pair", help="line, pair, raw (comma-separated)")
    learn.add_argument("--raw", default="", help="RAW_SHAPES names for the raw feature (comma-separated)")
    learn.add_argument("--stages", type=int, default=3, help="placement-count buckets of the pair and raw tables")
    learn.add_argument("--chunks", type=int, default=40)
    learn.add_argument("--games", type=int, default=25_000, help="self-play games per chunk")
    learn.add_argument("--lam", type=float, default=0.5)
    learn.add_argument("--step", type=float, default=1.0, help="shared by the active entries of a grid")
    learn.add_argument("--tc", action="store_true", help="temporal-coherence step per entry")
    learn.add_argument("--explore", type=float, default=0.05, help="share of placements in a random empty cell")
    learn.add_argument("--expected", action="store_true", help="targets averaged over the next roll (see train)")
    learn.add_argument("--seed", type=int, default=1)
    learn.add_argument("--hybrid", action="store_true", help="the committed value (kept fixed) plus the tuples")
    learn.add_argument("--start", help="a file of this command to go on from (same features)")
    learn.add_argument("--out", required=True)
    compare = commands.add_parser("compare", help="paired against the committed grid value")
    compare.add_argument("file")
    compare.add_argument("--games", type=int, default=20_000, help="greedy games")
    compare.add_argument("--seed", type=int, default=777)
    compare.add_argument("--perfect", type=int, default=0, help="perfect games (play_solo) instead of greedy")
    args = parser.parse_args()
    if args.command == "train" and args.hybrid and args.expected:
        parser.error("--expected is for the tuples alone")
    if args.command == "train":
        _train_command(args)
    else:
        _compare_command(args)


if __name__ == "__main__":
    main()
