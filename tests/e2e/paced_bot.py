"""``python -m bot``, with ``COMPUTER_DELAY`` allowed below the 1 s an admin may set: ``python -m tests.e2e.paced_bot``.

The shard test (``tests/e2e/test_shards.py``) waits for its computers' moves in real time, in bot processes no
test clock reaches; at the admins' fastest pace those waits were most of its run. Only the setting's lower bound
differs here (the admins' bound keeps Discord's edit rate, which fakediscord does not limit): the entry point,
the settings' reading, the signals, the health file and the shutdown are the product's own.
"""

from __future__ import annotations

import sys

from pydantic import Field

import bot.settings
from bot.__main__ import main


class PacedSettings(bot.settings.Settings):
    """The bot's settings with a computer delay from 0 s (the deadline is due at once)."""

    computer_delay: float = Field(default=1.2, ge=0.0, le=30.0)


if __name__ == "__main__":
    # ``python -m bot``'s runner reads the settings class from its module when it starts.
    bot.settings.Settings = PacedSettings  # type: ignore[misc]
    sys.exit(main())
