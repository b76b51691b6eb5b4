"""High roll, the smallest dice game: each player rolls one die once, the highest roll wins. Pure, like every engine."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from bot.engine.core import Event, GameOver, GameState, NotAPlayer, NotYourTurn, PlayerResult, ranked_results


class Roll(BaseModel):
    kind: Literal["roll"] = "roll"


Action = Roll


def parse_action(data: dict[str, Any]) -> Action:
    return Roll.model_validate(data)


class State(GameState):
    rolls: dict[str, int] = Field(default_factory=dict)
    left: list[str] = Field(default_factory=list)

    @property
    def waiting(self) -> list[str]:
        return [p for p in self.players if p not in self.rolls and p not in self.left]


def new_game(players: Sequence[str], rng: random.Random) -> State:
    return State(players=list(players))


def to_act(state: State) -> list[str]:
    return state.waiting[:1]


def is_over(state: State) -> bool:
    return not state.waiting


def apply(state: State, player: str, action: Action, rng: random.Random) -> State:
    if player not in state.players:
        raise NotAPlayer()
    if is_over(state):
        raise GameOver()
    if player not in to_act(state):
        raise NotYourTurn()
    nxt = state.successor()
    nxt.rolls[player] = rng.randint(1, 6)
    nxt.events.append(Event(key="highroll.rolled", params={"player": player, "face": nxt.rolls[player]}))
    return nxt


def legal_actions(state: State, player: str) -> list[Action]:
    return [Roll()] if player in to_act(state) else []


def leave(state: State, player: str) -> State:
    nxt = state.successor()
    nxt.left.append(player)
    return nxt


def timeout_action(state: State, player: str) -> Action:
    return Roll()


def results(state: State) -> list[PlayerResult]:
    return ranked_results({player: state.rolls.get(player, 0) for player in state.players})
