"""A whole solo Kniffel game in the browser: typed slash command, Start, dice, Roll and the score select."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.playground.conftest import PHONE, World, box_of

pytestmark = pytest.mark.timeout(180)

TURNS = 13


async def test_solo_kniffel_from_slash_command_to_final_scores(world: World) -> None:
    alice = await world.screen("Alice", "kniffel")
    await alice.command("/kniffel start")
    lobby = alice.message_with("Kniffel")
    await expect(lobby.locator(".reply-line")).to_contain_text("@Alice used /kniffel start")
    await world.lobby_saved("kniffel")
    await alice.click(lobby, "Start")

    game = await alice.pin(alice.message_with("turn 1/13"))
    world.rng.script(1, 1, 1, 2, 3, 4, 4)  # first roll 1 1 1 2 3, then the two unheld dice show 4 4
    await alice.click(game, "Roll")
    await expect(game.get_by_role("button", name="Roll (2/3)")).to_be_enabled()
    for die in range(3):
        await game.locator(".action-row").first.get_by_role("button").nth(die).click()
        await expect(game.locator(".action-row").first.get_by_role("button").nth(die)).to_have_class(
            "button primary", timeout=10_000
        )
    await alice.click(game, "Roll (2/3)")
    await expect(game.locator(".embed-description")).to_contain_text("Roll 2/3")
    await expect(game.locator(".select-toggle")).to_contain_text("Score…")
    picked = await alice.pick(game, "Full house")
    assert picked == "Full house — 25"
    await expect(alice.page.locator("#messages")).to_contain_text("Alice: 25 in Full house")

    for turn in range(2, TURNS + 1):
        await expect(game.locator(".embed-title")).to_contain_text(f"turn {turn}/13")
        await alice.click(game, "Roll")
        await expect(game.locator(".select-toggle")).to_be_enabled()
        await alice.pick(game)

    await expect(game.locator(".embed-title")).to_have_text("Kniffel — final scores")
    await expect(game.locator(".embed-field-name")).to_have_text(["Alice"])
    await expect(game.get_by_role("button")).to_have_text(
        ["🔍 Review", "🔁Rematch"]
    )  # the post-game review and Rematch
    await expect(alice.page.locator("#messages")).to_contain_text("🏁 Alice finished with")
    assert world.playground.bot is not None
    stored = await world.playground.bot.results.for_game(1)
    assert [row.user_id for row in stored] == [alice.user.id]


async def test_phone_width_keeps_the_game_playable(world: World) -> None:
    alice = await world.screen("Alice", "kniffel", viewport=PHONE)
    await expect(alice.page.locator("#sidebar")).to_be_hidden()
    await alice.page.get_by_role("button", name="Channels").click()
    await expect(alice.page.locator("#sidebar")).to_be_visible()
    await alice.open_channel("kniffel")
    await expect(alice.page.locator("#sidebar")).to_be_hidden()
    await alice.command("/kniffel start")
    lobby = alice.message_with("Kniffel")
    await world.lobby_saved("kniffel")
    await alice.click(lobby, "Start")
    world.rng.script(6, 6, 5, 5, 5)
    game = await alice.pin(alice.message_with("turn 1/13"))
    await alice.click(game, "Roll")
    await expect(game.locator(".select-toggle")).to_be_visible()
    box = await box_of(game)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    scroll_width = await alice.page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= PHONE["width"]
    assert await alice.pick(game, "Full house") == "Full house — 25"
    await expect(game.locator(".embed-title")).to_contain_text("turn 2/13")
