"""Defects 1 and 7: many lobbies at once, reads that see the latest commit, simultaneous clicks that mean the same."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.storage import Database, GamesRepository, Seat
from tests.e2e.board import CHANGED
from tests.reliability.conftest import Harness

CHANNELS = 20


async def test_reads_see_every_commit_while_other_requests_read(tmp_path: Path) -> None:
    """A half-fetched read on the shared reader used to pin an old snapshot: a new game looked missing."""
    db = await Database.open(tmp_path / "db.sqlite3")
    games = GamesRepository(db)

    async def open_and_find(channel: int) -> tuple[bool, bool]:
        created = await games.create(
            kind="kniffel", variant="kniffel", guild_id=1, channel_id=channel, host=Seat.user(7, "Alice"),
            locale="en-US", options={}, deadline_at=None,
        )  # fmt: skip
        return await games.get(created.id) is not None, await games.active_in_channel(channel) is not None

    try:
        found = await asyncio.gather(*(open_and_find(channel) for channel in range(100)))
    finally:
        await db.close()
    assert found == [(True, True)] * 100


async def test_lobbies_open_at_once_in_many_channels_and_take_joins(running: Harness) -> None:
    h = running
    assert h.bot is not None
    h.server.interaction_timeout = 15.0  # stale reads are under test here, not a loaded test machine's speed
    channels = [h.server.add_channel(h.guild, f"table-{n}") for n in range(CHANNELS)]
    starts = await asyncio.gather(*(h.server.slash(h.alice, channel, "kniffel start") for channel in channels))
    lobbies = await asyncio.gather(*(start.message() for start in starts))
    assert all(not lobby.ephemeral and lobby.button(label="Join") for lobby in lobbies)
    joins = await asyncio.gather(*(h.server.click_button(h.bob, lobby, label="Join") for lobby in lobbies))
    await asyncio.gather(*(join.response() for join in joins))
    assert [join.ephemeral_messages for join in joins] == [[]] * CHANNELS
    for channel, lobby in zip(channels, lobbies, strict=True):
        record = await h.bot.games.active_in_channel(channel.id)
        assert record is not None and record.message_id == lobby.id
        assert [seat.player for seat in record.seats] == [str(h.alice.id), str(h.bob.id)]


async def test_two_players_pressing_join_at_once_both_join(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    seen = h.snapshot(lobby)  # both clients still show the lobby as first posted
    clicks = await asyncio.gather(*(h.server.click_button(user, seen, label="Join") for user in (h.bob, h.carol)))
    await asyncio.gather(*(click.response() for click in clicks))
    assert [click.ephemeral_messages for click in clicks] == [[], []]
    record = await h.record()
    assert record is not None
    assert [seat.player for seat in record.seats] == [str(user.id) for user in (h.alice, h.bob, h.carol)]


async def test_a_join_storm_seats_the_player_once(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    join = lobby.button(label="Join").custom_id
    assert join is not None
    seen = h.snapshot(lobby)
    clicks = await asyncio.gather(*(h.server.click(h.bob, seen, join) for _ in range(8)))
    await asyncio.gather(*(click.response() for click in clicks))
    # Every refusal answered, and one left on screen: each deletes the one before it (``bot/play/notes.py``).
    refused = [click.original for click in clicks if click.original is not None and click.original.ephemeral]
    assert len(refused) == 7
    assert all("already" in message.text for message in refused)
    await h.server.wait_for(lambda: sum(not message.deleted for message in refused) == 1, what="one refusal left")
    record = await h.record()
    assert record is not None and [seat.player for seat in record.seats] == [str(h.alice.id), str(h.bob.id)]


async def test_a_stale_start_is_still_refused(running: Harness) -> None:
    """Only clicks whose meaning cannot change are applied from an old render; Start is not one of them."""
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    seen = h.snapshot(lobby)
    await h.click(h.bob, lobby, "Join")
    start = await h.server.click_button(h.alice, seen, label="Start")
    assert (await start.message()).text == CHANGED  # on the lobby itself: it changed, not "outdated"
    record = await h.record()
    assert record is not None and record.status == "lobby"


async def test_quick_holds_all_apply_and_a_double_click_holds_once(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    record = await h.record()
    assert record is not None
    seen = h.snapshot(message)  # the client shows the roll; the holds below all come from this view
    holds = [seen.button(prefix=f"g:{record.id}:hold:{index}.1:").custom_id for index in (0, 2, 2, 4)]
    clicks = await asyncio.gather(*(h.server.click(h.alice, seen, custom_id) for custom_id in holds if custom_id))
    await asyncio.gather(*(click.response() for click in clicks))
    assert [click.ephemeral_messages for click in clicks] == [[]] * 4
    assert (await h.state()).held == [True, False, True, False, True]


async def test_a_hold_from_before_the_latest_roll_is_refused(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, message, "Roll")
    seen = h.snapshot(message)
    await h.click(h.alice, message, "Roll (2/3)")
    before = await h.state()
    record = await h.record()
    assert record is not None
    stale = await h.server.click_button(h.alice, seen, prefix=f"g:{record.id}:hold:1.")
    assert (await stale.message()).text == CHANGED
    assert (await h.state()).held == before.held
