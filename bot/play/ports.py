"""What the game service needs from the outside world, as protocols: a request to answer and channels to write to.

The Discord implementations live in ``bot/play/discord_io.py``; anything else that acts at a table (a computer
player, a test) implements the same two protocols, so the service never needs a Discord interaction.
"""

from __future__ import annotations

import enum
from typing import Any, Protocol

from bot.play.transitions import Actor, Origin
from bot.storage import GameRecord
from bot.ui.render import Rendered


class Edit(enum.Enum):
    """How an edit of a game's message went (or how a post failed): the caller decides what follows (try again,
    post the board anew, end the game)."""

    #: The message shows it.
    DONE = "done"
    #: Worth trying again: a server error, a rate limit, no answer.
    RETRY = "retry"
    #: The message was deleted (404 Unknown Message).
    GONE = "gone"
    #: The channel was deleted (404 Unknown Channel): the game cannot go on.
    NO_CHANNEL = "no_channel"
    #: Discord will never take this edit (400: an invalid payload; 403: not allowed): logged once, not retried.
    REFUSED = "refused"


class ResponseFailed(Exception):
    """Answering the request failed (the interaction expired, Discord errored): the asker saw no answer.

    Whatever was saved stays saved; the service shows it through :class:`Channels` instead.
    """


class PrivateMessage(Protocol):
    """A message only one player sees, editable later through the interaction that showed it (15 minutes)."""

    #: Which message it is (None when Discord did not say): a click's answer edits the message clicked, a
    #: private reply is a new one, and only the id tells a player's newer view from the one they already had.
    id: int | None

    async def edit(self, rendered: Rendered) -> None:
        """Replace what the message shows; raises on any failure (the caller forgets the message)."""

    async def delete(self) -> None:
        """Remove the message (a newer one took its place); raises on any failure."""


class Request(Protocol):
    """One request to the service (a slash command or a click): who asks, from where, and how to answer them."""

    actor: Actor
    #: The asker's language, for private answers.
    locale: str
    #: The server's preferred language (None outside a server or when Discord does not say).
    guild_locale: str | None
    guild_id: int | None
    channel_id: int | None
    #: The message a click came from (None for commands), and whether only the clicker can see it.
    message_id: int | None
    message_is_private: bool
    #: For a click on a private message: the player id of the person it was shown to.
    message_owner: str | None
    #: Whether the clicked message was posted by the bot (only the bot's own messages can be a game's boards).
    message_by_bot: bool
    #: The games whose controls the clicked message really carries (whatever game the click's id names).
    message_games: frozenset[int]

    def expired(self) -> bool:
        """The asker can no longer be answered (Discord's 3 s have passed): the request is dropped unhandled."""

    # Every method below raises :class:`ResponseFailed` when the answer could not be delivered.

    async def refuse(self, key: str, **params: Any) -> None:
        """Tell the asker, privately, why nothing happened."""

    async def confirm(self, key: str) -> None:
        """Tell the asker, privately, that their command worked."""

    async def send(self, rendered: Rendered) -> int:
        """Answer with a new public message; returns its id."""

    async def show_private(self, rendered: Rendered) -> None:
        """Answer with a message only the asker sees."""

    async def update(self, rendered: Rendered) -> None:
        """Answer a click by replacing the message it came from."""

    async def acknowledge(self) -> None:
        """Answer a click without changing the message it came from."""

    async def defer_private(self) -> None:
        """Acknowledge now with a private "thinking…" answer, for work that may take longer than Discord's 3 s."""

    async def edit_private(self, rendered: Rendered) -> None:
        """Replace the private answer of :meth:`defer_private` (again and again: "preparing", then the result)."""

    def private_message(self) -> PrivateMessage:
        """The message only the asker sees that this request's answer showed (a private reply, or the private
        message a click updated), to edit it later while the interaction's token lives."""


class Channels(Protocol):
    """Writing to a game's channel outside of any request (after a deadline, or besides the answer)."""

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        """Show ``rendered`` on the game's live board (or on its message ``message_id``), logging any failure; how
        it went."""

    async def send(self, record: GameRecord, rendered: Rendered) -> int | Edit:
        """Post ``rendered`` as a new message in the game's channel (its mentions ping); its id, else how the post
        failed (``RETRY``, ``REFUSED``, ``NO_CHANNEL``), logged."""

    async def delete(self, record: GameRecord, message_id: int) -> Edit:
        """Delete the game's message ``message_id`` (a board this process posted but could not store as the live
        one); how it went: ``DONE`` also when it was gone already, else as an edit fails (``RETRY``, ``REFUSED``,
        ``NO_CHANNEL``), logged."""

    async def below(self, record: GameRecord) -> int | None:
        """How many messages (at most ``board.LOOK_BELOW``) were posted below the live board; None if unknown."""


def origin(request: Request) -> Origin:
    """Where a request came from, for :func:`bot.play.transitions.check_origin`."""
    return Origin(
        request.guild_id,
        request.channel_id,
        request.message_id,
        request.message_is_private,
        request.message_owner,
        request.message_by_bot,
        request.message_games,
    )
