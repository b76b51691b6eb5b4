"""The storage half of a click, alone: load a game and save it with the version check, from many channels at once.

Run: ``.venv/bin/python -m bench.save [--channels 20] [--saves 200] [--database postgresql://...]``.

Each of ``--channels`` tasks loads its game (``GamesRepository.get``) and saves it with a new state and deadline
(``GamesRepository.save``: the UPDATE with the version check, in one transaction), ``--saves`` times, as a click
does under its game's lock. It prints saves per second, the latency of one load + save (p50 / p99) and this
process's CPU time per save, for SQLite (a new file) and, with ``--database``, for PostgreSQL (a new schema of that
database, dropped afterwards). Only the repositories' public calls are used, so the same file measures an older
checkout too (``PYTHONPATH=<checkout> python bench/save.py``), which is how the one-hop SQLite transaction was
compared with the hop per statement before it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

from bot.storage import Database, GamesRepository, Seat


@contextlib.asynccontextmanager
async def database(url: str | None) -> AsyncIterator[Database]:
    """A new SQLite file, or a new schema of the PostgreSQL database ``url``."""
    if url is None:
        with tempfile.TemporaryDirectory(prefix="bench-save-") as folder:
            db = await Database.open(Path(folder) / "bench.sqlite3")
            try:
                yield db
            finally:
                await db.close()
        return
    import asyncpg

    schema = f"dicebot_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        db = await Database.open(f"{url}{'&' if '?' in url else '?'}search_path={schema}")
        try:
            yield db
        finally:
            await db.close()
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


async def measure(db: Database, channels: int, saves: int) -> tuple[float, list[float], float]:
    """Saves per second, every load + save's latency in ms, and CPU ms per save."""
    games = GamesRepository(db)
    ids = []
    for channel in range(channels):
        record = await games.create(
            kind="kniffel", variant="kniffel", guild_id=1, channel_id=1000 + channel, host=Seat.user(7, "Ann"),
            locale="en-US", options={}, deadline_at=None,
        )  # fmt: skip
        ids.append(record.id)
    latencies: list[float] = []

    async def channel_loop(game_id: int) -> None:
        for move in range(saves):
            started = time.perf_counter()
            record = await games.get(game_id)
            assert record is not None
            await games.save(
                replace(record, status="running", state=f'{{"move": {move}}}', deadline_at=time.time() + 120),
                before=record,
            )
            latencies.append((time.perf_counter() - started) * 1000)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(channel_loop(game_id) for game_id in ids))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    total = channels * saves
    return total / wall, latencies, cpu / total * 1000


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--saves", type=int, default=200, help="load + save rounds per channel")
    parser.add_argument("--database", metavar="URL", help="also measure this PostgreSQL database (postgresql://...)")
    args = parser.parse_args()
    print(
        f"{args.channels} channels x {args.saves} saves; Python {platform.python_version()}, SQLite "
        f"{sqlite3.sqlite_version}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}"
    )
    print("| backend | saves/s | load + save p50 / p99 ms | CPU ms per save (this process) |")
    print("|---|---|---|---|")
    for name, url in (("SQLite", None), ("PostgreSQL", args.database)):
        if name == "PostgreSQL" and url is None:
            continue
        async with database(url) as db:
            rate, latencies, cpu = await measure(db, args.channels, args.saves)
        cuts = statistics.quantiles(latencies, n=100)
        print(f"| {name} | {rate:.0f} | {cuts[49]:.2f} / {cuts[98]:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    asyncio.run(main())
