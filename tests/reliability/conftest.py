"""The reliability suite: the real bot against fakediscord under faults, forgeries and concurrency.

Each test reproduces one defect of issue 12 once; the long randomized kill loop is ``bench/chaos.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fakediscord import Channel, Message
from tests.e2e.conftest import Harness, harness, running

__all__ = ["forged", "harness", "running", "stored"]


def forged(message: Message, custom_id: str, *, channel: Channel | None = None) -> Message:
    """A doctored client's copy of ``message`` carrying one button with ``custom_id`` (optionally elsewhere).

    fakediscord dispatches a click on it like any other: the bot sees the id, the message id and the channel
    Discord would report, so only the bot's own checks stand between the forgery and the game.
    """
    button = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
    return dataclasses.replace(
        message, channel=channel or message.channel, components=[{"type": 1, "components": [button]}]
    )


async def stored(h: Harness, game_id: int) -> Any:
    """The stored record of a game, read through a fresh repository call."""
    assert h.bot is not None
    record = await h.bot.games.get(game_id)
    assert record is not None
    return record
