"""What a game plugs into the shared plumbing: its engine, its renderer, its limits and its controls."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

import discord

from bot.engine.core import GameState
from bot.play.components import Click, Layout
from bot.storage import GameRecord


@dataclass
class Rendered:
    """A message payload: text, embeds and components."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    layout: Layout = field(default_factory=Layout)

    def kwargs(self) -> dict[str, Any]:
        """Arguments for send/edit calls; an empty layout clears the components."""
        return {"content": self.content, "embeds": self.embeds, "view": self.layout.view()}


@dataclass(frozen=True)
class Table:
    """What a renderer sees: the stored game, its engine state and the players' display names."""

    record: GameRecord
    state: GameState | None
    locale: str

    @property
    def game_id(self) -> int:
        return self.record.id

    @property
    def stamp(self) -> int:
        return self.record.version

    def name(self, player: str | int) -> str:
        seat = self.record.seat(int(player))
        return seat.display_name if seat else str(player)


class GameUI(Protocol):
    """Pure rendering of one game (``bot/ui/<game>.py``)."""

    def render(self, table: Table) -> Rendered:
        """The game message for the current state, including the final standings once it is over."""

    def announce(self, table: Table) -> list[str]:
        """Lines to post in the channel for ``table.state.events`` (may be empty)."""


@dataclass(frozen=True)
class PrivateView:
    """A read-only, ephemeral answer to a click (a scorecard, a private grid)."""

    render: Callable[[Table, int, str], Rendered]
    #: False for views any seated player may open; the clicker must be seated either way.
    players_only: bool = True


@dataclass(frozen=True)
class GameSpec:
    """Everything the plumbing needs to run one game."""

    kind: str
    engine: ModuleType
    ui: GameUI
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    #: Turn (or round) timeout in minutes: default, lowest and highest an admin may choose.
    timeout_minutes: tuple[int, int, int]
    #: Turns a click into an engine action; KeyError/ValueError for an unknown or malformed click.
    to_action: Callable[[Click], Any]
    #: Changes whenever a new turn or round starts: the deadline is reset only then.
    turn_key: Callable[[Any], Hashable]
    #: Builds ``engine.new_game`` keyword options from the stored game options.
    engine_options: Callable[[dict[str, Any], str], dict[str, Any]] = lambda options, variant: {}
    private_views: dict[str, PrivateView] = field(default_factory=dict)
    #: Moves made from a private message (action -> private view re-rendered on that message).
    private_refresh: dict[str, str] = field(default_factory=dict)
    #: Actions whose stamp is not the stored version (e.g. a private grid stamped with the round).
    stamp_of: Callable[[Click, GameRecord, Any], int] = lambda click, record, state: record.version
    #: Result counters copied into the leaderboard row (engine counter name -> results column).
    counters: Sequence[str] = ()
