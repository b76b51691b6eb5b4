"""One lock per game, so a game's requests (clicks, commands, deadlines, repairs) run one at a time.

A game that is over has no more requests worth a lock: its lock is forgotten, but only once nobody holds it or
waits for it. Forgotten while held (at the save that finished the game), the next request would make a new lock
and run beside the request still answering, showing and moving the final board.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator


class GameLocks:
    """The games' locks, each made on first use and forgotten once its game is over and the lock is free."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: Counter[int] = Counter()
        self._over: set[int] = set()

    @contextlib.asynccontextmanager
    async def hold(self, game_id: int) -> AsyncIterator[None]:
        """Hold the game's lock for the block."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        self._users[game_id] += 1
        try:
            async with lock:
                yield
        finally:
            self._users[game_id] -= 1
            if not self._users[game_id]:
                del self._users[game_id]
                if game_id in self._over:
                    self._over.discard(game_id)
                    del self._locks[game_id]

    def forget(self, game_id: int) -> None:
        """The game is over (or gone): drop its lock now if it is free, else when the last holder or waiter is done."""
        if game_id in self._users:
            self._over.add(game_id)
        else:
            self._locks.pop(game_id, None)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._locks
