"""A click that reaches the game service after Discord's deadline is dropped: no work, nothing saved."""

from __future__ import annotations

import pytest

from bot.play import discord_io
from tests.e2e.conftest import Harness


class FirstIsLate:
    """Says the first click it is asked about waited too long, and none after it."""

    def __init__(self) -> None:
        self.verdicts = [True]

    def too_late(self, snowflake: int) -> bool:
        return self.verdicts.pop() if self.verdicts else False


async def test_a_click_past_discords_deadline_is_dropped_before_any_work(
    running: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    before = await h.record()
    monkeypatch.setattr(discord_io, "LATENESS", FirstIsLate())
    dropped = await h.server.click_button(h.alice, message, label="Roll")
    h.rng.script(6, 6, 6, 6, 6)
    answered = await h.server.click_button(h.alice, h.snapshot(message), label="Roll")
    await answered.response()  # handled after the dropped one: same game, one lock, in order
    assert not dropped.acknowledged and not dropped.failed
    after = await h.record()
    assert before is not None and after is not None and after.version == before.version + 1
    state = await h.state()
    assert state.rolls == 1 and state.dice == [6, 6, 6, 6, 6]
