"""Knister's private grids follow the game: edited through the interaction token after every roll, not re-opened.

A player opens their grid once (Place); from then on every roll, placement and new round edits it, so a round
costs the roller two clicks (Roll, a cell) and everybody else one. When the token is past its 15 minutes, Discord
refuses the edit or the bot restarted, the grid stays as it was and the player presses Place again.
"""

from __future__ import annotations

import pytest

from bot.engine import knister as kn
from fakediscord import Message, User
from fakediscord.interactions import MESSAGE_COMPONENT
from tests.e2e.conftest import Harness
from tests.e2e.test_knister import EXTENSIONS, Table, start_game

pytestmark = pytest.mark.timeout(120)

WEBHOOK_EDIT = r"^/webhooks/\d+/[^/]+/messages/@original$"


@pytest.fixture
async def knister(harness: Harness) -> Harness:
    await harness.start_bot(EXTENSIONS)
    return harness


def clicks(h: Harness) -> int:
    """Button presses so far (every component interaction)."""
    return sum(handle.type == MESSAGE_COMPONENT for handle in h.server.interactions)


def edits(h: Harness) -> list[str]:
    """The statuses of the bot's edits of private messages through an interaction token."""
    return [str(request.status) for request in h.server.find_requests("PATCH", WEBHOOK_EDIT)]


async def ready_to_place(h: Harness, grid: Message, state: kn.State) -> None:
    """Wait until ``grid`` shows this round's roll with its empty cells enabled (edited by the bot, unasked)."""

    def shows() -> bool:
        return (
            f"round {state.round}/{kn.ROUNDS}" in grid.text
            and f"= {state.number}" in grid.text
            and any(not button.disabled for button in grid.buttons)
        )

    await h.server.wait_for(shows, what=f"the grid to show round {state.round}'s {state.number}")


async def play_round(h: Harness, table: Table, grids: dict[int, Message], players: list[User]) -> kn.State:
    """Roll; every player places on the grid they have (opening one only if they have none)."""
    state = await table.roll()
    for user in players:
        if user.id not in grids:
            grids[user.id] = await table.open_grid(user)
        grid = grids[user.id]
        await ready_to_place(h, grid, state)
        cell = kn.best_cell(state.grids[str(user.id)], state.number or 0)
        assert await table.place(user, grid, cell) is grid
    return state


async def test_grids_update_after_every_roll_without_a_place_click(knister: Harness) -> None:
    h = knister
    players = [h.alice, h.bob]
    table = Table(h, await start_game(h, players))
    before = clicks(h)
    grids: dict[int, Message] = {}
    for _ in range(kn.ROUNDS):
        await play_round(h, table, grids, players)
    record = await h.record()
    assert record is not None and record.status == "finished"
    # 25 rolls, Place once per player in round 1, one cell per player and round: 3 clicks a round, not 5.
    assert clicks(h) - before == kn.ROUNDS + len(players) + kn.ROUNDS * len(players)
    state = kn.State.load(record.state or "")
    for user in players:
        grid = grids[user.id]
        await h.server.wait_for(lambda grid=grid: "final" in grid.text, what="the grid to show the end")
        assert all(button.disabled for button in grid.buttons)
        assert [b.label for b in grid.buttons] == [str(n) for row in state.grids[str(user.id)] for n in row]
    assert set(edits(h)) == {"200"}
    assert len(h.bot.service.followers) == 0  # a finished game is no longer followed


async def test_a_placed_grid_shows_the_next_round_while_waiting(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    state = await table.roll()
    roller = h.user(state.roller)
    other = h.bob if roller is h.alice else h.alice
    grid = await table.open_grid(other)
    await table.place(other, grid, 0)
    assert "Waiting for: " + roller.name in grid.text
    roller_grid = await table.open_grid(roller)
    await table.place(roller, roller_grid, 0)
    # The round is over: the first grid is edited to say who rolls next, without anybody clicking it.
    await h.server.wait_for(lambda: "round 2/" in grid.text, what="the waiting grid to show round 2")
    after = await table.state()
    next_roller = h.user(after.roller)
    assert "Your roll" in (grid.text if next_roller is other else roller_grid.text)


async def test_an_expired_token_falls_back_to_place(knister: Harness) -> None:
    h = knister
    players = [h.alice, h.bob]
    table = Table(h, await start_game(h, players, round_timeout=60))
    grids: dict[int, Message] = {}
    await play_round(h, table, grids, players)
    await h.server.wait_for(lambda: all("round 2/" in grid.text for grid in grids.values()), what="round 2 grids")
    sent = len(edits(h))
    # 15 minutes later (the round timeout is an hour): the tokens are past the bot's 14 minutes.
    h.server.advance_time(15 * 60)
    await h.advance(15 * 60)
    await table.roll()
    await h.server.wait_for(lambda: len(h.bot.service.followers) == 0, what="the expired grids to be forgotten")
    assert len(edits(h)) == sent  # never tried
    assert all("Waiting for" in grid.text or "Your roll" in grid.text for grid in grids.values())
    # Place gives each a fresh grid, which follows the next roll again.
    fresh: dict[int, Message] = {}
    state = await table.state()
    for user in players:
        fresh[user.id] = await table.open_grid(user)
        await ready_to_place(h, fresh[user.id], state)
        assert await table.place(user, fresh[user.id], kn.best_cell(state.grids[str(user.id)], state.number or 0))
    await play_round(h, table, fresh, players)
    assert clicks(h)  # (the rounds above are asserted by ready_to_place: no Place in the last one)


async def test_a_refused_edit_is_forgotten_and_place_works_again(knister: Harness) -> None:
    h = knister
    players = [h.alice, h.bob]
    table = Table(h, await start_game(h, players, round_timeout=60))
    grids: dict[int, Message] = {}
    await play_round(h, table, grids, players)
    await h.server.wait_for(lambda: all("round 2/" in grid.text for grid in grids.values()), what="round 2 grids")
    # Discord's clock says the tokens are dead, the bot's does not: it tries, Discord refuses (401 50027).
    h.server.advance_time(15 * 60 + 1)
    state = await table.roll()
    await h.server.wait_for(lambda: len(h.bot.service.followers) == 0, what="the refused grids to be forgotten")
    assert edits(h).count("401") == len(players)
    assert all(f"= {state.number}" not in grid.text for grid in grids.values())
    fresh: dict[int, Message] = {}
    for user in players:
        fresh[user.id] = await table.open_grid(user)
        assert await table.place(user, fresh[user.id], kn.best_cell(state.grids[str(user.id)], state.number or 0))
    before = clicks(h)
    await play_round(h, table, fresh, players)
    assert clicks(h) - before == 1 + len(players)  # Roll and one cell each: the fresh grids follow


async def test_after_a_restart_the_player_presses_place_again(knister: Harness) -> None:
    h = knister
    players = [h.alice, h.bob]
    table = Table(h, await start_game(h, players))
    grids: dict[int, Message] = {}
    await play_round(h, table, grids, players)
    await h.server.wait_for(lambda: all("round 2/" in grid.text for grid in grids.values()), what="round 2 grids")
    sent = len(edits(h))
    await h.restart()
    state = await table.roll()
    assert len(h.bot.service.followers) == 0
    fresh: dict[int, Message] = {}
    for user in players:
        fresh[user.id] = await table.open_grid(user)
        assert await table.place(user, fresh[user.id], kn.best_cell(state.grids[str(user.id)], state.number or 0))
    before = clicks(h)
    await play_round(h, table, fresh, players)
    assert clicks(h) - before == 1 + len(players)
    assert all(f"= {state.number}" not in grid.text for grid in grids.values())  # the old grids were left alone
    assert len(edits(h)) > sent


async def test_the_grid_command_opens_a_grid_that_follows(knister: Harness) -> None:
    h = knister
    players = [h.alice, h.bob]
    table = Table(h, await start_game(h, players))
    grid = await (await h.command(h.alice, "knister grid")).message()
    assert grid.ephemeral
    state = await table.roll()
    await ready_to_place(h, grid, state)  # the command's reply follows the roll
    await table.place(h.alice, grid, 0)
    await table.place_best(h.bob)
    before = clicks(h)
    await play_round(h, table, {h.alice.id: grid, h.bob.id: await table.open_grid(h.bob)}, players)
    assert clicks(h) - before == 1 + 1 + 2  # Bob opened his grid once; Alice's command grid needed no click


async def test_the_grid_command_shows_a_roll_saved_while_it_looked_the_game_up(
    knister: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The roll's save refreshes the grids that follow the game before the command's grid follows it: read before
    the roll, the command's grid would stay a round behind."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    games = h.bot.service._games
    look_up = games.active_in_channel
    rolled: list[kn.State] = []

    async def roll_meanwhile(channel_id: int) -> object:
        found = await look_up(channel_id)
        if not rolled:
            rolled.append(await table.roll())  # answered and saved before the command goes on
        return found

    monkeypatch.setattr(games, "active_in_channel", roll_meanwhile)
    grid = await (await h.command(h.alice, "knister grid")).message()
    assert rolled and f"= {rolled[0].number}" in grid.text, grid.text
    assert any(not button.disabled for button in grid.buttons)  # ready to place this round's number


async def test_a_second_grid_takes_over_and_the_first_one_goes(knister: Harness) -> None:
    """Place pressed while a grid is open (scrolled away, or pressed before the roll's edit reached it): only the
    newest grid follows the game, so the older one is deleted, not left with clickable cells of a round that has
    moved on ("You already placed this round's number." when clicked)."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    first = await table.open_grid(h.alice)
    state = await table.roll()
    await ready_to_place(h, first, state)
    second = await table.open_grid(h.alice)
    assert await table.place(h.alice, second, 0) is second
    await h.server.wait_for(lambda: first.deleted, what="the older grid to be deleted")
    assert "Waiting for" in second.text
    await table.place_best(h.bob)
    await h.server.wait_for(lambda: "round 2/" in second.text, what="the newer grid to follow the next round")
    assert set(edits(h)) == {"200"}
