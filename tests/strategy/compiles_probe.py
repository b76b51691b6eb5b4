"""Run by ``test_compiling.py`` in a fresh process: after ``strategy.warm`` (``warm``) or after ``strategy.prepare``
of each game's state (``prepare``), the first decisions of a two-player game of every kind, each valued, its keeps
valued and chosen at every level, must not hold numba's compiler lock once (no compile, no load from numba's
cache). Prints the number of holds per game.

A fresh process, because a kernel compiled by an earlier test would hide one that prepare or warm leaves
uncompiled; the games share one process, so a kernel two games share (the five-dice keep choice) is checked with
the first of them only.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from numba.core import event

from bot import strategy
from bot.engine import dicepoker, kniffel, knister, tutto
from bot.strategy.compiling import COMPILER_LOCK

PLAYERS = ["a", "b"]
GAMES: dict[str, tuple[Any, Callable[[random.Random], Any]]] = {
    "kniffel": (kniffel, lambda rng: kniffel.new_game(PLAYERS, rng, "kniffel")),
    "classic": (kniffel, lambda rng: kniffel.new_game(PLAYERS, rng, "classic")),
    "dicepoker": (dicepoker, lambda rng: dicepoker.new_game(PLAYERS, rng)),
    "tutto": (tutto, lambda rng: tutto.new_game(PLAYERS, rng)),
    "knister": (knister, lambda rng: knister.new_game(PLAYERS, rng)),
}
#: The decisions played of each game: several five-dice turns, Tutto turns and Knister rounds (a whole Knister
#: game is 75 and costs a second of CPU; its search is the same from the first placement on).
STEPS = 40


class Holds(event.Listener):
    def __init__(self) -> None:
        self.count = 0

    def on_start(self, _event: event.Event) -> None:
        self.count += 1

    def on_end(self, _event: event.Event) -> None:
        pass


def holds_playing(engine: Any, state: Any, directory: str, rng: random.Random) -> int:
    holds = Holds()
    with event.install_listener(COMPILER_LOCK, holds):
        for step in range(STEPS):
            if engine.is_over(state):
                break
            player = next(player for player in PLAYERS if engine.legal_actions(state, player))
            strategy.evaluate(state, player, directory=directory)
            strategy.keep_values(state, player, directory=directory)
            level = strategy.LEVELS[step % len(strategy.LEVELS)]
            state = engine.apply(state, player, strategy.choose(state, player, level, rng, directory=directory), rng)
    return holds.count


def main(mode: str, directory: str) -> None:
    if mode == "warm":
        strategy.warm(directory)
    for name, (engine, new_game) in GAMES.items():
        rng = random.Random(7)
        state = new_game(rng)
        if mode == "prepare":
            strategy.prepare(state, PLAYERS[0], directory=directory)
        print(name, holds_playing(engine, state, directory, rng))


if __name__ == "__main__":
    main(*sys.argv[1:])
