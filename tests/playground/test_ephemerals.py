"""The bot's ephemeral answers reach only the user who clicked: a stale grid button, Dismiss."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.playground.conftest import World

pytestmark = pytest.mark.timeout(180)

ROUND_TIMEOUT = 2 * 60
OLDER_GRID = r"^/webhooks/\d+/[^/]+/messages/@original$"


async def test_a_stale_grid_button_answers_outdated_to_that_user_only(world: World) -> None:
    alice = await world.screen("Alice", "knister")
    bob = await world.screen("Bob", "knister")
    await alice.command("/knister start")
    await world.lobby_saved("knister")
    await bob.click(bob.message_with("Knister"), "Join")
    await expect(alice.message_with("Knister")).to_contain_text("Bob")
    await alice.click(alice.message_with("Knister"), "Start")

    round_message = await alice.pin(alice.message_with("Knister — round 1/25"))
    content = await round_message.locator(".content").inner_text()
    roller = alice if "@Alice, roll the dice!" in content else bob
    world.rng.script(1, 1)
    await roller.click(await roller.pin(roller.message_with("Knister — round 1/25")), "🎲 Roll")
    for screen in (alice, bob):
        await screen.click(await screen.pin(screen.message_with("Knister — round 1/25")), "Place 2")
    alice_grid = await alice.pin(alice.ephemerals().filter(has_text="Your grid"))
    bob_grid = await bob.pin(bob.ephemerals().filter(has_text="Your grid"))
    # Bob presses Place again: only his latest grid follows the game. The bot deletes the first, but here
    # Discord refuses (its token died), so it stays on his screen as it was shown.
    world.server.inject_rest_error("DELETE", OLDER_GRID, 401, code=50027)
    await bob.click(await bob.pin(bob.message_with("Knister — round 1/25")), "Place 2")
    await expect(bob.ephemerals().filter(has_text="Your grid")).to_have_count(2)
    bob_latest = await bob.pin(bob.ephemerals().filter(has_text="Your grid").last)
    await alice_grid.locator(".components").get_by_role("button").first.click()
    await expect(alice_grid.locator(".components").get_by_role("button").first).to_have_text("2")

    # Bob never places: his time runs out, the bot places for him and round 2 starts. His latest grid follows;
    # the first is still on his screen with live-looking round-1 buttons, as a Discord client would keep it.
    await world.advance(ROUND_TIMEOUT + 1)
    await expect(round_message).to_contain_text("Knister — round 2/25")
    await expect(bob_latest).to_contain_text("round 2/25")
    stale_cell = bob_grid.locator(".components").get_by_role("button").nth(12)
    await expect(stale_cell).to_be_enabled()
    await stale_cell.click()
    outdated = bob.ephemerals().filter(has_text="This message is outdated")
    await expect(outdated).to_contain_text("Only you can see this")
    await expect(alice.ephemerals().filter(has_text="outdated")).to_have_count(0)

    dismissed_id = int(await outdated.get_attribute("data-message-id") or 0)
    await outdated.get_by_role("button", name="Dismiss message").click()
    await expect(outdated).to_have_count(0)
    await expect(bob_grid).to_be_visible()
    # Dismissing is the client's business: the message still exists for the bot, as on Discord.
    assert not world.server.world.messages[dismissed_id].deleted
