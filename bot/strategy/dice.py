"""Multisets of five dice and the keep/reroll recursions every five-dice turn shares, compiled with numba.

A turn of Kniffel or dice poker only cares which faces lie on the table, not in which order, so positions are
multisets: 252 rolls of five dice and 462 keeps of zero to five dice. The value of a keep is the mean of the
keep's values with one more die of each face (Glenn's recursion); the best keep of a roll is the maximum over
its sub-multisets, found by removing one die at a time. Both take a few thousand operations per turn state,
which is why they are compiled: a table build evaluates half a million states.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
from numba import njit
from numpy.typing import NDArray

FACES = (1, 2, 3, 4, 5, 6)
DICE = 5

Multiset = tuple[int, ...]
"""Faces in ascending order."""


def _multisets(size: int) -> list[Multiset]:
    return list(combinations_with_replacement(FACES, size))


KEEPS: tuple[Multiset, ...] = tuple(keep for size in range(DICE + 1) for keep in _multisets(size))
"""Every multiset of 0..5 dice, ordered by size; the last 252 are the rolls of five dice."""
KEEP_INDEX: dict[Multiset, int] = {keep: index for index, keep in enumerate(KEEPS)}
KEEP_COUNT = len(KEEPS)
FIRST_ROLL = KEEP_COUNT - len(_multisets(DICE))
ROLLS: tuple[Multiset, ...] = KEEPS[FIRST_ROLL:]
ROLL_COUNT = len(ROLLS)


def roll_index(dice: Iterable[int]) -> int:
    """Index (0..251) of five dice in :data:`ROLLS`."""
    return KEEP_INDEX[tuple(sorted(dice))] - FIRST_ROLL


def keep_index(dice: Iterable[int]) -> int:
    """Index of a multiset of 0..5 dice in :data:`KEEPS`."""
    return KEEP_INDEX[tuple(sorted(dice))]


def _children() -> NDArray[np.int64]:
    """For every keep of fewer than five dice: the keep plus one die of each face, shape (210, 6)."""
    return np.array([[KEEP_INDEX[tuple(sorted((*keep, face)))] for face in FACES] for keep in KEEPS[:FIRST_ROLL]])


def _parents() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For every keep: the distinct keeps with one die fewer (padded) and how many there are."""
    table = np.zeros((KEEP_COUNT, DICE), dtype=np.int64)
    sizes = np.zeros(KEEP_COUNT, dtype=np.int64)
    for index, keep in enumerate(KEEPS):
        smaller = {KEEP_INDEX[keep[:i] + keep[i + 1 :]] for i in range(len(keep))}
        table[index, : len(smaller)] = sorted(smaller)
        sizes[index] = len(smaller)
    return table, sizes


CHILDREN = _children()
PARENTS, PARENT_COUNTS = _parents()
KEEP_COUNTS = np.array([[keep.count(face) for face in FACES] for keep in KEEPS], dtype=np.int64)
"""How many dice of each face every keep holds, shape (462, 6)."""
KEEP_SIZES = KEEP_COUNTS.sum(axis=1)
FRESH = np.array([factorial(DICE) / np.prod([factorial(roll.count(f)) for f in FACES]) / 6**DICE for roll in ROLLS])
"""Probability of each roll of five fresh dice."""
FIVE_OF_A_KIND_FACE = np.array([roll[0] - 1 if len(set(roll)) == 1 else -1 for roll in ROLLS], dtype=np.int64)
"""For every roll: the face index (0..5) of a five of a kind, -1 for any other roll."""
CODE_WEIGHTS = 6 ** np.arange(len(FACES))
CODES = np.full(6 ** len(FACES), -1, dtype=np.int64)
CODES[KEEP_COUNTS @ CODE_WEIGHTS] = np.arange(KEEP_COUNT)


def _proper_sub_keeps() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For every roll, its sub-multisets that leave at least one die to reroll (padded) and how many."""
    rows = []
    for roll in ROLLS:
        subs = {tuple(face for i, face in enumerate(roll) if bits >> i & 1) for bits in range((1 << DICE) - 1)}
        rows.append(sorted(KEEP_INDEX[keep] for keep in subs))
    width = max(len(row) for row in rows)
    table = np.array([row + [0] * (width - len(row)) for row in rows], dtype=np.int64)
    return table, np.array([len(row) for row in rows], dtype=np.int64)


SUB_KEEPS, SUB_KEEP_COUNTS = _proper_sub_keeps()
"""Shape (252, 31): the keeps a reroll of each roll may hold (the whole roll excluded: a reroll moves a die)."""


@njit(cache=True)
def keep_layer(final: NDArray[np.float64], out: NDArray[np.float64]) -> None:
    """``out[k]``: the expected value of keeping ``k`` and rerolling the rest, given each roll's value."""
    for r in range(ROLL_COUNT):
        out[FIRST_ROLL + r] = final[r]
    for k in range(FIRST_ROLL - 1, -1, -1):
        total = 0.0
        for j in range(6):
            total += out[CHILDREN[k, j]]
        out[k] = total / 6.0


@njit(cache=True)
def best_layer(keeps: NDArray[np.float64], out: NDArray[np.float64]) -> None:
    """``out[r]``: the value of roll ``r``'s best keep (any sub-multiset, the whole roll included)."""
    best = keeps.copy()
    for k in range(1, KEEP_COUNT):
        for j in range(PARENT_COUNTS[k]):
            if best[PARENTS[k, j]] > best[k]:
                best[k] = best[PARENTS[k, j]]
    for r in range(ROLL_COUNT):
        out[r] = best[FIRST_ROLL + r]


@njit(cache=True)
def fresh_mean(rolls: NDArray[np.float64]) -> float:
    """The expected value of a roll of five fresh dice, given the value of each roll."""
    total = 0.0
    for r in range(ROLL_COUNT):
        total += FRESH[r] * rolls[r]
    return total


@njit(cache=True)
def best_sub_keep(roll: int, keeps: NDArray[np.float64]) -> int:
    """The keep with the highest value among those a reroll of ``roll`` may hold (first on a tie)."""
    best = SUB_KEEPS[roll, 0]
    for j in range(1, SUB_KEEP_COUNTS[roll]):
        if keeps[SUB_KEEPS[roll, j]] > keeps[best]:
            best = SUB_KEEPS[roll, j]
    return int(best)


@njit(cache=True)
def keep_or_write(final: NDArray[np.float64], keeps: NDArray[np.float64], out: NDArray[np.int16]) -> None:
    """``out[r]``: the best keep of roll ``r`` (:func:`best_sub_keep`) when rerolling is worth more than writing
    the roll now (``final[r]``), else -1. A seeded game's decision after a roll, for every roll at once."""
    for r in range(ROLL_COUNT):
        k = best_sub_keep(r, keeps)
        out[r] = k if final[r] < keeps[k] else -1


POLICY_SLOTS = 1 << 15
"""The most turn states whose decisions a simulation remembers (:func:`keep_or_write` for both rerolls and the
written box of every roll, about 1.5 kB a state): seeded games pass the same states again and again (solo dice
poker games a few thousand states in 60,000 turns, Kniffel a third to a half of its turns), each a full turn
solve to decide afresh."""


@njit(cache=True)
def reroll(keep: int) -> int:
    """Keep ``keep``, roll the other dice with numba's seeded generator: the index (0..251) of the new roll."""
    counts = KEEP_COUNTS[keep].copy()
    for _ in range(DICE - KEEP_SIZES[keep]):
        counts[np.random.randint(0, 6)] += 1
    code = 0
    for f in range(6):
        code += counts[f] * CODE_WEIGHTS[f]
    return int(CODES[code] - FIRST_ROLL)


def held_faces(dice: Sequence[int], held: Sequence[bool]) -> Multiset:
    """The multiset of the held dice."""
    return tuple(sorted(face for face, keep in zip(dice, held, strict=True) if keep))
