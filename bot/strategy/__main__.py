"""Command line: ``python -m bot.strategy ev|selfplay|build`` (see ``--help``); bad arguments exit with code 2."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import numpy as np

from bot.engine import kniffel as kniffel_engine
from bot.folders import unwritable
from bot.strategy import dicepoker, kniffel, knister, missing, tables, tutto
from bot.strategy.base import LEVELS

GAMES = ("kniffel", "dicepoker", "tutto", "knister")
BAR = 50
#: The seeds the games' random generators take: a signed 64-bit number (numba's and numpy's).
SEEDS = range(-(2**63), 2**63)
#: How many games (Tutto: turns) one self-play may ask for: the scores are one array, 80 MB at the most; more was a
#: traceback from numpy.
GAME_COUNTS = range(1, 10_000_001)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n")


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"error: {message}\n")
    raise SystemExit(2)


def bounded(values: range, noun: str) -> Callable[[str], int]:
    """An argparse type for a whole number in ``values``: a ``--seed`` beyond 64 bits was a traceback ("Int value
    is too large"), and so was ``--games 99999999999999999999`` (numpy)."""
    span = f"from {values.start} to {values.stop - 1}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun} {span}") from None
        if value not in values:
            raise argparse.ArgumentTypeError(f"{value} is not {noun} {span}")
        return value

    return parse


def _ruleset(game: str, rules: str | None) -> str | None:
    if game == "kniffel":
        ruleset = rules or "kniffel"
        if ruleset not in kniffel_engine.RULESETS:
            _fail(f"unknown rule set {ruleset!r} for kniffel; expected one of {', '.join(kniffel_engine.RULESETS)}")
        return ruleset
    if rules is not None:
        _fail(f"{game} has no rule sets")
    return None


def _ev(game: str, ruleset: str | None, directory: Path) -> None:
    if game == "kniffel":
        assert ruleset is not None
        print(f"{kniffel.load(ruleset, directory).expected_score():.4f}")
    elif game == "dicepoker":
        print(f"{dicepoker.load(directory).expected_score():.4f}")
    elif game == "tutto":
        for card, value in tutto.expected_per_turn().items():
            print(f"{card:<12} {value:9.2f}")
    else:
        _fail("knister has no exact value; try: selfplay knister --level perfect")


def _selfplay(game: str, ruleset: str | None, level: str, games: int, seed: int, directory: Path) -> None:
    if game == "kniffel":
        assert ruleset is not None
        scores = kniffel.simulate(kniffel.load(ruleset, directory), level, games, seed)
    elif game == "dicepoker":
        scores = dicepoker.simulate(dicepoker.load(directory), level, games, seed)
    elif game == "tutto":
        scores = np.array(tutto.play_turns(level, games, seed))
    else:
        scores = np.array(knister.play_solo(knister.load(directory), level, games, seed))
    unit = "points per turn" if game == "tutto" else "final score"
    print(
        f"{game} {ruleset or ''} {level}: {games} {'turns' if game == 'tutto' else 'games'}, seed {seed}".replace(
            "  ", " "
        )
    )
    print(f"mean {scores.mean():.2f}  sd {scores.std(ddof=1) if games > 1 else 0.0:.2f}  ({unit})")
    print(histogram(scores))


def histogram(scores: Sequence[float] | np.ndarray, bins: int = 12) -> str:
    """A text histogram: one line per bin, its range, count and a bar."""
    counts, edges = np.histogram(np.asarray(scores), bins=bins)
    peak = max(int(counts.max()), 1)
    return "\n".join(
        f"{edges[i]:8.0f} .. {edges[i + 1]:8.0f} {count:7d} {'#' * round(BAR * count / peak)}"
        for i, count in enumerate(counts)
    )


def _build(directory: Path, *, rebuild: bool) -> None:
    # Without ``rebuild``, the tables present are left alone: loading them here would be thrown away with the
    # process (the start-up's ``--missing``; the bot loads them itself).
    wanted = None if rebuild else set(missing(directory))
    for ruleset in kniffel_engine.RULESETS:
        if wanted is None or kniffel.table_name(ruleset) in wanted:
            start = time.perf_counter()
            kniffel.load(ruleset, directory, rebuild=rebuild)
            print(f"kniffel/{ruleset}: {time.perf_counter() - start:.2f} s")
    if wanted is None or dicepoker.TABLE in wanted:
        start = time.perf_counter()
        dicepoker.load(directory, rebuild=rebuild)
        print(f"dicepoker: {time.perf_counter() - start:.2f} s")
    if rebuild:
        # Tutto's policy is solved in memory and never stored, so the start-up's ``--missing`` has nothing to
        # leave on disk for it: the bot solves it in its own process (``strategy.warm``).
        start = time.perf_counter()
        tutto.solve_turn.cache_clear()
        tutto.solve_turn()
        print(f"tutto: {time.perf_counter() - start:.2f} s")
    if wanted is None or knister.TABLE in wanted:
        start = time.perf_counter()
        knister.load(directory, rebuild=rebuild)
        print(f"knister: {time.perf_counter() - start:.2f} s")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line."""
    parser = _Parser(
        prog="python -m bot.strategy",
        description="Exact strategy tables and self-play: expected scores (ev), seeded solo games (selfplay), "
        "the table cache (build). Bad arguments exit with code 2.",
    )
    parser.add_argument("--dir", type=Path, default=tables.DEFAULT_DIR, help="table cache folder")
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser("ev", help="expected score of a fresh solo game under optimal play")
    ev.add_argument("game", choices=GAMES)
    ev.add_argument("--rules")
    play = commands.add_parser("selfplay", help="play seeded solo games at a level")
    play.add_argument("game", choices=GAMES)
    play.add_argument("--rules")
    play.add_argument("--level", choices=LEVELS, required=True)
    play.add_argument("--games", type=bounded(GAME_COUNTS, "a number of games"), default=1000)
    play.add_argument("--seed", type=bounded(SEEDS, "a seed"), default=0)
    build = commands.add_parser("build", help="build every table and print the time each took")
    build.add_argument(
        "--missing", action="store_true", help="build only the tables the cache folder lacks (the bot's start-up)"
    )
    args = parser.parse_args(argv)
    if args.dir.exists() and not args.dir.is_dir():
        # Every table would fail to store and be built again at every start, with a warning each and exit 0.
        _fail(f"--dir {args.dir} is a file, not a folder")
    if args.command == "build":
        # Storing the tables is this command's job: a folder that cannot take them is refused before building.
        reason = unwritable(args.dir)
        if reason is not None:
            _fail(f"--dir {args.dir} cannot hold the tables ({reason})")
        _build(args.dir, rebuild=not args.missing)
        unstored = missing(args.dir)
        if unstored:
            sys.stderr.write(f"error: could not store these tables in {args.dir}: {', '.join(unstored)}\n")
            raise SystemExit(1)
        return
    ruleset = _ruleset(args.game, args.rules)
    if args.command == "ev":
        _ev(args.game, ruleset, args.dir)
    else:
        _selfplay(args.game, ruleset, args.level, args.games, args.seed, args.dir)


if __name__ == "__main__":
    main()
