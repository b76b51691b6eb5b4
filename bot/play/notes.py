"""A player's latest private message of one kind per channel: a new one shows, the older one of that kind goes.

On a phone every private message stays under the board and pushes its controls up: a review and two hints put Roll
and Score a screen away, seven "Not your turn" refusals pushed the whole board off screen (QA). So the service keeps,
per kind, channel and player, the message the last press showed and the token that can delete it (only the
interaction that showed an ephemeral message can, for 15 minutes: ``following.py``). The next press of that kind
shows its message as a new one, right under the board where the player looks, and deletes the older one in the
background. Editing the older one in place was tried and dropped: a message the player dismissed would take the
edit unseen (the bot cannot tell), and the press would seem to do nothing.

Each kind has its own :class:`PrivateNotes`, so kinds never replace each other: a refusal does not take the hint
away that the player is reading, nor a hint the refusal.

- **Hints** (the Hint button). A hint also goes once it is out of date: after its player's next move other than
  picking dice (a hint to keep ⚄ ⚄ ⚄ stays while the player taps them), and when the game ends. The one message
  edited is a press's own "preparing" answer, seconds after it was shown: it becomes that press's hint once the
  strategy tables are in memory, so the player need not guess when to press again.
- **Refusals** of presses on a game's board or on a player's private one, a Knister grid ("Not your turn: Carol is
  playing.", "You already placed this round's number."): only the latest one stays, and it goes once a press of
  its player is accepted (their turn came: "Not your turn" would now be wrong). The move path pays one dict
  lookup (``holds``) for it, nothing more when the player has no refusal on screen. A refusal is the press's own
  reply, a new private message also when the press was on a private one, so its token deletes the refusal, never
  the grid pressed.

Per channel rather than per game: a channel holds one game at a time, and a rematch's first hint should take the
finished game's last one away too.

In memory only, like the following views: the token dies within 15 minutes anyway, and after a restart an older
message simply stays. A note follows no game change: it goes (``retire``), it is never redrawn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.play.following import EDIT_TIMEOUT, TOKEN_LIFETIME
from bot.play.ports import PrivateMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shown:
    """The message a press showed, and until when Discord still lets its token delete it."""

    message: PrivateMessage
    expires_at: float


class PrivateNotes:
    """The latest private message of one ``kind`` (a hint, a refusal) of every player in every channel, while its
    token lives."""

    def __init__(
        self,
        kind: str,
        clock: Callable[[], float],
        lifetime: float = TOKEN_LIFETIME,
        timeout: float = EDIT_TIMEOUT,
    ) -> None:
        self.kind = kind
        self._clock = clock
        self._lifetime = lifetime
        self._timeout = timeout
        self._shown: dict[tuple[int, str], Shown] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._shown)

    def shown(self, channel_id: int, player: str, message: PrivateMessage) -> None:
        """A press showed ``message`` to the player: their older one of this kind goes, if its token still allows.

        Messages whose tokens died are dropped here (not deleted: Discord would refuse), so the map holds at most
        those of the last 15 minutes.
        """
        now = self._clock()
        older = self._shown.pop((channel_id, player), None)
        for key in [key for key, shown in self._shown.items() if now >= shown.expires_at]:
            del self._shown[key]
        self._shown[(channel_id, player)] = Shown(message, now + self._lifetime)
        if older is not None and now < older.expires_at:
            self._delete_later(channel_id, player, older.message)

    def _delete_later(self, channel_id: int, player: str, message: PrivateMessage) -> None:
        task = asyncio.create_task(self._delete(channel_id, player, message), name=f"dicebot-{self.kind}-{channel_id}")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _delete(self, channel_id: int, player: str, message: PrivateMessage) -> None:
        try:
            await asyncio.wait_for(message.delete(), self._timeout)
        except Exception as error:  # dismissed already, or its token died: it stays, no worse than before
            log.info(
                "channel %s: could not delete the older %s of %s (%s: %s)",
                channel_id,
                self.kind,
                player,
                type(error).__name__,
                error,
            )

    def retire(self, channel_id: int, player: str) -> None:
        """The player's message of this kind in this channel is out of date (a hint whose player moved on, or whose
        game ended; a refusal whose player's next press was accepted): it goes."""
        shown = self._shown.pop((channel_id, player), None)
        if shown is not None and self._clock() < shown.expires_at:
            self._delete_later(channel_id, player, shown.message)

    def holds(self, channel_id: int, player: str) -> bool:
        """Whether a message of this kind of this player in this channel may still be on screen."""
        return (channel_id, player) in self._shown

    def shows(self, channel_id: int, player: str, message: PrivateMessage) -> bool:
        """Whether ``message`` is still the player's latest of this kind here (not replaced, nor out of date)."""
        shown = self._shown.get((channel_id, player))
        return shown is not None and shown.message is message

    def waiting(self, task: asyncio.Task[None]) -> None:
        """``task`` answers a press told "preparing" once the strategy tables are in memory; kept until it is done,
        and cancelled at shutdown (the tables may take seconds to load)."""
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def close(self) -> None:
        """Cancel the deletions and the presses waiting for their tables still running (at shutdown)."""
        tasks = list(self._retiring)
        self._shown.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
