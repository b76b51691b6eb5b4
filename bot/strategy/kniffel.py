"""Exact solitaire Kniffel (both rule sets): the rules as read from the engine, the value table and its use.

Method (Glenn 2006, Verhoeff): a turn starts in a state (filled boxes, upper sum capped where the bonus stops
changing, whether the ``kniffel`` box holds 50). Its value is the expected number of points still to come
under optimal play. Backward induction over the number of filled boxes; inside a turn, three roll layers:
the value of a final roll is the best box (points + extra bonus + value of the next state), a keep is worth
the mean over the rerolled dice, a roll is worth its best keep. The per-state work is compiled with numba and
the states of one layer run in parallel.

The rules are not restated here. :func:`probe` and :func:`joker_table` ask the engine's ``score_options``,
``extra_bonus`` and ``card_breakdown`` for the points of every roll in every box, the joker options of every
card, the extra bonus and the upper bonus; the table file is keyed by a hash of those answers.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from bot.engine import kniffel as engine
from bot.strategy import dice, fivedice, tables
from bot.strategy.base import ActionValue

BOXES = engine.BOXES
BOX_COUNT = len(BOXES)
BOX_INDEX: dict[str, int] = {box: index for index, box in enumerate(BOXES)}
FULL = (1 << BOX_COUNT) - 1
UPPER_COUNT = len(engine.UPPER)
KNIFFEL_BOX = BOXES.index("kniffel")
KNIFFEL_BIT = 1 << KNIFFEL_BOX
MAX_UPPER = sum(face * dice.DICE for face in dice.FACES)

NORMAL_PAR = (2.0, 5.0, 8.5, 12.0, 15.5, 19.0, 21.5, 13.0, 22.5, 29.5, 32.5, 17.0, 22.0)
"""The heuristic player's going rate of each box (about its mean under good play): a box is worth filling when
the dice beat its rate by more than another box's."""


@dataclass(frozen=True)
class Rules:
    """Everything the solver needs to know about a rule set, as the engine answered it.

    ``points[r, b]``: what box ``b`` gets for roll ``r`` on a card where it is open (every roll but a five of a
    kind with the ``kniffel`` box filled). ``joker[mask, face, b]``: the points of box ``b`` for five of a kind
    of ``face`` on a card with the boxes of ``mask`` filled (the ``kniffel`` box among them), -1 where the
    engine does not offer the box. ``extra[face, flag]``: the bonus such a roll earns when the ``kniffel`` box
    holds 50 (flag 1) or 0. ``bonus[u]``: the upper bonus for upper sum ``u``, constant from ``cap`` on, so the
    state keeps ``min(u, cap)``.
    """

    ruleset: str
    points: NDArray[np.int64]
    joker: NDArray[np.int64]
    extra: NDArray[np.int64]
    bonus: NDArray[np.int64]
    digest: str = field(compare=False)

    @property
    def cap(self) -> int:
        return len(self.bonus) - 1


def _upper_bonus(ruleset: str) -> NDArray[np.int64]:
    """The engine's upper bonus for every upper sum, cut where it stops changing."""
    bonus = [engine.card_breakdown({"ones": u}, ruleset=ruleset).upper_bonus for u in range(MAX_UPPER + 1)]
    cap = next(u for u in range(MAX_UPPER + 1) if len(set(bonus[u:])) == 1)
    return np.array(bonus[: cap + 1], dtype=np.int64)


def _card(mask: int, kniffel: int = 0) -> dict[str, int]:
    card: dict[str, int] = {box: 0 for i, box in enumerate(BOXES) if mask >> i & 1}
    if mask & KNIFFEL_BIT:
        card["kniffel"] = kniffel
    return card


@dataclass(frozen=True)
class Probe:
    """The quick part of the rules (everything but the joker table) and the digest that keys the table file.

    The digest hashes these answers and the engine module's source, so a change of the joker rules (which only
    the slow full probe would see) rebuilds the table too; loading a stored table then takes no engine probing
    beyond this.
    """

    points: NDArray[np.int64]
    extra: NDArray[np.int64]
    bonus: NDArray[np.int64]
    digest: str


@cache
def probe(ruleset: str) -> Probe:
    """Read the points of every roll in every box, the extra bonus and the upper bonus from the engine."""
    points = np.array([[engine.score_options(roll, {}, ruleset)[box] for box in BOXES] for roll in dice.ROLLS])
    extra = np.array(
        [
            [engine.extra_bonus([face] * dice.DICE, _card(KNIFFEL_BIT, kniffel), ruleset) for kniffel in (0, 50)]
            for face in dice.FACES
        ]
    )
    bonus = _upper_bonus(ruleset)
    source = inspect.getsource(engine)
    digest = tables.rules_hash(["kniffel", ruleset, source, points.tobytes(), extra.tobytes(), bonus.tobytes()])
    return Probe(points, extra, bonus, digest)


def joker_table(ruleset: str) -> NDArray[np.int64]:
    """The engine's options for five of a kind on every card with the ``kniffel`` box filled (about 0.5 s)."""
    joker = np.full((FULL + 1, len(dice.FACES), BOX_COUNT), -1, dtype=np.int64)
    for mask in range(FULL + 1):
        if mask & KNIFFEL_BIT and mask != FULL:
            card = _card(mask)
            for face in dice.FACES:
                for box, value in engine.score_options([face] * dice.DICE, card, ruleset).items():
                    joker[mask, face - 1, BOXES.index(box)] = value
    return joker


@cache
def rules(ruleset: str) -> Rules:
    """Everything the engine says about ``ruleset``, the joker table included (cached for the process)."""
    quick = probe(ruleset)
    return Rules(ruleset, quick.points, joker_table(ruleset), quick.extra, quick.bonus, quick.digest)


# --------------------------------------------------------------------------------------------------
# The three roll layers of a turn (compiled; the rule data is passed in, the dice structure is global)


@njit(cache=True)
def _final(
    mask: int,
    upper: int,
    flag: int,
    values: NDArray[np.float64],
    points: NDArray[np.int64],
    joker: NDArray[np.int64],
    extra: NDArray[np.int64],
    cap: int,
    out: NDArray[np.float64],
    box: NDArray[np.int64],
) -> None:
    """``out[r]``: writing final roll ``r`` into its best box (points, extra bonus, next state); ``box[r]`` is it."""
    for r in range(dice.ROLL_COUNT):
        face = dice.FIVE_OF_A_KIND_FACE[r]
        joker_roll = face >= 0 and mask & KNIFFEL_BIT != 0
        best = -np.inf
        pick = -1
        for b in range(BOX_COUNT):
            if joker_roll:
                p = joker[mask, face, b]
                if p < 0:
                    continue
                bonus = extra[face, flag]
                nflag = flag
            else:
                if mask >> b & 1:
                    continue
                p = points[r, b]
                bonus = 0
                nflag = (1 if p > 0 else 0) if b == KNIFFEL_BOX else flag
            nupper = min(cap, upper + p) if b < UPPER_COUNT else upper
            v = p + bonus + values[mask | (1 << b), nupper, nflag]
            if v > best:
                best = v
                pick = b
        out[r] = best
        box[r] = pick


@njit(cache=True)
def _layers(
    mask: int,
    upper: int,
    flag: int,
    values: NDArray[np.float64],
    points: NDArray[np.int64],
    joker: NDArray[np.int64],
    extra: NDArray[np.int64],
    cap: int,
    final: NDArray[np.float64],
    box: NDArray[np.int64],
    keep3: NDArray[np.float64],
    keep2: NDArray[np.float64],
) -> float:
    """Fill the turn's layers (final rolls, keeps before roll 3 and 2) and return the turn-start value."""
    _final(mask, upper, flag, values, points, joker, extra, cap, final, box)
    rolls = np.empty(dice.ROLL_COUNT)
    dice.keep_layer(final, keep3)
    dice.best_layer(keep3, rolls)
    dice.keep_layer(rolls, keep2)
    dice.best_layer(keep2, rolls)
    return dice.fresh_mean(rolls)


@njit(cache=True, parallel=True)
def _solve_layer(
    states: NDArray[np.int64],
    values: NDArray[np.float64],
    points: NDArray[np.int64],
    joker: NDArray[np.int64],
    extra: NDArray[np.int64],
    cap: int,
) -> None:
    """Write the turn-start value of every state (mask, upper, flag) of one layer into ``values``."""
    for i in prange(states.shape[0]):
        final = np.empty(dice.ROLL_COUNT)
        box = np.empty(dice.ROLL_COUNT, dtype=np.int64)
        keep3 = np.empty(dice.KEEP_COUNT)
        keep2 = np.empty(dice.KEEP_COUNT)
        m, u, f = states[i, 0], states[i, 1], states[i, 2]
        values[m, u, f] = _layers(m, u, f, values, points, joker, extra, cap, final, box, keep3, keep2)


@dataclass
class TurnLayers:
    """The values of one turn of one state: final rolls (and their best box), keeps before roll 3 and 2."""

    final: NDArray[np.float64]
    box: NDArray[np.int64]
    keep3: NDArray[np.float64]
    keep2: NDArray[np.float64]
    start: float


def turn_layers(model: Rules, values: NDArray[np.float64], mask: int, upper: int, flag: int) -> TurnLayers:
    """All roll layers of one turn: what a hint and a computer player read."""
    final = np.empty(dice.ROLL_COUNT)
    box = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    keep3 = np.empty(dice.KEEP_COUNT)
    keep2 = np.empty(dice.KEEP_COUNT)
    start = _layers(
        mask, upper, flag, values, model.points, model.joker, model.extra, model.cap, final, box, keep3, keep2
    )
    return TurnLayers(final, box, keep3, keep2, start)


# --------------------------------------------------------------------------------------------------
# The tables


def reachable_uppers(model: Rules) -> list[NDArray[np.int64]]:
    """For each set of filled upper boxes, the capped upper sums a card can have (from the points offered)."""
    offered = [
        set(model.points[:, box].tolist()) | {int(p) for p in np.unique(model.joker[:, :, box]) if p >= 0}
        for box in range(UPPER_COUNT)
    ]
    reach: list[set[int]] = [set() for _ in range(1 << UPPER_COUNT)]
    reach[0] = {0}
    for upper_mask in range(1, 1 << UPPER_COUNT):
        box = upper_mask.bit_length() - 1
        before = reach[upper_mask & ~(1 << box)]
        reach[upper_mask] = {min(model.cap, u + p) for u in before for p in offered[box]}
    return [np.array(sorted(r), dtype=np.int64) for r in reach]


def build_values(model: Rules) -> NDArray[np.float64]:
    """The exact turn-start table ``V[mask, capped upper sum, kniffel flag]`` (points still to come).

    States no card can reach (an upper sum the filled upper boxes cannot add up to) are skipped.
    """
    values = np.zeros((FULL + 1, model.cap + 1, 2))
    values[FULL] = model.bonus[:, None]
    reach = reachable_uppers(model)
    by_count: list[list[int]] = [[] for _ in range(BOX_COUNT + 1)]
    for mask in range(FULL):
        by_count[mask.bit_count()].append(mask)
    for count in range(BOX_COUNT - 1, -1, -1):
        states = [
            (mask, u, flag)
            for mask in by_count[count]
            for u in reach[mask & ((1 << UPPER_COUNT) - 1)]
            for flag in ((0, 1) if mask & KNIFFEL_BIT else (0,))
        ]
        _solve_layer(np.array(states, dtype=np.int64), values, model.points, model.joker, model.extra, model.cap)
    return values


def heuristic_values(model: Rules, level: str) -> NDArray[np.float64]:
    """A stand-in table for the weaker levels: ``easy`` counts only this turn's points (all zeros), ``normal``
    the going rate of every open box plus the upper bonus when the card is on pace (three of each open face).
    """
    values = np.zeros((FULL + 1, model.cap + 1, 2))
    if level == "easy":
        return values
    masks = np.arange(FULL + 1)
    open_bits = (masks[:, None] >> np.arange(BOX_COUNT)) & 1 == 0
    par = open_bits @ np.array(NORMAL_PAR)
    pace = open_bits[:, :UPPER_COUNT] @ (3 * np.arange(1, UPPER_COUNT + 1))
    projected = np.minimum(model.cap, pace[:, None] + np.arange(model.cap + 1)[None, :])
    values += (par[:, None] + model.bonus[projected])[:, :, None]
    return values


@dataclass(frozen=True)
class Tables:
    """The exact table of a rule set and the stand-in tables of the weaker levels."""

    rules: Rules
    by_level: dict[str, NDArray[np.float64]]

    def expected_score(self) -> float:
        """Expected final score of a fresh solo game under optimal play."""
        return float(self.by_level["perfect"][0, 0, 0])


_LOADED: dict[tuple[str, Path], Tables] = {}


def table_name(ruleset: str) -> str:
    """The name of the stored exact table of ``ruleset`` (its file adds the version and the rules digest)."""
    return f"kniffel-{ruleset}"


def load(ruleset: str, directory: Path | str | None = None, *, rebuild: bool = False) -> Tables:
    """The tables of ``ruleset``: from memory, from the cache folder, or built (and stored) now.

    ``rebuild`` ignores both caches and builds the exact table afresh (``python -m bot.strategy build``).
    """
    # A Path as it is: every decision and hint looks its tables up here, and building a Path again costs.
    folder = directory if isinstance(directory, Path) else tables.DEFAULT_DIR if directory is None else Path(directory)
    key = (ruleset, folder)
    if rebuild or key not in _LOADED:
        quick = probe(ruleset)

        def build() -> dict[str, NDArray[np.generic]]:
            model = rules(ruleset)
            return {"values": build_values(model), "joker": model.joker.astype(np.int16)}

        stored = tables.load_or_build(folder, table_name(ruleset), quick.digest, build, rebuild=rebuild)
        joker = stored["joker"].astype(np.int64)
        model = Rules(ruleset, quick.points, joker, quick.extra, quick.bonus, quick.digest)
        by_level = {level: heuristic_values(model, level) for level in ("easy", "normal")}
        by_level["perfect"] = np.asarray(stored["values"], dtype=np.float64)
        _LOADED[key] = Tables(model, by_level)
    return _LOADED[key]


# --------------------------------------------------------------------------------------------------
# Engine positions


@dataclass(frozen=True)
class Position:
    """A player's card as the solver sees it, plus the points already scored (upper bonus not counted)."""

    mask: int
    upper: int
    flag: int
    scored: int


def position(card: Mapping[Any, int], bonus: int, model: Rules) -> Position:
    """The solver's view of a card: the upper bonus is left to the table, which adds it at the end."""
    mask = sum(1 << BOX_INDEX[box] for box in card)
    sums = engine.card_breakdown(card, bonus, model.ruleset)
    return Position(
        mask=mask,
        upper=min(model.cap, sums.upper),
        flag=int(card.get("kniffel", 0) > 0),
        scored=sums.total - sums.upper_bonus,
    )


def score_value(model: Rules, values: NDArray[np.float64], pos: Position, box: str, points: int, bonus: int) -> float:
    """Expected final score after writing ``points`` (and earning ``bonus``) into ``box``."""
    index = BOX_INDEX[box]
    upper = min(model.cap, pos.upper + points) if index < UPPER_COUNT else pos.upper
    flag = int(points > 0) if index == KNIFFEL_BOX else pos.flag
    return pos.scored + points + bonus + float(values[pos.mask | (1 << index), upper, flag])


def _write_value(model: Rules, values: NDArray[np.float64], state: engine.State, player: str) -> Callable[[Any], float]:
    """The expected final score of writing the current dice into a box, with the engine's points and bonus."""
    card = state.cards[player]
    pos = position(card, state.bonuses[player], model)
    options = engine.score_options(state.dice, card, model.ruleset) if state.rolls else {}
    bonus = engine.extra_bonus(state.dice, card, model.ruleset) if state.rolls else 0

    def value(action: Any) -> float:
        return score_value(model, values, pos, action.box, options[action.box], bonus)

    return value


def _keep_layers(tabs: Tables, level: str, state: engine.State, player: str) -> tuple[fivedice.Layers, float]:
    """The player's turn layers and the points on their card (upper bonus left to the table)."""
    model = tabs.rules
    pos = position(state.cards[player], state.bonuses[player], model)
    layers = turn_layers(model, tabs.by_level[level], pos.mask, pos.upper, pos.flag)
    return fivedice.Layers(layers.keep2, layers.keep3, layers.start), pos.scored


def _turn(
    tabs: Tables, level: str, state: engine.State, player: str
) -> tuple[fivedice.Layers, Callable[[Any], float], float]:
    layers, scored = _keep_layers(tabs, level, state, player)
    return layers, _write_value(tabs.rules, tabs.by_level[level], state, player), scored


def evaluate(tabs: Tables, state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every legal action of ``player`` with its expected final score under the level's play."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return []
    layers, write, scored = _turn(tabs, level, state, player)
    return fivedice.action_values(state, legal, layers, write, scored)


def keep_values(tabs: Tables, state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every distinct keep of ``player``'s roll with its expected final score (:func:`fivedice.keep_values`);
    empty when it is not their turn to reroll."""
    if not engine.legal_actions(state, player):
        return []
    layers, scored = _keep_layers(tabs, level, state, player)
    return fivedice.keep_values(state, layers, scored)


def choose(tabs: Tables, state: engine.State, player: str, level: str, rng: random.Random) -> Any:
    """The action a player of ``level`` takes now; ``ValueError`` when the player has nothing to do."""
    legal = engine.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do now")
    layers, write, scored = _turn(tabs, level, state, player)
    return fivedice.choose(state, legal, layers, write, scored, rng)


# --------------------------------------------------------------------------------------------------
# Simulation: seeded solo games, for the levels' averages and the check of the exact value


@njit(cache=True)
def _simulate(
    values: NDArray[np.float64],
    points: NDArray[np.int64],
    joker: NDArray[np.int64],
    extra: NDArray[np.int64],
    cap: int,
    seed: int,
    boxes: NDArray[np.int64],
    written: NDArray[np.int64],
    bonuses: NDArray[np.int64],
) -> None:
    """Play ``len(boxes)`` solo games with the policy of ``values``; record every game's boxes and points.

    A turn's decisions (after each roll: keep and reroll, or write; the box of every final roll) depend on its
    state alone, so they are solved once per state and remembered (up to :data:`dice.POLICY_SLOTS` states).
    """
    np.random.seed(seed)
    final = np.empty(dice.ROLL_COUNT)
    box = np.empty(dice.ROLL_COUNT, dtype=np.int64)
    keep3 = np.empty(dice.KEEP_COUNT)
    keep2 = np.empty(dice.KEEP_COUNT)
    slot_of = np.full((FULL + 1) * (cap + 1) * 2, -1, dtype=np.int32)
    capacity = min(dice.POLICY_SLOTS, boxes.shape[0] * BOX_COUNT)
    policies = np.empty((capacity + 1, 3, dice.ROLL_COUNT), dtype=np.int16)
    used = 0
    for g in range(boxes.shape[0]):
        mask, upper, flag, bonus = 0, 0, 0, 0
        for turn in range(BOX_COUNT):
            key = (mask * (cap + 1) + upper) * 2 + flag
            slot = slot_of[key]
            if slot < 0:
                slot = used if used < capacity else capacity  # the last slot: decided afresh, not remembered
                _layers(mask, upper, flag, values, points, joker, extra, cap, final, box, keep3, keep2)
                dice.keep_or_write(final, keep2, policies[slot, 0])
                dice.keep_or_write(final, keep3, policies[slot, 1])
                for r in range(dice.ROLL_COUNT):
                    policies[slot, 2, r] = box[r]
                if slot < capacity:
                    slot_of[key] = slot
                    used += 1
            r = dice.reroll(0)
            for stage in range(2):
                k = int(policies[slot, stage, r])
                if k < 0:
                    break
                r = dice.reroll(k)
            b = int(policies[slot, 2, r])
            face = dice.FIVE_OF_A_KIND_FACE[r]
            if face >= 0 and mask & KNIFFEL_BIT:
                p = joker[mask, face, b]
                bonus += extra[face, flag]
            else:
                p = points[r, b]
                if b == KNIFFEL_BOX and p > 0:
                    flag = 1
            if b < UPPER_COUNT:
                upper = min(cap, upper + p)
            mask |= 1 << b
            boxes[g, turn] = b
            written[g, turn] = p
        bonuses[g] = bonus


def simulate(tabs: Tables, level: str, games: int, seed: int) -> NDArray[np.int64]:
    """Final totals of ``games`` seeded solo games played at ``level``, added up by the engine's ``total``."""
    boxes = np.zeros((games, BOX_COUNT), dtype=np.int64)
    written = np.zeros((games, BOX_COUNT), dtype=np.int64)
    bonuses = np.zeros(games, dtype=np.int64)
    model = tabs.rules
    _simulate(tabs.by_level[level], model.points, model.joker, model.extra, model.cap, seed, boxes, written, bonuses)
    return np.array(
        [
            engine.total({BOXES[b]: int(p) for b, p in zip(row, points, strict=True)}, int(bonus), model.ruleset)
            for row, points, bonus in zip(boxes, written, bonuses, strict=True)
        ]
    )
