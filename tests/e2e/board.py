"""The live board's invariant, checked after every action of an end-to-end game.

Exactly one message of the channel carries the current game's live controls (a button or select with a custom id
of the game; link buttons do not count), it is the game's stored board, and it is among the channel's last three
messages. An earlier game's final scores may keep their Review button: a control that still works, of another game.
"""

from __future__ import annotations

from fakediscord import Message
from fakediscord.components import walk
from tests.e2e.conftest import Harness

#: The board must be among this many of the channel's latest messages after every action.
LAST = 3
#: The private answer to a press on the live board that the game had moved past (a double click, presses crossing,
#: an edit the client had not shown): not "outdated", which sent the player to the very message they pressed (QA).
CHANGED = "This message changed before your press arrived — nothing was done."
#: The answer to such a press when the change was the player's own previous press (the second of a double click):
#: "nothing was done" read as the move failing (QA).
ALREADY = "Already done — your previous press went through."


def has_controls(message: Message, game_id: int | None = None) -> bool:
    """Whether a message carries anything a click would reach the bot through (for ``game_id``: of that game)."""
    prefix = f"g:{game_id}:" if game_id is not None else ""
    return any(
        str(component.get("custom_id") or "").startswith(prefix or "g:") for component in walk(message.components)
    )


def controlled(h: Harness, game_id: int | None = None) -> list[Message]:
    """The channel's public messages with live controls (of ``game_id``, else of any game), oldest first."""
    return [message for message in h.server.channel_messages(h.channel) if has_controls(message, game_id)]


async def settle(h: Harness) -> None:
    """Wait until the bot has finished every request in progress (the board's move happens after the answer)."""
    assert h.bot is not None
    await h.bot.service.drain(10)


async def live_board(h: Harness) -> Message:
    """Assert the invariant once the bot settled and return the live board."""
    await settle(h)
    record = await h.record()
    assert record is not None
    live = controlled(h, record.id)
    assert len(live) == 1, f"{len(live)} messages carry controls: {[m.id for m in live]}"
    board = live[0]
    latest = h.server.channel_messages(h.channel)[-LAST:]
    assert board in latest, f"the board {board.id} is not among the last {LAST} messages"
    assert record.message_id == board.id
    assert record.retired_message_id is None
    return board


async def no_controls_left(h: Harness) -> None:
    """Assert that no message of the channel carries a control any more (a game ended, abandoned, expired)."""
    await settle(h)
    assert controlled(h) == [], [m.text[:60] for m in controlled(h)]
