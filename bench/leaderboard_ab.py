"""Before and after of every leaderboard query in one run: ``bench/leaderboard.py --db`` taking turns between trees.

Run: ``.venv/bin/python bench/leaderboard_ab.py --before /tmp/base --db kept.sqlite3 [--rounds 5] [--runs 9]
[--clock cpu]``,
where ``--before`` is another checkout (``git worktree add /tmp/base main``) and ``--db`` a database kept by
``bench/leaderboard.py --keep`` (it is not changed: each tree times a copy of its own, migrated by that tree).

The machine is shared, so a "before" run an hour earlier says little about a change. Here each round runs the
timing once with the bot package of ``--before`` (on ``PYTHONPATH``) and once with this checkout's, alternating
which goes first, so both see the same load. Per query it prints the median of the rounds' medians and the
worst sample of any round, before and after; and each round's cost of storing a game, and the opening lines
(migrations, first boards) of the first two rounds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMED = re.compile(r"^(?P<label>.+?)\s+median\s+(?P<median>[\d.]+) ms\s+worst\s+(?P<worst>[\d.]+) ms$")
ONCE = ("migrations from", "first ", "Python")


def run(tree: Path, db: Path, runs: int, clock: str) -> str:
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(HERE / "leaderboard.py"), "--db", str(db), "--runs", str(runs), "--clock", clock]
    return subprocess.run(command, env=environment, check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--db", type=Path, required=True, help="a database kept by bench/leaderboard.py --keep")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="see bench/leaderboard.py --help")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": HERE.parent}
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {name: defaultdict(list) for name in trees}
    with tempfile.TemporaryDirectory(dir=args.db.parent) as folder:
        copies = {name: Path(folder) / f"{name}.sqlite3" for name in trees}
        for copy in copies.values():
            shutil.copyfile(args.db, copy)
        for round_number in range(args.rounds):
            order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
            for name in order:
                output = run(trees[name], copies[name], args.runs, args.clock)
                for line in output.splitlines():
                    if found := TIMED.match(line):
                        samples[name][found["label"]].append((float(found["median"]), float(found["worst"])))
                    if line.startswith("store") or (round_number < 2 and line.startswith(ONCE)):
                        print(f"{name} round {round_number + 1}: {line}")
    print(f"{args.rounds} rounds of {args.runs} runs ({args.clock}): median of the rounds' medians / worst of all, ms")
    print(f"{'query':<72} {'before':>17} {'after':>17}")
    for label, before in samples["before"].items():
        # A week or month board's pages move with the clock: a label only one tree saw has nothing to compare.
        if not (after := samples["after"].get(label)):
            continue
        cells = [f"{statistics.median(m for m, _ in s):7.3f} / {max(w for _, w in s):7.3f}" for s in (before, after)]
        print(f"{label:<72} {cells[0]:>17} {cells[1]:>17}")


if __name__ == "__main__":
    main()
