"""A process's kept copy of a game behind the database: another process saved the game since (an overlapping
restart, a shard started twice). What the request shows (a newer stamp, a deadline the database says is due) makes
the service read the game again instead of trusting its copy: the click is played, the deadline fired once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.play.transitions import Actor
from bot.storage import Database, GamesRepository
from bot.ui.render import Click, Rendered
from cogs.kniffel import SPEC as KNIFFEL
from tests.play.test_sharded_race import GUILD_ON_0, NOW, Recorder, running_game, service


class Clicked:
    """A click on the game's live board (message 99, carrying the game's controls), answered in a list."""

    def __init__(self, player: str, game_id: int) -> None:
        self.actor = Actor(player, f"player {player}")
        self.locale = "en-US"
        self.guild_locale: str | None = "en-US"
        self.guild_id: int | None = GUILD_ON_0
        self.channel_id: int | None = 1
        self.message_id: int | None = 99
        self.message_is_private = False
        self.message_owner: str | None = None
        self.message_by_bot = True
        self.message_games = frozenset({game_id})
        self.answers: list[str] = []

    def expired(self) -> bool:
        return False

    async def refuse(self, key: str, **params: Any) -> None:
        self.answers.append(key)

    async def confirm(self, key: str) -> None:
        self.answers.append(key)

    async def update(self, rendered: Rendered) -> None:
        self.answers.append("updated")

    async def acknowledge(self) -> None:
        self.answers.append("acknowledged")

    async def send(self, rendered: Rendered) -> int:
        raise AssertionError("a click is never answered with a new message")

    async def show_private(self, rendered: Rendered) -> None:
        self.answers.append("private")

    async def defer_private(self) -> None:
        self.answers.append("deferred")

    async def edit_private(self, rendered: Rendered) -> None:
        self.answers.append("private")

    def private_message(self) -> Any:
        raise AssertionError("no private message here")


async def test_a_click_on_a_newer_game_than_the_kept_copy_is_played_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    first, second = await Database.open(path), await Database.open(path)
    try:
        record = await running_game(GamesRepository(first), GUILD_ON_0, 1)
        player = KNIFFEL.engine.to_act(KNIFFEL.load(record.state))[0]
        a, b = service(GamesRepository(first), Recorder()), service(GamesRepository(second), Recorder())
        rolled = Clicked(player, record.id)
        await a.on_click(rolled, Click(record.id, "roll", "", record.version))  # A keeps the game it saved
        assert rolled.answers == ["updated"]
        held = Clicked(player, record.id)
        stamp = KNIFFEL.stamp_of(Click(record.id, "hold", "0.1", 0), record.version + 1, a.cache.get(record.id).state)
        await b.on_click(held, Click(record.id, "hold", "0.1", stamp))  # B saves the next move
        assert held.answers == ["updated"]

        again = Clicked(player, record.id)
        await a.on_click(again, Click(record.id, "roll", "", record.version + 2))
        stored = await GamesRepository(first).get(record.id)
    finally:
        await first.close()
        await second.close()
    assert again.answers == ["updated"], "the click was judged by A's stale copy"
    assert stored is not None and stored.version == record.version + 3
    state = KNIFFEL.load(stored.state)
    assert state.rolls == 2 and state.held[0], "A rolled on from B's move, the first die held"


async def test_a_deadline_the_kept_copy_does_not_know_is_played_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    first, second = await Database.open(path), await Database.open(path)
    try:
        theirs = GamesRepository(second)
        record = await running_game(theirs, GUILD_ON_0, 1)
        later = await theirs.save(replace(record, deadline_at=NOW + 300), before=record)
        a = service(GamesRepository(first), Recorder())
        await a.on_deadline(record.id)  # nothing due yet: A now keeps the game with the later deadline
        assert a.cache.get(record.id) is not None
        # The other process moved the deadline earlier (a computer's paced step, say): it is due now.
        await theirs.save(replace(later, deadline_at=NOW - 1), before=later)
        await a.on_deadline(record.id)
        stored = await theirs.get(record.id)
    finally:
        await first.close()
        await second.close()
    assert stored is not None and stored.version == later.version + 2, "the due deadline was played"
    assert sum(seat.timeouts for seat in stored.seats) == 1
    assert stored.deadline_at is not None and stored.deadline_at > NOW, "nothing is left due to fire again"
