"""One lock per game, so a game's requests (clicks, commands, deadlines, repairs) run one at a time.

A game that is over has no more requests worth a lock: its lock is forgotten, but only once nobody holds it or
waits for it. Forgotten while held (at the save that finished the game), the next request would make a new lock
and run beside the request still answering, showing and moving the final board.
"""

from __future__ import annotations

import asyncio
from types import TracebackType


class GameLocks:
    """The games' locks, each made on first use and forgotten once its game is over and the lock is free."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}
        self._over: set[int] = set()

    def hold(self, game_id: int) -> Holding:
        """``async with locks.hold(game_id):`` runs the block under the game's lock."""
        return Holding(self, game_id)

    def forget(self, game_id: int) -> None:
        """The game is over (or gone): drop its lock now if it is free, else when the last holder or waiter is done."""
        if game_id in self._users:
            self._over.add(game_id)
        else:
            self._locks.pop(game_id, None)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._locks

    def _enter(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        self._users[game_id] = self._users.get(game_id, 0) + 1
        return lock

    def _leave(self, game_id: int) -> None:
        users = self._users[game_id] - 1
        if users:
            self._users[game_id] = users
            return
        del self._users[game_id]
        if game_id in self._over:
            self._over.discard(game_id)
            del self._locks[game_id]


class Holding:
    """A game's lock held for an ``async with`` block (a class rather than a generator: every click enters one)."""

    __slots__ = ("_game_id", "_lock", "_locks")

    def __init__(self, locks: GameLocks, game_id: int) -> None:
        self._locks = locks
        self._game_id = game_id

    async def __aenter__(self) -> None:
        self._lock = self._locks._enter(self._game_id)
        try:
            await self._lock.acquire()
        except BaseException:
            self._locks._leave(self._game_id)
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._lock.release()
        self._locks._leave(self._game_id)
