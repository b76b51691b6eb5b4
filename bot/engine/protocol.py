"""The shape every engine module has, as a typed Protocol, so code that runs any game is checked against it.

The shared plumbing holds an engine as a value (``GameSpec.engine``); typed as ``Engine[State, Action]`` every
call on it is checked and returns the game's own state type instead of ``Any``. A module satisfies a Protocol
structurally, so the engines need no base class: ``bot/engine/registry.py`` binds each of them to this type
and mypy proves that they conform.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from bot.engine.core import GameState, PlayerResult

StateT = TypeVar("StateT", bound=GameState)
ActionT = TypeVar("ActionT", bound=BaseModel)
NewStateT_co = TypeVar("NewStateT_co", bound=GameState, covariant=True)


class NewGame(Protocol[NewStateT_co]):
    """``new_game(players, rng, **options)``, whatever options a game adds (Kniffel's ``ruleset``, Tutto's
    ``target``); the runner builds them with ``GameSpec.engine_options``.

    ``*args: Any, **options: Any`` after the fixed parameters is how mypy spells "any further parameters", so
    each engine keeps its own keywords while ``players`` and ``rng`` are still checked.
    """

    def __call__(self, players: Sequence[str], rng: random.Random, /, *args: Any, **options: Any) -> NewStateT_co: ...


class Engine(Protocol[StateT, ActionT]):
    """One game's rules: a pure state machine over ``StateT`` driven by ``ActionT`` (docs/architecture.md).

    ``State`` and ``new_game`` are read-only properties: a module's class and its function with extra keywords
    match them, and nothing that holds an engine may replace them.
    """

    @property
    def State(self) -> type[StateT]:
        """The game's state model: ``State.load(text)`` restores what ``state.dump()`` wrote."""

    @property
    def new_game(self) -> NewGame[StateT]:
        """Start a game for ``players`` (seat order decided here, with ``rng``)."""

    def apply(self, state: StateT, player: str, action: ActionT, rng: random.Random, /) -> StateT:
        """The state after ``player`` does ``action``; a ``core.GameError`` for an illegal one."""

    def legal_actions(self, state: StateT, player: str, /) -> list[ActionT]:
        """Every action :meth:`apply` accepts from ``player`` now."""

    def to_act(self, state: StateT, /) -> list[str]:
        """The players who may act now (several in Knister's placing phase)."""

    def leave(self, state: StateT, player: str, /) -> StateT:
        """``player`` leaves: their card stays, they are skipped from now on."""

    def timeout_action(self, state: StateT, player: str, /) -> ActionT:
        """The plain move for an idle ``player``: what the bot plays when their time ran out (or for a computer)
        while the strategy tables are not in memory; once they are, the ``normal`` computer plays instead."""

    def is_over(self, state: StateT, /) -> bool:
        """Whether the game has ended."""

    def results(self, state: StateT, /) -> list[PlayerResult]:
        """One line per seated player: score, shared rank, whether they won, leaderboard counters."""

    def parse_action(self, data: dict[str, Any], /) -> ActionT:
        """The action of its JSON form; ``ValueError`` (pydantic's ``ValidationError``) when invalid."""
