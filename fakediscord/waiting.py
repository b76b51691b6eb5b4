"""Bounded waiting on the fake world's state, so tests never sleep and never hang.

Every mutation (a message created, an interaction acknowledged, a gateway session identified) calls
:meth:`Changes.notify`; waiters re-check their predicate then, and also every :data:`POLL_INTERVAL` seconds so
predicates over state fakediscord does not own (the bot's caches) work too. A caller whose predicate is costly and
whose state changes before a notification anyway (a database row the bot saves before editing the message that
shows it) passes a longer ``poll``. A wait that runs out raises
``TimeoutError`` with a description of what was awaited, plus any diagnostics the caller supplies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
POLL_INTERVAL = 0.02


class Changes:
    """A broadcast "something changed" signal with predicate waiting."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` synchronously on every change (the playground page coalesces and pushes them)."""
        self._listeners.append(listener)

    def notify(self) -> None:
        for listener in self._listeners:
            listener()
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float,
        what: str = "condition",
        diagnostics: Callable[[], str] | None = None,
        poll: float = POLL_INTERVAL,
    ) -> T:
        """Return the first truthy value of ``predicate()``, re-checked on every change and every ``poll`` seconds;
        raise ``TimeoutError`` after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                detail = f"\n{diagnostics()}" if diagnostics else ""
                raise TimeoutError(f"timed out after {timeout:g}s waiting for {what}{detail}")
            waiter = loop.create_future()
            self._waiters.append(waiter)
            try:
                await asyncio.wait_for(waiter, min(remaining, poll))
            except TimeoutError:
                continue
