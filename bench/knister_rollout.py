"""Knister ``perfect`` with truncated rollouts of the grid value's greedy policy on top of its search (issue 14).

Run: ``.venv/bin/python -m bench.knister_rollout --games 300 --seed 1 [--top 4] [--steps 6] [--work 250000]
[--mix 0] [--baseline shipped.npy] [--out candidate.npy]`` plays the seeded solo games of ``python -m bot.strategy
selfplay knister --level perfect --games N --seed S`` (the same dice: every decision draws one number from the
game's generator whatever it chooses) with the candidate and with the shipped player (or reads the shipped
player's scores), and prints the paired difference and the candidate's decision CPU on the games' positions.

At a decision, the shipped two-roll search (:func:`knister_net.search_values`) ranks the empty cells; its ``top``
best are each played on ``steps`` more placements by the value's greedy policy (each roll written where the value
after it is highest), the same rolls for every cell (common random numbers, drawn once per decision from its
seed), and valued by the network at the afterstate reached (the exact score once the grid is full). How many
rollouts is set by a budget of work (``--work``: cells valued in all), so a decision stays within its time.
The cell's value is ``mix`` × the search's value + (1 − ``mix``) × the rollouts' mean; the other cells keep the
search's value minus a margin, so only the rolled-out ones can win. Tried and not kept (``docs/strategy.md``): no
setting gained measurably. The rollouts value cells with :func:`fast_best_after`, the network's ``best_after``
with a rational tanh, about 5.7 times faster (libm's tanh is a call per hidden unit; the fraction vectorises).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import knister as engine
from bot.strategy import knister
from bot.strategy.base import ActionValue, pick_best
from bot.strategy.knister_lines import ADD, CELL_LINE_COUNTS, CELL_LINES, CELLS, CHANCE, NUMBERS, WEIGHTS, arrays
from bot.strategy.knister_net import (
    CELL_STATES,
    EMPTY,
    KIND,
    LINE_FEATURES,
    MAX_COUNT,
    NUMBER_COUNT,
    _table_value,
    counts_of,
    hidden_input,
    place,
)


@njit(cache=True, fastmath=True)
def _tanh(x: float) -> float:
    """tanh by its continued fraction (order 7/6), clamped: within 1e-4, and vectorised where libm's is not."""
    x2 = x * x
    y = x * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2))) / (135135.0 + x2 * (62370.0 + x2 * (3150.0 + 28.0 * x2)))
    return min(1.0, max(-1.0, y))


@njit(cache=True, fastmath=True)
def fast_best_after(
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
    """:func:`knister_net.best_after` with :func:`_tanh`: the empty cell where number index ``n`` leaves the most
    valuable grid, and that value."""
    base = _table_value(lines, placed, line_tables)
    best = -np.inf
    pick = -1
    hidden = h.shape[0]
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        row = LINE_FEATURES + cell * CELL_STATES
        for i in range(hidden):
            scratch[i] = h[i] + w[row + n, i] - w[row + EMPTY, i]
        value = base
        for j in range(CELL_LINE_COUNTS[cell]):
            line = CELL_LINES[cell, j]
            k = counts[line, n]
            if k < MAX_COUNT:
                feature = (line * NUMBER_COUNT + n) * MAX_COUNT + k
                for i in range(hidden):
                    scratch[i] += w[feature, i]
            table = line_tables[KIND[line], placed]
            value += WEIGHTS[line] * (table[ADD[lines[line], n]] - table[lines[line]])
        if placed < CELLS:
            value += c
            for i in range(hidden):
                value += v[i] * _tanh(scratch[i])
        if value > best:
            best = value
            pick = cell
    return pick, best


@njit(cache=True)
def rollout_means(
    grid: NDArray[np.int64],
    lines: NDArray[np.int64],
    n: int,
    cells: NDArray[np.int64],
    rolls: NDArray[np.int64],
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
) -> NDArray[np.float64]:
    """Per cell of ``cells``: the mean over the rollouts ``rolls[r]`` (number indices, one per later placement)
    of the value after writing ``n`` there and then each roll where the value after it is highest."""
    counts = counts_of(grid)
    h = hidden_input(grid, counts, w, b)
    placed = 1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            placed += 1
    scratch = np.empty_like(h)
    g1, c1, l1, h1 = grid.copy(), counts.copy(), lines.copy(), h.copy()
    g2, c2, l2, h2 = grid.copy(), counts.copy(), lines.copy(), h.copy()
    means = np.zeros(cells.shape[0])
    for i in range(cells.shape[0]):
        g1[:] = grid
        c1[:, :] = counts
        l1[:] = lines
        h1[:] = h
        place(g1, c1, l1, h1, w, cells[i], n)
        total = 0.0
        for r in range(rolls.shape[0]):
            g2[:] = g1
            c2[:, :] = c1
            l2[:] = l1
            h2[:] = h1
            value = 0.0
            t = placed
            for j in range(rolls.shape[1]):
                t += 1
                pick, value = fast_best_after(g2, c2, l2, h2, rolls[r, j], t, line_tables, w, v, c, scratch)
                place(g2, c2, l2, h2, w, pick, rolls[r, j])
            total += value
        means[i] = total / rolls.shape[0]
    return means


def candidate_values(
    tabs: knister.Tables, grid: engine.Grid, number: int, seed: int, top: int, steps: int, work: int, mix: float
) -> dict[int, float]:
    """The shipped search's values, the ``top`` best cells revalued by the rollouts (see the module docstring)."""
    searched = knister.placement_values(tabs, grid, number, "perfect")
    cells = sorted(searched, key=lambda cell: -searched[cell])[:top]
    empty = len(searched)
    depth = min(steps, empty - 1)
    if depth < 2 or len(cells) < 2:
        return searched
    net = tabs.net
    assert net is not None
    per_rollout = len(cells) * sum(empty - j for j in range(1, depth + 1))
    count = max(1, work // per_rollout)
    rolls = np.random.default_rng(seed).choice(len(NUMBERS), size=(count, depth), p=CHANCE)
    flat, lines = arrays(grid)
    means = rollout_means(
        flat, lines, number - engine.LOWEST, np.array(cells), rolls, net.tables, net.w, net.b, net.v, net.c
    )
    values = {cell: searched[cell] - 1000.0 for cell in searched}
    for cell, mean in zip(cells, means, strict=True):
        values[cell] = mix * searched[cell] + (1 - mix) * float(mean)
    return values


def play(
    tabs: knister.Tables, games: int, seed: int, top: int, steps: int, work: int, mix: float, cpu: list[float]
) -> list[int]:
    """:func:`knister.play_solo` at ``perfect`` with the candidate's decisions (the same draws from the game's
    generator, so the same dice); each decision's CPU milliseconds go to ``cpu``."""
    rng = random.Random(seed)
    scores = []
    for _ in range(games):
        state = engine.new_game(["solo"], rng)
        while not engine.is_over(state):
            if state.number is None:
                action: engine.Roll | engine.Place = engine.Roll()
            else:
                start = time.process_time()
                values = candidate_values(
                    tabs, state.grids["solo"], state.number, rng.randrange(2**31), top, steps, work, mix
                )
                cpu.append(1000 * (time.process_time() - start))
                action = pick_best([ActionValue(engine.Place(cell=cell), value) for cell, value in values.items()], rng)
            state = engine.apply(state, "solo", action, rng)
        scores.append(engine.results(state)[0].score)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=4)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--work", type=int, default=250_000)
    parser.add_argument("--mix", type=float, default=0.0)
    parser.add_argument("--baseline", help="a .npy of the shipped player's scores on these games (else played)")
    parser.add_argument("--out", help="write the candidate's scores here (.npy)")
    args = parser.parse_args()
    tabs = knister.load()
    grid: engine.Grid = [[None] * engine.SIZE for _ in range(engine.SIZE)]
    candidate_values(tabs, grid, 7, 0, args.top, args.steps, args.work, args.mix)  # compiles (or loads) first
    cpu: list[float] = []
    candidate = np.array(play(tabs, args.games, args.seed, args.top, args.steps, args.work, args.mix, cpu))
    if args.out:
        np.save(args.out, candidate)
    if args.baseline:
        shipped = np.load(args.baseline)[: args.games]
    else:
        shipped = np.array(knister.play_solo(tabs, "perfect", args.games, args.seed))
    diff = candidate - shipped
    p50, p99 = np.percentile(cpu, [50, 99])
    print(
        f"top {args.top} steps {args.steps} work {args.work} mix {args.mix} seed {args.seed}, {args.games} games:"
        f" candidate {candidate.mean():.2f}, shipped {shipped.mean():.2f}, paired {diff.mean():+.2f}"
        f" ± {diff.std(ddof=1) / np.sqrt(len(diff)):.2f} (same score {np.mean(diff == 0):.0%},"
        f" spread {diff.std(ddof=1):.1f}); decision CPU p50 {p50:.1f} p99 {p99:.1f} max {max(cpu):.1f} ms",
        flush=True,
    )


if __name__ == "__main__":
    main()
