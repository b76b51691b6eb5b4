"""The rule for a player's hint message: when a press edits the last one, and when it shows a new one."""

from __future__ import annotations

import asyncio

from bot.play import hints
from bot.play.hints import HintMessages, Shown
from bot.ui.render import Rendered
from tests.play.test_following import Clock, Message

GAME = 7
BOARD = 70


def test_a_hint_is_editable_while_its_token_lives_under_the_same_board() -> None:
    shown = Shown(Message(), BOARD, expires_at=1840.0)
    assert hints.editable(shown, BOARD, now=1839.0)
    assert not hints.editable(shown, BOARD, now=1840.0)  # the token is no longer trusted
    assert not hints.editable(shown, BOARD + 1, now=1000.0)  # the board moved down: the hint is above it
    assert not hints.editable(shown, None, now=1000.0)
    assert not hints.editable(None, BOARD, now=1000.0)


async def test_presses_edit_the_hint_a_press_showed_and_a_new_one_retires_it() -> None:
    clock = Clock()
    kept = HintMessages(clock, lifetime=840.0)
    first = Message()
    assert not await kept.edit(GAME, "a", BOARD, Rendered(content="roll"))  # nothing shown yet
    kept.shown(GAME, "a", BOARD, first)
    assert await kept.edit(GAME, "a", BOARD, Rendered(content="keep"))
    assert first.shown == ["keep"]
    assert not await kept.edit(GAME, "b", BOARD, Rendered(content="keep"))  # another player's hint is their own
    clock.now += 840.0
    assert not await kept.edit(GAME, "a", BOARD, Rendered(content="score"))
    second = Message()
    kept.shown(GAME, "a", BOARD, second)
    await asyncio.wait_for(first.gone.wait(), 1)  # the older one is deleted: one hint message per player
    assert await kept.edit(GAME, "a", BOARD, Rendered(content="score"))
    assert second.shown == ["score"] and first.shown == ["keep"]
    await kept.close()


async def test_a_failed_edit_leaves_the_press_to_show_a_new_hint() -> None:
    kept = HintMessages(Clock())
    dismissed = Message(fail=True)
    kept.shown(GAME, "a", BOARD, dismissed)
    assert not await kept.edit(GAME, "a", BOARD, Rendered(content="keep"))
    slow = Message()
    slow.gate = asyncio.Event()  # never opened: Discord does not answer
    kept = HintMessages(Clock(), bound=0.01)
    kept.shown(GAME, "a", BOARD, slow)
    assert not await kept.edit(GAME, "a", BOARD, Rendered(content="keep"))
    await kept.close()


async def test_hints_past_their_token_are_dropped_when_another_is_shown() -> None:
    clock = Clock()
    kept = HintMessages(clock, lifetime=840.0)
    kept.shown(GAME, "a", BOARD, Message())
    kept.shown(GAME + 1, "b", BOARD + 1, Message())
    assert len(kept) == 2
    clock.now += 840.0
    kept.shown(GAME + 2, "c", BOARD + 2, Message())
    assert len(kept) == 1
    await kept.close()


async def test_a_hint_whose_token_died_is_not_deleted() -> None:
    clock = Clock()
    kept = HintMessages(clock, lifetime=840.0)
    old = Message()
    kept.shown(GAME, "a", BOARD, old)
    clock.now += 900.0  # Discord's 15 minutes: a delete would only be refused
    second = Message()
    kept.shown(GAME, "a", BOARD, second)
    kept.shown(GAME, "a", BOARD, Message())
    await asyncio.wait_for(second.gone.wait(), 1)  # deleted in the order shown: the first would be gone by now
    assert not old.deleted
    await kept.close()
