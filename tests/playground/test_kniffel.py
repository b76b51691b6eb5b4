"""A whole solo Kniffel game in the browser: typed slash command, Start, dice, Roll and the score select."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import WebSocketRoute, expect

from tests.playground.conftest import DESKTOP, PHONE, Screen, World, box_of, poll

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
    # A fingertip's targets (QA: 32 px buttons, a 30 by 29 px menu toggle), and "your turn" marked as Discord marks
    # a message that mentions the reader (QA: it looked like any other).
    for button in (game.get_by_role("button", name="Roll"), alice.page.get_by_role("button", name="Channels")):
        assert (await box_of(button))["height"] >= 40
    await expect(game).to_have_class(re.compile(r"\bmentions-me\b"))


async def test_a_phone_sends_a_command_with_the_send_button(world: World) -> None:
    """After picking a command from the suggestions the phone's keyboard is down: no Enter to press (QA)."""
    alice = await world.screen("Alice", "kniffel", viewport=PHONE)
    await alice.page.locator("#composer-input").fill("/kniffel sta")
    await alice.page.locator(".suggestion").filter(has_text="/kniffel start").click()
    await alice.page.get_by_role("button", name="Send").click()
    await expect(alice.message_with("Kniffel").locator(".reply-line")).to_contain_text("@Alice used /kniffel start")


async def test_a_second_click_on_a_die_the_first_click_replaced_fails_in_a_player_s_words(world: World) -> None:
    """QA: a fast double click on a die held it, then showed fakediscord's diagnostic ("no button 'g:1:hold:2.1:69'
    on message …: button '4' (g:1:hold:0.0:69), …"): the first click's edit had replaced the buttons before the
    second arrived. The page holds back the server's pushes here, so the second click is made on the buttons as
    they were, after the bot's edit replaced them, as in a double click; Discord's client would say the
    interaction failed."""
    sockets: list[WebSocketRoute] = []
    held: list[str | bytes] = []
    holding = [False]

    def route(page_socket: WebSocketRoute) -> None:
        server = page_socket.connect_to_server()
        sockets.append(page_socket)

        def forward(frame: str | bytes) -> None:
            if holding[0]:
                held.append(frame)
            else:
                page_socket.send(frame)

        server.on_message(forward)

    context = await world.tabs.browser.new_context(viewport=DESKTOP)  # closed when the test ends
    page = await context.new_page()
    await page.route_web_socket(re.compile(r"/ui/ws$"), route)
    alice, channel = world.user("Alice"), world.channel("kniffel")
    await page.goto(f"{world.playground.url}?as={alice.id}&channel={channel.id}")
    screen = Screen(page, alice)
    await screen.command("/kniffel start")
    await world.lobby_saved("kniffel")
    await screen.click(screen.message_with("Kniffel"), "Start")
    game = await screen.pin(screen.message_with("turn 1/13"))
    world.rng.script(4, 4, 2, 1, 4)
    await screen.click(game, "Roll")
    await expect(game.get_by_role("button", name="Roll (2/3)")).to_be_enabled()

    board = world.server.world.messages[int(await game.get_attribute("data-message-id") or 0)]
    edits = board.edits
    holding[0] = True
    die = game.locator(".action-row").first.get_by_role("button").first
    await die.click()

    async def edited() -> bool:
        return bool(board.edits > edits)

    await poll(edited, "the bot's edit of the board")
    await die.click()  # the page still shows the buttons the edit replaced
    await expect(page.locator("#notice")).to_have_text(
        "This interaction failed: the message changed before your click arrived."
    )
    holding[0] = False
    for frame in held:
        sockets[-1].send(frame)
    await expect(die).to_have_class("button primary")  # held once, by the first click
