"""The games in progress last loaded or saved, kept in memory between clicks so a click reads no row.

The database stays the source of truth: an entry is exactly what was last read from it or written to it by
this process (under the game's lock), a restart starts empty, and every save carries the optimistic version
check, so an entry that is somehow stale makes a save fail rather than overwrite anything. The service drops
an entry on any failure, and the next request loads the game again. Finished and abandoned games are not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from types import TracebackType

from bot.play.transitions import Game

#: Games kept at most; the least recently used go first. A Kniffel game in memory is a few kilobytes.
LIMIT = 2000


class GameCache:
    """Least recently used games in progress, by game id (the engine state parsed, the seats loaded)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self._games: OrderedDict[int, Game] = OrderedDict()
        self._limit = limit

    def get(self, game_id: int) -> Game | None:
        game = self._games.get(game_id)
        if game is not None:
            self._games.move_to_end(game_id)
        return game

    def put(self, game: Game) -> None:
        """Keep ``game`` as the latest known version of its game; a game that is over is dropped instead."""
        game_id = game.record.id
        if not game.record.active:
            self._games.pop(game_id, None)
            return
        self._games[game_id] = game
        self._games.move_to_end(game_id)
        if len(self._games) > self._limit:
            self._games.popitem(last=False)

    def drop(self, game_id: int) -> None:
        """Forget a game (after any failure): the next request reads it from the database."""
        self._games.pop(game_id, None)

    def dropped_on_failure(self, game_id: int) -> DropOnFailure:
        """An ``async with`` block after which ``game_id`` is dropped if it raised anything (the error goes on)."""
        return DropOnFailure(self, game_id)

    def __len__(self) -> int:
        return len(self._games)


class DropOnFailure:
    """Drops a game from the cache when the block it guards raises, whatever the error; the error propagates.

    A class rather than a generator-based context manager: every click and deadline enters one, and
    ``contextlib``'s generator machinery cost a microsecond more per request (docs/benchmarks.md).
    """

    __slots__ = ("_cache", "_game_id")

    def __init__(self, cache: GameCache, game_id: int) -> None:
        self._cache = cache
        self._game_id = game_id

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if kind is not None:
            self._cache.drop(self._game_id)
