"""Counting requests in progress, so a shutdown can let them finish (reply sent, message id stored)."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType


class InFlight:
    """How many clicks, commands and deadlines are being handled right now, and a way to wait for none."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def track(self) -> InFlight:
        """``with in_flight.track():`` counts the block as in progress until it ends, however it ends.

        The counter itself is the context manager: every request enters one, and ``contextlib``'s generator
        machinery cost most of a microsecond more each time (docs/benchmarks.md).
        """
        return self

    def __enter__(self) -> None:
        self._count += 1
        self._idle.clear()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._count -= 1
        if not self._count:
            self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Wait until nothing is in progress (or ``timeout`` passes)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
