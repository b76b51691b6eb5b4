"""Turning a five-dice turn's value layers into action values and moves (Kniffel and dice poker alike).

The engine's actions are one die toggle at a time, while the solver thinks in keeps (which multiset of faces
to hold before the next roll). A toggle is valued as rolling right after it; a computer player toggles, one
action per call, towards the best keep and then rolls, or writes the dice down when that is worth more.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bot.engine.fivedice import ROLLS, FiveDiceState, Roll, ToggleHold
from bot.strategy import dice
from bot.strategy.base import ActionValue, pick_best


@dataclass(frozen=True)
class Layers:
    """A turn's values, in points still to come: before roll 2 and roll 3 per keep, and before the first roll."""

    keep2: NDArray[np.float64]
    keep3: NDArray[np.float64]
    start: float


_DICE_ACTIONS = (Roll, ToggleHold)
"""The actions the keep layers value; every other one writes the dice (``score_value``, asked once each)."""


def _keeps(state: FiveDiceState, layers: Layers) -> NDArray[np.float64]:
    return layers.keep2 if state.rolls == 1 else layers.keep3


def action_values(
    state: FiveDiceState, legal: Sequence[Any], layers: Layers, score_value: Callable[[Any], float], scored: float
) -> list[ActionValue]:
    """The value of every legal action: rolls and toggles from the keep layers, the rest by ``score_value``.

    ``scored`` is what the card holds already, so every value is an expected final score.
    """
    values = []
    written = [None if isinstance(action, _DICE_ACTIONS) else score_value(action) for action in legal]
    writes = [value for value in written if value is not None]
    for action, write in zip(legal, written, strict=True):
        if write is not None:
            value = write
        elif isinstance(action, Roll):
            value = scored + float(
                layers.start if state.rolls == 0 else _keeps(state, layers)[_held(state, state.held)]
            )
        else:
            held = [*state.held]
            held[action.index] = not held[action.index]
            value = max(writes) if all(held) else scored + float(_keeps(state, layers)[_held(state, held)])
        values.append(ActionValue(action, value))
    return values


def _held(state: FiveDiceState, held: Sequence[bool]) -> int:
    return dice.keep_index(dice.held_faces(state.dice, held))


def choose(
    state: FiveDiceState,
    legal: Sequence[Any],
    layers: Layers,
    score_value: Callable[[Any], float],
    scored: float,
    rng: random.Random,
) -> Any:
    """The next action of a player following the layers: roll, toggle towards the best keep, or write."""
    if state.rolls == 0:
        return Roll()
    writes = [ActionValue(a, score_value(a)) for a in legal if not isinstance(a, _DICE_ACTIONS)]
    best_write = max(item.value for item in writes)
    if state.rolls < ROLLS:
        keeps = _keeps(state, layers)
        keep = int(dice.best_sub_keep(dice.roll_index(state.dice), keeps))
        if scored + keeps[keep] > best_write:
            target = _realise(state, dice.KEEPS[keep])
            for index, (now, wanted) in enumerate(zip(state.held, target, strict=True)):
                if now != wanted:
                    return ToggleHold(index=index)
            return Roll()
    return pick_best(writes, rng)


def _realise(state: FiveDiceState, keep: tuple[int, ...]) -> list[bool]:
    """Hold flags showing ``keep``, leaving dice already held where they are when they serve."""
    wanted = Counter(keep)
    target = [False] * len(state.dice)
    for prefer_held in (True, False):
        for index, face in enumerate(state.dice):
            if state.held[index] == prefer_held and not target[index] and wanted[face] > 0:
                target[index] = True
                wanted[face] -= 1
    return target
