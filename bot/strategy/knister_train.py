"""Learn the Knister grid value (:mod:`bot.strategy.knister_net`) by TD(λ) self-play and write the weights file.

Every game writes each roll where the current value is highest (the rolls explore enough on their own); at the
end of the game every grid it passed through is moved towards its λ-return, the mix of the values of the grids
after it and the final score. The line tables start from the Monte Carlo line values of
:mod:`bot.strategy.knister` (about 60 points on their own), the network from small random weights; the step
sizes halve every ``--halve-every`` chunks of games.

Run (one core, about 1.5 minutes per 100,000 games with 128 hidden units; the committed file took the command in
``docs/strategy.md``): ``python -m bot.strategy.knister_train --hidden 128 --seed 41 --games 50000 --net-step
0.0003 --explore 0.05 --schedule 1x12,0.5x2,0.25x2,0.125x2,0.0625x4 --out bot/strategy/knister_net.npz``;
``--start FILE`` goes on from a weights file (with smaller steps). Each chunk prints the greedy player's mean over
5,000 fixed games, so the climb can be watched.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.strategy import knister, knister_net
from bot.strategy.knister_lines import CELLS, CHANCE, WEIGHTS, draw
from bot.strategy.knister_net import (
    KIND,
    LINE_COUNT,
    NUMBER_COUNT,
    Net,
    active,
    best_after,
    hidden_input,
    next_roll,
    place,
)

EVALUATION_GAMES = 5_000
EVALUATION_SEED = 12_345


@njit(cache=True)
def _random_empty(grid: NDArray[np.int64]) -> int:
    """A uniformly random empty cell of ``grid``."""
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
def _train(
    games: int,
    seed: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: NDArray[np.float64],
    potential: NDArray[np.float64],
    lam: float,
    table_step: float,
    net_step: float,
    expected: bool,
    explore: float = 0.0,
) -> float:
    """Play ``games`` self-play games, updating the weights in place after each; returns their mean score.

    ``expected``: the one-step part of each target is the mean over the next roll's 11 sums of the best grid
    each can make, instead of the grid the one rolled sum made. The roll's luck then no longer moves the
    target, at about five times the CPU a game (the best cell for every sum is needed anyway for the next
    placement, so the rolled sum's pick comes for free).

    ``explore``: the share of placements written into a random empty cell instead of the best one, so the value
    also learns grids its own greedy play never makes, which the search of ``perfect`` values all the time. The
    grid before such a placement learns from the best placement's value, and the λ-return is cut there (the
    random cell says nothing about how good that grid was)."""
    np.random.seed(seed)
    hidden = b.shape[0]
    scratch = np.zeros(hidden)
    grids = np.zeros((CELLS + 1, CELLS), dtype=np.int64)
    all_counts = np.zeros((CELLS + 1, LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
    all_lines = np.zeros((CELLS + 1, LINE_COUNT), dtype=np.int64)
    values = np.zeros(CELLS + 1)
    best_values = np.zeros(CELLS + 1)
    explored = np.zeros(CELLS + 1, dtype=np.bool_)
    picks = np.zeros(NUMBER_COUNT, dtype=np.int64)
    features = np.zeros(CELLS + LINE_COUNT * NUMBER_COUNT * knister_net.MAX_COUNT, dtype=np.int64)
    total = 0.0
    for _ in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        counts = np.zeros((LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
        lines = np.zeros(LINE_COUNT, dtype=np.int64)
        h = hidden_input(grid, counts, w, b)
        for t in range(1, CELLS + 1):
            n = draw()
            if expected and t > 1:
                cell = picks[n]
            else:
                cell, values[t] = best_after(grid, counts, lines, h, n, t, line_tables, w, v, c[0], scratch)
            best_values[t] = values[t]
            explored[t] = explore > 0.0 and np.random.random() < explore
            if explored[t]:
                cell = _random_empty(grid)
            place(grid, counts, lines, h, w, cell, n)
            grids[t] = grid
            all_counts[t] = counts
            all_lines[t] = lines
            if expected and t < CELLS:
                values[t + 1] = next_roll(grid, counts, lines, h, t, line_tables, w, v, c[0], CHANCE, scratch, picks)
        score = 0.0
        for line in range(LINE_COUNT):
            score += WEIGHTS[line] * potential[lines[line]]
        total += score
        target = score
        for t in range(CELLS - 1, 0, -1):
            if explored[t + 1]:
                target = best_values[t + 1]
            else:
                following = values[t + 1] if expected or t + 1 < CELLS else score
                target = (1 - lam) * following + lam * target
            pre = hidden_input(grids[t], all_counts[t], w, b)
            out = c[0]
            for i in range(hidden):
                scratch[i] = np.tanh(pre[i])
                out += v[i] * scratch[i]
            for line in range(LINE_COUNT):
                out += WEIGHTS[line] * line_tables[KIND[line], t, all_lines[t, line]]
            error = target - out
            for line in range(LINE_COUNT):
                line_tables[KIND[line], t, all_lines[t, line]] += table_step * error * WEIGHTS[line]
            m = active(grids[t], all_counts[t], features)
            for i in range(hidden):
                step = net_step * error * v[i] * (1 - scratch[i] * scratch[i])
                v[i] += net_step * error * scratch[i]
                b[i] += step
                for a in range(m):
                    w[features[a], i] += step
            c[0] += net_step * error
    return total / games


@njit(cache=True)
def greedy_scores(
    games: int,
    seed: int,
    line_tables: NDArray[np.float64],
    w: NDArray[np.float64],
    b: NDArray[np.float64],
    v: NDArray[np.float64],
    c: float,
    potential: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Final scores of ``games`` seeded games writing each roll where the grid value is highest."""
    np.random.seed(seed)
    scratch = np.zeros(b.shape[0])
    scores = np.zeros(games)
    for g in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        counts = np.zeros((LINE_COUNT, NUMBER_COUNT), dtype=np.int64)
        lines = np.zeros(LINE_COUNT, dtype=np.int64)
        h = hidden_input(grid, counts, w, b)
        for t in range(1, CELLS + 1):
            n = draw()
            cell, _ = best_after(grid, counts, lines, h, n, t, line_tables, w, v, c, scratch)
            place(grid, counts, lines, h, w, cell, n)
        for line in range(LINE_COUNT):
            scores[g] += WEIGHTS[line] * potential[lines[line]]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--chunks", type=int, default=30)
    parser.add_argument("--games", type=int, default=25_000, help="self-play games per chunk")
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--table-step", type=float, default=0.003)
    parser.add_argument("--net-step", type=float, default=0.0005)
    parser.add_argument("--halve-every", type=int, default=10, help="chunks between halvings of the steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--schedule",
        help="step factors per run of chunks, e.g. 1x12,0.5x2 (12 chunks at the steps, 2 at half); replaces"
        " --chunks and --halve-every",
    )
    parser.add_argument(
        "--expected", action="store_true", help="targets averaged over the next roll (see _train), not the roll made"
    )
    parser.add_argument(
        "--explore", type=float, default=0.0, help="share of placements made in a random empty cell (see _train)"
    )
    parser.add_argument("--start", help="a weights file to go on training from (its --hidden applies)")
    parser.add_argument("--out", default=str(knister_net.PATH))
    args = parser.parse_args()
    tabs = knister.load()
    rng = np.random.default_rng(args.seed)
    net = Net(
        np.stack([tabs.learned] * knister_net.KINDS),
        rng.normal(0, 0.1, size=(knister_net.FEATURES, args.hidden)),
        np.zeros(args.hidden),
        rng.normal(0, 0.1, size=args.hidden),
        0.0,
    )
    if args.start:
        started = knister_net.load(Path(args.start))
        if started is None:
            parser.error(f"{args.start} is missing or was trained for other line scores")
        net = Net(started.tables.copy(), started.w.copy(), started.b.copy(), started.v.copy(), started.c)
    c = np.array([net.c])
    factors = [0.5 ** (chunk // args.halve_every) for chunk in range(args.chunks)]
    if args.schedule:
        try:
            runs = [part.split("x") for part in args.schedule.split(",")]
            factors = [float(factor) for factor, count in runs for _ in range(int(count))]
        except ValueError:
            parser.error(f"--schedule {args.schedule!r}: expected factorxchunks,... such as 1x12,0.5x2")
    for chunk, factor in enumerate(factors):
        start = time.process_time()
        mean = _train(
            args.games,
            args.seed * 1_000_003 + chunk + 1,
            net.tables,
            net.w,
            net.b,
            net.v,
            c,
            tabs.potential,
            args.lam,
            args.table_step * factor,
            args.net_step * factor,
            args.expected,
            args.explore,
        )
        scores = greedy_scores(
            EVALUATION_GAMES, EVALUATION_SEED, net.tables, net.w, net.b, net.v, float(c[0]), tabs.potential
        )
        print(
            f"chunk {chunk + 1}/{len(factors)}: self-play {mean:.2f}, greedy {scores.mean():.2f}"
            f" ± {scores.std() / np.sqrt(len(scores)):.2f}  ({time.process_time() - start:.0f} s CPU)",
            flush=True,
        )
        knister_net.save(Net(net.tables, net.w, net.b, net.v, float(c[0])), args.out)


if __name__ == "__main__":
    main()
