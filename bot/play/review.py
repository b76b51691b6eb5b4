"""Post-game reviews: the regret of every decision a person made, from the stored move history.

Pure and blocking (run it in a worker thread): each stored move holds the state it was applied to, so a review
replays nothing; it values the position with :func:`bot.play.computer.hint_values` (the very values the Hint button
shows) and compares the action taken with the best one. What counts as one decision:

- Kniffel, classic, dice poker: a reroll (the dice held then are the keep chosen) or writing the dice into a box
  (or passing). Die toggles only prepare a reroll and the first roll of a turn has no alternative.
- Knister: placing the roll. Rolling has no alternative.
- Tutto: setting dice aside and rolling on or stopping (the selection and what follows it, as one plan), and
  stopping or continuing after a Tutto. Drawing a card and the first roll have no alternative, nor has rolling
  on under Fireworks (every scoring die must be taken, stopping is not allowed).

Regret is the best value minus the chosen one, in the hint's unit (expected final score; Tutto: expected points
this turn, counted up to the target, so a stop that wins the game loses nothing), never negative. Moves the
computer made for a person whose time ran out are listed but not counted, also those the card left no choice in
(Fireworks): a turn played for the person shows in their review even when nothing in it was a decision (QA: a timed-out
Fireworks turn left a review of nothing, which read as perfect play). A timed-out Tutto turn that ended before any
choice (a Stop card, a null on the first roll) is listed by its last step, not judged (:attr:`Decision.judged`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.play import computer
from bot.play.game import AnyRules
from bot.storage.history import MoveRow

#: How many of the most costly decisions a review singles out.
WORST = 3


@dataclass(frozen=True)
class Decision:
    """One decision: the position, what was chosen and what was best, with their values."""

    number: int
    #: The person's turn it was made in as the game counts turns to them: five dice their own turn (the board's
    #: "turn 7/13"), Knister the round, Tutto their turns counted from the game's start (QA: "#7" alone did not
    #: say which turn a decision was in, nor, with the roll its state holds, whether rolls were left).
    turn: int
    state: Any
    chosen: Any
    chosen_value: float
    best: Any
    best_value: float
    #: Who decided: ``player``, or ``timeout`` when the computer played the person's turn.
    source: str
    #: False for the last step of a timed-out turn that held no decision (Tutto: the draw of a Stop card, a roll
    #: that scored nothing), listed so the timeout shows; chosen and best are that step, at no loss.
    judged: bool = True

    @property
    def regret(self) -> float:
        """Expected points lost by this choice (0 for a best choice; rounding noise counts as 0)."""
        loss = self.best_value - self.chosen_value
        return loss if loss > 1e-9 else 0.0

    @property
    def counted(self) -> bool:
        return self.source == "player"


@dataclass(frozen=True)
class Review:
    """A person's decisions in one game, with the total and average loss over the ones they made themselves."""

    kind: str
    variant: str
    player: str
    decisions: tuple[Decision, ...]

    @property
    def counted(self) -> tuple[Decision, ...]:
        return tuple(decision for decision in self.decisions if decision.counted)

    @property
    def total(self) -> float:
        return sum(decision.regret for decision in self.counted)

    @property
    def average(self) -> float:
        """Average expected loss per decision (the Yahtzee Proficiency Test's measure): 0 is perfect play."""
        counted = self.counted
        return self.total / len(counted) if counted else 0.0

    @property
    def worst(self) -> tuple[Decision, ...]:
        """The most costly decisions (at most :data:`WORST`, only those that lost anything), costliest first."""
        costly = sorted((d for d in self.counted if d.regret > 0), key=lambda d: (-d.regret, d.number))
        return tuple(costly[:WORST])


def review(rules: AnyRules, variant: str, player: str, moves: Iterable[MoveRow], directory: Path) -> Review:
    """The review of ``player`` from a game's stored ``moves`` (in play order). Blocking; needs the tables."""
    decisions: list[Decision] = []
    turn = _TimedOutTurn()
    seen: object = None  # the turn key of the person's last move, to count their turns
    played = 0
    for move in moves:
        if move.player != player or move.source == "computer":
            turn.close(decisions)
            continue
        state = rules.engine.State.load(move.state)
        action = rules.engine.parse_action(_action_data(move.action))
        if rules.turn_key(state) != seen:
            seen, played = rules.turn_key(state), played + 1
        number = turn_number(rules.kind, state, player, played)
        key = rules.turn_key(state) if move.source == "timeout" and rules.kind == "tutto" else None
        if key is None or key != turn.key:
            turn.close(decisions)
        if key is not None:
            turn.step(key, number, state, action)
        valued = decide(state, player, action, directory, forced=move.source == "timeout")
        if valued is None:
            continue
        turn.decided = True
        chosen, chosen_value, best, best_value = valued
        decisions.append(
            Decision(len(decisions) + 1, number, state, chosen, chosen_value, best, best_value, move.source)
        )
    turn.close(decisions)
    return Review(rules.kind, variant, player, tuple(decisions))


class _TimedOutTurn:
    """The Tutto turn the computer is playing for the person after a timeout, read step by step: a turn that ends
    before any choice (a Stop card, a null on the first roll) is listed by its last step, so the timeout shows in
    the review instead of "no decisions of your own" (QA)."""

    def __init__(self) -> None:
        self.key: object = None
        self.decided = False
        self.last: tuple[int, Any, Any] | None = None

    def step(self, key: object, number: int, state: Any, action: Any) -> None:
        self.key, self.last = key, (number, state, action)

    def close(self, decisions: list[Decision]) -> None:
        """End the turn being read: its last step joins ``decisions`` when none of its steps was a decision."""
        if self.last is not None and not self.decided:
            number, state, action = self.last
            decisions.append(
                Decision(len(decisions) + 1, number, state, action, 0.0, action, 0.0, "timeout", judged=False)
            )
        self.key, self.decided, self.last = None, False, None


def turn_number(kind: str, state: Any, player: str, played: int) -> int:
    """The turn ``state`` is in as the game of ``kind`` counts turns to ``player`` (:attr:`Decision.turn`, read by
    ``ui.review.position`` by the same kinds): Knister its rounds; Tutto numbers no turns of a player, so
    ``played``, the person's turns the review has read so far, is it; the five-dice engines count each player's
    finished turns."""
    if kind == "knister":
        return int(state.round)
    if kind == "tutto":
        return played
    return int(state.turns[player]) + 1


def complete(rules: AnyRules, moves: Sequence[MoveRow]) -> bool:
    """Whether ``moves`` (in play order) are the game's whole history: nothing was played before the first.

    Every change of a state counts in its ``move``, and the only change stored without a move is a player leaving
    (who is then in ``left``); so the first stored state shows as many changes as players who left. A history cut
    by an older dicebot's ``/forget-me`` while the game ran goes on from the cut, and a review of its rest would
    present part of a game as the whole.
    """
    if not moves:
        return False
    first = rules.engine.State.load(moves[0].state)
    return bool(first.move == len(first.left))


def _action_data(text: str) -> dict[str, Any]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"a stored action is not an object: {text!r}")
    return data


def decide(
    state: Any, player: str, action: Any, directory: Path, forced: bool = False
) -> tuple[Any, float, Any, float] | None:
    """(chosen, its value, best, its value) of ``action`` taken in ``state``; None when it is no decision.

    ``forced``: also value a Tutto plan that was the roll's only one (what a timeout played for the person).
    """
    kind = action.kind
    if hasattr(state, "held"):  # Kniffel, classic, dice poker
        if kind == "toggle_hold" or (kind == "roll" and not state.rolls):
            return None
        values, current = computer.hint_values(state, player, directory)
        if kind == "roll":
            from bot.strategy import Keep  # lazily: numba and the solvers (see computer.LEVELS)

            assert current is not None
            kept = tuple(sorted(die for die, hold in zip(state.dice, state.held, strict=True) if hold))
            chosen, chosen_value = Keep(kept), current.value
        else:
            chosen, chosen_value = action, _value_of(values, action)
        return chosen, chosen_value, values[0].action, values[0].value
    if kind in ("roll_on", "stop") and getattr(state, "phase", None) == "select":
        return _tutto_plan(state, player, action, directory, forced)
    if kind in ("place", "stop", "continue"):
        values, _ = computer.hint_values(state, player, directory)
        return action, _value_of(values, action), values[0].action, values[0].value
    return None


def _value_of(values: Sequence[Any], action: Any) -> float:
    for entry in values:
        if entry.action == action:
            return float(entry.value)
    raise ValueError(f"{action!r} is not among the legal actions of the stored state")


def _tutto_plan(
    state: Any, player: str, action: Any, directory: Path, forced: bool
) -> tuple[Any, float, Any, float] | None:
    """Tutto: the selection set aside and rolling on or stopping, against the best such plan of the roll (the
    plans the hint lists); no decision where the roll leaves one plan (Fireworks: every scoring die, roll on),
    unless ``forced`` asks for such a plan too."""
    from bot.strategy.tutto import Plan  # lazily: numba and the solvers (see computer.LEVELS)

    values, _ = computer.hint_values(state, player, directory)
    if len(values) == 1 and not forced:
        return None
    chosen = Plan(tuple(sorted(state.selection)), action.kind)
    chosen_value = _value_of(values, chosen)
    best, best_value = values[0].action, values[0].value
    if chosen_value >= best_value:
        best, best_value = chosen, chosen_value
    return chosen, chosen_value, best, best_value
