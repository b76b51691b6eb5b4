"""Turning a five-dice turn's value layers into action values and moves (Kniffel and dice poker alike).

The engine's actions are one die toggle at a time, while the solver thinks in keeps (which multiset of faces
to hold before the next roll). A toggle is valued as rolling right after it; a computer player toggles, one
action per call, towards the best keep and then rolls, or writes the dice down when that is worth more. A
person thinks in keeps too, so a hint asks for every keep's value (:func:`keep_values`), read off the same
layers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bot.engine.fivedice import ROLLS, FiveDiceState, Roll, ToggleHold
from bot.strategy import dice
from bot.strategy.base import ActionValue, best_first, pick_best


@dataclass(frozen=True)
class Layers:
    """A turn's values, in points still to come: before roll 2 and roll 3 per keep, and before the first roll."""

    keep2: NDArray[np.float64]
    keep3: NDArray[np.float64]
    start: float


@dataclass(frozen=True)
class Keep:
    """Five dice: keep these and roll the rest (what a run of die toggles and a roll amount to).

    Not an engine action: what a hint and a review show and compare, since the toggles that lead to one keep are
    one choice for a person. ``kind`` reads like an engine action's, for the code that tells actions apart.
    """

    dice: tuple[int, ...]
    kind: str = "keep"


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


def keep_values(state: FiveDiceState, layers: Layers, scored: float) -> list[ActionValue]:
    """Every distinct keep of the dice on the table that rerolls at least one die, worth what rolling with exactly
    those dice held is worth (:func:`action_values`' value of the roll, the same float), best first.

    One keep layer holds them all, so this is one lookup per keep instead of valuing a copy of the state per keep.
    Equal values stay in the order of the hold masks (bit ``i`` holds die ``i``, the empty keep first), so the
    best of equals is the same for every caller. Empty before the first roll and after the last.
    """
    if not 0 < state.rolls < ROLLS:
        return []
    keeps = _keeps(state, layers)
    return best_first([ActionValue(_KEEPS[k], scored + float(keeps[k])) for k in _rerolls(tuple(state.dice))])


_KEEPS = tuple(Keep(keep) for keep in dice.KEEPS)
"""One :class:`Keep` per multiset of :data:`dice.KEEPS` (they are immutable), built once."""


@cache
def _rerolls(faces: tuple[int, ...]) -> tuple[int, ...]:
    """The :data:`dice.KEEPS` indices of the distinct keeps of ``faces`` that reroll a die, in the order of the hold
    masks. Remembered per order of the dice (at most 6⁵ = 7,776 tuples of at most 31 numbers, about 3 MB): a
    turn's hints and a review's decisions ask again for the same dice."""
    found: dict[tuple[int, ...], int] = {}
    for mask in range((1 << len(faces)) - 1):  # the last mask holds every die: no reroll
        kept = tuple(sorted(face for index, face in enumerate(faces) if mask >> index & 1))
        found.setdefault(kept, dice.keep_index(kept))
    return tuple(found.values())


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
