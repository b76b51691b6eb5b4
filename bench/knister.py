"""Measure the Knister player alone: the CPU time of a ``perfect`` decision and of a hint, and every level's
mean and standard deviation over seeded solo games.

Run: ``.venv/bin/python bench/knister.py [--positions 300] [--games 1000] [--perfect-games 1000] [--seed 1]``.
``bench/strategy.py`` measures every game at once; this one exists because the Knister ``perfect`` games are
the slowest part by far (about 0.5 s of CPU a game; 1.4 s for the rollout fallback), so they can be run, and
their count chosen, on their own.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from typing import Any

import numpy as np

from bot import strategy
from bot.engine import knister as engine
from bot.strategy import knister


def _positions(count: int, seed: int) -> list[tuple[engine.State, str]]:
    """Rolled positions from random two-player games: somebody has a number to place."""
    rng = random.Random(seed)
    found: list[tuple[engine.State, str]] = []
    while len(found) < count:
        state = engine.new_game(["a", "b"], rng)
        while not engine.is_over(state) and len(found) < count:
            player = engine.to_act(state)[0]
            if state.number is not None:
                found.append((state, player))
            state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
    return found


def _timings(name: str, call: Any, positions: list[tuple[engine.State, str]]) -> None:
    for state, player in positions[:5]:
        call(state, player)  # warm-up: the compiled code loads on the first calls
    wall, cpu = [], []
    for state, player in positions:
        start, start_cpu = time.perf_counter(), time.process_time()
        call(state, player)
        wall.append(1000 * (time.perf_counter() - start))
        cpu.append(1000 * (time.process_time() - start_cpu))
    w50, w99 = np.percentile(wall, [50, 99])
    c50, c99 = np.percentile(cpu, [50, 99])
    print(
        f"  {name:<9} cpu p50 {c50:6.1f} p99 {c99:6.1f} max {max(cpu):6.1f}   "
        f"wall p50 {w50:6.1f} p99 {w99:6.1f}   ({len(cpu)} positions, ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--games", type=int, default=1000, help="solo games for easy and normal")
    parser.add_argument("--perfect-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    start = time.perf_counter()
    tabs = knister.load()
    print(f"values loaded in {time.perf_counter() - start:.2f} s ({tabs.learned.nbytes / 1e6:.1f} MB in memory)")
    positions = _positions(args.positions, 5)
    rng = random.Random(0)
    print("timings")
    _timings("decision", lambda s, p: strategy.choose(s, p, "perfect", rng), positions)
    _timings("hint", lambda s, p: strategy.evaluate(s, p), positions)
    print(f"levels: seeded solo games (seed {args.seed}), mean / sd")
    for level, games in (("easy", args.games), ("normal", args.games), ("perfect", args.perfect_games)):
        if games < 1:
            continue
        start_cpu = time.process_time()
        scores = np.array(knister.play_solo(tabs, level, games, args.seed))
        sd = float(scores.std(ddof=1)) if games > 1 else 0.0
        print(
            f"  {level:<8} {games:>6} games  {scores.mean():6.2f} / {sd:5.2f}"
            f"  (± {sd / np.sqrt(games):.2f})  {time.process_time() - start_cpu:7.1f} s CPU"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
