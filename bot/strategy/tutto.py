"""Tutto: the optimal stopping policy of one turn, and a race-aware player built on it.

Model (the numbers come from the engine's ``score_selection``, ``best_score``, deck and card payouts):

- a turn draws cards from a full deck (the 56 cards with their frequencies, as if reshuffled every draw:
  the real deck's memory is ignored);
- points are counted in steps of 50. Under a Bonus or x2 card only ``X = T + S`` matters, so
  ``F[card, X, n]`` is the value of rolling ``n`` dice with ``X`` at risk; after a Tutto with ``T`` secured the
  player banks or draws again: ``G[T] = max(u(T), C[T])`` where ``C[T]`` is the mean over the next card;
- Fireworks has no decision (all scoring dice, no stopping): its haul is linear, ``T + S + h(n)``;
- Plus/Minus and Cloverleaf pay only for Tuttos: the policy maximises the chance of clearing the dice, and
  Street's chance only depends on how many faces are missing (taking every new face is always right);
- ``u`` is the utility of banking ``Y``: ``Y`` itself for the expected points per turn, ``Y`` up to the target
  for the values a player is shown (:func:`points_payoff`: banking the target ends the game), and for the race
  the points up to the target plus a win premium (points short of the target count less when an opponent is
  about to finish), Plus/Minus also counting the 1000 it takes from a leader, a Cloverleaf counting as a win.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import tutto as engine
from bot.strategy.base import ActionValue, best_first, pick_best

STEP = 50
TOP = 600
"""Amounts are indices 0..TOP in steps of 50 (up to 30,000 points at risk; higher is clamped)."""
DICE = engine.DICE
WIN_PREMIUM = 2000
THREAT = 1000
"""An opponent this close to the target is expected to finish soon: points short of the target count less."""
THREATENED_WEIGHT = 0.25
BONUS_CARDS = tuple(card for card in dict.fromkeys(engine.DECK) if engine.card_kind(card) == engine.BONUS)
CARD_CHANCE = {card: count / len(engine.DECK) for card, count in Counter(engine.DECK).items()}


@dataclass(frozen=True)
class Roll:
    """One multiset of ``n`` dice: its chance, and for each number of dice set aside the best points the engine
    gives such a selection (-1: none; the largest selection is every scoring die)."""

    faces: tuple[int, ...]
    chance: float
    best: tuple[int, ...]


def _sub_multisets(faces: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(f for i, f in enumerate(faces) if bits >> i & 1) for bits in range(1, 1 << len(faces))}


@cache
def _selection_points(sub: tuple[int, ...]) -> int | None:
    """``engine.score_selection`` of a sorted selection: the same few hundred recur in thousands of rolls."""
    return engine.score_selection(sub)


@cache
def rolls(n: int) -> tuple[Roll, ...]:
    """Every roll of ``n`` dice with the selections the engine accepts (``score_selection``)."""
    found = []
    for faces in combinations_with_replacement(range(1, 7), n):
        chance = factorial(n) / prod(factorial(faces.count(f)) for f in set(faces)) / 6**n
        best = [-1] * (n + 1)
        for sub in _sub_multisets(faces):
            points = _selection_points(sub)
            if points is not None and points > best[len(sub)]:
                best[len(sub)] = points
        found.append(Roll(faces, chance, tuple(best)))
    return tuple(found)


@cache
def clear_chance(n: int) -> float:
    """Chance of setting all ``n`` dice aside when stopping is not allowed (Plus/Minus, Cloverleaf), playing
    for that chance alone."""
    if n == 0:
        return 1.0
    return sum(
        r.chance * max((clear_chance(n - k) for k in range(1, n + 1) if r.best[k] >= 0), default=0.0) for r in rolls(n)
    )


@cache
def street_chance(missing: int) -> float:
    """Chance of completing a Street with ``missing`` faces to go (as many dice in hand), taking every new face."""
    if missing == 0:
        return 1.0
    total = 0.0
    for r in rolls(missing):
        new = len({f for f in r.faces if f <= missing})
        if new:
            total += r.chance * street_chance(missing - new)
    return total


@cache
def fireworks_haul() -> tuple[float, ...]:
    """``h[n]``: expected points still to come under Fireworks with ``n`` dice to roll (``h[0]`` = ``h[6]``)."""
    # h(n) = a[n] + b[n] * h(6): a roll taking all n dice starts over with six.
    a = [0.0] * (DICE + 1)
    b = [0.0] * (DICE + 1)
    for n in range(1, DICE + 1):
        for r in rolls(n):
            k = max(k for k in range(n + 1) if r.best[k] >= 0) if any(p >= 0 for p in r.best[1:]) else 0
            if k == 0:
                continue
            rest = n - k
            a[n] += r.chance * (r.best[k] + (a[rest] if rest else 0.0))
            b[n] += r.chance * (b[rest] if rest else 1.0)
    six = a[DICE] / (1 - b[DICE])
    return (six, *(a[n] + b[n] * six for n in range(1, DICE + 1)))


# --------------------------------------------------------------------------------------------------
# The single-turn solver


def _roll_arrays() -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    starts = [0]
    chances: list[float] = []
    best: list[list[int]] = []
    for n in range(1, DICE + 1):
        for r in rolls(n):
            chances.append(r.chance)
            best.append([*r.best, *([-1] * (DICE - n))])
        starts.append(len(chances))
    return np.array(starts), np.array(chances), np.array(best)


@njit(cache=True)
def _solve(
    starts: NDArray[np.int64],
    chances: NDArray[np.float64],
    best: NDArray[np.int64],
    bonuses: NDArray[np.int64],
    weights: NDArray[np.float64],
    utility: NDArray[np.float64],
    fixed: float,
    street: NDArray[np.float64],
    fireworks: NDArray[np.float64],
    plus_minus: NDArray[np.float64],
    values: NDArray[np.float64],
    carry: NDArray[np.float64],
    after: NDArray[np.float64],
) -> None:
    """Fill ``values[card, X, n]`` (cards: the Bonus cards, then x2), ``carry[T]`` (draw a card with T secured)
    and ``after[T]`` (after a Tutto: the better of banking and drawing), from the highest amount down.

    ``street``, ``fireworks``, ``plus_minus``: (chance of the card times its success chance, steps it adds);
    ``fixed``: what the remaining cards are worth whatever is secured (Stop 0, the Cloverleaf's premium).
    """
    top = utility.shape[0] - 1
    cards = values.shape[0]
    after[top] = utility[top]  # the clamped top refers to itself: a Tutto there banks (nothing beyond is worth more)
    for i in range(top, -1, -1):
        for c in range(cards):
            for n in range(1, 7):
                total = 0.0
                for r in range(starts[n - 1], starts[n]):
                    top_value = 0.0
                    for k in range(1, n + 1):
                        points = best[r, k]
                        if points < 0:
                            continue
                        j = min(top, i + points // 50)
                        if k == n:
                            payout = j + bonuses[c] // 50 if c < cards - 1 else 2 * j
                            v = after[min(top, payout)]
                        else:
                            v = max(utility[j], values[c, j, n - k])
                        top_value = max(top_value, v)
                    total += chances[r] * top_value
                values[c, i, n] = total
        mean = fixed
        for c in range(cards):
            mean += weights[c] * values[c, i, 6]
        mean += street[0] * after[min(top, i + int(street[1]))]
        mean += plus_minus[0] * (utility[min(top, i + int(plus_minus[1]))] + plus_minus[2])
        low = min(top, i + int(fireworks[1]))
        high = min(top, low + 1)
        share = fireworks[1] - int(fireworks[1])
        mean += fireworks[0] * ((1 - share) * utility[low] + share * utility[high])
        carry[i] = mean
        after[i] = max(utility[i], mean)


@dataclass(frozen=True)
class Payoff:
    """What banking is worth: ``utility[i]`` for banking ``50 i`` points, and the race extras."""

    utility: tuple[float, ...]
    plus_minus_extra: float = 0.0
    cloverleaf: float = 0.0


POINTS = Payoff(tuple(float(STEP * i) for i in range(TOP + 1)))
"""Plain points: the payoff of the expected points per turn."""


@dataclass(frozen=True)
class Solution:
    """The solved turn for one payoff (see :func:`solve_turn`)."""

    payoff: Payoff
    values: NDArray[np.float64]
    carry: NDArray[np.float64]
    after: NDArray[np.float64]

    def index(self, points: int) -> int:
        """The amount's index in the arrays: steps of 50, clamped at the payoff's last (:data:`TOP`, or the
        target for :func:`points_payoff`, beyond which every amount is worth the same)."""
        return min(len(self.payoff.utility) - 1, points // STEP)

    def card_value(self, card: str, secured: int = 0) -> float:
        """Expected payoff of playing ``card`` with ``secured`` points at risk, from six dice."""
        i = self.index(secured)
        kind = engine.card_kind(card)
        if kind == engine.BONUS:
            return float(self.values[BONUS_CARDS.index(card), i, DICE])
        if kind == engine.DOUBLE:
            return float(self.values[-1, i, DICE])
        return _other_card(self, kind, secured)


def _other_card(
    solution: Solution, kind: str, secured: int, card_points: int = 0, dice_left: int = DICE, tuttos: int = 0
) -> float:
    """Value of rolling under a card without stopping decisions (Stop, Fireworks, Plus/Minus, Street, Cloverleaf)."""
    u = solution.payoff.utility
    if kind == engine.STOP:
        return 0.0
    if kind == engine.FIREWORKS:
        return _interpolate(u, (secured + card_points + fireworks_haul()[dice_left % DICE]) / STEP)
    if kind == engine.PLUS_MINUS:
        return clear_chance(dice_left) * (
            u[solution.index(secured + engine.PLUS_MINUS_POINTS)] + solution.payoff.plus_minus_extra
        )
    if kind == engine.STREET:
        return street_chance(dice_left) * float(solution.after[solution.index(secured + engine.STREET_POINTS)])
    return clear_chance(dice_left) * (clear_chance(DICE) if tuttos == 0 else 1.0) * solution.payoff.cloverleaf


def _interpolate(utility: Sequence[float], steps: float) -> float:
    top = len(utility) - 1
    low = min(top, int(steps))
    high = min(top, low + 1)
    share = steps - int(steps)
    return (1 - share) * utility[low] + share * utility[high]


@cache
def solve_turn(payoff: Payoff = POINTS) -> Solution:
    """Solve one turn for ``payoff`` (about 0.1 s; cached)."""
    starts, chances, best = _roll_arrays()
    bonuses = np.array([engine.card_bonus(card) for card in BONUS_CARDS] + [0])
    weights = np.array([CARD_CHANCE[card] for card in BONUS_CARDS] + [CARD_CHANCE[engine.DOUBLE]])
    fixed = CARD_CHANCE[engine.CLOVERLEAF] * clear_chance(DICE) ** 2 * payoff.cloverleaf
    street = np.array([CARD_CHANCE[engine.STREET] * street_chance(DICE), engine.STREET_POINTS / STEP])
    fireworks = np.array([CARD_CHANCE[engine.FIREWORKS], fireworks_haul()[0] / STEP])
    plus_minus = np.array(
        [CARD_CHANCE[engine.PLUS_MINUS] * clear_chance(DICE), engine.PLUS_MINUS_POINTS / STEP, payoff.plus_minus_extra]
    )
    size = len(payoff.utility)
    values = np.zeros((len(BONUS_CARDS) + 1, size, DICE + 1))
    carry = np.zeros(size)
    after = np.zeros(size)
    utility = np.array(payoff.utility)
    _solve(starts, chances, best, bonuses, weights, utility, fixed, street, fireworks, plus_minus, values, carry, after)
    return Solution(payoff, values, carry, after)


def expected_per_turn() -> dict[str, float]:
    """Expected points banked per turn under the optimal single-turn policy: overall and by first card."""
    solution = solve_turn()
    by_card = {card: solution.card_value(card) for card in dict.fromkeys(engine.DECK)}
    return {"overall": float(solution.carry[0]), **by_card}


# --------------------------------------------------------------------------------------------------
# Engine positions


def race_payoff(state: engine.State, player: str) -> Payoff:
    """The payoff of the race-aware player: points up to the target, a win premium, the leader's loss.

    When another player is within :data:`THREAT` of the target, points short of it count a quarter.
    """
    mine = state.scores[player]
    others = [state.scores[p] for p in state.active if p != player]
    reach = max(STEP, state.target - mine)
    weight = THREATENED_WEIGHT if any(score >= state.target - THREAT for score in others) else 1.0
    utility = tuple(weight * min(STEP * i, reach) + (WIN_PREMIUM if STEP * i >= reach else 0) for i in range(TOP + 1))
    extra = weight * engine.PLUS_MINUS_POINTS if others and max(others) >= mine else 0.0
    return Payoff(utility, extra, WIN_PREMIUM + weight * reach)


@lru_cache(maxsize=64)
def _solution(payoff: Payoff) -> Solution:
    return solve_turn(payoff)


@dataclass(frozen=True)
class Selection:
    """A valid set-aside from the roll on the table: the dice, its points, whether it leaves no die."""

    faces: tuple[int, ...]
    points: int
    tutto: bool


_NOT_READ = {"selected", "move", "events"}
"""The fields :func:`selections` leaves out of the position it remembers: it sets the selection itself, and the
move counter and events change with every toggle while the roll does not."""


def selections(state: engine.State) -> list[Selection]:
    """Every selection the engine accepts from the current roll, one per distinct multiset of faces.

    Remembered by the rest of the state: a player toggles the dice of one roll one at a time, and every toggle
    asks again (a check of every sub-multiset, a copy of the state each).
    """
    return list(_selections(state.model_dump_json(exclude=_NOT_READ)))


@lru_cache(maxsize=256)
def _selections(position: str) -> tuple[Selection, ...]:
    state = engine.State.model_validate_json(position)  # the fields left out have their defaults; our own copy
    found = []
    for sub in sorted(_sub_multisets(tuple(sorted(state.roll)))):
        state.selected = _indices(state.roll, sub, [])
        check = engine.check_selection(state)
        if check.points is not None:
            found.append(Selection(sub, check.points, check.tutto))
    return tuple(found)


def _indices(roll: Sequence[int], faces: Sequence[int], prefer: Sequence[int]) -> list[int]:
    """Indices into ``roll`` showing ``faces``, taking indices in ``prefer`` first."""
    wanted = Counter(faces)
    chosen = []
    for index in [*prefer, *(i for i in range(len(roll)) if i not in prefer)]:
        if wanted[roll[index]] > 0:
            wanted[roll[index]] -= 1
            chosen.append(index)
    return sorted(chosen)


def _card_row(card: str) -> int:
    return BONUS_CARDS.index(card) if engine.card_kind(card) == engine.BONUS else len(BONUS_CARDS)


def roll_value(solution: Solution, state: engine.State, dice_left: int, card_points: int, secured: int) -> float:
    """Value of rolling ``dice_left`` dice under the current card with these amounts."""
    assert state.card is not None
    kind = engine.card_kind(state.card)
    if kind in (engine.BONUS, engine.DOUBLE):
        return float(solution.values[_card_row(state.card), solution.index(secured + card_points), dice_left])
    return _other_card(solution, kind, secured, card_points, dice_left, state.card_tuttos)


def _tutto_secured(state: engine.State, selection: Selection) -> int:
    """T right after a Tutto made by ``selection`` under a card that lets the player stop or continue then."""
    assert state.card is not None
    kind = engine.card_kind(state.card)
    x = state.secured + state.card_points + selection.points
    if kind == engine.BONUS:
        return x + engine.card_bonus(state.card)
    if kind == engine.DOUBLE:
        return 2 * x
    return state.secured + engine.STREET_POINTS


def _tutto_value(solution: Solution, state: engine.State, selection: Selection) -> float:
    """Value right after a Tutto made by ``selection``."""
    assert state.card is not None
    kind = engine.card_kind(state.card)
    x = state.secured + state.card_points + selection.points
    if kind in (engine.BONUS, engine.DOUBLE, engine.STREET):
        return float(solution.after[solution.index(_tutto_secured(state, selection))])
    if kind == engine.PLUS_MINUS:
        return (
            solution.payoff.utility[solution.index(state.secured + engine.PLUS_MINUS_POINTS)]
            + solution.payoff.plus_minus_extra
        )
    if kind == engine.FIREWORKS:
        return _other_card(solution, kind, x, 0, DICE)
    return solution.payoff.cloverleaf * (clear_chance(DICE) if state.card_tuttos == 0 else 1.0)


def selection_values(solution: Solution, state: engine.State, selection: Selection) -> tuple[float, float | None]:
    """(rolling on, stopping) after setting ``selection`` aside; stopping is None where the card forbids it.

    A Tutto selection rolled on leads to the choice between banking and drawing again; stopping with it banks at
    once (the engine's Stop), so it is worth the bank alone.
    """
    assert state.card is not None
    kind = engine.card_kind(state.card)
    if selection.tutto:
        value = _tutto_value(solution, state, selection)
        stoppable = kind in (engine.BONUS, engine.DOUBLE, engine.STREET)
        return value, (solution.payoff.utility[solution.index(_tutto_secured(state, selection))] if stoppable else None)
    rest = state.in_hand - len(selection.faces)
    on = roll_value(solution, state, rest, state.card_points + selection.points, state.secured)
    stop = None
    if kind in (engine.BONUS, engine.DOUBLE):
        stop = solution.payoff.utility[solution.index(state.secured + state.card_points + selection.points)]
    return on, stop


def _best(solution: Solution, state: engine.State, options: Sequence[Selection]) -> float:
    return max((max(v for v in selection_values(solution, state, s) if v is not None) for s in options), default=0.0)


def _action_values(solution: Solution, state: engine.State, player: str) -> list[ActionValue]:
    legal = engine.legal_actions(state, player)
    u = solution.payoff.utility
    if state.phase == "draw":
        return [ActionValue(a, float(solution.carry[solution.index(state.secured)])) for a in legal]
    if state.phase == "roll":
        return [
            ActionValue(a, roll_value(solution, state, state.in_hand, state.card_points, state.secured)) for a in legal
        ]
    if state.phase == "tutto":
        return [
            ActionValue(
                a,
                u[solution.index(state.secured)]
                if isinstance(a, engine.Stop)
                else float(solution.carry[solution.index(state.secured)]),
            )
            for a in legal
        ]
    options = selections(state)
    by_faces = {s.faces: s for s in options}
    current = by_faces.get(tuple(sorted(state.selection)))
    values = []
    for action in legal:
        if isinstance(action, engine.RollOn | engine.Stop):
            assert current is not None
            on, stop = selection_values(solution, state, current)
            values.append(
                ActionValue(action, on if isinstance(action, engine.RollOn) else (stop if stop is not None else on))
            )
            continue
        assert isinstance(action, engine.ToggleSelect | engine.SelectScoring)
        faces = tuple(sorted(state.roll[i] for i in engine.selected_after(state, action)))
        wider = [s for s in options if not Counter(faces) - Counter(s.faces)]
        values.append(ActionValue(action, _best(solution, state, wider)))
    return values


def points_payoff(state: engine.State, player: str) -> Payoff:
    """The payoff of the values a player is shown: points banked this turn, counted up to the target.

    Banking the target ends the game at once, so points beyond it are worth nothing and a stop that reaches it
    is never worse than rolling on (plain points per turn would call rolling on better whenever it is worth a
    few points more on average); a Cloverleaf's win counts as reaching the target. Far from the target this is
    :data:`POINTS` but for the Cloverleaf.

    The amounts end at the target: from there on every amount is worth the target (nothing reachable from it is
    worth less to bank or more to roll for), so clamping there is exact, and the solve of a hint's first question
    in a turn takes a millisecond or two near the target instead of the whole table's 30 ms on the event loop.
    """
    reach = max(STEP, state.target - state.scores[player])
    top = min(TOP, -(-reach // STEP))
    return Payoff(tuple(float(min(STEP * i, reach)) for i in range(top + 1)), cloverleaf=float(min(reach, STEP * top)))


@dataclass(frozen=True)
class Plan:
    """One decision on a roll: set these dice aside, then ``finish`` (``roll_on`` or ``stop``). A player thinks
    in these; the die toggles only prepare one.

    ``then``: what the value of rolling on with a Tutto selection counts after the Tutto, where the card lets
    the player choose (Bonus, x2, Street): ``continue`` (draw again) or ``stop`` (bank, as Stop would at once);
    empty otherwise. It is what the plan is worth, not what was pressed, so it takes no part in comparing plans:
    the plan a review reads from the buttons pressed is the same plan whatever the player did after the Tutto
    (that choice is a decision of its own). QA: "take ⚄: Tutto" never said that drawing again was the better part.
    """

    dice: tuple[int, ...]
    finish: str
    kind: str = "plan"
    then: str = field(default="", compare=False)


def plan_values(state: engine.State, player: str) -> list[ActionValue]:
    """Every plan the roll on the table allows (valid selections only; stopping only where the card lets the
    player stop) with its value as :func:`evaluate` counts it, best first. Empty outside the select phase."""
    if player not in engine.to_act(state) or state.phase != "select":
        return []
    solution = _solution(points_payoff(state, player))
    plans = []
    for selection in selections(state):
        on, stop = selection_values(solution, state, selection)
        then = ("continue" if on > stop else "stop") if selection.tutto and stop is not None else ""
        plans.append(ActionValue(Plan(selection.faces, "roll_on", then=then), on))
        if stop is not None:
            plans.append(ActionValue(Plan(selection.faces, "stop"), stop))
    return best_first(plans)


def evaluate(state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every legal action with the expected points it banks this turn, counted up to the target
    (:func:`points_payoff`; optimal single-turn play after it; the values are the same for every ``level``,
    which only changes how :func:`choose` plays).

    A die toggle, or selecting every scoring die, is worth the best selection that still contains the selection
    after it (0 when no valid selection does; every scoring die is the widest selection, so that is its own
    value); Roll on and Stop set the current selection aside.
    """
    if player not in engine.to_act(state):
        return []
    return _action_values(_solution(points_payoff(state, player)), state, player)


def choose(state: engine.State, player: str, level: str, rng: random.Random) -> Any:
    """The action a player of ``level`` takes now; ``perfect`` plays the race-aware policy."""
    legal = engine.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do now")
    if state.phase in ("draw", "roll"):
        return legal[0]
    if level == "perfect":
        return _choose_perfect(_solution(race_payoff(state, player)), state, rng)
    return _choose_simple(state, level)


def _choose_perfect(solution: Solution, state: engine.State, rng: random.Random) -> Any:
    if state.phase == "tutto":
        bank = solution.payoff.utility[solution.index(state.secured)]
        return engine.Stop() if bank >= solution.carry[solution.index(state.secured)] else engine.Continue()
    plans = []
    for selection in selections(state):
        on, stop = selection_values(solution, state, selection)
        plans.append(ActionValue((selection.faces, engine.RollOn()), on))
        if stop is not None:
            plans.append(ActionValue((selection.faces, engine.Stop()), stop))
    faces, finish = pick_best(plans, rng)
    return _towards(state, faces, finish)


def _towards(state: engine.State, faces: Sequence[int], finish: Any) -> Any:
    """A toggle bringing the selection closer to ``faces``, or ``finish`` once it shows them."""
    target = _indices(state.roll, faces, state.selected)
    for index in range(len(state.roll)):
        if (index in target) != (index in state.selected):
            return engine.ToggleSelect(index=index)
    return finish


def _choose_simple(state: engine.State, level: str) -> Any:
    """``easy``: take every scoring die, bank whenever allowed. ``normal``: take every scoring die, roll on
    while at least three dice are left and less than 300 is at risk (or under 1000 with six dice coming),
    draw again after a Tutto worth less than 500."""
    if state.phase == "tutto":
        return engine.Continue() if level == "normal" and state.secured < 500 else engine.Stop()
    options = selections(state)
    largest = max(options, key=lambda s: (len(s.faces), s.points))
    rest = state.in_hand - len(largest.faces)
    at_risk = state.secured + state.card_points + largest.points
    keep_rolling = level == "normal" and (rest >= 3 and at_risk < 300)
    stop_allowed = engine.can_stop(state.model_copy(update={"selected": _indices(state.roll, largest.faces, [])}))
    finish = engine.Stop() if stop_allowed and not keep_rolling and not largest.tutto else engine.RollOn()
    return _towards(state, largest.faces, finish)


def play_turns(level: str, turns: int, seed: int) -> list[int]:
    """Points banked in ``turns`` seeded solo turns at ``level``, played through the engine; ``perfect`` plays
    the single-turn policy (points per turn), not the race."""
    rng = random.Random(seed)
    banked = []
    state = engine.new_game(["solo"], rng, target=10**9)
    for _ in range(turns):
        before = state.scores["solo"]
        turn = state.turn
        while state.turn == turn and not engine.is_over(state):
            if level == "perfect" and state.phase in ("select", "tutto"):
                action = _choose_perfect(solve_turn(), state, rng)
            else:
                action = choose(state, "solo", level, rng)
            state = engine.apply(state, "solo", action, rng)
        banked.append(state.scores["solo"] - before)
        if engine.is_over(state):  # a Cloverleaf won the game: the turn banked nothing, a new game starts
            state = engine.new_game(["solo"], rng, target=10**9)
    return banked
