"""Russian dice poker (docs/RULES.md §2): row scoring, first-roll doubling, settlement and the game state machine."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bot.engine import fivedice
from bot.engine.core import (
    BoxFilled,
    BoxNotAllowed,
    Event,
    IllegalAction,
    NotAPlayer,
    PlayerResult,
    counts,
    ranked_results,
    validate_dice,
)
from bot.engine.fivedice import DICE, FiveDiceState, Roll, ToggleHold

# Unused here but part of this engine's interface (docs/architecture.md): the shared ones, re-exported.
from bot.engine.fivedice import ROLLS as ROLLS
from bot.engine.fivedice import is_over as is_over
from bot.engine.fivedice import to_act as to_act

RowId = Literal[
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "four_of_a_kind",
    "poker",
    "chance",
]

ROWS: tuple[RowId, ...] = get_args(RowId)
UPPER: tuple[RowId, ...] = ROWS[:6]
LOWER: tuple[RowId, ...] = ROWS[6:]

Scorecard = Mapping[str, int] | Mapping[RowId, int]
"""A card as the contract functions take it: raw row names (checked) or a ``State`` card."""

TURNS = 15
UPPER_TURNS = 6
UPPER_BONUS = 50
POKER_BONUS = 50


# --------------------------------------------------------------------------------------------------
# Scoring (the docs/RULES.md §5 contract)


class CardTotals(BaseModel):
    """The sums a scorecard shows at its foot, so the UI and ``total`` agree on one computation."""

    model_config = ConfigDict(frozen=True)

    upper: int
    upper_bonus: int
    lower: int
    total: int


def _check_row(row: str) -> None:
    if row not in ROWS:
        raise ValueError(f"unknown row {row!r}; expected one of {', '.join(ROWS)}")


@cache
def _base(faces: tuple[int, ...], row: str) -> int | None:
    """Points of a lower row before doubling and the poker bonus; None when the combination is missing.

    Of sorted dice (no combination depends on their order), and remembered: there are only 252 sorted rolls of
    five dice, and every roll asks for every open row of its part.
    """
    c = counts(faces)
    shape = sorted(c.values())
    if row == "pair":
        pairs = [face for face, n in c.items() if n >= 2]
        return 2 * max(pairs) if pairs else None
    if row == "two_pairs":
        pairs = [face for face, n in c.items() if n >= 2]
        return 2 * sum(pairs) if len(pairs) == 2 else None
    if row == "three_of_a_kind":
        triples = [face for face, n in c.items() if n >= 3]
        return 3 * triples[0] if triples else None
    if row == "small_straight":
        return 15 if set(faces) == {1, 2, 3, 4, 5} else None
    if row == "large_straight":
        return 20 if set(faces) == {2, 3, 4, 5, 6} else None
    if row == "full_house":
        return sum(faces) if shape == [2, 3] else None
    if row == "four_of_a_kind":
        quads = [face for face, n in c.items() if n >= 4]
        return 4 * quads[0] if quads else None
    if row == "poker":
        return 5 * faces[0] if shape == [5] else None
    return sum(faces)


def score(dice: Sequence[int], row: str, first_roll: bool = False) -> int | None:
    """Points ``row`` would get for these dice; None when the row's combination is missing.

    Upper rows always take the dice: ``(c[f] - 3) * f``, never doubled. A lower row other than ``chance``
    scored with the dice of the first roll counts double; the poker +50 is added after doubling.
    """
    faces = tuple(sorted(validate_dice(dice, DICE)))
    _check_row(row)
    return _score(faces, row, first_roll)


def doubles(row: str, first_roll: bool) -> bool:
    """Whether ``row`` counts double when written with dice of the roll this says: a lower row but ``chance``, on
    the first roll. The one statement of the rule, which the scores, the announcement and the texts read."""
    return first_roll and row in LOWER and row != "chance"


def _score(faces: tuple[int, ...], row: str, first_roll: bool) -> int | None:
    """:func:`score` of checked dice, sorted."""
    if row in UPPER:
        face = UPPER.index(row) + 1
        return (counts(faces)[face] - 3) * face
    base = _base(faces, row)
    if base is None:
        return None
    points = 2 * base if doubles(row, first_roll) else base
    return points + POKER_BONUS if row == "poker" else points


def row_options(dice: Sequence[int], scorecard: Scorecard, turn: int, first_roll: bool = False) -> dict[RowId, int]:
    """The open rows of the part that ``turn`` (1..15) belongs to which accept these dice, with their points."""
    if not 1 <= turn <= TURNS:
        raise ValueError(f"turn is 1..{TURNS}, got {turn}")
    for row in scorecard:
        _check_row(row)
    part = UPPER if turn <= UPPER_TURNS else LOWER
    options: dict[RowId, int] = {}
    faces: tuple[int, ...] | None = None  # checked once an open row needs them
    for row in part:
        if row not in scorecard:
            if faces is None:
                faces = tuple(sorted(validate_dice(dice, DICE)))
            points = _score(faces, row, first_roll)
            if points is not None:
                options[row] = points
    return options


def card_breakdown(scorecard: Scorecard) -> CardTotals:
    """Upper sum U, its bonus (+50 once all six upper rows are filled and U >= 0), lower sum and total."""
    for row in scorecard:
        _check_row(row)
    upper = sum(points for row, points in scorecard.items() if row in UPPER)
    lower = sum(points for row, points in scorecard.items() if row in LOWER)
    complete = all(row in scorecard for row in UPPER)
    bonus = UPPER_BONUS if complete and upper >= 0 else 0
    return CardTotals(upper=upper, upper_bonus=bonus, lower=lower, total=upper + bonus + lower)


def total(scorecard: Scorecard) -> int:
    """U + bonus (when all six upper rows are filled and U >= 0) + the part-2 rows."""
    return card_breakdown(scorecard).total


def settlement(totals: Sequence[int]) -> list[Fraction]:
    """Each player's total minus the average, exactly; the results always sum to zero."""
    if not totals:
        return []
    mean = average(totals)
    return [value - mean for value in totals]


def average(totals: Sequence[int]) -> Fraction:
    """The table average the settlement measures every total from, exactly (the final board names it)."""
    for value in totals:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"a total is an int, got {value!r}")
    if not totals:
        raise ValueError("the average of no totals")
    return Fraction(sum(totals), len(totals))


# --------------------------------------------------------------------------------------------------
# Actions
# Roll and ToggleHold are the shared ones from bot.engine.fivedice.


class Score(BaseModel):
    """Write the current dice into a row of the current part, ending the turn."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["score"] = "score"
    row: RowId


class Pass(BaseModel):
    """End the turn without writing anything: legal only when no open row of the current part fits."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["pass"] = "pass"


Action = Annotated[Roll | ToggleHold | Score | Pass, Field(discriminator="kind")]
_SCORES: dict[str, Score] = {row: Score(row=row) for row in ROWS}
_PASS = Pass()
"""One frozen instance per action serves every list of legal actions (the board asks on every click)."""
_ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> Action:
    """Build an action from its JSON form (``{"kind": "score", "row": "poker"}``); ``ValueError`` if invalid."""
    return _ACTION_ADAPTER.validate_python(data)


def choice_action(choice: str) -> Score | Pass:
    """The action a Score… select's choice names (a row, or ``pass``): the shared instance of a row there is, and
    for any other name the validation that refuses it (``ValueError``), as :func:`parse_action` would."""
    if choice == "pass":
        return _PASS
    action = _SCORES.get(choice)
    return action if action is not None else Score.model_validate({"kind": "score", "row": choice})


# --------------------------------------------------------------------------------------------------
# State


class State(FiveDiceState):
    """A dice poker game: ``players`` is the shuffled seat order; cards stay when a player leaves.

    ``turns`` counts finished turns (scored or passed); the running turn is ``turns + 1`` and decides the part.
    ``dashes`` lists the rows that were still empty after a player's 15th turn and now hold a 0.
    """

    cards: dict[str, dict[RowId, int]]
    dashes: dict[str, list[RowId]]

    @property
    def turn(self) -> int:
        """The current player's running turn number, 1..15."""
        return self.turns[self.current_player] + 1

    @property
    def part(self) -> int:
        """1 while the upper rows are played (turns 1..6), 2 for the lower rows (turns 7..15)."""
        return 1 if self.turn <= UPPER_TURNS else 2

    @property
    def first_roll(self) -> bool:
        """True while the dice are those of roll 1: a reroll needs at least one die, so no die was rerolled."""
        return self.rolls == 1


def new_game(players: Sequence[str], rng: random.Random) -> State:
    """Start a game in a random seat order (``rng.shuffle`` of the players), announced as an event."""
    seats = list(players)
    if not seats:
        raise ValueError("a game needs at least one player")
    if len(set(seats)) != len(seats):
        raise ValueError("player ids must be unique")
    rng.shuffle(seats)
    return State(
        players=seats,
        cards={player: {} for player in seats},
        dashes={player: [] for player in seats},
        turns=dict.fromkeys(seats, 0),
        events=[
            Event(key="dicepoker.order", params={"players": list(seats)}),
            Event(key="dicepoker.turn", params={"player": seats[0], "turn": 1, "part": 1}),
        ],
    )


# --------------------------------------------------------------------------------------------------
# Transitions


def _options(state: State) -> dict[RowId, int]:
    return row_options(state.dice, state.cards[state.current_player], state.turn, state.first_roll)


def _check_score(state: State, row: RowId) -> int:
    """The points ``row`` gets now, or the reason it cannot be chosen."""
    fivedice.check_rolled(state)
    if row in state.cards[state.current_player]:
        raise BoxFilled(box=row)
    options = _options(state)
    if row not in options:
        raise BoxNotAllowed(box=row)
    return options[row]


def row_points(state: State, row: RowId) -> int:
    """The points **Score** would write into ``row`` for the player to act, with the dice as they lie (doubled on
    the first roll, the poker bonus included); the hint and the review name them, counted by the engine alone."""
    return _check_score(state, row)


def _check_pass(state: State) -> None:
    fivedice.check_rolled(state)
    if _options(state):
        raise IllegalAction("a row still accepts these dice, so passing is not allowed")


def _finish_turn(state: State, player: str) -> None:
    """Count the turn; after the 15th, the player's empty rows get their dashes (worth 0)."""
    state.turns[player] += 1
    if state.turns[player] == TURNS:
        card = state.cards[player]
        for row in ROWS:
            if row not in card:
                card[row] = 0
                state.dashes[player].append(row)
    _end_turn(state)


def _end_turn(state: State) -> None:
    """Hand the turn on, announced with its turn number and part, or finish the game (``fivedice.next_turn``)."""
    if fivedice.next_turn(state, TURNS, results):
        state.events.append(
            Event(
                key="dicepoker.turn",
                params={"player": state.current_player, "turn": state.turn, "part": state.part},
            )
        )


def apply(state: State, player: str, action: Action, rng: random.Random) -> State:
    """Apply one player's action and return the new state; the given state is never changed.

    Every check runs before the copy is made, so an illegal action raises a ``GameError`` with no side effect.
    """
    fivedice.check_turn(state, player)
    if isinstance(action, Roll):
        return fivedice.roll_dice(state, player, rng, "dicepoker.rolled")
    if isinstance(action, ToggleHold):
        return fivedice.toggle_hold(state, action.index)
    if isinstance(action, Score):
        points = _check_score(state, action.row)
        doubled = doubles(action.row, state.first_roll)
        nxt = state.successor()
        nxt.cards[player][action.row] = points
        nxt.events.append(
            Event(
                key="dicepoker.scored",
                params={
                    "player": player,
                    "row": action.row,
                    "points": points,
                    "doubled": doubled,
                    "dice": list(nxt.dice),
                },
            )
        )
        _finish_turn(nxt, player)
        return nxt
    if isinstance(action, Pass):
        _check_pass(state)
        nxt = state.successor()
        nxt.events.append(Event(key="dicepoker.passed", params={"player": player, "dice": list(nxt.dice)}))
        _finish_turn(nxt, player)
        return nxt
    raise IllegalAction(f"not a dice poker action: {action!r}")


def legal_actions(state: State, player: str) -> list[Action]:
    """Every action ``apply`` accepts from ``player`` now: roll, hold toggles, fitting rows or a pass."""
    if not fivedice.has_turn(state, player):
        return []
    actions: list[Action] = [*fivedice.dice_actions(state)]
    if state.rolls > 0:
        options = _options(state)
        actions.extend(_SCORES[row] for row in options)
        if not options:
            actions.append(_PASS)
    return actions


def leave(state: State, player: str) -> State:
    """Take ``player`` out of the game: their card stays as it is, they are skipped, their turn passes on."""
    return fivedice.leave(state, player, _end_turn)


def timeout_action(state: State, player: str) -> Action:
    """The plain move for an idle player (see ``protocol.Engine``): roll if they have not, else the best fitting
    row, else pass.

    Ties go to the row that comes first on the card, so the choice is deterministic.
    """
    fivedice.check_turn(state, player)
    if state.rolls == 0:
        return Roll()
    options = _options(state)
    if not options:
        return Pass()
    return Score(row=max(options, key=lambda row: options[row]))


def card_totals(state: State, player: str) -> CardTotals:
    """Upper sum, upper bonus, lower sum and total of one player's card.

    Remembered by the card's contents, as Kniffel's: every board shows every player's total and upper sum, and
    checking and summing each card again (twice a player) was a sixth of rendering a six-player board.
    """
    if player not in state.players:
        raise NotAPlayer(player=player)
    return _card_totals(frozenset(state.cards[player].items()))


@lru_cache(maxsize=4096)
def _card_totals(card: frozenset[tuple[str, int]]) -> CardTotals:
    return card_breakdown(dict(card))


def seat_totals(state: State) -> list[int]:
    """Every player's total in seat order, those who left included: their card keeps its share of the average."""
    return [card_totals(state, player).total for player in state.players]


def settlements(state: State) -> dict[str, Fraction]:
    """Every player's exact settlement (total minus the average), in seat order."""
    return dict(zip(state.players, settlement(seat_totals(state)), strict=True))


def results(state: State) -> list[PlayerResult]:
    """One line per player in seat order (those who left included, with their card as it stands, ranked last).

    The settlement still counts every card, so a leaver's card keeps its share of the average.
    """
    return ranked_results(
        {player: card_totals(state, player).total for player in state.players},
        {player: {"settlement": round(float(share), 2)} for player, share in settlements(state).items()},
        state.left,
    )
