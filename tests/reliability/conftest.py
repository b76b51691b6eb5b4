"""The reliability suite: the real bot against fakediscord under faults, forgeries and concurrency.

Each test reproduces one defect of issue 12 once; the long randomized kill loop is ``bench/chaos.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from fakediscord import Channel, Message, User
from tests.e2e.conftest import Harness, harness, migrated_sqlite, running

__all__ = ["forged", "harness", "lobby", "migrated_sqlite", "running"]


def forged(message: Message, custom_id: str, *, channel: Channel | None = None) -> Message:
    """A doctored client's copy of ``message`` carrying one button with ``custom_id`` (optionally elsewhere).

    fakediscord dispatches a click on it like any other: the bot sees the id, the message id and the channel
    Discord would report, so only the bot's own checks stand between the forgery and the game.
    """
    button = {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}
    return dataclasses.replace(
        message, channel=channel or message.channel, components=[{"type": 1, "components": [button]}]
    )


async def lobby(h: Harness, game: str, host: User, **options: Any) -> Message:
    """Open a lobby and wait until its message id is stored (the answer comes just before that write)."""
    message = await h.open_lobby(game, host, **options)
    for _ in range(500):
        record = await h.record()
        if record is not None and record.message_id == message.id:
            return message
        await asyncio.sleep(0.01)
    raise AssertionError("the lobby's message id was never stored")
