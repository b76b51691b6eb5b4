"""What the benchmarks measure, from outside the process under test: its CPU and memory, and click latencies.

The bot never reports on itself here: CPU seconds and memory come from the operating system (psutil, and the
kernel's own high-water mark of the resident set on Linux), and a click's latency is timed by fakediscord's side
of the wire, from the moment the simulated user clicks to the moment the bot's interaction callback arrives.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from fakediscord import InteractionHandle
from fakediscord.state import Upload, World

MB = 1024 * 1024


class ProcessProbe:
    """CPU seconds and memory of another process (a bot), as the operating system accounts them."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._process = psutil.Process(pid)
        self._sampled_peak = 0

    def cpu_seconds(self) -> float:
        """User plus system CPU time the process has used so far."""
        times = self._process.cpu_times()
        return times.user + times.system

    def rss(self) -> int:
        """Resident set size now, in bytes."""
        rss = int(self._process.memory_info().rss)
        self._sampled_peak = max(self._sampled_peak, rss)
        return rss

    def peak_rss(self) -> int:
        """The highest resident set size so far: the kernel's VmHWM on Linux, else the highest value sampled."""
        status = Path(f"/proc/{self.pid}/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return max(self._sampled_peak, self.rss())


class Stopwatch:
    """When fakediscord accepted the bot's callback for each interaction a benchmark is waiting on.

    fakediscord has no hook for "a callback arrived", so the world's ``respond`` is wrapped on this one instance.
    Waiting on a per-interaction future (rather than fakediscord's broadcast ``Changes``) keeps the load
    generator's cost per click constant however many simulated players are waiting. Answered interactions are
    dropped from the world's table, which otherwise keeps every interaction ever made (fakediscord's expiry skips
    the dropped ones).
    """

    def __init__(self, world: World) -> None:
        self._world = world
        self._pending: dict[int, asyncio.Future[float]] = {}
        respond = world.respond

        def timed(handle: InteractionHandle, body: dict[str, Any], uploads: list[Upload]) -> dict[str, Any]:
            try:
                return respond(handle, body, uploads)
            finally:
                if handle.acknowledged:
                    answered = time.perf_counter()
                    world.interactions.pop(handle.id, None)
                    waiter = self._pending.pop(handle.id, None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(answered)

        world.respond = timed  # type: ignore[method-assign]

    async def answered(self, handle: InteractionHandle, timeout: float) -> float | None:
        """``perf_counter()`` when the callback for ``handle`` arrived, or None if none came within ``timeout``."""
        if handle.acknowledged:
            return time.perf_counter()
        waiter = asyncio.get_running_loop().create_future()
        self._pending[handle.id] = waiter
        try:
            return await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return None
        finally:
            self._pending.pop(handle.id, None)
            self._world.interactions.pop(handle.id, None)


@dataclass
class Latencies:
    """Clicks answered (with their latency) and clicks that got no answer in time, within a time window."""

    answered: list[tuple[float, float]] = field(default_factory=list)
    unanswered: list[float] = field(default_factory=list)
    #: Clicks the simulated client could not make (the button was gone or disabled when it looked again).
    refused: int = 0
    #: Clicks the bot answered with a private refusal ("outdated", "not your turn") instead of playing them.
    rejected: int = 0

    def record(self, clicked: float, answered: float | None) -> None:
        if answered is None:
            self.unanswered.append(clicked)
        else:
            self.answered.append((clicked, answered))

    def window(self, start: float, end: float) -> Summary:
        """The clicks answered within [start, end] (and those clicked in it that never were)."""
        latencies = [done - clicked for clicked, done in self.answered if start <= done <= end]
        lost = sum(1 for clicked in self.unanswered if start <= clicked <= end)
        return Summary(end - start, latencies, lost)


@dataclass(frozen=True)
class Summary:
    seconds: float
    latencies: list[float]
    unanswered: int

    @property
    def clicks(self) -> int:
        return len(self.latencies)

    @property
    def per_second(self) -> float:
        return self.clicks / self.seconds if self.seconds else 0.0

    def percentile_ms(self, percent: int) -> float:
        """The ``percent``-th percentile latency in milliseconds (NaN without two samples)."""
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[percent - 1] * 1000
