"""What the plumbing knows about one game, in two layers: its rules (pure) and its presentation.

:class:`GameRules` is all the pure transitions need: the engine, the table limits, the timeouts. :class:`GameSpec`
adds what the Discord side needs: the renderer, how a click becomes an engine action, the private views. A game's
cog defines one ``SPEC``; ``bot/registry.py`` lists the cogs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from bot.engine.core import GameState
from bot.engine.protocol import Engine

StateT = TypeVar("StateT", bound=GameState)
ActionT = TypeVar("ActionT", bound=BaseModel)


def _no_options(options: Mapping[str, Any], variant: str) -> dict[str, Any]:
    return {}


@dataclass(frozen=True, kw_only=True)
class GameRules(Generic[StateT, ActionT]):
    """Everything the pure transitions need to run one game."""

    kind: str
    #: The engine module (``bot/engine/<game>.py``).
    engine: Engine[StateT, ActionT]
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    #: Turn (or round) timeout in minutes: default, lowest and highest an admin may choose.
    timeout_minutes: tuple[int, int, int]
    #: Changes whenever a new turn or round starts: the deadline is reset only then.
    turn_key: Callable[[StateT], Hashable]
    #: Integer options of ``/<game> start`` besides the timeout, with their lowest and highest allowed value.
    option_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: The name of an option's ``/<game> start`` field where it is not the option's own (``cmd.option.<name>``):
    #: the refusal of a bad value names the field as the user's client shows it.
    option_fields: Mapping[str, str] = field(default_factory=lambda: {"timeout": "turn_timeout"})
    #: Builds ``engine.new_game`` keyword options from the stored game options.
    engine_options: Callable[[Mapping[str, Any], str], dict[str, Any]] = _no_options
    #: Result counters the game keeps for statistics (names of the engine's ``PlayerResult.counters``).
    counters: Sequence[str] = field(default_factory=tuple)
    #: The action a person has no choice but to take next, given the state after their click and its legal actions,
    #: or None: it is taken for them in the same click (Tutto: a roll after a card or a Tutto under Fireworks, and
    #: rolling on under Fireworks once every scoring die is selected), since a step with nothing to choose only
    #: costs a tap (``transitions.move``). None here: no step is ever forced, and a click costs no look at the legal
    #: actions after it (every Kniffel click).
    forced: Callable[[StateT, Sequence[ActionT]], ActionT | None] | None = None

    def load(self, text: str | None) -> StateT | None:
        """The engine state stored as ``text`` (None before the game starts)."""
        return self.engine.State.load(text) if text is not None else None


#: Rules of any game, as the plumbing holds them side by side.
AnyRules = GameRules[Any, Any]
