"""A game's full registration: its rules (``bot/play/game.py``) plus how it is shown and clicked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.play.game import ActionT, GameRules, StateT
from bot.ui.render import Click, GameUI, PrivateRenderer


def _stamp_is_version(click: Click, version: int, state: Any) -> int:
    return version


def _never_in_effect(click: Click, state: Any) -> bool:
    return False


@dataclass(frozen=True)
class PrivateView:
    """A read-only, ephemeral answer to a click (a scorecard, a private grid)."""

    render: PrivateRenderer
    #: True for views only a seated player may open (a Knister grid: secret, and nobody else has one); False for
    #: views anyone may open: a player sees their own, someone watching the one of the player to act (QA: a
    #: watcher's Scorecard said "You are not playing in this game.", though ``/kniffel scorecard player:`` shows
    #: anyone's card).
    players_only: bool = True
    #: True for views that go stale in a way that matters (a Knister grid): the player's latest one is edited
    #: when the game changes (``bot/play/following.py``). A scorecard may stay as it was opened.
    follows: bool = False

    def whose(self, viewer: str, seated: bool, to_act: Sequence[str]) -> str | None:
        """The player whose view ``viewer`` is shown: their own when ``seated``, else (unless the view is for
        players only) that of the first player ``to_act``; None when there is none to show them."""
        if seated:
            return viewer
        if self.players_only or not to_act:
            return None
        return to_act[0]


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
