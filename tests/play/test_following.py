"""The followers of private views: which edits they send, in which order, and what they forget."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.play.following import Followers
from bot.play.ports import ResponseFailed
from bot.play.transitions import Game
from bot.storage import GameRecord
from bot.ui.render import Rendered

GAME = 7


def game(version: int, status: str = "running") -> Game:
    record = GameRecord(GAME, "knister", "standard", 1, 2, "10", status, version, 0.0, 0.0)  # type: ignore[arg-type]
    return Game(record, state=None)


def render(game: Game, view: str, player: str, locale: str) -> Rendered:
    """A view that shows the version (halved, so two versions in a row may look the same)."""
    return Rendered(content=f"{view} of {player} in {locale}: {game.record.version // 2}")


class Message:
    """A private message whose edits the test sees, and can hold back or refuse."""

    def __init__(self, fail: bool = False, id: int | None = None) -> None:
        self.id = id
        self.shown: list[str | None] = []
        self.fail = fail
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()
        self.deleted = False
        self.gone = asyncio.Event()

    async def edit(self, rendered: Rendered) -> None:
        self.started.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise ResponseFailed("401 50027: Invalid Webhook Token")
        if self.deleted:
            raise ResponseFailed("404 10008: Unknown Message")
        self.shown.append(rendered.content)

    async def delete(self) -> None:
        if self.fail:
            raise ResponseFailed("401 50027: Invalid Webhook Token")
        self.deleted = True
        self.gone.set()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def settled(followers: Followers) -> None:
    """Wait until every edit task of ``followers`` is done."""
    while True:
        tasks = [f.task for key in [(GAME, "a"), (GAME, "b")] if (f := followers.following(*key)) and f.task]
        pending = [task for task in tasks if not task.done()]
        if not pending:
            return
        await asyncio.gather(*pending)


def follow(followers: Followers, version: int, message: Message, player: str = "a") -> None:
    shown = game(version)
    followers.follow(shown, player, "grid", "en-US", message, render(shown, "grid", player, "en-US"))


async def test_a_change_edits_the_view_after_flush_only() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    followers.changed(game(4))
    await asyncio.sleep(0)
    assert message.shown == []  # nothing before the flush (the click is answered first)
    followers.flush()
    await settled(followers)
    assert message.shown == ["grid of a in en-US: 2"]


async def test_an_edit_that_changes_nothing_is_not_sent() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    followers.changed(game(3))  # renders the same as version 2
    followers.flush()
    await settled(followers)
    assert message.shown == []
    followers.changed(game(4))
    followers.flush()
    await settled(followers)
    assert message.shown == ["grid of a in en-US: 2"]


async def test_an_expired_token_is_forgotten_without_an_edit() -> None:
    clock = Clock()
    followers, message = Followers(render, clock, lifetime=840.0), Message()
    follow(followers, 2, message)
    clock.now += 840.0
    followers.changed(game(4))
    followers.flush()
    await settled(followers)
    assert message.shown == []
    assert followers.following(GAME, "a") is None


async def test_a_refused_edit_is_logged_once_and_forgotten(caplog: pytest.LogCaptureFixture) -> None:
    followers, message = Followers(render, Clock()), Message(fail=True)
    follow(followers, 2, message)
    with caplog.at_level(logging.WARNING, "bot.play.following"):
        followers.changed(game(4))
        followers.flush()
        await settled(followers)
        followers.changed(game(6))
        followers.flush()
        await settled(followers)
    assert followers.following(GAME, "a") is None
    assert len(caplog.records) == 1
    assert "could not update the private grid of a" in caplog.records[0].getMessage()


async def test_a_slow_edit_never_overwrites_a_newer_answer() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    message.gate = asyncio.Event()
    followers.changed(game(4))
    followers.flush()
    await message.started.wait()  # the edit of version 4 is in flight ...
    newer = Message()
    follow(followers, 6, newer)  # ... when a click on the grid answers with version 6
    message.gate.set()
    await settled(followers)
    assert message.shown == ["grid of a in en-US: 2"]
    assert newer.shown == ["grid of a in en-US: 3"]  # shown again through the newer token, last


async def test_a_newer_message_retires_the_older_one_even_while_it_is_being_edited() -> None:
    """Place pressed again while the roll's edit of the open grid is still on its way: that edit must not leave
    the older grid showing clickable cells; it is deleted, and the newer grid ends on the newest version."""
    followers, older = Followers(render, Clock()), Message(id=1)
    follow(followers, 2, older)
    older.gate = asyncio.Event()
    followers.changed(game(4))
    followers.flush()
    await older.started.wait()
    newer = Message(id=2)
    follow(followers, 4, newer)
    await older.gone.wait()  # deleted while its edit is held back: that edit lands on nothing, and moves on
    older.gate.set()
    await settled(followers)
    assert older.deleted and older.shown == []
    assert not newer.deleted and newer.shown == ["grid of a in en-US: 2"]
    followers.changed(game(6))
    followers.flush()
    await settled(followers)
    assert newer.shown == ["grid of a in en-US: 2", "grid of a in en-US: 3"]  # the newer grid follows


async def test_a_click_on_the_followed_message_keeps_it() -> None:
    followers, message = Followers(render, Clock()), Message(id=1)
    follow(followers, 2, message)
    follow(followers, 4, Message(id=1))  # a cell click updated the same message through a newer token
    assert not [task for task in asyncio.all_tasks() if task.get_name().startswith("dicebot-retire-")]
    await settled(followers)
    assert not message.deleted


async def test_changes_edit_in_order_and_end_on_the_newest() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    message.gate = asyncio.Event()
    followers.changed(game(4))
    followers.flush()
    await message.started.wait()
    followers.changed(game(6))
    followers.flush()
    followers.changed(game(8))
    followers.flush()
    message.gate.set()
    await settled(followers)
    assert message.shown == ["grid of a in en-US: 2", "grid of a in en-US: 4"]


async def test_the_end_of_a_game_is_shown_then_forgotten() -> None:
    followers, a, b = Followers(render, Clock()), Message(), Message()
    follow(followers, 2, a)
    follow(followers, 2, b, player="b")
    followers.changed(game(4, status="finished"))
    followers.flush()
    assert len(followers) == 0
    tasks = [task for task in asyncio.all_tasks() if task.get_name().startswith("dicebot-follow-")]
    await asyncio.gather(*tasks)
    assert a.shown == ["grid of a in en-US: 2"]
    assert b.shown == ["grid of b in en-US: 2"]


async def test_close_cancels_an_edit_in_flight() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    message.gate = asyncio.Event()
    followers.changed(game(4))
    followers.flush()
    await message.started.wait()
    await followers.close()
    assert message.shown == []
    assert len(followers) == 0


async def test_other_games_are_left_alone() -> None:
    followers, message = Followers(render, Clock()), Message()
    follow(followers, 2, message)
    other = game(9)
    followers.changed(Game(GameRecord(8, "knister", "standard", 1, 2, "10", "running", 9, 0.0, 0.0), other.state))
    followers.flush()
    await settled(followers)
    assert message.shown == []
