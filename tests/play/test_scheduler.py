"""The deadline scheduler wakes for a deadline earlier than the one it sleeps for, and never misses one saved while
it was checking; most saves (a later or unchanged deadline) do not wake it at all."""

from __future__ import annotations

import asyncio

from bot.play.scheduler import DeadlineScheduler

NOW = 1_000.0


class FakeGames:
    """Deadlines by game id; ``next_deadline`` can be held open to save a deadline in the middle of a check."""

    def __init__(self, deadlines: dict[int, float]) -> None:
        self.deadlines = deadlines
        self.hold: asyncio.Event | None = None
        self.checking = asyncio.Event()
        self.checks = 0

    async def due(self, now: float) -> list[int]:
        return sorted(game for game, at in self.deadlines.items() if at <= now)

    async def next_deadline(self) -> float | None:
        self.checks += 1
        earliest = min(self.deadlines.values(), default=None)  # the query's snapshot
        self.checking.set()
        if self.hold is not None:
            await self.hold.wait()
        return earliest


async def test_a_deadline_saved_during_a_check_is_not_missed() -> None:
    games = FakeGames({1: NOW + 3600})
    fired: asyncio.Queue[int] = asyncio.Queue()

    async def fire(game_id: int) -> None:
        games.deadlines.pop(game_id)
        await fired.put(game_id)

    scheduler = DeadlineScheduler(games, fire, clock=lambda: NOW)  # type: ignore[arg-type]
    games.hold = asyncio.Event()
    scheduler.start()
    await asyncio.wait_for(games.checking.wait(), 5)
    games.deadlines[2] = NOW  # saved while the scheduler reads the next deadline
    scheduler.wake(NOW)
    games.hold.set()
    assert await asyncio.wait_for(fired.get(), 5) == 2
    await scheduler.stop()


async def test_only_an_earlier_deadline_wakes_the_scheduler() -> None:
    games = FakeGames({1: NOW + 3600})
    fired: asyncio.Queue[int] = asyncio.Queue()

    async def fire(game_id: int) -> None:
        games.deadlines.pop(game_id)
        await fired.put(game_id)

    scheduler = DeadlineScheduler(games, fire, clock=lambda: NOW)  # type: ignore[arg-type]
    scheduler.start()
    await asyncio.wait_for(games.checking.wait(), 5)
    await asyncio.sleep(0)
    checks = games.checks
    for later in (NOW + 3600, NOW + 7200, None):
        scheduler.wake(later)  # a move in the same turn, a new turn further off, a finished game
    games.deadlines[2] = NOW
    scheduler.wake(NOW)
    assert await asyncio.wait_for(fired.get(), 5) == 2
    assert games.checks == checks + 1  # the later deadlines cost no extra check
    await scheduler.stop()
