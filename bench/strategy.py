"""Measure the strategy engine: table builds (ours against yatzy-solver), loading, hint latency, memory, the
full simulation check of the exact values, and every level's averages.

Run: ``.venv/bin/pip install -e ".[bench]"`` once, then ``.venv/bin/python bench/strategy.py`` (about ten
minutes; ``--knister-games`` and ``--tutto-turns`` shorten the slowest parts). Everything is seeded.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bot import strategy
from bot.engine import dicepoker as dicepoker_engine
from bot.engine import kniffel as kniffel_engine
from bot.engine import knister as knister_engine
from bot.engine import tutto as tutto_engine
from bot.strategy import dicepoker, kniffel, knister, tutto

YATZY_VARIANTS = {"kniffel": "american+forced-joker", "classic": "american+no-bonus"}
"""yatzy-solver's closest variants: forced joker and bonuses like ``kniffel``; ``classic`` also drops the upper
bonus, which no yatzy-solver variant does, so its nearest is the one without Yahtzee bonus and joker."""


def _timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _both(action: Callable[[], Any]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (all threads of this process) of ``action``."""
    start, start_cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - start_cpu


def _median_pair(pairs: list[tuple[float, float]]) -> str:
    return f"{statistics.median(p[0] for p in pairs):6.2f} s (cpu {statistics.median(p[1] for p in pairs):6.2f} s)"


def _machine() -> None:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}")
    print(f"load average at start: {os.getloadavg()[0]:.1f}")


def builds(folder: str, runs: int) -> None:
    """Build every exact table ``runs`` times (fresh folder each time) and yatzy-solver's closest variants."""
    import yatzy_solver

    with tempfile.TemporaryDirectory() as warmup:
        compile_time = _timed(lambda: strategy.warm(warmup))
    print(f"\nwarm() building every table, first call in this process: {compile_time:.1f} s")
    print(
        "\nbuild times, median of runs, alternating ours and theirs (ours includes reading the rules from the engine)"
    )
    for ruleset in kniffel_engine.RULESETS:
        ours, theirs = [], []
        for _ in range(runs):
            kniffel.rules.cache_clear()
            kniffel.probe.cache_clear()
            with tempfile.TemporaryDirectory() as scratch:
                ours.append(_both(lambda f=scratch, r=ruleset: kniffel.load(r, f, rebuild=True)))
            variant = yatzy_solver.Variant(YATZY_VARIANTS[ruleset])
            theirs.append(_both(lambda v=variant: yatzy_solver.Solver.build(v)))
        print(
            f"  kniffel/{ruleset:<8} ours {_median_pair(ours)}   "
            f"yatzy-solver {YATZY_VARIANTS[ruleset]:<22} {_median_pair(theirs)}"
        )
    for name, action in (
        ("dicepoker", lambda f: dicepoker.load(f, rebuild=True)),
        ("tutto", lambda f: (tutto.solve_turn.cache_clear(), tutto.solve_turn())),
    ):
        times = []
        for _ in range(runs):
            dicepoker.rules.cache_clear()
            with tempfile.TemporaryDirectory() as scratch:
                times.append(_timed(lambda a=action, f=scratch: a(f)))
        print(f"  {name:<17} ours {statistics.median(times):6.2f}")
    for ruleset, variant in YATZY_VARIANTS.items():
        solver = yatzy_solver.Solver.build(yatzy_solver.Variant(variant))
        ours = kniffel.load(ruleset, folder).expected_score()
        theirs = solver.state_value("upper 0 | filled -")
        print(f"  fresh game {ruleset:<8} ours {ours:.6f}   yatzy-solver {variant} {theirs:.6f}")


_LOAD_SNIPPET = """
import sys, time
start = time.perf_counter()
from bot.strategy import {module}
imported = time.perf_counter()
tabs = {module}.load({args})
print(f"{{imported - start:.2f}} {{time.perf_counter() - imported:.2f}}")
"""


def loading(folder: str) -> None:
    """Time loading the stored tables in a fresh process (rules read from the engine, file read)."""
    print("\nloading stored tables in a fresh process (import of numpy/numba/the engine, then load) and memory")
    strategy.warm(folder)
    for name, module, args in (
        ("kniffel/kniffel", "kniffel", f"'kniffel', {folder!r}"),
        ("kniffel/classic", "kniffel", f"'classic', {folder!r}"),
        ("dicepoker", "dicepoker", repr(folder)),
    ):
        snippet = _LOAD_SNIPPET.format(module=module, args=args)
        out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=True).stdout
        imported, loaded = out.split()
        print(f"  {name:<16} import {imported} s   load {loaded} s")
    for ruleset in kniffel_engine.RULESETS:
        tabs = kniffel.load(ruleset, folder)
        size = sum(v.nbytes for v in tabs.by_level.values()) + tabs.rules.joker.nbytes + tabs.rules.points.nbytes
        print(f"  kniffel/{ruleset:<8} tables in memory (three levels and the joker table) {size / 2**20:5.1f} MB")
    tabs = dicepoker.load(folder)
    size = sum(v.nbytes for v in [*tabs.upper.values(), *tabs.lower.values(), tabs.rules.points])
    print(f"  dicepoker        tables in memory {size / 2**20:5.1f} MB")
    files = sorted(Path(folder).glob("*.npz"))
    print("  files: " + ", ".join(f"{f.name} {f.stat().st_size / 2**20:.1f} MB" for f in files))


def _positions(engine: Any, count: int, seed: int, **options: Any) -> list[Any]:
    """States from random two-player games in which somebody has a decision to make."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        state = engine.new_game(["a", "b"], rng, **options)
        while not engine.is_over(state) and len(found) < count:
            player = engine.to_act(state)[0]
            found.append((state, player))
            state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
    return found


def _latency(name: str, action: Callable[[Any, str], Any], positions: list[Any]) -> None:
    """One line: wall-clock and CPU p50/p99/max of ``action(state, player)`` over ``positions``, in ms."""
    wall, cpu = [], []
    for state, player in positions:
        start, start_cpu = time.perf_counter(), time.process_time()
        action(state, player)
        wall.append(1000 * (time.perf_counter() - start))
        cpu.append(1000 * (time.process_time() - start_cpu))
    p50, p99 = np.percentile(wall, [50, 99])
    c50, c99 = np.percentile(cpu, [50, 99])
    print(
        f"  {name:<16} wall p50 {p50:6.2f} p99 {p99:6.2f} max {max(wall):6.2f}   "
        f"cpu p50 {c50:6.2f} p99 {c99:6.2f} max {max(cpu):6.2f}   ({len(wall)} positions)"
    )


def hints(folder: str, count: int) -> None:
    """p50/p99 of ``strategy.evaluate`` (every legal action's value) on positions from random play, then of the
    bot's five-dice hint (``computer.hint_values``: the boxes and every keep) where a reroll is possible."""
    from bot.play import computer

    print(f"\nhint latency: evaluate() on {count} positions from random play (ms; wall clock and CPU time)")
    cases = {
        "kniffel": _positions(kniffel_engine, count, 1, ruleset="kniffel"),
        "kniffel/classic": _positions(kniffel_engine, count, 2, ruleset="classic"),
        "dicepoker": _positions(dicepoker_engine, count, 3),
        "tutto": _positions(tutto_engine, count, 4),
        "knister": _positions(knister_engine, min(count, 300), 5),
    }
    for name, positions in cases.items():
        _latency(name, lambda state, player: strategy.evaluate(state, player, directory=folder), positions)
    print("\nfive-dice hint with every keep: computer.hint_values() on the positions above with a reroll left")
    directory = Path(folder)
    for name in ("kniffel", "kniffel/classic", "dicepoker"):
        rerolls = [(state, player) for state, player in cases[name] if 0 < state.rolls < kniffel_engine.ROLLS]
        _latency(name, lambda state, player: computer.hint_values(state, player, directory), rerolls)


def check(folder: str, games: int) -> None:
    """The independent check: mean of simulated games (totals by the engine) against the exact value."""
    print(f"\nsimulation check: {games:,} perfect solo games against the exact expected score")
    for name, tabs, simulate in (
        ("kniffel", kniffel.load("kniffel", folder), kniffel.simulate),
        ("kniffel/classic", kniffel.load("classic", folder), kniffel.simulate),
        ("dicepoker", dicepoker.load(folder), dicepoker.simulate),
    ):
        totals = simulate(tabs, "perfect", games, 2024)
        error = totals.std(ddof=1) / np.sqrt(games)
        exact = tabs.expected_score()
        gap = (totals.mean() - exact) / error
        print(f"  {name:<16} exact {exact:9.4f}   simulated {totals.mean():9.4f} ± {error:.4f} ({gap:+.2f} SE)")


def levels(folder: str, games: int, knister_games: int, tutto_turns: int) -> None:
    """Every level's mean and standard deviation, seeded."""
    print("\nlevels: mean / sd")
    for name, run in (
        ("kniffel", lambda lv: kniffel.simulate(kniffel.load("kniffel", folder), lv, games, 1)),
        ("kniffel/classic", lambda lv: kniffel.simulate(kniffel.load("classic", folder), lv, games, 1)),
        ("dicepoker", lambda lv: dicepoker.simulate(dicepoker.load(folder), lv, games, 1)),
        ("tutto (per turn)", lambda lv: np.array(tutto.play_turns(lv, tutto_turns, 1))),
        ("knister", lambda lv: np.array(knister.play_solo(knister.load(folder), lv, knister_games, 1))),
    ):
        cells = []
        for level in strategy.LEVELS:
            start = time.perf_counter()
            scores = run(level)
            cells.append(
                f"{level} {scores.mean():7.2f} / {scores.std(ddof=1):6.2f} ({time.perf_counter() - start:5.1f} s)"
            )
        count = {"knister": knister_games, "tutto (per turn)": tutto_turns}.get(name, games)
        print(f"  {name:<17} n={count:<6} " + "   ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hints", type=int, default=2000)
    parser.add_argument("--check-games", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--knister-games", type=int, default=1000)
    parser.add_argument("--tutto-turns", type=int, default=10_000)
    args = parser.parse_args()
    _machine()
    folder = tempfile.mkdtemp(prefix="bench-strategy-")
    builds(folder, args.runs)
    loading(folder)
    hints(folder, args.hints)
    print("\nTutto, expected points per turn under the optimal single-turn policy (by first card):")
    for card, value in tutto.expected_per_turn().items():
        print(f"  {card:<12} {value:8.2f}")
    check(folder, args.check_games)
    levels(folder, args.games, args.knister_games, args.tutto_turns)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}; tables left in {folder}")


if __name__ == "__main__":
    main()
