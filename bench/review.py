"""What the move history and a post-game review cost: rows and bytes stored per game, and the review's time.

For each rule set, ``--games`` seeded two-player games are played by the ``normal`` level through the pure engine
(no Discord); every action becomes the history row the bot would store (``transitions.played``), and one player's
review is computed from those rows as the bot does in its worker thread (``bot.play.review.review``), with the
strategy tables already in memory. Prints rows, kilobytes, decisions, and the review's wall and CPU time.

Run: ``python -m bench.review`` (``--games``, ``--seed``, ``--dir`` for the strategy tables folder).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.levels import RULE_SETS
from bot import strategy
from bot.play.review import review
from bot.play.transitions import played
from bot.registry import load_specs
from bot.storage import Database, GamesRepository, MoveRow, Seat


def game_moves(key: str, seed: int, directory: Path | None) -> list[MoveRow]:
    """The history rows of one seeded two-player ``normal`` game of the rule set ``key``."""
    rules = RULE_SETS[key]
    dice, decisions = random.Random(f"dice:{seed}"), random.Random(f"decisions:{seed}")
    engine = rules.engine
    state = engine.new_game(["1", "2"], dice, **rules.options)
    moves = []
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        action = strategy.choose(state, player, "normal", decisions, directory=directory)
        moves.append(played(player, "player", action, state))
        state = engine.apply(state, player, action, dice)
    return moves


async def save_times(moves: list[MoveRow], saves: int) -> tuple[float, float]:
    """Median milliseconds of ``GamesRepository.save`` of a running game without and with its move's history row
    (alternating, on a temporary database file with the bot's pragmas)."""
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "bench.sqlite3")
        games = GamesRepository(db)
        game = await games.create(
            kind="bench", variant="standard", guild_id=1, channel_id=1, host=Seat.user(1, "A"), locale="en-US",
            options={}, deadline_at=None,
        )  # fmt: skip
        game = replace(game, status="running", state=moves[0].state)
        plain, with_history = [], []
        for index in range(saves):
            for timings, rows in ((plain, ()), (with_history, (moves[index % len(moves)],))):
                start = time.perf_counter()
                game = await games.save(replace(game, state=moves[index % len(moves)].state), before=game, moves=rows)
                timings.append((time.perf_counter() - start) * 1000)
        await db.close()
    return statistics.median(plain), statistics.median(with_history)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.review", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="strategy tables folder (default data/strategy)")
    args = parser.parse_args(argv)
    if args.games < 1:
        print("bench.review: --games must be at least 1", file=sys.stderr)
        return 2
    specs = load_specs()
    directory = args.dir or Path("data/strategy")
    strategy.warm(directory)
    print(f"# bench.review: seed {args.seed}, {args.games} two-player normal games per rule set")
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("| rule set | history rows / game | KiB / game | decisions / player | review wall p50 / max (ms) | CPU p50 |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, rules in RULE_SETS.items():
        spec = specs[rules.engine.__name__.rsplit(".", 1)[1]]
        variant = rules.options.get("ruleset", spec.variants[0])
        rows, sizes, counts, walls, cpus = [], [], [], [], []
        for game in range(args.games):
            moves = game_moves(key, args.seed * 1_000_003 + game, directory)
            rows.append(len(moves))
            sizes.append(sum(len(m.state) + len(m.action) + len(m.player) for m in moves) / 1024)
            start, start_cpu = time.perf_counter(), time.process_time()
            result = review(spec, variant, "1", moves, directory)
            walls.append((time.perf_counter() - start) * 1000)
            cpus.append((time.process_time() - start_cpu) * 1000)
            counts.append(len(result.decisions))
        print(
            f"| {rules.name} | {statistics.mean(rows):.0f} | {statistics.mean(sizes):.0f} | "
            f"{statistics.mean(counts):.1f} | {statistics.median(walls):.0f} / {max(walls):.0f} | "
            f"{statistics.median(cpus):.0f} |",
            flush=True,
        )
    plain, with_history = asyncio.run(save_times(game_moves("kniffel", args.seed, directory), 500))
    print(
        f"\nSaving a running Kniffel game, median of 500 each: {plain:.2f} ms without, {with_history:.2f} ms with its"
    )
    print("history row (the same transaction, one more statement).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
