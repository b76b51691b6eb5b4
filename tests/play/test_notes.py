"""A player's latest private message of a kind (here hints): each press shows a new one and deletes the player's
older one of that kind in the channel."""

from __future__ import annotations

import asyncio

from bot.play.notes import PrivateNotes
from tests.play.test_following import Clock, Message

CHANNEL = 7


async def test_a_new_hint_deletes_the_older_one_of_the_same_player_and_game() -> None:
    kept = PrivateNotes("hint", Clock())
    first, other_player, other_game = Message(), Message(), Message()
    kept.shown(CHANNEL, "a", first)
    kept.shown(CHANNEL, "b", other_player)
    kept.shown(CHANNEL + 1, "a", other_game)
    second = Message()
    kept.shown(CHANNEL, "a", second)
    await asyncio.wait_for(first.gone.wait(), 1)  # one hint message per player and game
    assert not second.deleted and not other_player.deleted and not other_game.deleted
    await kept.close()


async def test_hints_past_their_token_are_dropped_when_another_is_shown() -> None:
    clock = Clock()
    kept = PrivateNotes("hint", clock, lifetime=900.0)
    kept.shown(CHANNEL, "a", Message())
    kept.shown(CHANNEL + 1, "b", Message())
    assert len(kept) == 2
    clock.now += 900.0
    kept.shown(CHANNEL + 2, "c", Message())
    assert len(kept) == 1
    await kept.close()


async def test_a_hint_whose_token_died_is_not_deleted() -> None:
    clock = Clock()
    kept = PrivateNotes("hint", clock, lifetime=900.0)
    old = Message()
    kept.shown(CHANNEL, "a", old)
    clock.now += 900.0  # Discord's 15 minutes: a delete would only be refused
    second = Message()
    kept.shown(CHANNEL, "a", second)
    kept.shown(CHANNEL, "a", Message())
    await asyncio.wait_for(second.gone.wait(), 1)  # deleted in the order shown: the first would be gone by now
    assert not old.deleted
    await kept.close()
