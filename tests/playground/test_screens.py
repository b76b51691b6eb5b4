"""A running game of each kind at desktop and at phone width: nothing overflows sideways, every control is on screen.

With ``PLAYGROUND_SCREENSHOTS=docs/screenshots`` these tests also write the README's screenshots (with an emoji
font installed, e.g. Debian's ``fonts-noto-color-emoji``, or the emoji show as boxes).
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.playground.conftest import PHONE, Screen, World, box_of

pytestmark = pytest.mark.timeout(120)


async def kniffel(world: World, screen: Screen) -> None:
    world.rng.script(2, 3, 4, 5, 5)
    await screen.click(await screen.pin(screen.message_with("turn 1/13")), "Roll")
    await expect(screen.message_with("turn 1/13").locator(".select-toggle")).to_be_visible()


async def dicepoker(world: World, screen: Screen) -> None:
    world.rng.script(6, 6, 6, 2, 3)
    game = await screen.pin(screen.message_with("turn 1/"))
    await screen.click(game, "Roll")
    await expect(game.locator(".select-toggle")).to_be_visible()


async def knister(world: World, screen: Screen) -> None:
    world.rng.script(3, 4, 5, 6)
    game = await screen.pin(screen.message_with("Knister — round 1/25"))
    await screen.click(game, "🎲 Roll")
    await screen.click(game, "Place 7")
    grid = await screen.pin(screen.ephemerals().filter(has_text="Your grid"))
    await grid.locator(".components").get_by_role("button").nth(12).click()
    await expect(grid.locator(".components").get_by_role("button").nth(12)).to_have_text("7")
    # Discord draws a small button at least 60 px wide: "·" and "7" are one size, the grid stays square.
    cells = await grid.locator(".components").get_by_role("button").all()
    assert len({round((await box_of(cell))["width"]) for cell in cells}) == 1
    # The next roll updates the open grid by itself: no Place click, its empty cells are ready for 11.
    await screen.click(game, "🎲 Roll")
    await expect(grid).to_contain_text("round 2/25")
    await expect(grid).to_contain_text("= 11")
    await expect(grid.locator(".components").get_by_role("button").first).to_be_enabled()


async def tutto(world: World, screen: Screen) -> None:
    game = await screen.pin(screen.message_with("Tutto"))
    world.rng.script(1, 5, 5, 2, 3, 6)
    await screen.click(game, "🃏 Draw & roll")  # the seeded deck's first card is a bonus card: rolled at once
    await expect(game.get_by_role("button", name="🃏 Draw & roll")).to_have_count(0)
    dice = game.locator(".action-row").nth(0).get_by_role("button")
    await expect(dice).to_have_text(["⚀ 1", "⚄ 5", "⚄ 5"])
    await dice.first.click()
    await expect(game.locator(".action-row").nth(0).get_by_role("button").first).to_have_class("button primary")


GAMES = {"kniffel": kniffel, "dicepoker": dicepoker, "knister": knister, "tutto": tutto}


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_running_game_fits_desktop_and_phone(world: World, game: str) -> None:
    screen = await world.screen("Alice", "general")
    await screen.command(f"/{game} start")
    await world.lobby_saved("general")
    await screen.click(screen.messages.last, "Start")
    await GAMES[game](world, screen)
    await screen.screenshot(f"{game}-desktop")

    await screen.page.set_viewport_size(PHONE)
    await screen.page.locator("#messages").evaluate("list => { list.scrollTop = list.scrollHeight; }")
    assert await screen.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for button in await screen.messages.last.get_by_role("button").all():
        box = await box_of(button)
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"]
    # Each row of buttons stays one line: a Knister grid row wrapped 4 + 1 put its last cell under the next row
    for row in await screen.page.locator(".action-row").all():
        tops = {round((await box_of(button))["y"]) for button in await row.get_by_role("button").all()}
        assert len(tops) <= 1, await row.inner_text()
    await screen.screenshot(f"{game}-phone")
