"""The strategy engine: computer players at three levels and the value of every legal action, for every game.

Pure library beside the rules engine: it reads the engine's states, ``legal_actions`` and scoring functions
and never imports discord. Exact tables (Kniffel, dice poker) and the learned Knister values are built once
and cached on disk; call :func:`warm` from a worker thread at start-up so the first hint does not wait.

``directory`` is the table cache folder (default ``data/strategy/``); pass the same one to every call.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, cast

from bot.engine import dicepoker as dicepoker_engine
from bot.engine import kniffel as kniffel_engine
from bot.engine import knister as knister_engine
from bot.engine import tutto as tutto_engine
from bot.strategy import compiling, dicepoker, kniffel, knister, tables, tutto
from bot.strategy.base import LEVELS, ActionValue, Level, best_first
from bot.strategy.fivedice import Keep

# Before any kernel compiles: numba compiles lazily, at a kernel's first call, in whichever module of the package.
compiling.install()

__all__ = ["LEVELS", "ActionValue", "Keep", "Level", "choose", "evaluate", "keep_values", "missing", "warm"]


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")


def _strategy(state: Any, directory: Path | str | None) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The evaluate and choose functions of the state's game, bound to its tables."""
    if isinstance(state, kniffel_engine.State):
        tabs = kniffel.load(state.ruleset, directory)
        return partial(kniffel.evaluate, tabs), partial(kniffel.choose, tabs)
    if isinstance(state, dicepoker_engine.State):
        poker_tables = dicepoker.load(directory)
        return partial(dicepoker.evaluate, poker_tables), partial(dicepoker.choose, poker_tables)
    if isinstance(state, tutto_engine.State):
        return tutto.evaluate, tutto.choose
    if isinstance(state, knister_engine.State):
        knister_tables = knister.load(directory)
        return partial(knister.evaluate, knister_tables), partial(knister.choose, knister_tables)
    raise TypeError(f"no strategy for {type(state).__name__}")


def evaluate(state: Any, player: str, *, directory: Path | str | None = None) -> list[ActionValue]:
    """Every legal action of ``player`` with its value under perfect play from then on, best first.

    Empty when the player has nothing to do. Values: expected final score (Kniffel, dice poker, Knister) or
    expected points banked this turn (Tutto).
    """
    values, _ = _strategy(state, directory)
    return best_first(values(state, player, "perfect"))


def prepare(state: Any, player: str, *, directory: Path | str | None = None) -> None:
    """Load what decisions in ``state``'s game need, compiled: blocking, for a worker thread.

    Valuing the state alone left kernels uncompiled that only a decision calls: Knister's search before a roll
    (the only move then is to roll), the five-dice games' choice of a keep, Tutto's solve of a turn. Each was
    compiled, or loaded from numba's cache, on the event loop at a computer's first such move: seconds on a fresh
    install, and under the machine-wide compile lock (``compiling.py``) as long as another process's compile. So a
    few decisions of a solo game of the same kind are played here first, at every level (:func:`_rehearse`).
    """
    evaluate(state, player, directory=directory)
    if isinstance(state, knister_engine.State):
        knister.compile_search(knister.load(directory))
    else:
        _rehearse(state, directory)


#: The decisions :func:`_rehearse` plays: in Tutto, enough to draw, roll, select and bank.
REHEARSAL_STEPS = 12
SOLO = "solo"


def _rehearse(state: Any, directory: Path | str | None) -> None:
    """The first decisions of a seeded solo game of ``state``'s game (and rule set), each valued, its keeps
    valued and chosen at every level: every kernel those paths call is compiled in this thread."""
    rng = random.Random(0)
    if isinstance(state, kniffel_engine.State):
        engine: Any = kniffel_engine
        game: Any = kniffel_engine.new_game([SOLO], rng, state.ruleset)
    elif isinstance(state, dicepoker_engine.State):
        engine, game = dicepoker_engine, dicepoker_engine.new_game([SOLO], rng)
    elif isinstance(state, tutto_engine.State):
        engine, game = tutto_engine, tutto_engine.new_game([SOLO], rng)
    else:
        raise TypeError(f"no strategy for {type(state).__name__}")
    for _ in range(REHEARSAL_STEPS):
        if engine.is_over(game):
            return
        evaluate(game, SOLO, directory=directory)
        keep_values(game, SOLO, directory=directory)
        for level in LEVELS:
            action = choose(game, SOLO, cast(Level, level), rng, directory=directory)
        game = engine.apply(game, SOLO, action, rng)


def keep_values(state: Any, player: str, *, directory: Path | str | None = None) -> list[ActionValue]:
    """Every distinct keep of a five-dice roll (:class:`Keep`: hold these dice, reroll the rest) with its value
    under perfect play, best first: the value of rolling with exactly those dice held, as :func:`evaluate` gives
    it for the roll, read from one solve of the turn instead of one per keep.

    Keeps that reroll no die are left out, and the dice held now do not matter. Empty when there is no reroll to
    choose: another player's turn, before the first roll or after the last, or a game without five dice.
    """
    if isinstance(state, kniffel_engine.State):
        return kniffel.keep_values(kniffel.load(state.ruleset, directory), state, player)
    if isinstance(state, dicepoker_engine.State):
        return dicepoker.keep_values(dicepoker.load(directory), state, player)
    return []


def choose(state: Any, player: str, level: Level, rng: random.Random, *, directory: Path | str | None = None) -> Any:
    """The action a player of ``level`` takes now (one engine action; call again for the next one).

    ``rng`` breaks ties between equally good actions. Raises ``ValueError`` when the player has nothing to do.
    """
    _check_level(level)
    _, pick = _strategy(state, directory)
    return pick(state, player, level, rng)


def warm(directory: Path | str | None = None) -> dict[str, float]:
    """Load (building where missing) every exact table and compile every kernel a decision calls (see
    :func:`prepare`); returns the seconds each game took. Blocking: run it in a worker thread, not on the event
    loop."""
    rng = random.Random(0)
    games: dict[str, Any] = {
        **{f"kniffel/{ruleset}": kniffel_engine.new_game([SOLO], rng, ruleset) for ruleset in kniffel_engine.RULESETS},
        "dicepoker": dicepoker_engine.new_game([SOLO], rng),
        "tutto": tutto_engine.new_game([SOLO], rng),
        "knister": knister_engine.new_game([SOLO], rng),
    }
    timings: dict[str, float] = {}
    for name, state in games.items():
        start = time.perf_counter()
        prepare(state, SOLO, directory=directory)
        timings[name] = time.perf_counter() - start
    return timings


def missing(directory: Path | str | None = None) -> list[str]:
    """The stored tables the cache folder lacks for the engine's current rules: what :func:`warm` would build.

    Only the rules are read from the engine (the part of a load that keys the file, cached for the load that
    follows): the bot checks its folder at every start, and builds in a child process only when this is not empty.
    """
    folder = Path(directory) if directory is not None else tables.DEFAULT_DIR
    wanted = {kniffel.table_name(ruleset): kniffel.probe(ruleset).digest for ruleset in kniffel_engine.RULESETS}
    wanted[dicepoker.TABLE] = dicepoker.rules().digest
    wanted[knister.TABLE] = knister.digest()
    return [name for name, digest in wanted.items() if not tables.table_path(folder, name, digest).exists()]
