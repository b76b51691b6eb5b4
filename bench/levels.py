"""Each computer level's win rate against the others: seeded two-player games with the pure engine and strategy.

For every rule set (Kniffel, Kniffel classic, dice poker, Tutto, Knister) and every pair of different levels
(easy/normal/perfect), ``--games`` games are played through the engines' ``apply`` with ``bot.strategy.choose``
deciding every step, no Discord and no database. The seats swap every game (the first player's advantage cancels
out) and every game has its own seeds for the dice and for the decisions. A tie counts half a win to each.

Run: ``python -m bench.levels`` (``--games``, ``--knister-games``, ``--rules``, ``--seed``, ``--dir``). Knister's
``perfect`` player runs rollouts for every placement (about 50 ms of CPU each), so Knister defaults to fewer games.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import strategy
from bot.engine import dicepoker, kniffel, knister, tutto

LEVELS = ("easy", "normal", "perfect")
PAIRS = tuple(itertools.combinations(LEVELS, 2))


@dataclass(frozen=True)
class RuleSet:
    """A game and the options of its ``new_game``."""

    name: str
    engine: Any
    options: dict[str, Any] = field(default_factory=dict)


RULE_SETS = {
    "kniffel": RuleSet("Kniffel", kniffel, {"ruleset": "kniffel"}),
    "classic": RuleSet("Kniffel classic", kniffel, {"ruleset": "classic"}),
    "dicepoker": RuleSet("dice poker", dicepoker),
    "tutto": RuleSet("Tutto", tutto),
    "knister": RuleSet("Knister", knister),
}


def play(rules: RuleSet, levels: dict[str, str], seed: int, directory: Path | None) -> dict[str, float]:
    """One seeded game between the players of ``levels`` (seat order = dict order); each player's share of the win."""
    dice = random.Random(f"dice:{seed}")
    decisions = random.Random(f"decisions:{seed}")
    engine = rules.engine
    state = engine.new_game(list(levels), dice, **rules.options)
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        action = strategy.choose(state, player, levels[player], decisions, directory=directory)  # type: ignore[arg-type]
        state = engine.apply(state, player, action, dice)
    winners = [result.player for result in engine.results(state) if result.won]
    if not winners:  # nobody is marked as the winner: share by rank
        best = min(result.rank for result in engine.results(state))
        winners = [result.player for result in engine.results(state) if result.rank == best]
    return {player: (1 / len(winners) if player in winners else 0.0) for player in levels}


def match(rules: RuleSet, first: str, second: str, games: int, seed: int, directory: Path | None) -> tuple[float, int]:
    """``first``'s wins (ties half) over ``games`` games against ``second``, seats swapping every game; and ties."""
    wins, ties = 0.0, 0
    for game in range(games):
        seats = {"a": first, "b": second} if game % 2 == 0 else {"b": second, "a": first}
        share = play(rules, seats, seed * 1_000_003 + game, directory)
        wins += share["a"]
        ties += 0.0 < share["a"] < 1.0
    return wins, ties


def run(
    selected: list[str],
    games: int,
    knister_games: int,
    seed: int,
    directory: Path | None,
    out: Callable[[str], None],
    pairs: tuple[tuple[str, str], ...] = PAIRS,
) -> None:
    out(f"# bench.levels: seed {seed}, {games} games per pair ({knister_games} for Knister)")
    machine = platform.processor() or platform.machine()
    out(f"# machine: {machine}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    out("| rule set | pair (A vs B) | games | A wins | ties | A's win rate | seconds |")
    out("|---|---|---:|---:|---:|---:|---:|")
    totals: dict[str, dict[str, tuple[float, int]]] = {}
    for key in selected:
        rules = RULE_SETS[key]
        count = knister_games if key == "knister" else games
        per_level: dict[str, tuple[float, int]] = {level: (0.0, 0) for level in LEVELS}
        for first, second in pairs:
            start = time.perf_counter()
            wins, ties = match(rules, first, second, count, seed, directory)
            seconds = time.perf_counter() - start
            rate = wins / count
            out(f"| {rules.name} | {first} vs {second} | {count} | {wins:g} | {ties} | {rate:.1%} | {seconds:.0f} |")
            won, played = per_level[first]
            per_level[first] = (won + wins, played + count)
            won, played = per_level[second]
            per_level[second] = (won + count - wins, played + count)
        totals[rules.name] = per_level
    out("")
    out("Each level's win rate against the other two levels (ties half):")
    out("")
    out("| rule set | easy | normal | perfect |")
    out("|---|---:|---:|---:|")
    for name, per_level in totals.items():
        cells = " | ".join(f"{won / played:.1%}" if played else "—" for won, played in per_level.values())
        out(f"| {name} | {cells} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.levels", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pair of levels and rule set")
    parser.add_argument("--knister-games", type=int, default=200, help="games per pair for Knister (rollouts)")
    parser.add_argument("--rules", nargs="*", choices=list(RULE_SETS), default=list(RULE_SETS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--pairs", nargs="*", choices=[f"{a}-{b}" for a, b in PAIRS], default=None, help="only these pairs of levels"
    )
    parser.add_argument("--dir", type=Path, default=None, help="strategy tables folder (default data/strategy)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.knister_games < 1:
        print("bench.levels: --games and --knister-games must be at least 1", file=sys.stderr)
        return 2
    pairs = tuple(pair for pair in PAIRS if args.pairs is None or f"{pair[0]}-{pair[1]}" in args.pairs)
    run(args.rules, args.games, args.knister_games, args.seed, args.dir, lambda line: print(line, flush=True), pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
