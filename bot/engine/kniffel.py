"""Kniffel and its "classic" variant (docs/RULES.md §1): box scoring, the forced joker and the game state machine."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
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
    roll,
    validate_dice,
)
from bot.engine.fivedice import DICE, FiveDiceState, Roll, ToggleHold

# Unused here but part of this engine's interface (docs/architecture.md): the shared ones, re-exported.
from bot.engine.fivedice import ROLLS as ROLLS
from bot.engine.fivedice import is_over as is_over
from bot.engine.fivedice import to_act as to_act

Ruleset = Literal["kniffel", "classic"]
BoxId = Literal[
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_of_a_kind",
    "four_of_a_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "kniffel",
    "chance",
]

RULESETS: tuple[Ruleset, ...] = get_args(Ruleset)
BOXES: tuple[BoxId, ...] = get_args(BoxId)
UPPER: tuple[BoxId, ...] = BOXES[:6]
LOWER: tuple[BoxId, ...] = BOXES[6:]

Scorecard = Mapping[str, int] | Mapping[BoxId, int]
"""A card as the contract functions take it: raw box names (checked) or a ``State`` card."""

TURNS = 13
UPPER_BONUS = 35
UPPER_BONUS_THRESHOLD = 63
KNIFFEL_POINTS = 50
EXTRA_KNIFFEL_BONUS = 100

_FIXED_POINTS = {"full_house": 25, "small_straight": 30, "large_straight": 40}
_SMALL_STRAIGHTS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
_LARGE_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})


# --------------------------------------------------------------------------------------------------
# Scoring (the docs/RULES.md §5 contract)


class CardTotals(BaseModel):
    """The sums a scorecard shows at its foot, so the UI and ``total`` agree on one computation."""

    model_config = ConfigDict(frozen=True)

    upper: int
    upper_bonus: int
    lower: int
    extra_bonus: int
    total: int


def _check_ruleset(ruleset: str) -> None:
    if ruleset not in RULESETS:
        raise ValueError(f"unknown ruleset {ruleset!r}; expected one of {', '.join(RULESETS)}")


def _check_card(scorecard: Scorecard) -> None:
    for box in scorecard:
        if box not in BOXES:
            raise ValueError(f"unknown box {box!r}; expected one of {', '.join(BOXES)}")


def _is_kniffel(faces: Sequence[int]) -> bool:
    return len(set(faces)) == 1


@cache
def _points(faces: tuple[int, ...], box: str) -> int:
    """What the box's own condition gives these dice (sorted), ignoring the joker.

    Remembered: there are only 252 sorted rolls of five dice, and the Score… select asks for every open box on
    every roll.
    """
    c = counts(faces)
    shape = sorted(c.values())
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * c[face]
    if box == "three_of_a_kind":
        return sum(faces) if shape[-1] >= 3 else 0
    if box == "four_of_a_kind":
        return sum(faces) if shape[-1] >= 4 else 0
    if box == "full_house":
        return 25 if shape == [2, 3] else 0
    if box == "small_straight":
        return 30 if any(s <= set(faces) for s in _SMALL_STRAIGHTS) else 0
    if box == "large_straight":
        return 40 if set(faces) in _LARGE_STRAIGHTS else 0
    if box == "kniffel":
        return KNIFFEL_POINTS if shape == [5] else 0
    return sum(faces)


def score_options(dice: Sequence[int], scorecard: Scorecard, ruleset: str = "kniffel") -> dict[BoxId, int]:
    """Every box the player may write these dice into now, mapped to the points written there, in card order.

    Under the ``kniffel`` ruleset a five of a kind with the ``kniffel`` box already filled is a joker and the
    choice is forced: the matching upper box if open, else any open lower box at joker value, else a 0 in an
    open upper box. An empty dict means the card is full.
    """
    faces = validate_dice(dice, DICE)
    _check_ruleset(ruleset)
    _check_card(scorecard)
    open_boxes = [box for box in BOXES if box not in scorecard]
    if ruleset == "kniffel" and _is_kniffel(faces) and "kniffel" in scorecard:
        upper = UPPER[faces[0] - 1]
        if upper not in scorecard:
            return {upper: _points(tuple(sorted(faces)), upper)}
        open_lower = [box for box in open_boxes if box in LOWER]
        if open_lower:
            return {box: _FIXED_POINTS.get(box, sum(faces)) for box in open_lower}
        return dict.fromkeys(open_boxes, 0)
    key = tuple(sorted(faces))
    return {box: _points(key, box) for box in open_boxes}


def extra_bonus(dice: Sequence[int], scorecard: Scorecard, ruleset: str = "kniffel") -> int:
    """The +100 an extra Kniffel earns when scored now (``kniffel`` ruleset, ``kniffel`` box holding 50).

    A full card cannot take the dice, so it earns nothing.
    """
    faces = validate_dice(dice, DICE)
    _check_ruleset(ruleset)
    _check_card(scorecard)
    if (
        ruleset == "kniffel"
        and _is_kniffel(faces)
        and scorecard.get("kniffel") == KNIFFEL_POINTS
        and len(scorecard) < len(BOXES)
    ):
        return EXTRA_KNIFFEL_BONUS
    return 0


def upper_bonus_gained(scorecard: Scorecard, box: str, points: int, ruleset: str = "kniffel") -> int:
    """The upper bonus that scoring ``points`` in ``box`` earns now: all of it when it lifts the upper sum to the
    threshold, else 0. The Score… select and the news name it, as they name an extra Kniffel's bonus."""
    before = card_breakdown(scorecard, 0, ruleset).upper_bonus
    after: dict[str, int] = dict(scorecard.items())
    after[box] = points
    return card_breakdown(after, 0, ruleset).upper_bonus - before


def card_breakdown(scorecard: Scorecard, bonus: int = 0, ruleset: str = "kniffel") -> CardTotals:
    """Upper sum, upper bonus, lower sum, extra bonus and total of a (possibly partial) scorecard."""
    _check_ruleset(ruleset)
    _check_card(scorecard)
    upper = sum(points for box, points in scorecard.items() if box in UPPER)
    lower = sum(points for box, points in scorecard.items() if box in LOWER)
    upper_bonus = UPPER_BONUS if ruleset == "kniffel" and upper >= UPPER_BONUS_THRESHOLD else 0
    return CardTotals(
        upper=upper,
        upper_bonus=upper_bonus,
        lower=lower,
        extra_bonus=bonus,
        total=upper + upper_bonus + lower + bonus,
    )


def total(scorecard: Scorecard, bonus: int = 0, ruleset: str = "kniffel") -> int:
    """Final total: upper sum + upper bonus (``kniffel`` ruleset, upper sum >= 63) + lower sum + ``bonus``.

    ``bonus`` is the sum of the player's extra-Kniffel bonuses, which the scorecard itself does not hold.
    """
    return card_breakdown(scorecard, bonus, ruleset).total


# --------------------------------------------------------------------------------------------------
# Actions
# Roll and ToggleHold are the shared ones from bot.engine.fivedice.


class Score(BaseModel):
    """Write the current dice into a box, ending the turn."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["score"] = "score"
    box: BoxId


Action = Annotated[Roll | ToggleHold | Score, Field(discriminator="kind")]
_SCORES: dict[str, Score] = {box: Score(box=box) for box in BOXES}
"""One frozen instance per box serves every list of legal actions (the board asks on every click)."""
_ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> Action:
    """Build an action from its JSON form (``{"kind": "score", "box": "chance"}``); ``ValueError`` if invalid."""
    return _ACTION_ADAPTER.validate_python(data)


def score_action(box: str) -> Score:
    """The action of writing the dice into ``box`` as a click names it: the shared instance of a box there is, and
    for any other name the validation that refuses it (``ValueError``), as :func:`parse_action` would."""
    action = _SCORES.get(box)
    return action if action is not None else Score.model_validate({"kind": "score", "box": box})


# --------------------------------------------------------------------------------------------------
# State


class State(FiveDiceState):
    """A Kniffel game: ``players`` is the seat order the roll-off produced; cards stay when a player leaves.

    ``rolloff`` keeps every round of the start roll-off (player -> dice, in rolling order); later rounds hold
    only the players tied for the highest sum. ``bonuses`` are extra-Kniffel bonuses, ``kniffels`` counts
    Kniffels scored as 50 plus extra Kniffels (for the leaderboard).
    """

    ruleset: Ruleset = "kniffel"
    cards: dict[str, dict[BoxId, int]]
    bonuses: dict[str, int]
    kniffels: dict[str, int]
    rolloff: list[dict[str, list[int]]] = Field(default_factory=list)


def _roll_off(players: Sequence[str], rng: random.Random) -> tuple[str, list[dict[str, list[int]]], list[Event]]:
    """Everyone rolls five dice; the highest sum starts; players tied for it roll again among themselves."""
    contenders = list(players)
    rounds: list[dict[str, list[int]]] = []
    events: list[Event] = []
    while True:
        rolls = {player: roll(rng, DICE) for player in contenders}
        best = max(sum(dice) for dice in rolls.values())
        contenders = [player for player in contenders if sum(rolls[player]) == best]
        rounds.append(rolls)
        events.append(
            Event(
                key="kniffel.rolloff",
                params={
                    "round": len(rounds),
                    "rolls": {player: list(dice) for player, dice in rolls.items()},
                    "highest": list(contenders),
                },
            )
        )
        if len(contenders) == 1:
            return contenders[0], rounds, events


def new_game(players: Sequence[str], rng: random.Random, ruleset: Ruleset = "kniffel") -> State:
    """Start a game: roll off for the first player (skipped when playing alone), then join order from them."""
    _check_ruleset(ruleset)
    joined = list(players)
    if not joined:
        raise ValueError("a game needs at least one player")
    if len(set(joined)) != len(joined):
        raise ValueError("player ids must be unique")
    rounds: list[dict[str, list[int]]]
    events: list[Event]
    if len(joined) == 1:
        starter, rounds, events = joined[0], [], []
    else:
        starter, rounds, events = _roll_off(joined, rng)
    start = joined.index(starter)
    seats = joined[start:] + joined[:start]
    events.append(Event(key="kniffel.order", params={"players": list(seats)}))
    events.append(Event(key="kniffel.turn", params={"player": starter, "turn": 1}))
    return State(
        ruleset=ruleset,
        players=seats,
        cards={player: {} for player in seats},
        bonuses=dict.fromkeys(seats, 0),
        kniffels=dict.fromkeys(seats, 0),
        turns=dict.fromkeys(seats, 0),
        rolloff=rounds,
        events=events,
    )


# --------------------------------------------------------------------------------------------------
# Transitions


def _check_score(state: State, box: BoxId) -> int:
    """The points ``box`` gets now, or the reason it cannot be chosen."""
    fivedice.check_rolled(state)
    card = state.cards[state.current_player]
    if box in card:
        raise BoxFilled(box=box)
    options = score_options(state.dice, card, state.ruleset)
    if box not in options:
        raise BoxNotAllowed(box=box)
    return options[box]


def box_points(state: State, box: BoxId) -> int:
    """The points **Score** would write into ``box`` for the player to act, with the dice as they lie (the joker
    rule included); the hint and the review name them, and must not count them by a second copy of the rules."""
    return _check_score(state, box)


def _end_turn(state: State) -> None:
    """Hand the turn on, announced with the turn number, or finish the game (``fivedice.next_turn``)."""
    if fivedice.next_turn(state, TURNS, results):
        player = state.current_player
        state.events.append(Event(key="kniffel.turn", params={"player": player, "turn": state.turns[player] + 1}))


def apply(state: State, player: str, action: Action, rng: random.Random) -> State:
    """Apply one player's action and return the new state; the given state is never changed.

    Every check runs before the copy is made, so an illegal action raises a ``GameError`` with no side effect.
    """
    fivedice.check_turn(state, player)
    if isinstance(action, Roll):
        return fivedice.roll_dice(state, player, rng, "kniffel.rolled")
    if isinstance(action, ToggleHold):
        return fivedice.toggle_hold(state, action.index)
    if isinstance(action, Score):
        points = _check_score(state, action.box)
        nxt = state.successor()
        card = nxt.cards[player]
        bonus = extra_bonus(nxt.dice, card, nxt.ruleset)
        upper_bonus = upper_bonus_gained(card, action.box, points, nxt.ruleset)
        if action.box == "kniffel" and points == KNIFFEL_POINTS:
            nxt.kniffels[player] += 1
        if bonus:
            nxt.kniffels[player] += 1
        card[action.box] = points
        nxt.bonuses[player] += bonus
        nxt.turns[player] += 1
        nxt.events.append(
            Event(
                key="kniffel.scored",
                params={
                    "player": player,
                    "box": action.box,
                    "points": points,
                    "bonus": bonus,
                    "upper_bonus": upper_bonus,
                    "dice": list(nxt.dice),
                },
            )
        )
        _end_turn(nxt)
        return nxt
    raise IllegalAction(f"not a Kniffel action: {action!r}")


def legal_actions(state: State, player: str) -> list[Action]:
    """Every action ``apply`` accepts from ``player`` now: roll, hold toggles between rolls, allowed boxes."""
    if not fivedice.has_turn(state, player):
        return []
    actions: list[Action] = [*fivedice.dice_actions(state)]
    if state.rolls > 0:
        options = score_options(state.dice, state.cards[player], state.ruleset)
        actions.extend(_SCORES[box] for box in options)
    return actions


def leave(state: State, player: str) -> State:
    """Take ``player`` out of the game: their card stays, they are skipped, their running turn passes on."""
    return fivedice.leave(state, player, _end_turn)


def timeout_action(state: State, player: str) -> Action:
    """The plain move for an idle player (see ``protocol.Engine``): roll if they have not, else the box worth the
    most points.

    Ties go to the box that comes first on the card, so the choice is deterministic.
    """
    fivedice.check_turn(state, player)
    if state.rolls == 0:
        return Roll()
    options = score_options(state.dice, state.cards[player], state.ruleset)
    best = max(options, key=lambda box: options[box])
    return Score(box=best)


def card_totals(state: State, player: str) -> CardTotals:
    """Upper sum, upper bonus, lower sum, extra bonus and total of one player's card.

    Remembered by the card's contents: every board shows every player's total and a card changes one box a turn,
    while checking and summing it again was a twentieth of a click's CPU (docs/benchmarks.md).
    """
    if player not in state.players:
        raise NotAPlayer(player=player)
    return _card_totals(frozenset(state.cards[player].items()), state.bonuses[player], state.ruleset)


@lru_cache(maxsize=4096)
def _card_totals(card: frozenset[tuple[str, int]], bonus: int, ruleset: str) -> CardTotals:
    return card_breakdown(dict(card), bonus, ruleset)


def results(state: State) -> list[PlayerResult]:
    """One line per player in seat order (those who left included, with their card as it stands, ranked last).

    Counters: ``kniffels`` always; ``upper_bonus`` (0/1) only where the rule set has that bonus, so statistics
    count the bonus rate over games in which it could be made.
    """
    totals = {player: card_totals(state, player) for player in state.players}

    def counters(player: str, sums: CardTotals) -> dict[str, int | float]:
        found: dict[str, int | float] = {"kniffels": state.kniffels[player]}
        if state.ruleset == "kniffel":
            found["upper_bonus"] = int(sums.upper_bonus > 0)
        return found

    return ranked_results(
        {player: sums.total for player, sums in totals.items()},
        {player: counters(player, sums) for player, sums in totals.items()},
        state.left,
    )
