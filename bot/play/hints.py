"""Each player's hint of a game is one private message: later presses of Hint edit it instead of adding one.

On a phone every private message stays under the board and pushes its controls up; a review and two hints put
Roll and Score a screen away. So the service keeps, per game and player, the hint message the last press showed
and the token that can edit it (only the interaction that showed an ephemeral message can, for 15 minutes:
``following.py``). A press edits that message while the token is trusted and the board it was shown under is
still the live board (a board that moved down the channel left the hint above it, out of sight); otherwise it
shows a new message and the older one is deleted, if its token still allows. An edit that fails is no loss:
the press shows a new message instead.

In memory only, like the following views: the token dies within 15 minutes anyway, and after a restart the next
press shows a new message. Unlike them a hint follows nothing: it changes only when its player presses Hint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.play.following import EDIT_TIMEOUT, TOKEN_LIFETIME, TOKEN_MARGIN
from bot.play.ports import PrivateMessage
from bot.ui.render import Rendered

log = logging.getLogger(__name__)

#: Seconds an edit of the previous hint may take: it runs before the press is answered, inside Discord's 3 s,
#: and a press whose edit took longer still shows its hint as a new message.
EDIT_BOUND = 1.5


@dataclass(frozen=True)
class Shown:
    """The hint message a press showed: how to edit it, under which board, and until when its token is trusted."""

    message: PrivateMessage
    board: int | None
    expires_at: float


def editable(shown: Shown | None, board: int | None, now: float) -> bool:
    """Whether a press may edit ``shown`` instead of showing a new hint: its token is trusted and the game's live
    board is still ``board``, the one the hint was shown under."""
    return shown is not None and now < shown.expires_at and board is not None and shown.board == board


class HintMessages:
    """The latest hint message of every player of every game, while its token lives."""

    def __init__(
        self,
        clock: Callable[[], float],
        lifetime: float = TOKEN_LIFETIME - TOKEN_MARGIN,
        bound: float = EDIT_BOUND,
        timeout: float = EDIT_TIMEOUT,
    ) -> None:
        self._clock = clock
        self._bound = bound
        self._lifetime = lifetime
        self._timeout = timeout
        self._shown: dict[tuple[int, str], Shown] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._shown)

    async def edit(self, game_id: int, player: str, board: int | None, rendered: Rendered) -> bool:
        """Show ``rendered`` on the player's hint message for a press on ``board``; False when there is none to
        edit (see :func:`editable`) or the edit failed or took too long: the press then shows a new message."""
        shown = self._shown.get((game_id, player))
        if shown is None or not editable(shown, board, self._clock()):
            return False
        try:
            await asyncio.wait_for(shown.message.edit(rendered), self._bound)
        except Exception as error:  # any failure: the hint is shown anew, never lost
            log.info("game %s: could not edit the hint of %s (%s: %s)", game_id, player, type(error).__name__, error)
            return False
        return True

    def shown(self, game_id: int, player: str, board: int | None, message: PrivateMessage) -> None:
        """A press showed ``message`` as a new hint under ``board``: later presses edit it, the older one goes.

        Other players' hints past their token's time are dropped here (not deleted: their tokens are dead or
        about to be), so the map holds at most the hints of the last minutes.
        """
        now = self._clock()
        older = self._shown.pop((game_id, player), None)
        for key in [key for key, shown in self._shown.items() if now >= shown.expires_at]:
            del self._shown[key]
        self._shown[(game_id, player)] = Shown(message, board, now + self._lifetime)
        if older is not None and now < older.expires_at + TOKEN_MARGIN:  # past the trusted time, still Discord's
            task = asyncio.create_task(self._delete(game_id, player, older.message), name=f"dicebot-hint-{game_id}")
            self._retiring.add(task)
            task.add_done_callback(self._retiring.discard)

    async def _delete(self, game_id: int, player: str, message: PrivateMessage) -> None:
        try:
            await asyncio.wait_for(message.delete(), self._timeout)
        except Exception as error:  # dismissed already, or its token died: it stays, no worse than before
            log.info(
                "game %s: could not delete the older hint of %s (%s: %s)", game_id, player, type(error).__name__, error
            )

    async def close(self) -> None:
        """Cancel the deletions still running (at shutdown)."""
        tasks = list(self._retiring)
        self._shown.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
