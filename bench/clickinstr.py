"""Instructions per click of ``bench.clickpath``'s path, counted by callgrind: figures that repeat on a busy machine.

Run (from the checkout to measure, ``PYTHONPATH`` set to it)::

    valgrind --tool=callgrind --instr-atstart=no --zero-before=getppid --dump-before=getpgrp \\
        --callgrind-out-file=/tmp/clicks.%p python -m bench.clickinstr [--clicks 1500] [--warmup 300]

Seconds of CPU per click move by a sixth between identical runs on a shared 2-core machine; instructions move by far
less. This plays ``bench.clickpath``'s games (its ``Table`` and ``Channels``, ``GameService.on_click`` on a new
SQLite file, the type-7 JSON encoded) with dice from a seeded ``random.Random`` per channel. It switches callgrind's
instrumentation on after the imports (``callgrind_control -i on``), and marks the measured clicks with two system
calls made nowhere else on this path: ``os.getppid`` after the warm-up's last click (callgrind zeroes its counts
there) and ``os.getpgrp`` after the last measured one (it writes them to the ``.1`` file), whose ``summary:`` line
is the total. Each channel plays the same games in every run; which of their clicks fall among the measured ones
follows the order the channels' clicks interleave in, which the write groups' timing moves a little, so identical
runs differ by about 0.2 % (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.clickpath import Channels, Table
from bot.play.service import GameService
from bot.storage import Database, GamesRepository, HistoryRepository
from bot.ui.render import Rendered
from cogs.kniffel import SPEC

#: The dice of the channel whose click is being handled: each channel rolls from its own seeded source, so its
#: games are the same however the channels' clicks interleave (a write group or a thread can change the order).
CHANNEL_DICE: contextvars.ContextVar[random.Random] = contextvars.ContextVar("channel_dice")


class MarkedTable(Table):
    """A channel of ``bench.clickpath`` with its own dice, marking where the measured clicks begin and end."""

    def __init__(
        self,
        service: GameService,
        channel: int,
        clicks: list[int],
        marks: tuple[int, int],
        stop: asyncio.Event,
        seed: int,
    ) -> None:
        super().__init__(service, channel, clicks)
        self.marks = marks
        self.stop = stop
        self.dice = random.Random(f"{seed}:{channel}")

    async def play(self, stop: asyncio.Event) -> None:
        CHANNEL_DICE.set(self.dice)  # in this channel's own task (and context)
        await super().play(stop)

    async def click(self, user: int, component: dict[str, Any], values: tuple[str, ...] = ()) -> Rendered | None:
        rendered = await super().click(user, component, values)
        if self.clicks[0] == self.marks[0]:
            os.getppid()
        elif self.clicks[0] == self.marks[1]:
            os.getpgrp()
            self.stop.set()
        return rendered


def instrument() -> None:
    """Switch callgrind's instrumentation on for this process, waiting until it has (it reads the request between
    basic blocks, so the process must keep running, not block in a wait)."""
    control = subprocess.Popen(
        ["callgrind_control", "-i", "on", str(os.getpid())], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while control.poll() is None:
        time.sleep(0.01)


async def play(clicks: int, warmup: int, seed: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-clickinstr-") as folder:
        db = await Database.open(Path(folder) / "bench.sqlite3")
        service = GameService(
            GamesRepository(db), {SPEC.kind: SPEC}, Channels(), rng=CHANNEL_DICE.get, history=HistoryRepository(db)
        )
        stop, answered = asyncio.Event(), [0]
        marks = (warmup, warmup + clicks)
        tables = [MarkedTable(service, n, answered, marks, stop, seed) for n in range(1, 21)]
        await asyncio.gather(*(table.play(stop) for table in tables))
        await db.close()
    print(f"clicks: {answered[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=1500, help="clicks measured")
    parser.add_argument("--warmup", type=int, default=300, help="clicks before the measured ones")
    parser.add_argument("--seed", type=int, default=1234, help="seed of the dice")
    args = parser.parse_args()
    if "valgrind" in os.environ.get("LD_PRELOAD", ""):
        instrument()
    asyncio.run(play(args.clicks, args.warmup, args.seed))


if __name__ == "__main__":
    main()
