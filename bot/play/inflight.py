"""Counting requests in progress, so a shutdown can let them finish (reply sent, message id stored)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator


class InFlight:
    """How many clicks, commands and deadlines are being handled right now, and a way to wait for none."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        self._count += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._count -= 1
            if not self._count:
                self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Wait until nothing is in progress (or ``timeout`` passes)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
