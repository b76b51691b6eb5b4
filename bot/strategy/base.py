"""The types every game's strategy shares: the levels and an action with its value."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

Level = Literal["easy", "normal", "perfect"]
LEVELS: tuple[str, ...] = get_args(Level)


@dataclass(frozen=True)
class ActionValue:
    """A legal action and what it is worth to the player taking it.

    ``value`` is in the game's own unit: the expected final score (Kniffel, dice poker, Knister) or the
    expected points banked this turn (Tutto), assuming the player continues at the level that was asked for
    (``perfect`` for :func:`bot.strategy.evaluate`).
    """

    action: Any
    value: float


def best_first(values: Sequence[ActionValue]) -> list[ActionValue]:
    """Sorted by value, best first; equal values keep the engine's order."""
    return sorted(values, key=lambda item: -item.value)


def pick_best(values: Sequence[ActionValue], rng: random.Random, tolerance: float = 1e-9) -> Any:
    """The best action; among actions worth the same (within ``tolerance``) the ``rng`` picks one."""
    top = max(item.value for item in values)
    return rng.choice([item.action for item in values if item.value >= top - tolerance])
