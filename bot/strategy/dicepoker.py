"""Exact solitaire dice poker (RULES.md section 2): part 1, its bonus, part 2 with first-roll doubling and passes.

The two parts are independent apart from the total, so the solver has two small tables. Part 2 starts empty
whatever happened before: ``W[mask, t]`` is the expected number of points still to come with the lower rows of
``mask`` filled and ``t`` turns left (a pass uses a turn without filling a row, so turns and rows can differ).
Part 1 carries the upper sum U, whose sign decides the bonus: ``V[mask, U]`` with the upper rows of ``mask``
filled; a full part 1 is worth ``bonus(U) + W[0, 9]``. Inside a turn the three roll layers are those of
Kniffel, except that writing after the first roll uses the engine's first-roll (doubled) points.

Every number comes from the engine: ``score(dice, row, first_roll)`` for each roll and row, the bonus from
``card_breakdown``, the parts and turn counts from its constants.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import dicepoker as engine
from bot.strategy import dice, fivedice, tables
from bot.strategy.base import ActionValue

ROWS = engine.ROWS
UPPER_COUNT = len(engine.UPPER)
LOWER_COUNT = len(engine.LOWER)
UPPER_FULL = (1 << UPPER_COUNT) - 1
LOWER_TURNS = engine.TURNS - engine.UPPER_TURNS
INVALID = -(10**6)
"""Points of a row that cannot take the dice."""
LOWEST_UPPER = sum(-3 * face for face in dice.FACES)
HIGHEST_UPPER = sum(2 * face for face in dice.FACES)

NORMAL_PAR = (10.0, 15.0, 12.0, 8.0, 10.0, 17.0, 10.0, 20.0, 21.0)
"""The heuristic player's going rate of each lower row (part 2), in card order."""


@dataclass(frozen=True)
class Rules:
    """The engine's answers: ``points[r, row, first]`` (``INVALID`` where the row refuses the dice) and
    ``bonus[U - LOWEST_UPPER]`` for every upper sum U."""

    points: NDArray[np.int64]
    bonus: NDArray[np.int64]
    digest: str = field(compare=False)


@cache
def rules() -> Rules:
    """Read dice poker's scoring from the engine (cached for the process)."""
    points = np.array(
        [
            [
                [INVALID if (p := engine.score(roll, row, first)) is None else p for first in (False, True)]
                for row in ROWS
            ]
            for roll in dice.ROLLS
        ],
        dtype=np.int64,
    )
    bonus = np.array(
        [
            engine.card_breakdown({"ones": u, **dict.fromkeys(engine.UPPER[1:], 0)}).upper_bonus
            for u in range(LOWEST_UPPER, HIGHEST_UPPER + 1)
        ],
        dtype=np.int64,
    )
    digest = tables.rules_hash(["dicepoker", points.tobytes(), bonus.tobytes(), engine.UPPER_TURNS, engine.TURNS])
    return Rules(points, bonus, digest)


# --------------------------------------------------------------------------------------------------
# The roll layers (compiled)


@njit(cache=True)
def _final_upper(
    mask: int,
    upper: int,
    table: NDArray[np.float64],
    points: NDArray[np.int64],
    first: int,
    out: NDArray[np.float64],
    row: NDArray[np.int64],
) -> None:
    """Writing each final roll into its best open upper row; ``upper`` is an index (U - LOWEST_UPPER)."""
    for r in range(dice.ROLL_COUNT):
        best = -np.inf
        pick = -1
        for j in range(UPPER_COUNT):
            if mask >> j & 1:
                continue
            p = points[r, j, first]
            v = p + table[mask | (1 << j), upper + p]
            if v > best:
                best = v
                pick = j
        out[r] = best
        row[r] = pick


@njit(cache=True)
def _final_lower(
    mask: int,
    turns: int,
    table: NDArray[np.float64],
    points: NDArray[np.int64],
    first: int,
    out: NDArray[np.float64],
    row: NDArray[np.int64],
) -> None:
    """Writing each final roll into its best open lower row, or passing (row -1) when none takes it."""
    for r in range(dice.ROLL_COUNT):
        best = -np.inf
        pick = -1
        for j in range(LOWER_COUNT):
            p = points[r, UPPER_COUNT + j, first]
            if mask >> j & 1 or p == INVALID:
                continue
            v = p + table[mask | (1 << j), turns - 1]
            if v > best:
                best = v
                pick = UPPER_COUNT + j
        if pick < 0:
            best = table[mask, turns - 1]
        out[r] = best
        row[r] = pick


@njit(cache=True)
def _layers(
    part: int,
    mask: int,
    extra: int,
    table: NDArray[np.float64],
    points: NDArray[np.int64],
    final1: NDArray[np.float64],
    row1: NDArray[np.int64],
    final: NDArray[np.float64],
    row: NDArray[np.int64],
    keep3: NDArray[np.float64],
    keep2: NDArray[np.float64],
) -> float:
    """Fill a turn's layers; ``extra`` is the upper-sum index in part 1 and the turns left in part 2."""
    if part == 1:
        _final_upper(mask, extra, table, points, 1, final1, row1)
        _final_upper(mask, extra, table, points, 0, final, row)
    else:
        _final_lower(mask, extra, table, points, 1, final1, row1)
        _final_lower(mask, extra, table, points, 0, final, row)
    rolls = np.empty(dice.ROLL_COUNT)
    dice.keep_layer(final, keep3)
    dice.best_layer(keep3, rolls)
    dice.keep_layer(rolls, keep2)
    dice.best_layer(keep2, rolls)
    for r in range(dice.ROLL_COUNT):
        rolls[r] = max(rolls[r], final1[r])
    return dice.fresh_mean(rolls)


@njit(cache=True)
def _start(part: int, mask: int, extra: int, table: NDArray[np.float64], points: NDArray[np.int64]) -> float:
    final1 = np.empty(dice.ROLL_COUNT)
    final = np.empty(dice.ROLL_COUNT)
    row1 = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    row = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    keep3 = np.empty(dice.KEEP_COUNT)
    keep2 = np.empty(dice.KEEP_COUNT)
    return _layers(part, mask, extra, table, points, final1, row1, final, row, keep3, keep2)


@njit(cache=True)
def _solve(
    points: NDArray[np.int64], bonus: NDArray[np.int64], lower: NDArray[np.float64], upper: NDArray[np.float64]
) -> None:
    """Fill both tables: part 2 by turns left, then part 1 by filled rows from the full card back."""
    for turns in range(1, LOWER_TURNS + 1):
        for mask in range(1 << LOWER_COUNT):
            lower[mask, turns] = _start(2, mask, turns, lower, points)
    for u in range(upper.shape[1]):
        upper[UPPER_FULL, u] = bonus[u] + lower[0, LOWER_TURNS]
    for filled in range(UPPER_COUNT - 1, -1, -1):
        for mask in range(UPPER_FULL):
            if _popcount(mask) != filled:
                continue
            for u in range(upper.shape[1]):
                upper[mask, u] = _start(1, mask, u, upper, points) if _reachable(mask, u) else 0.0


@njit(cache=True)
def _popcount(mask: int) -> int:
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


@njit(cache=True)
def _reachable(mask: int, u: int) -> bool:
    """Whether the filled upper rows of ``mask`` can add up to U = ``u + LOWEST_UPPER`` (keeps lookups in range)."""
    low = 0
    high = 0
    for j in range(UPPER_COUNT):
        if mask >> j & 1:
            low += -3 * (j + 1)
            high += 2 * (j + 1)
    value = u + LOWEST_UPPER
    return low <= value <= high


@dataclass(frozen=True)
class Tables:
    """Part 1 ``upper[mask, U index]`` and part 2 ``lower[mask, turns left]`` for one level."""

    rules: Rules
    upper: dict[str, NDArray[np.float64]]
    lower: dict[str, NDArray[np.float64]]

    def expected_score(self) -> float:
        """Expected final score of a fresh solo game under optimal play."""
        return float(self.upper["perfect"][0, -LOWEST_UPPER])


def build(model: Rules) -> dict[str, NDArray[np.float64]]:
    """The exact tables of both parts."""
    lower = np.zeros((1 << LOWER_COUNT, LOWER_TURNS + 1))
    upper = np.zeros((UPPER_FULL + 1, HIGHEST_UPPER - LOWEST_UPPER + 1))
    _solve(model.points, model.bonus, lower, upper)
    return {"upper": upper, "lower": lower}


def heuristic(model: Rules, level: str) -> dict[str, NDArray[np.float64]]:
    """Stand-in tables: ``easy`` only counts this turn's points; ``normal`` counts the going rate of every open
    lower row, and the upper bonus once U is at least what the bonus needs (part 1 hopes for the best)."""
    lower = np.zeros((1 << LOWER_COUNT, LOWER_TURNS + 1))
    upper = np.zeros((UPPER_FULL + 1, HIGHEST_UPPER - LOWEST_UPPER + 1))
    if level == "normal":
        masks = np.arange(1 << LOWER_COUNT)
        open_rows = (masks[:, None] >> np.arange(LOWER_COUNT)) & 1 == 0
        lower[:, 1:] = (open_rows @ np.array(NORMAL_PAR))[:, None]
        upper[:] = model.bonus[None, :] + lower[0, LOWER_TURNS]
    return {"upper": upper, "lower": lower}


_LOADED: dict[Path, Tables] = {}
TABLE = "dicepoker"
"""The name of the stored exact tables (their file adds the version and the rules digest)."""


def load(directory: Path | str | None = None, *, rebuild: bool = False) -> Tables:
    """The tables: from memory, from the cache folder, or built (and stored) now (``rebuild``: built afresh)."""
    # A Path as it is: every decision and hint looks its tables up here, and building a Path again costs.
    folder = directory if isinstance(directory, Path) else tables.DEFAULT_DIR if directory is None else Path(directory)
    if rebuild or folder not in _LOADED:
        model = rules()
        exact = tables.load_or_build(folder, TABLE, model.digest, lambda: build(model), rebuild=rebuild)
        levels = {level: heuristic(model, level) for level in ("easy", "normal")}
        levels["perfect"] = {key: np.asarray(array, dtype=np.float64) for key, array in exact.items()}
        _LOADED[folder] = Tables(
            model, {k: v["upper"] for k, v in levels.items()}, {k: v["lower"] for k, v in levels.items()}
        )
    return _LOADED[folder]


# --------------------------------------------------------------------------------------------------
# Engine positions


@dataclass(frozen=True)
class Position:
    """The part, filled rows of that part, U index (part 1) or turns left (part 2), and the points so far."""

    part: int
    mask: int
    extra: int
    scored: int


def position(state: engine.State, player: str) -> Position:
    card = state.cards[player]
    turn = state.turns[player] + 1
    if turn <= engine.UPPER_TURNS:
        mask = sum(1 << ROWS.index(row) for row in card)
        sums = engine.card_breakdown(card)
        return Position(1, mask, sums.upper - LOWEST_UPPER, sums.total)
    mask = sum(1 << (ROWS.index(row) - UPPER_COUNT) for row in card if row in engine.LOWER)
    return Position(2, mask, engine.TURNS - turn + 1, engine.card_breakdown(card).total)


def _table(tabs: Tables, level: str, part: int) -> NDArray[np.float64]:
    return tabs.upper[level] if part == 1 else tabs.lower[level]


def _write_value(tabs: Tables, level: str, state: engine.State, player: str) -> Callable[[Any], float]:
    """The expected final score of writing the dice into a row (engine points) or of passing."""
    pos = position(state, player)
    table = _table(tabs, level, pos.part)
    options = engine.row_options(state.dice, state.cards[player], state.turn, state.first_roll) if state.rolls else {}

    def value(action: Any) -> float:
        if isinstance(action, engine.Pass):
            return pos.scored + float(table[pos.mask, pos.extra - 1])
        points = options[action.row]
        index = ROWS.index(action.row)
        if pos.part == 1:
            return pos.scored + points + float(table[pos.mask | (1 << index), pos.extra + points])
        return pos.scored + points + float(table[pos.mask | (1 << (index - UPPER_COUNT)), pos.extra - 1])

    return value


def _turn(tabs: Tables, level: str, state: engine.State, player: str) -> tuple[fivedice.Layers, float]:
    pos = position(state, player)
    keep3 = np.empty(dice.KEEP_COUNT)
    keep2 = np.empty(dice.KEEP_COUNT)
    scratch = [np.empty(dice.ROLL_COUNT) for _ in range(2)]
    rows = [np.empty(dice.ROLL_COUNT, dtype=np.int64) for _ in range(2)]
    table = _table(tabs, level, pos.part)
    start = _layers(
        pos.part, pos.mask, pos.extra, table, tabs.rules.points, scratch[0], rows[0], scratch[1], rows[1], keep3, keep2
    )
    return fivedice.Layers(keep2, keep3, start), pos.scored


def evaluate(tabs: Tables, state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every legal action of ``player`` with its expected final score under the level's play."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return []
    layers, scored = _turn(tabs, level, state, player)
    return fivedice.action_values(state, legal, layers, _write_value(tabs, level, state, player), scored)


def keep_values(tabs: Tables, state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every distinct keep of ``player``'s roll with its expected final score (:func:`fivedice.keep_values`);
    empty when it is not their turn to reroll."""
    if not engine.legal_actions(state, player):
        return []
    layers, scored = _turn(tabs, level, state, player)
    return fivedice.keep_values(state, layers, scored)


def choose(tabs: Tables, state: engine.State, player: str, level: str, rng: random.Random) -> Any:
    """The action a player of ``level`` takes now; ``ValueError`` when the player has nothing to do."""
    legal = engine.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do now")
    layers, scored = _turn(tabs, level, state, player)
    return fivedice.choose(state, legal, layers, _write_value(tabs, level, state, player), scored, rng)


# --------------------------------------------------------------------------------------------------
# Simulation


@njit(cache=True)
def _simulate(
    upper: NDArray[np.float64],
    lower: NDArray[np.float64],
    points: NDArray[np.int64],
    seed: int,
    rows: NDArray[np.int64],
    written: NDArray[np.int64],
) -> None:
    """Play solo games with the tables' policy; ``rows[g, turn]`` is the row written (-1 a pass).

    A turn's decisions (after each roll: keep and reroll, or write; the row of every roll) depend on its state
    alone, so they are solved once per state and remembered (up to :data:`dice.POLICY_SLOTS` states).
    """
    np.random.seed(seed)
    final1 = np.empty(dice.ROLL_COUNT)
    final = np.empty(dice.ROLL_COUNT)
    row1 = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    row = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    keep3 = np.empty(dice.KEEP_COUNT)
    keep2 = np.empty(dice.KEEP_COUNT)
    slot_of_upper = np.full(upper.shape, -1, dtype=np.int32)
    slot_of_lower = np.full(lower.shape, -1, dtype=np.int32)
    capacity = min(dice.POLICY_SLOTS, rows.shape[0] * rows.shape[1])
    policies = np.empty((capacity + 1, 4, dice.ROLL_COUNT), dtype=np.int16)
    used = 0
    for g in range(rows.shape[0]):
        umask, u, lmask = 0, -LOWEST_UPPER, 0
        for turn in range(rows.shape[1]):
            part = 1 if turn < UPPER_COUNT else 2
            mask = umask if part == 1 else lmask
            extra = u if part == 1 else rows.shape[1] - turn
            table = upper if part == 1 else lower
            slot_of = slot_of_upper if part == 1 else slot_of_lower
            slot = slot_of[mask, extra]
            if slot < 0:
                slot = used if used < capacity else capacity  # the last slot: decided afresh, not remembered
                _layers(part, mask, extra, table, points, final1, row1, final, row, keep3, keep2)
                dice.keep_or_write(final1, keep2, policies[slot, 0])
                dice.keep_or_write(final, keep3, policies[slot, 1])
                for r in range(dice.ROLL_COUNT):
                    policies[slot, 2, r] = row1[r]
                    policies[slot, 3, r] = row[r]
                if slot < capacity:
                    slot_of[mask, extra] = slot
                    used += 1
            r = dice.reroll(0)
            first = 1
            k = int(policies[slot, 0, r])
            if k >= 0:
                first = 0
                r = dice.reroll(k)
                k = int(policies[slot, 1, r])
                if k >= 0:
                    r = dice.reroll(k)
            j = int(policies[slot, 2 if first else 3, r])
            rows[g, turn] = j
            if j < 0:
                continue
            p = points[r, j, first]
            written[g, turn] = p
            if part == 1:
                umask |= 1 << j
                u += p
            else:
                lmask |= 1 << (j - UPPER_COUNT)


def simulate(tabs: Tables, level: str, games: int, seed: int) -> NDArray[np.int64]:
    """Final totals of ``games`` seeded solo games at ``level``, added up by the engine's ``total``."""
    rows = np.zeros((games, engine.TURNS), dtype=np.int64)
    written = np.zeros((games, engine.TURNS), dtype=np.int64)
    _simulate(tabs.upper[level], tabs.lower[level], tabs.rules.points, seed, rows, written)
    return np.array(
        [
            engine.total({ROWS[j]: int(p) for j, p in zip(game, points, strict=True) if j >= 0})
            for game, points in zip(rows, written, strict=True)
        ]
    )
