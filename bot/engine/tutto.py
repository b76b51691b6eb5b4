"""Tutto: draw a card, roll six dice, set scoring dice aside and push your luck towards a Tutto (all six scored).

Turn bookkeeping follows docs/RULES.md section 4: ``secured`` is T (points secured by earlier Tuttos this turn,
still at risk) and ``card_points`` is S (points set aside under the current card).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bot.engine import core
from bot.engine.core import (
    Event,
    GameError,
    GameOver,
    IllegalAction,
    InvalidSelection,
    MustNotStop,
    MustRollFirst,
    NotAPlayer,
    NotYourTurn,
    PlayerResult,
)

DICE = 6
DEFAULT_TARGET = 6000
PLUS_MINUS_POINTS = 1000
STREET_POINTS = 2000
BONUSES = (200, 300, 400, 500, 600)

STOP = "stop"
FIREWORKS = "fireworks"
DOUBLE = "double"
PLUS_MINUS = "plus_minus"
STREET = "street"
CLOVERLEAF = "cloverleaf"
BONUS = "bonus"

DECK: tuple[str, ...] = (
    (STOP,) * 10
    + (FIREWORKS,) * 5
    + tuple(f"{BONUS}_{b}" for b in BONUSES for _ in range(5))
    + (DOUBLE,) * 5
    + (PLUS_MINUS,) * 5
    + (STREET,) * 5
    + (CLOVERLEAF,)
)
"""The 56 cards; a card id is its kind, Bonus cards carry their value (``bonus_600``)."""

_STOPPABLE = frozenset({BONUS, DOUBLE})
"""Cards under which a player may bank before a Tutto."""

_KINDS = {card: BONUS if card.startswith(f"{BONUS}_") else card for card in DECK}
"""Every card id's kind, looked up rather than derived: the board and every selection check ask."""


def card_kind(card: str) -> str:
    """The kind of a card id (``bonus_600`` -> ``bonus``); ``ValueError`` for an unknown id."""
    kind = _KINDS.get(card)
    if kind is None:
        raise ValueError(f"unknown Tutto card {card!r}")
    return kind


def card_bonus(card: str) -> int:
    """The bonus a Bonus card pays on a Tutto, 0 for every other card."""
    return int(card.removeprefix(f"{BONUS}_")) if card_kind(card) == BONUS else 0


def card_rule(card: str) -> tuple[str, dict[str, int]]:
    """The message id of the card's one-line rule and its parameters, e.g. ``("tutto.rule.bonus", {"bonus": 600})``.

    Every number the rule states is a parameter, so it is written the language's way, as on the board ("+2,000").
    """
    kind = card_kind(card)
    if kind == BONUS:
        return f"tutto.rule.{kind}", {"bonus": card_bonus(card)}
    if kind == STREET:
        return f"tutto.rule.{kind}", {"bonus": STREET_POINTS}
    if kind == PLUS_MINUS:
        return f"tutto.rule.{kind}", {"points": PLUS_MINUS_POINTS}
    return f"tutto.rule.{kind}", {}


# --------------------------------------------------------------------------------------------------
# Scoring (every card except Street)

_SINGLES = {1: 100, 5: 50}


def _triple_points(face: int) -> int:
    return 1000 if face == 1 else 100 * face


def _points(faces: Counter[int]) -> int | None:
    """Points when every die is part of a triple or a single 1/5; None when some die scores nothing."""
    total = 0
    for face, n in faces.items():
        triples, rest = divmod(n, 3)
        total += triples * _triple_points(face)
        if rest:
            if face not in _SINGLES:
                return None
            total += rest * _SINGLES[face]
    return total


def _scoring_dice(faces: Iterable[int]) -> Counter[int]:
    """The dice of one roll that score: every 1 and 5, and whole triples of the other faces."""
    return Counter({face: n if face in _SINGLES else 3 * (n // 3) for face, n in core.counts(faces).items()})


def _check_dice(dice: Iterable[int]) -> list[int]:
    faces = core.validate_dice(dice)
    if not 1 <= len(faces) <= DICE:
        raise ValueError(f"Tutto uses 1..{DICE} dice, got {len(faces)}")
    return faces


def score_selection(dice: Sequence[int]) -> int | None:
    """Points of dice set aside from one roll when every one of them scores; ``None`` otherwise."""
    return _points(core.counts(_check_dice(dice)))


def best_score(dice: Sequence[int]) -> int:
    """The most points a roll offers (all its scoring dice); 0 means the roll is a null."""
    return _points(_scoring_dice(_check_dice(dice))) or 0


# --------------------------------------------------------------------------------------------------
# Actions


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True)


class Draw(_Action):
    """Draw the card that starts a turn."""

    kind: Literal["draw"] = "draw"


class Roll(_Action):
    """Roll the dice in hand (six at the start of a card and after a Fireworks/Cloverleaf Tutto)."""

    kind: Literal["roll"] = "roll"


class ToggleSelect(_Action):
    """Add the die at ``index`` of the current roll to the selection, or take it out again."""

    kind: Literal["toggle"] = "toggle"
    index: int = Field(ge=0, lt=DICE)


class SelectScoring(_Action):
    """Select every scoring die of the current roll in one tap: all 1s and 5s and every whole triple, under Street
    one die of each face not collected yet (see :func:`scoring_selection`).

    The selection a player takes most of the time, one die toggle at a time otherwise; it is a move of its own so
    the rule of which dice score stays here, and the board only offers it.
    """

    kind: Literal["select_scoring"] = "select_scoring"


class RollOn(_Action):
    """Set the selection aside and roll the remaining dice (a Tutto when no die remains)."""

    kind: Literal["roll_on"] = "roll_on"


class Stop(_Action):
    """Bank: sets a pending valid selection aside first. Only when the card allows (see :func:`can_stop`)."""

    kind: Literal["stop"] = "stop"


class Continue(_Action):
    """After a Tutto: draw a new card and go on with all six dice, risking the turn's points."""

    kind: Literal["continue"] = "continue"


AnyAction = Draw | Roll | ToggleSelect | SelectScoring | RollOn | Stop | Continue
Action = Annotated[AnyAction, Field(discriminator="kind")]
_ACTION_ADAPTER: TypeAdapter[AnyAction] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> AnyAction:
    """Build an action from its dict form (``{"kind": "toggle", "index": 2}``); ``ValueError`` when invalid."""
    return _ACTION_ADAPTER.validate_python(data)


# --------------------------------------------------------------------------------------------------
# State

Phase = Literal["draw", "roll", "select", "tutto", "over"]
"""draw: the turn needs a card · roll: the dice in hand wait to be rolled · select: a roll lies on the table
and the player picks dice · tutto: after a Tutto, Stop or Continue · over: the game has ended."""


class State(core.GameState):
    """A Tutto game; everything a turn needs (card, roll, selection) lives here so it survives a restart."""

    target: int = DEFAULT_TARGET
    scores: dict[str, int]
    tuttos: dict[str, int]
    current: str
    left: list[str] = Field(default_factory=list)
    deck: list[str]
    """Cards still to draw, in draw order (the next card first)."""
    discards: list[str] = Field(default_factory=list)
    card: str | None = None
    phase: Phase = "draw"
    secured: int = 0
    """T: points secured by earlier Tuttos of this turn, lost on a null or a Stop card."""
    card_points: int = 0
    """S: points set aside under the current card."""
    aside: list[int] = Field(default_factory=list)
    """Faces set aside under the current card (since its last Tutto for Fireworks/Cloverleaf)."""
    roll: list[int] = Field(default_factory=list)
    selected: list[int] = Field(default_factory=list)
    """Indices into ``roll`` the player has picked so far."""
    card_tuttos: int = 0
    turn: int = 0
    """Turns that have passed, counted so a new turn is recognisable even when it is the same (solo) player's."""
    winner: str | None = None
    """The player who won with the Cloverleaf, if any."""

    @property
    def in_hand(self) -> int:
        """Dice not set aside under the current card."""
        return DICE - len(self.aside)

    @property
    def active(self) -> list[str]:
        """Players still in the game, in seat order."""
        return [p for p in self.players if p not in self.left]

    @property
    def selection(self) -> list[int]:
        """Faces of the selected dice, in roll order."""
        return [self.roll[i] for i in sorted(self.selected)]


def new_game(players: Sequence[str], rng: random.Random, *, target: int = DEFAULT_TARGET) -> State:
    """Start a game: shuffle the deck and draw the starting player at random; play follows the join order from
    there. The seats are stored in play order (the starter first), so the scoreboard and the standings list the
    players in the order they play, like the other games."""
    joined = list(players)
    if not joined:
        raise ValueError("Tutto needs at least one player")
    if len(set(joined)) != len(joined):
        raise ValueError("player ids must be unique")
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise ValueError(f"the target is a positive number of points, got {target!r}")
    deck = list(DECK)
    rng.shuffle(deck)
    start = rng.randrange(len(joined))
    order = joined[start:] + joined[:start]
    state = State(
        players=order,
        target=target,
        scores=dict.fromkeys(order, 0),
        tuttos=dict.fromkeys(order, 0),
        current=order[0],
        deck=deck,
    )
    state.events = [
        Event(key="game.order", params={"order": list(order)}),
        Event(key="tutto.turn", params={"player": order[0]}),
    ]
    return state


# --------------------------------------------------------------------------------------------------
# Selection rules


class SelectionCheck(BaseModel):
    """What the current selection is worth: ``points`` when valid, else the ``reason`` it is refused."""

    model_config = ConfigDict(frozen=True)

    points: int | None
    reason: str | None = None
    """``empty``, ``not_scoring``, ``triple_across_rolls``, ``fireworks_take_all``, ``street_face_taken`` or
    ``street_one_per_face``."""
    tutto: bool = False
    """Setting this selection aside leaves no die in hand."""


def check_selection(state: State) -> SelectionCheck:
    """The live value of the current selection for the UI (points, or why Roll on / Stop would refuse it)."""
    faces = state.selection
    if state.phase != "select" or not faces:
        return SelectionCheck(points=None, reason="empty")
    tutto = len(faces) == state.in_hand
    assert state.card is not None
    kind = card_kind(state.card)
    if kind == STREET:
        if any(face in state.aside for face in faces):
            return SelectionCheck(points=None, reason="street_face_taken")
        if len(set(faces)) != len(faces):
            return SelectionCheck(points=None, reason="street_one_per_face")
        return SelectionCheck(points=0, tutto=tutto)
    tally = core.counts(faces)
    points = _points(tally)
    if points is None:
        # Lone 2s, 3s, 4s or 6s: if that face lies aside already, the player hoped to complete a triple
        # with a die of an earlier roll, which the rules forbid; say so rather than just "not scoring".
        stray = [face for face, n in tally.items() if face not in _SINGLES and n % 3]
        reason = "triple_across_rolls" if any(face in state.aside for face in stray) else "not_scoring"
        return SelectionCheck(points=None, reason=reason)
    if kind == FIREWORKS and tally != _scoring_dice(state.roll):
        return SelectionCheck(points=None, reason="fireworks_take_all")
    return SelectionCheck(points=points, tutto=tutto)


def _toggle_refusal(state: State, index: int) -> str | None:
    """Why selecting the die at ``index`` is refused, or None when the toggle is accepted.

    Under Street a die of a face collected already, or a second die of a face selected from this roll, could
    never be set aside with its selection, so it is refused rather than left to make Roll on refuse the lot.
    Taking a die out is always accepted (a selection stored before this rule may hold such dice).
    """
    if index in state.selected or state.card is None or card_kind(state.card) != STREET:
        return None
    face = state.roll[index]
    if face in state.aside:
        return "street_face_taken"
    if face in state.selection:
        return "street_one_per_face"
    return None


def _is_null(state: State) -> bool:
    """A roll offering nothing to set aside: no scoring die, or under Street no face not yet collected."""
    assert state.card is not None
    if card_kind(state.card) == STREET:
        return all(face in state.aside for face in state.roll)
    return best_score(state.roll) == 0


def can_stop(state: State) -> bool:
    """Whether Stop is accepted now: after a Tutto, or with a valid selection under a card that allows it.

    Under Street a selection completing the street may be banked at once (it is the Tutto, after which
    stopping is allowed); Fireworks, Plus/Minus and Cloverleaf never bank on Stop.
    """
    if state.phase == "tutto":
        return True
    if state.phase != "select" or state.card is None:
        return False
    return _may_bank(state.card, check_selection(state))


def _may_bank(card: str, check: SelectionCheck) -> bool:
    """Whether Stop banks a selection of this worth under ``card`` (:func:`can_stop` in the select phase)."""
    if check.points is None:
        return False
    kind = card_kind(card)
    return kind in _STOPPABLE or (kind == STREET and check.tutto)


# --------------------------------------------------------------------------------------------------
# Transitions


def _check_turn(state: State, player: str) -> None:
    if state.phase == "over":
        raise GameOver()
    if player not in state.players or player in state.left:
        raise NotAPlayer(player=player)
    if player != state.current:
        raise NotYourTurn(player=state.current)


def _require_roll(state: State) -> None:
    """Selecting, rolling on and stopping before a Tutto all need a roll on the table."""
    if state.phase == "roll":
        raise MustRollFirst()
    if state.phase != "select":
        raise IllegalAction("there is no roll to pick dice from")


def _check_selection_valid(state: State) -> None:
    check = check_selection(state)
    if check.points is None:
        raise InvalidSelection(reason=check.reason)


def apply(state: State, player: str, action: AnyAction, rng: random.Random) -> State:
    """Return the state after ``player`` does ``action``; raises a ``GameError`` and leaves ``state`` as is."""
    _check_turn(state, player)
    phase = state.phase
    if isinstance(action, Draw):
        if phase != "draw":
            raise IllegalAction("a card is already in play")
        nxt = state.successor()
        _draw(nxt, rng)
    elif isinstance(action, Roll):
        if phase != "roll":
            raise IllegalAction("there are no dice to roll now")
        nxt = state.successor()
        _roll(nxt, rng)
    elif isinstance(action, ToggleSelect):
        _require_roll(state)
        if action.index >= len(state.roll):
            raise IllegalAction(f"there is no die {action.index}")
        refusal = _toggle_refusal(state, action.index)
        if refusal is not None:
            raise InvalidSelection(reason=refusal)
        nxt = state.successor()
        nxt.selected = selected_after(state, action)
    elif isinstance(action, SelectScoring):
        _require_roll(state)
        if not _changes_selection(state):
            raise IllegalAction("every scoring die is selected already")
        nxt = state.successor()
        nxt.selected = selected_after(state, action)
    elif isinstance(action, RollOn):
        _require_roll(state)
        _check_selection_valid(state)
        nxt = state.successor()
        if not _set_aside(nxt):
            _roll(nxt, rng)
    elif isinstance(action, Stop):
        nxt = _stop(state)
    elif isinstance(action, Continue):
        if phase != "tutto":
            raise IllegalAction("Continue follows a Tutto")
        nxt = state.successor()
        _draw(nxt, rng)
    else:
        raise IllegalAction(f"unknown action {action!r}")
    return nxt


def bank_preview(state: State) -> int | None:
    """What **Stop** would bank now, or None when it would be refused (shown on the Stop button)."""
    if not can_stop(state):
        return None
    try:
        banked = _stop(state)
    except GameError:
        return None
    return next((event.params["points"] for event in banked.events if event.key == "tutto.banked"), None)


def _stop(state: State) -> State:
    """Bank T after a Tutto, or T + S after setting the pending selection aside (which may make a Tutto)."""
    if state.phase == "tutto":
        nxt = state.successor()
        _bank(nxt, nxt.secured)
        return nxt
    _require_roll(state)
    assert state.card is not None
    check = check_selection(state)
    completes_street = card_kind(state.card) == STREET and check.points is not None and check.tutto
    if card_kind(state.card) not in _STOPPABLE and not completes_street:
        raise MustNotStop(card=state.card)
    if check.points is None:
        raise InvalidSelection(reason=check.reason)
    nxt = state.successor()
    if _set_aside(nxt):
        _bank(nxt, nxt.secured)
    else:
        _bank(nxt, nxt.secured + nxt.card_points)
    return nxt


def _draw(nxt: State, rng: random.Random) -> None:
    """Discard the card in play, draw the next one (reshuffling the discards into an empty deck)."""
    if nxt.card is not None:
        nxt.discards.append(nxt.card)
        nxt.card = None
    if not nxt.deck:
        nxt.deck, nxt.discards = nxt.discards, []
        rng.shuffle(nxt.deck)
        nxt.events.append(Event(key="tutto.reshuffled"))
    card = nxt.deck.pop(0)
    player = nxt.current
    nxt.card = card
    nxt.card_points = 0
    nxt.aside = []
    nxt.card_tuttos = 0
    nxt.events.append(Event(key="tutto.card", params={"player": player, "card": card}))
    if card_kind(card) == STOP:
        nxt.events.append(Event(key="tutto.stop_card", params={"player": player, "lost": nxt.secured}))
        _end_turn(nxt)
    else:
        nxt.phase = "roll"


def _roll(nxt: State, rng: random.Random) -> None:
    """Roll the dice in hand; a null ends the turn (Fireworks banks T + S instead of losing it)."""
    player = nxt.current
    nxt.roll = core.roll(rng, nxt.in_hand)
    nxt.selected = []
    nxt.phase = "select"
    nxt.events.append(Event(key="tutto.rolled", params={"player": player, "dice": nxt.roll}))
    if not _is_null(nxt):
        return
    assert nxt.card is not None
    if card_kind(nxt.card) == FIREWORKS:
        points = nxt.secured + nxt.card_points
        nxt.events.append(Event(key="tutto.fireworks_null", params={"player": player, "points": points}))
        _bank(nxt, points)
    else:
        lost = nxt.secured + nxt.card_points
        nxt.events.append(Event(key="tutto.null", params={"player": player, "lost": lost}))
        _end_turn(nxt)


def _set_aside(nxt: State) -> bool:
    """Move the (valid) selection aside and add its points to S; returns whether it made a Tutto."""
    faces = nxt.selection
    points = check_selection(nxt).points or 0
    nxt.card_points += points
    nxt.aside.extend(faces)
    nxt.roll = []
    nxt.selected = []
    nxt.events.append(
        Event(
            key="tutto.set_aside",
            params={"player": nxt.current, "dice": faces, "points": points, "total": nxt.card_points},
        )
    )
    if nxt.in_hand:
        return False
    _tutto(nxt)
    return True


def _tutto(nxt: State) -> None:
    """Apply the card's Tutto payout; afterwards the phase says what the player does next."""
    assert nxt.card is not None
    player = nxt.current
    kind = card_kind(nxt.card)
    nxt.tuttos[player] += 1
    nxt.card_tuttos += 1
    if kind == BONUS:
        bonus = card_bonus(nxt.card)
        nxt.secured += nxt.card_points + bonus
        nxt.events.append(Event(key="tutto.bonus", params={"player": player, "bonus": bonus, "points": nxt.secured}))
    elif kind == DOUBLE:
        nxt.secured = 2 * (nxt.secured + nxt.card_points)
        nxt.events.append(Event(key="tutto.double", params={"player": player, "points": nxt.secured}))
    elif kind == STREET:
        nxt.secured += STREET_POINTS
        nxt.events.append(
            Event(key="tutto.street", params={"player": player, "bonus": STREET_POINTS, "points": nxt.secured})
        )
    elif kind == PLUS_MINUS:
        _plus_minus(nxt)
        return
    elif kind == CLOVERLEAF and nxt.card_tuttos == 2:
        nxt.winner = player
        nxt.events.append(Event(key="tutto.cloverleaf_win", params={"player": player}))
        _finish(nxt)
        return
    else:  # Fireworks, or the Cloverleaf's first Tutto: all six dice again under the same card
        nxt.secured += nxt.card_points
        nxt.events.append(Event(key=f"tutto.{kind}", params={"player": player, "points": nxt.secured}))
        nxt.card_points = 0
        nxt.aside = []
        nxt.phase = "roll"
        return
    nxt.card_points = 0
    nxt.phase = "tutto"


def _plus_minus(nxt: State) -> None:
    """Bank T + 1000; every other player still in the game holding the highest score there loses 1000.

    "Highest" is judged before this bank and among the players still in the game (docs/RULES.md, "Project
    decisions"): a player who left cannot lead, so their score is neither taken from nor shields the leaders.
    """
    player = nxt.current
    top = max(nxt.scores[p] for p in nxt.active)
    losers: dict[str, int] = {}
    for other in nxt.active:
        score = nxt.scores[other]
        if other != player and score == top:
            losers[other] = min(PLUS_MINUS_POINTS, score)
            nxt.scores[other] = score - losers[other]
    nxt.events.append(
        Event(
            key="tutto.plus_minus",
            params={"player": player, "points": PLUS_MINUS_POINTS, "losers": losers},
        )
    )
    _bank(nxt, nxt.secured + PLUS_MINUS_POINTS)


def _bank(nxt: State, points: int) -> None:
    """Add the turn's points to the player's score; reaching the target ends the game, else the turn."""
    player = nxt.current
    nxt.scores[player] += points
    nxt.events.append(
        Event(key="tutto.banked", params={"player": player, "points": points, "score": nxt.scores[player]})
    )
    if nxt.scores[player] >= nxt.target:
        _finish(nxt)
    else:
        _end_turn(nxt)


def _reset_turn(nxt: State) -> None:
    if nxt.card is not None:
        nxt.discards.append(nxt.card)
    nxt.card = None
    nxt.secured = 0
    nxt.card_points = 0
    nxt.aside = []
    nxt.roll = []
    nxt.selected = []
    nxt.card_tuttos = 0


def _end_turn(nxt: State) -> None:
    """Clear the turn and hand the dice to the next player still in the game."""
    _reset_turn(nxt)
    player = core.next_player(nxt.players, nxt.current, lambda p: p not in nxt.left)
    if player is None:
        _finish(nxt)
        return
    nxt.current = player
    nxt.turn += 1
    nxt.phase = "draw"
    nxt.events.append(Event(key="tutto.turn", params={"player": nxt.current}))


def _finish(nxt: State) -> None:
    _reset_turn(nxt)
    nxt.phase = "over"
    winners = [r.player for r in results(nxt) if r.won]
    nxt.events.append(Event(key="game.over", params={"winners": winners, "buys_round": buys_next_round(nxt)}))


# --------------------------------------------------------------------------------------------------
# Queries


#: The actions are frozen models: one instance of each serves every list (the board asks on every click).
_DRAW, _ROLL, _ROLL_ON, _STOP, _CONTINUE = Draw(), Roll(), RollOn(), Stop(), Continue()
_SELECT_SCORING = SelectScoring()
_TOGGLES = tuple(ToggleSelect(index=index) for index in range(DICE))


def toggle_actions(state: State) -> list[ToggleSelect]:
    """The die toggles :func:`apply` accepts now (the turn not checked); the board disables the other dice."""
    if state.phase != "select":
        return []
    return [toggle for toggle in _TOGGLES[: len(state.roll)] if _toggle_refusal(state, toggle.index) is None]


def legal_actions(state: State, player: str) -> list[AnyAction]:
    """Every action :func:`apply` accepts from ``player`` now."""
    if player not in to_act(state):
        return []
    if state.phase == "draw":
        return [_DRAW]
    if state.phase == "roll":
        return [_ROLL]
    if state.phase == "tutto":
        return [_STOP, _CONTINUE]
    actions: list[AnyAction] = [*toggle_actions(state)]
    if _changes_selection(state):
        actions.append(_SELECT_SCORING)
    check = check_selection(state)
    if check.points is not None:
        actions.append(_ROLL_ON)
    if state.card is not None and _may_bank(state.card, check):
        actions.append(_STOP)
    return actions


def forced_step(state: State, legal: Sequence[AnyAction]) -> AnyAction | None:
    """The action of ``legal`` (the player's legal actions in ``state``) that leaves them no choice, or None.

    A roll that is the only legal action (after a card, or a Tutto under Fireworks or the Cloverleaf). And under
    Fireworks, rolling on once every scoring die is selected: the card demands exactly those dice and forbids
    stopping, so the only other moves take a die out again. The bot takes such a step with a person's click
    (``GameRules.forced``): one tap draws and rolls, and under Fireworks the tap that completes the selection (Take
    all, or the last die) rolls on.
    """
    if len(legal) == 1 and isinstance(legal[0], Roll):
        return legal[0]
    if state.card is not None and card_kind(state.card) == FIREWORKS and _ROLL_ON in legal:
        return _ROLL_ON
    return None


def to_act(state: State) -> list[str]:
    """The player whose turn it is (nobody once the game is over)."""
    return [] if state.phase == "over" else [state.current]


def leave(state: State, player: str) -> State:
    """``player`` leaves: their score stays for the results; if it was their turn it ends with nothing banked."""
    if state.phase == "over":
        raise GameOver()
    if player not in state.players or player in state.left:
        raise NotAPlayer(player=player)
    nxt = state.successor()
    nxt.left.append(player)
    nxt.events.append(Event(key="game.left", params={"player": player}))
    if not nxt.active:
        _finish(nxt)
    elif nxt.current == player:
        _end_turn(nxt)
    return nxt


def _target_selection(state: State) -> Counter[int]:
    """The selection the timeout takes: all scoring dice, or under Street one die of every new face."""
    assert state.card is not None
    if card_kind(state.card) == STREET:
        return Counter(set(state.roll) - set(state.aside))
    return _scoring_dice(state.roll)


def scoring_selection(state: State) -> list[int]:
    """The indices :class:`SelectScoring` selects: every scoring die of the roll (under Street one die of every
    face not collected yet), the most a player may set aside and, under Fireworks, what they must.

    A die already selected stays selected where it is one of them (under Street the 5 a player picked stays, not
    the other 5), so the tap only adds and takes out what differs. Empty outside the select phase.
    """
    if state.phase != "select":
        return []
    want = _target_selection(state)
    chosen = []
    for index in [*state.selected, *(i for i in range(len(state.roll)) if i not in state.selected)]:
        face = state.roll[index]
        if want[face] > 0:
            want[face] -= 1
            chosen.append(index)
    return sorted(chosen)


def selected_after(state: State, action: ToggleSelect | SelectScoring) -> list[int]:
    """The indices selected once ``action`` is applied (not checked: :func:`apply` refuses what it must), for
    :func:`apply` and for whoever values or describes a selecting move before it is made."""
    if isinstance(action, SelectScoring):
        return scoring_selection(state)
    return sorted(set(state.selected) ^ {action.index})


def _changes_selection(state: State) -> bool:
    """Whether :class:`SelectScoring` changes the selection now (it is legal exactly then)."""
    selection = scoring_selection(state)
    return bool(selection) and selection != sorted(state.selected)


def timeout_action(state: State, player: str) -> AnyAction:
    """The cautious move for an absent player: draw, roll, select the most, bank as soon as allowed.

    Returned one step at a time; the runner repeats until the turn passes. The selection is Take all's
    (:func:`scoring_selection`), so an absent player's turn reads as a player's would.
    """
    if player not in to_act(state):
        raise IllegalAction(f"{player} has nothing to do now")
    if state.phase == "draw":
        return Draw()
    if state.phase == "roll":
        return Roll()
    if state.phase == "tutto":
        return Stop()
    if _changes_selection(state):
        return _SELECT_SCORING
    return _STOP if can_stop(state) else _ROLL_ON


def is_over(state: State) -> bool:
    """Whether the game has ended (target reached, Cloverleaf won, or everybody left)."""
    return state.phase == "over"


def buys_next_round(state: State) -> list[str]:
    """The players with the fewest points, who by the rulebook buy the next round; a Cloverleaf winner is never
    one of them, however few points they had (the others' fewest are), and a solo winner buys for nobody."""
    others = [p for p in state.players if p != state.winner]
    if not others:
        return []
    low = min(state.scores[p] for p in others)
    return [p for p in others if state.scores[p] == low]


def results(state: State) -> list[PlayerResult]:
    """Scores in seat order with shared ranks, leavers after everyone who stayed; a Cloverleaf winner ranks first."""
    others = [p for p in state.players if p != state.winner]
    ranks = dict(
        zip(
            others,
            core.standing_ranks([state.scores[p] for p in others], [p in state.left for p in others]),
            strict=True,
        )
    )
    if state.winner is not None:
        ranks = {p: rank + 1 for p, rank in ranks.items()} | {state.winner: 1}
    return [
        PlayerResult(
            player=p,
            score=state.scores[p],
            rank=ranks[p],
            won=ranks[p] == 1 and p not in state.left,
            counters={"tuttos": state.tuttos[p]},
        )
        for p in state.players
    ]
