"""The live board's invariant, checked after every action of an end-to-end game.

At most one message of the channel carries live controls (a button or select with a custom id; link buttons do
not count), it is the game's stored board, and it is among the channel's last three messages.
"""

from __future__ import annotations

from fakediscord import Message
from fakediscord.components import walk
from tests.e2e.conftest import Harness

#: The board must be among this many of the channel's latest messages after every action.
LAST = 3


def has_controls(message: Message) -> bool:
    """Whether a message carries anything a click would reach the bot through."""
    return any(component.get("custom_id") for component in walk(message.components))


def controlled(h: Harness) -> list[Message]:
    """The channel's public messages with live controls, oldest first."""
    return [message for message in h.server.channel_messages(h.channel) if has_controls(message)]


async def settle(h: Harness) -> None:
    """Wait until the bot has finished every request in progress (the board's move happens after the answer)."""
    assert h.bot is not None
    await h.bot.service.drain(10)


async def live_board(h: Harness) -> Message:
    """Assert the invariant once the bot settled and return the live board."""
    await settle(h)
    live = controlled(h)
    assert len(live) == 1, f"{len(live)} messages carry controls: {[m.id for m in live]}"
    board = live[0]
    latest = h.server.channel_messages(h.channel)[-LAST:]
    assert board in latest, f"the board {board.id} is not among the last {LAST} messages"
    record = await h.record()
    assert record is not None and record.message_id == board.id
    assert record.retired_message_id is None
    return board


async def no_controls_left(h: Harness) -> None:
    """Assert that no message of the channel carries a control any more (a game ended, abandoned, expired)."""
    await settle(h)
    assert controlled(h) == [], [m.text[:60] for m in controlled(h)]
