"""The turn machinery of the five-dice scorecard games (Kniffel, dice poker), written once for both.

A turn is up to three rolls of five dice, holding dice between rolls, until the player writes the dice into
their card. This module owns everything around the writing: the ``Roll`` and ``ToggleHold`` actions, the state
fields a turn lives in, the turn checks, handing the turn on past players who left or have played all their
turns, leaving, and the end of the game. A game module keeps its rules: scoring, the options a turn offers,
what writing the dice does, and the events announcing its turns, rolls and scores.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from bot.engine.core import (
    Event,
    GameError,
    GameOver,
    GameState,
    IllegalAction,
    MustRollFirst,
    NoRollsLeft,
    NotAPlayer,
    NotYourTurn,
    PlayerResult,
    next_player,
    roll,
)

DICE = 5
ROLLS = 3


class Roll(BaseModel):
    """Roll all five dice (first roll) or every die not held (rerolls)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["roll"] = "roll"


class ToggleHold(BaseModel):
    """Keep or release one die (0..4) between rolls."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["toggle_hold"] = "toggle_hold"
    index: int = Field(ge=0, lt=DICE)


class FiveDiceState(GameState):
    """The fields of a five-dice turn; a game's ``State`` adds its cards and counters.

    ``current`` is the seat whose turn it is, ``rolls`` how often its dice were rolled (0 before the first roll).
    ``turns`` counts every player's finished turns. Players in ``left`` keep their cards but are skipped.
    """

    current: int = 0
    dice: list[int] = Field(default_factory=list)
    held: list[bool] = Field(default_factory=lambda: [False] * DICE)
    rolls: int = 0
    turns: dict[str, int]
    left: list[str] = Field(default_factory=list)
    over: bool = False

    @property
    def current_player(self) -> str:
        """Whose turn it is (meaningless once the game is over)."""
        return self.players[self.current]


StateT = TypeVar("StateT", bound=FiveDiceState)


def check_player(state: FiveDiceState, player: str) -> None:
    """Refuse everybody once the game is over, and anybody who is not (or no longer) playing."""
    if state.over:
        raise GameOver()
    if player not in state.players or player in state.left:
        raise NotAPlayer(player=player)


def check_turn(state: FiveDiceState, player: str) -> None:
    """Refuse an action from anybody but the player whose turn it is."""
    check_player(state, player)
    if player != state.current_player:
        raise NotYourTurn(player=state.current_player)


def has_turn(state: FiveDiceState, player: str) -> bool:
    """Whether :func:`check_turn` lets ``player`` act now; ``legal_actions`` offers nothing otherwise."""
    try:
        check_turn(state, player)
    except GameError:
        return False
    return True


def check_rolled(state: FiveDiceState) -> None:
    """Holding and writing the dice into the card both need dice on the table."""
    if state.rolls == 0:
        raise MustRollFirst()


def roll_dice(state: StateT, player: str, rng: random.Random, event_key: str) -> StateT:
    """Roll all five dice, or the ones not held, and announce it as ``event_key`` (player, dice, roll number).

    A reroll needs at least one die that is not held, so holding all five cannot use up a roll.
    """
    if state.rolls >= ROLLS:
        raise NoRollsLeft()
    if state.rolls > 0 and all(state.held):
        raise IllegalAction("a reroll needs at least one die that is not held")
    nxt = state.successor()
    if nxt.rolls == 0:
        nxt.dice = roll(rng, DICE)
    else:
        fresh = iter(roll(rng, nxt.held.count(False)))
        nxt.dice = [die if keep else next(fresh) for die, keep in zip(nxt.dice, nxt.held, strict=True)]
    nxt.rolls += 1
    nxt.events.append(Event(key=event_key, params={"player": player, "dice": list(nxt.dice), "roll": nxt.rolls}))
    return nxt


def toggle_hold(state: StateT, index: int) -> StateT:
    """Keep or release die ``index``: only between rolls, since after the last roll holding changes nothing."""
    check_rolled(state)
    if state.rolls >= ROLLS:
        raise NoRollsLeft()
    nxt = state.successor()
    nxt.held[index] = not nxt.held[index]
    return nxt


#: The actions are frozen models: one instance of each serves every list (the board asks on every click).
_ROLL = Roll()
_TOGGLES = tuple(ToggleHold(index=index) for index in range(DICE))


def roll_action() -> Roll:
    """The roll, as a click asks for it: the shared instance (frozen, so it is the same as a new one)."""
    return _ROLL


def hold_action(index: int) -> ToggleHold:
    """The toggle of die ``index`` as a click asks for it: a shared instance for a die there is, and for any other
    index the validation that refuses it (``ValidationError``), as ``ToggleHold(index=index)`` would."""
    if type(index) is int and 0 <= index < DICE:
        return _TOGGLES[index]
    return ToggleHold(index=index)


def dice_actions(state: FiveDiceState) -> list[Roll | ToggleHold]:
    """The roll and hold toggles :func:`roll_dice` and :func:`toggle_hold` accept now (the turn not checked)."""
    actions: list[Roll | ToggleHold] = []
    if state.rolls < ROLLS and not (state.rolls > 0 and all(state.held)):
        actions.append(_ROLL)
    if 0 < state.rolls < ROLLS:
        actions.extend(_TOGGLES)
    return actions


def next_turn(state: StateT, turn_count: int, results: Callable[[StateT], list[PlayerResult]]) -> bool:
    """Clear the dice and seat the next player still in the game with fewer than ``turn_count`` turns played.

    When there is none the game is over and a ``game.over`` event names the winners by ``results``. Returns
    whether a turn follows, so the game can announce it in its own words.
    """
    state.dice = []
    state.held = [False] * DICE
    state.rolls = 0
    player = next_player(
        state.players, state.current_player, lambda p: p not in state.left and state.turns[p] < turn_count
    )
    if player is None:
        state.over = True
        winners = [result.player for result in results(state) if result.won]
        state.events.append(Event(key="game.over", params={"winners": winners}))
        return False
    state.current = state.players.index(player)
    return True


def leave(state: StateT, player: str, end_turn: Callable[[StateT], None]) -> StateT:
    """Take ``player`` out of the game: their card stays, they are skipped, ``end_turn`` passes on their turn."""
    check_player(state, player)
    nxt = state.successor()
    nxt.left.append(player)
    nxt.events.append(Event(key="game.left", params={"player": player}))
    if player == nxt.current_player:
        end_turn(nxt)
    return nxt


def to_act(state: FiveDiceState) -> list[str]:
    """The player whose turn it is, or nobody once the game is over."""
    return [] if state.over else [state.current_player]


def is_over(state: FiveDiceState) -> bool:
    """True once every remaining player has played all their turns, or nobody is left."""
    return state.over
