"""How high a Knister player could score if it knew every roll in advance: a ceiling for the solo players.

Run: ``.venv/bin/python bench/knister_ceiling.py [--games 100] [--iterations 400000] [--restarts 8] [--seed 2026]``.

Issue 14 asks ``perfect`` for a solo mean of 80; it plays about 70. A player who knows the game's 25 rolls before
placing any may arrange them freely (every cell is open until filled, so the order of the rolls does not bind
it), and its best arrangement bounds what any player can reach on those rolls. Finding that arrangement is a
search over 25! placements, so this anneals it (swaps of two cells, a falling temperature, several restarts) and
reports the best found: a lower estimate of the ceiling, which rises with ``--iterations`` and ``--restarts``
until the search has converged. The line scores are the engine's own (:func:`knister_lines.potentials` of a
full line is its score).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.strategy.knister_lines import ADD, CELLS, CHANCE, LINES, WEIGHTS, potentials


@njit(cache=True)
def _score(grid: NDArray[np.int64], scores: NDArray[np.float64]) -> float:
    """The full grid's total: each line's content built by adding its five numbers, scored, diagonals doubled."""
    total = 0.0
    for line in range(LINES.shape[0]):
        content = 0
        for cell in LINES[line]:
            content = ADD[content, grid[cell]]
        total += WEIGHTS[line] * scores[content]
    return total


@njit(cache=True)
def _best_arrangement(
    numbers: NDArray[np.int64], iterations: int, restarts: int, scores: NDArray[np.float64], seed: int
) -> float:
    """The highest total found by annealing arrangements of ``numbers`` (indices of the sums 2..12), never below
    the arrangement given."""
    np.random.seed(seed)
    best = _score(numbers, scores)
    for _ in range(restarts):
        grid = numbers.copy()
        np.random.shuffle(grid)
        current = _score(grid, scores)
        best = max(best, current)
        for step in range(iterations):
            temperature = 3.0 * (1.0 - step / iterations) + 0.05
            a, b = np.random.randint(CELLS), np.random.randint(CELLS)
            if grid[a] == grid[b]:
                continue
            grid[a], grid[b] = grid[b], grid[a]
            candidate = _score(grid, scores)
            if candidate >= current or np.random.random() < np.exp((candidate - current) / temperature):
                current = candidate
                best = max(best, current)
            else:
                grid[a], grid[b] = grid[b], grid[a]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="seeded games, each its own 25 rolls")
    parser.add_argument("--iterations", type=int, default=400_000, help="swaps tried per restart")
    parser.add_argument("--restarts", type=int, default=8, help="annealing runs per game from a random arrangement")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if min(args.games, args.iterations, args.restarts) < 1:
        parser.error("--games, --iterations and --restarts must be at least 1")
    scores = potentials()
    rng = np.random.default_rng(args.seed)
    start = time.process_time()
    best = np.array(
        [
            _best_arrangement(
                rng.choice(len(CHANCE), size=CELLS, p=CHANCE).astype(np.int64),
                args.iterations,
                args.restarts,
                scores,
                args.seed + game,
            )
            for game in range(args.games)
        ]
    )
    print(
        f"knowing every roll in advance, over {args.games} games (seed {args.seed}; {args.iterations:,} swaps x "
        f"{args.restarts} restarts a game): mean {best.mean():.2f} ± {best.std() / np.sqrt(args.games):.2f}, "
        f"standard deviation {best.std():.1f}, lowest {best.min():.0f}, highest {best.max():.0f} "
        f"({time.process_time() - start:.0f} s CPU)"
    )


if __name__ == "__main__":
    main()
