"""Two services (as two bot processes) on one database race for the same game: it advances exactly once, and a
deleted board is posted anew as one live board.

Sharding gives every game one owner, but during a restart or a misconfiguration two processes can still fire the
same deadline. The optimistic version check is the last line of defence: both load the same version, both decide,
only one save is written; the loser neither shows nor announces anything. A board both hear deleted, or both move
down the channel, is stored anew by a compare-and-set: the loser deletes its own post and adopts the stored board.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.play.ports import Edit
from bot.play.service import GameService
from bot.sharding import ShardScope, shard_of
from bot.storage import Database, GameRecord, GamesRepository, Seat
from bot.ui import board as board_ui
from bot.ui.render import Rendered
from cogs.kniffel import SPEC as KNIFFEL

NOW = 1_800_000_000.0
#: Guild ids on shard 0 and shard 1 of 2 (the shard is taken from the bits above the low 22).
GUILD_ON_0 = 4 << 22
GUILD_ON_1 = 5 << 22


class Recorder:
    """The channels of one process: what it showed on the board (announcements are shown there too)."""

    def __init__(self) -> None:
        self.edits: list[int] = []
        self.shown: list[str] = []

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        self.edits.append(record.version)
        self.shown.append(rendered.content or "")
        return Edit.DONE

    async def send(self, record: GameRecord, rendered: Rendered) -> int | Edit:
        return Edit.RETRY

    async def delete(self, record: GameRecord, message_id: int) -> Edit:
        return Edit.DONE

    async def below(self, record: GameRecord) -> int | None:
        return 0


class LoadsTogether(GamesRepository):
    """A repository whose first ``get`` returns only when every racer has loaded: all decide from the same version
    (a later read, after the race, returns at once)."""

    def __init__(self, db: Database, gate: asyncio.Barrier, shards: ShardScope | None = None) -> None:
        super().__init__(db, shards)
        self._gate: asyncio.Barrier | None = gate

    async def get(self, game_id: int) -> GameRecord | None:
        record = await super().get(game_id)
        gate, self._gate = self._gate, None
        if gate is not None:
            await gate.wait()
        return record


async def running_game(games: GamesRepository, guild_id: int | None, channel_id: int) -> GameRecord:
    """A two-person Kniffel game whose turn timed out a second ago."""
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=guild_id, channel_id=channel_id, host=Seat.user(11, "Alice"),
        locale="en-US", options={}, deadline_at=None, others=(Seat.user(12, "Bob"),),
    )  # fmt: skip
    state = KNIFFEL.engine.new_game(["11", "12"], random.Random(1))
    running = replace(lobby, status="running", state=state.dump(), message_id=99, deadline_at=NOW - 1)
    return await games.save(running, before=lobby)


def service(games: GamesRepository, channels: Recorder, now: float = NOW) -> GameService:
    return GameService(games, {"kniffel": KNIFFEL}, channels, rng=lambda: random.Random(2), clock=lambda: now)


async def test_two_processes_firing_one_deadline_play_the_timeout_once(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    first, second = await Database.open(path), await Database.open(path)
    try:
        record = await running_game(GamesRepository(first), GUILD_ON_0, 1)
        gate = asyncio.Barrier(2)
        a, b = Recorder(), Recorder()
        racers = [service(LoadsTogether(first, gate), a), service(LoadsTogether(second, gate), b)]
        await asyncio.gather(*(racer.on_deadline(record.id) for racer in racers))
        stored = await GamesRepository(first).get(record.id)
    finally:
        await first.close()
        await second.close()
    assert stored is not None
    assert stored.version == record.version + 1, "exactly one of the two saves was written"
    assert sum(seat.timeouts for seat in stored.seats) == 1, "the timed-out turn was played once"
    assert len(a.edits) + len(b.edits) == 1, "only the winner showed (and announced) the timeout"
    assert "ran out of time" in (a.shown + b.shown)[0]


class Boards:
    """The one channel two processes write to: what each message shows last, and which process posted it."""

    def __init__(self) -> None:
        self.shows: dict[int, Rendered] = {}
        self.posted_by: dict[int, str] = {}
        self.deleted: list[int] = []
        #: The version of the game each message shows last.
        self.versions: dict[int, int] = {}

    def with_controls(self) -> list[int]:
        return sorted(message for message, rendered in self.shows.items() if rendered.layout.components())


class Reposter(Recorder):
    """The channels of one process posting boards anew into the shared :class:`Boards`.

    ``below`` is how many messages its history request finds below the board; ``deletes`` how Discord answers a
    delete of a message (``DONE``: it is gone)."""

    def __init__(self, name: str, boards: Boards, first_id: int, *, below: int = 0, deletes: Edit = Edit.DONE) -> None:
        super().__init__()
        self.name, self.boards, self._next_id = name, boards, first_id
        self._below, self._deletes = below, deletes

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        target = message_id if message_id is not None else record.message_id
        assert target is not None
        self.boards.shows[target] = rendered
        self.boards.versions[target] = record.version
        return await super().edit(record, rendered, message_id)

    async def send(self, record: GameRecord, rendered: Rendered) -> int | Edit:
        self._next_id += 1
        self.boards.shows[self._next_id] = rendered
        self.boards.versions[self._next_id] = record.version
        self.boards.posted_by[self._next_id] = self.name
        return self._next_id

    async def delete(self, record: GameRecord, message_id: int) -> Edit:
        if self._deletes is Edit.DONE:
            self.boards.shows.pop(message_id, None)
            self.boards.deleted.append(message_id)
        return self._deletes

    async def below(self, record: GameRecord) -> int | None:
        return self._below


def one_live_board(boards: Boards, stored: GameRecord | None, racers: list[GameService], deletes: Edit) -> None:
    """Both processes posted the board and one stored it: that one is the only message with controls, the other
    process's post is deleted (or, where Discord refused the delete, a record without controls), and the other
    process's next request knows the stored board."""
    assert stored is not None and stored.message_id is not None
    assert sorted(boards.posted_by.values()) == ["a", "b"], "both processes posted the board anew"
    assert boards.with_controls() == [stored.message_id], "one live board: the stored one"
    lost = [message for message in boards.posted_by if message != stored.message_id]
    if deletes is Edit.DONE:
        assert boards.deleted == lost, "the loser's post was deleted, not left as a record"
        assert stored.message_id in boards.shows and not set(lost) & set(boards.shows)
    else:
        assert boards.deleted == [] and [boards.shows[message].content for message in lost] == [
            board_ui.retired("kniffel", "en-US").content
        ], "a post Discord would not delete lost its controls"
    loser = racers[0] if boards.posted_by[stored.message_id] == "b" else racers[1]
    kept = loser.cache.get(stored.id)
    assert kept is None or kept.record.message_id == stored.message_id, "the loser's next click knows the board"


@pytest.mark.parametrize("deletes", [Edit.DONE, Edit.REFUSED], ids=["deleted", "refused"])
async def test_two_processes_hearing_of_one_deleted_board_leave_one_live_board(
    database_url: str, deletes: Edit
) -> None:
    """A shard hand-over: both processes hear a moderator delete the board and both post it anew. The first to
    store its message has the live board; the other deletes its own post and adopts the stored board.

    The loser once turned its post into the retired record ("continues below"), which could stand below the live
    board and mislead; now it is deleted, and only a delete Discord refuses leaves that record."""
    first, second = await Database.open(database_url), await Database.open(database_url)
    try:
        record = await running_game(GamesRepository(first), GUILD_ON_0, 1)
        boards = Boards()
        gate = asyncio.Barrier(2)
        a, b = Reposter("a", boards, 1000, deletes=deletes), Reposter("b", boards, 2000, deletes=deletes)
        racers = [service(LoadsTogether(first, gate), a), service(LoadsTogether(second, gate), b)]
        await asyncio.gather(*(racer.on_messages_deleted([99]) for racer in racers))
        stored = await GamesRepository(first).get(record.id)
    finally:
        await first.close()
        await second.close()
    one_live_board(boards, stored, racers, deletes)
    assert stored is not None and stored.version == record.version


class Handover(GamesRepository):
    """One process's repository during a hand-over, held where the test says: its first read of the game returns
    only once ``read()`` did, and its move of the board goes on only once ``move()`` did (``moving`` tells that the
    move began)."""

    def __init__(
        self,
        db: Database,
        *,
        read: Callable[[], Awaitable[object]] | None = None,
        move: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(db)
        self._read, self._move = read, move
        self.moving = asyncio.Event()

    async def get(self, game_id: int) -> GameRecord | None:
        record = await super().get(game_id)
        read, self._read = self._read, None
        if read is not None:
            await read()
        return record

    async def move_board(self, game_id: int, message_id: int, old: int, shown_version: int) -> bool:
        self.moving.set()
        if self._move is not None:
            await self._move()
        return await super().move_board(game_id, message_id, old, shown_version)


@pytest.mark.parametrize("interleaving", ["together", "one_after_the_other"])
async def test_two_processes_moving_one_board_down_leave_one_live_board(database_url: str, interleaving: str) -> None:
    """A shard hand-over: one process plays a timeout and moves the board down the channel; before it stored the
    new board, the other (whose clock says the next turn timed out too) loaded the game, played that timeout and
    moved the same board. Both stored their new board, the later write won, and the first one's new board kept
    its controls for good: two live boards. Now the move is a compare-and-set on the board it moves, and the
    loser deletes its post and adopts the stored board.

    ``together``: both store at the same moment. ``one_after_the_other``: the first moves the board and strips the
    old one before the second, still holding the game as it loaded it, edits that old board (its controls back)."""
    first, second = await Database.open(database_url), await Database.open(database_url)
    try:
        record = await running_game(GamesRepository(first), GUILD_ON_0, 1)
        boards = Boards()
        done = asyncio.Event()
        if interleaving == "together":
            gate = asyncio.Barrier(2)
            early, late = Handover(first, move=gate.wait), Handover(second, move=gate.wait)
        else:
            loaded = asyncio.Event()

            async def after_the_first_moved() -> None:
                loaded.set()
                await done.wait()

            early, late = Handover(first, move=loaded.wait), Handover(second, read=after_the_first_moved)
        a, b = Reposter("a", boards, 1000, below=1), Reposter("b", boards, 2000, below=1)
        racers = [service(early, a), service(late, b, now=NOW + 86_400)]

        async def first_moves() -> None:
            await racers[0].on_deadline(record.id)
            done.set()

        moving = asyncio.create_task(first_moves())
        await early.moving.wait()
        await asyncio.gather(racers[1].on_deadline(record.id), moving)
        stored = await GamesRepository(first).get(record.id)
        assert stored is not None
        for racer in racers:
            await racer.shown.repair()  # what the background task does soon after
        shown = await GamesRepository(first).get(record.id)
    finally:
        await first.close()
        await second.close()
    assert stored.version == record.version + 2, "each process played one timeout"
    one_live_board(boards, stored, racers, Edit.DONE)
    assert stored.retired_message_id in (None, 99), "the board both moved is the retired one"
    assert "ran out of time" in (boards.shows[stored.message_id].content or "")
    assert shown is not None and boards.versions[stored.message_id] == shown.version, "it shows the last version"


async def test_each_process_fires_only_the_deadlines_of_its_shards(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    db = await Database.open(path)
    try:
        everything = GamesRepository(db)
        on_0 = await running_game(everything, GUILD_ON_0, 1)
        on_1 = await running_game(everything, GUILD_ON_1, 2)
        assert (shard_of(on_0.guild_id, 2), shard_of(on_1.guild_id, 2)) == (0, 1)
        zero, one = GamesRepository(db, ShardScope.of(2, [0])), GamesRepository(db, ShardScope.of(2, [1]))
        assert await zero.due(NOW) == [on_0.id]
        assert await one.due(NOW) == [on_1.id]
        assert sorted(await everything.due(NOW)) == sorted([on_0.id, on_1.id])
        assert await zero.next_deadline() == await one.next_deadline() == NOW - 1
        assert await zero.behind() == [on_0.id] and await one.behind() == [on_1.id]
    finally:
        await db.close()


async def test_a_process_with_no_games_on_its_shards_sleeps(tmp_path: Path) -> None:
    """A deadline on another shard must not wake this process over and over (it could never fire it)."""
    db = await Database.open(tmp_path / "shared.sqlite3")
    try:
        await running_game(GamesRepository(db), GUILD_ON_1, 1)
        zero = GamesRepository(db, ShardScope.of(2, [0]))
        assert await zero.next_deadline() is None
        assert await zero.due(NOW) == []
    finally:
        await db.close()


async def test_direct_message_games_and_huge_guild_ids_land_on_the_right_shard(tmp_path: Path) -> None:
    """Shard 0 owns direct messages; ids near 2**63 shift and divide the same in SQL as in Python."""
    db = await Database.open(tmp_path / "shared.sqlite3")
    big = (1 << 63) - 1
    try:
        everything = GamesRepository(db)
        dm = await running_game(everything, None, 1)
        huge = await running_game(everything, big, 2)
        for count in (1, 2, 3, 7, 16):
            for shard in range(count):
                scope = GamesRepository(db, ShardScope.of(count, [shard]))
                expected = [g.id for g in (dm, huge) if shard_of(g.guild_id, count) == shard]
                assert sorted(await scope.due(NOW)) == sorted(expected), (count, shard)
    finally:
        await db.close()


def test_shard_of_matches_discords_formula() -> None:
    assert shard_of(None, 5) == 0
    assert shard_of(81384788765712384, 1) == 0
    assert shard_of(81384788765712384, 2) == (81384788765712384 >> 22) % 2
