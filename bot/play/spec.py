"""A game's full registration: its rules (``bot/play/game.py``) plus how it is shown and clicked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.play.game import ActionT, GameRules, StateT
from bot.ui.render import Click, GameUI, PrivateRenderer, Rendered, Table
from bot.ui.watching import watching


def _stamp_is_version(click: Click, version: int, state: Any) -> int:
    return version


def _never_in_effect(click: Click, state: Any) -> bool:
    return False


@dataclass(frozen=True)
class Watchers:
    """How a view anyone may open is shown to someone not seated: the one of the player to act, under a line saying
    whose it is and which command shows anyone's (QA: a watcher's card came "with no word that he is not playing and
    no way to pick a player")."""

    #: The game's subcommand whose ``player:`` option shows anyone's view (``cmd.<command>`` in the catalogues).
    command: str
    #: The catalogue key of the line; ``{name}`` is whose view it is, ``{command}`` the command as the reader's
    #: client lists it.
    note: str


@dataclass(frozen=True)
class PrivateView:
    """A read-only, ephemeral answer to a click (a scorecard, a private grid)."""

    render: PrivateRenderer
    #: None for views only a seated player may open (a Knister grid: secret, and nobody else has one); for views
    #: anyone may open, how someone watching is shown the one of the player to act (QA: a watcher's Scorecard said
    #: "You are not playing in this game.", though ``/kniffel scorecard player:`` shows anyone's card).
    watchers: Watchers | None = None
    #: True for views that go stale in a way that matters (a Knister grid): the player's latest one is edited
    #: when the game changes (``bot/play/following.py``). Any other (a scorecard) goes once it is out of date
    #: (``GameService.cards``).
    follows: bool = False

    def whose(self, viewer: str, seated: bool, to_act: Sequence[str]) -> str | None:
        """The player whose view ``viewer`` is shown: their own when ``seated``, else (unless the view is for
        players only) that of the first player ``to_act``; None when there is none to show them."""
        if seated:
            return viewer
        if self.watchers is None or not to_act:
            return None
        return to_act[0]

    def shown(self, table: Table[Any], game: str, viewer: str, whose: str) -> Rendered:
        """``whose`` view as ``viewer`` sees it: a watcher's (``whose`` is someone else's, and ``whose`` chose it)
        under the line that says so, in the reader's language with ``/<game> <command> <player>:`` as their
        client lists it."""
        rendered = self.render(table, whose)
        if self.watchers is not None and whose != viewer:
            command = (f"{game}.name", f"{self.watchers.command}.name")
            rendered.content = watching(table, whose, self.watchers.note, command)
        return rendered


@dataclass(frozen=True, kw_only=True)
class GameSpec(GameRules[StateT, ActionT]):
    """Everything the plumbing needs to run and show one game."""

    ui: GameUI[StateT]
    #: Turns a click into an engine action; KeyError/ValueError for an unknown or malformed click.
    to_action: Callable[[Click], ActionT]
    private_views: dict[str, PrivateView] = field(default_factory=dict)
    #: Moves made from a private message (action -> private view re-rendered on that message).
    private_refresh: dict[str, str] = field(default_factory=dict)
    #: The stamp a click must carry: the stored version, or e.g. the Knister round for private grids.
    stamp_of: Callable[[Click, int, StateT], int] = _stamp_is_version
    #: True when what a click asks for is already so (a double click on "hold die 3"): shown, not applied again.
    in_effect: Callable[[Click, StateT], bool] = _never_in_effect
    #: True when the news keeps the lines that ended the last turn above the current turn's (``board.noted``): in
    #: Tutto a computer's first step follows a person's bust within seconds and would replace it at once.
    news_keeps_turn_end: bool = False


#: A spec of any game, as the registry and the service hold them side by side.
AnySpec = GameSpec[Any, Any]
