"""Two users play Knister in one channel, each seeing only their own private grid, while Tutto runs in another."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.playground.conftest import PHONE, Screen, World

pytestmark = pytest.mark.timeout(180)


async def roller_and_other(alice: Screen, bob: Screen) -> tuple[Screen, Screen]:
    """Who rolls this round, read from the round message as a player reads it."""
    content = await alice.message_with("Knister — round").locator(".content").inner_text()
    return (alice, bob) if "@Alice, roll the dice!" in content else (bob, alice)


async def test_knister_grids_are_private_while_tutto_runs_in_another_channel(world: World) -> None:
    alice = await world.screen("Alice", "knister")
    bob = await world.screen("Bob", "knister")
    carol = await world.screen("Carol", "tutto", viewport=PHONE)

    await alice.command("/knister start")
    await world.lobby_saved("knister")
    await bob.click(bob.message_with("Knister"), "Join")
    await expect(alice.message_with("Knister")).to_contain_text("Bob")
    await carol.command("/tutto start")
    await world.lobby_saved("tutto")
    await alice.click(alice.message_with("Knister"), "Start")

    round_message = await alice.pin(alice.message_with("Knister — round 1/25"))
    roller, other = await roller_and_other(alice, bob)
    other_round = await other.pin(other.message_with("Knister — round 1/25"))
    await other.click(other_round, "🎲 Roll")
    refusal = f"Not your roll: {roller.user.name} rolls this round."
    await expect(other.ephemerals().filter(has_text=refusal)).to_contain_text("Only you can see this")
    await expect(roller.ephemerals()).to_have_count(0)

    tutto = await carol.pin(carol.message_with("Tutto"))
    await carol.click(tutto, "Start")
    await expect(tutto.get_by_role("button", name="🃏 Draw & roll")).to_be_visible()

    world.rng.script(3, 4)
    await roller.click(await roller.pin(roller.message_with("Knister — round 1/25")), "🎲 Roll")
    await expect(round_message.locator(".embed-description")).to_contain_text("= 7")
    for screen in (alice, bob):
        await screen.click(await screen.pin(screen.message_with("Knister — round 1/25")), "Place 7")
        await expect(screen.ephemerals().filter(has_text="Your grid — round 1/25")).to_have_count(1)
    alice_grid = await alice.pin(alice.ephemerals().filter(has_text="Your grid"))
    bob_grid = await bob.pin(bob.ephemerals().filter(has_text="Your grid"))
    assert await alice_grid.get_attribute("data-message-id") != await bob_grid.get_attribute("data-message-id")

    alice_cells = alice_grid.locator(".components").get_by_role("button")
    bob_cells = bob_grid.locator(".components").get_by_role("button")
    await expect(alice_cells).to_have_count(25)
    await alice_cells.first.click()
    await expect(alice_cells.first).to_have_text("7")
    await bob_cells.last.click()
    await expect(bob_cells.last).to_have_text("7")
    await expect(bob_cells.first).to_have_text("·")
    await expect(alice_cells.last).to_have_text("·")
    # Each page holds exactly one grid: its own user's.
    await expect(alice.page.locator(".embed-title", has_text="Your grid")).to_have_count(1)
    await expect(bob.page.locator(".embed-title", has_text="Your grid")).to_have_count(1)
    await expect(round_message).to_contain_text("Knister — round 2/25")

    world.rng.script(1, 2, 3, 4, 6, 6)  # the card's roll scores: the turn stays Carol's, past its Draw & roll
    await carol.click(tutto, "🃏 Draw & roll")
    await expect(tutto.locator(".embed")).not_to_contain_text("Draw & roll")
    await expect(carol.page.locator("#channel-name")).to_have_text("# tutto")
    # Carol's channel shows nothing of Knister, and Knister's pages nothing of Tutto.
    await expect(carol.messages.filter(has_text="Knister")).to_have_count(0)
    await expect(alice.messages.filter(has_text="Tutto")).to_have_count(0)
