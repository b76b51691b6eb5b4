"""The page renders message JSON as Discord does: markdown, embeds, components, "thinking", without a bot.

The messages are made in fakediscord's world directly, the way the bot's REST calls make them, so every
shape can be shown, including ones the bot does not send today (a deferred reply, link buttons).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from fakediscord import FakeDiscord
from fakediscord.messages import EPHEMERAL, LOADING
from tests.playground.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.timeout(120)

CONTENT = "# Scores\n> quoted line\n```\nx = 1 < 2\n```\n**bold**, *italic*, ~~gone~~ and `code` for <@{alice}>"
EMBED = {
    "title": "Round 3",
    "description": "Turn of <@{alice}>\n-# small print",
    "color": 0xFF0000,
    "fields": [
        {"name": "Alice", "value": "12", "inline": True},
        {"name": "Bob", "value": "7", "inline": True},
        {"name": "Carol", "value": "3", "inline": True},
        {"name": "Rules", "value": "first to 6000", "inline": False},
    ],
    "footer": {"text": "💡 played with hints\n🤖 Games with a computer count in /stats"},
}
COMPONENTS = [
    {
        "type": 1,
        "components": [
            {"type": 2, "style": 1, "label": "Roll", "custom_id": "roll", "emoji": {"name": "🎲"}},
            {"type": 2, "style": 2, "label": "Held", "custom_id": "held", "disabled": True},
            {"type": 2, "style": 4, "label": "Quit", "custom_id": "quit"},
            {"type": 2, "style": 5, "label": "Rules", "url": "https://example.invalid/rules"},
            {"type": 2, "style": 5, "label": "Trap", "url": "javascript:alert(1)"},
        ],
    },
    {
        "type": 1,
        "components": [
            {
                "type": 3,
                "custom_id": "score",
                "placeholder": "Score…",
                "options": [
                    {"label": "Ones", "value": "ones", "description": "3 points"},
                    {"label": "Chance", "value": "chance", "description": "17 points", "default": True},
                ],
            }
        ],
    },
]


@pytest_asyncio.fixture(loop_scope="session")  # the playground's tests share one loop (see conftest.py)
async def server() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(web=True) as fake:
        guild = fake.add_guild("Dice Club")
        fake.add_channel(guild, "general")
        fake.add_user("Alice")
        yield fake


async def test_markdown_embeds_and_components(server: FakeDiscord, browser: Browser) -> None:
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    general = next(iter(server.world.channels.values()))
    embed = {**EMBED, "description": EMBED["description"].format(alice=alice.id)}
    data = {"content": CONTENT.format(alice=alice.id), "embeds": [embed], "components": COMPONENTS}
    message = server.world.create_message(general, server.bot, data)
    server.world.create_message(general, server.bot, {"content": "", "flags": EPHEMERAL | LOADING}, visible_to=alice)

    page = await (await browser.new_context(viewport=DESKTOP)).new_page()
    await page.goto(f"{server.url}?as={alice.id}&channel={general.id}")
    shown = page.locator(f'li.message[data-message-id="{message.id}"]')
    await expect(shown.locator("h3.md-header")).to_have_text("Scores")
    await expect(shown.locator("blockquote")).to_have_text("quoted line")
    await expect(shown.locator("pre.code-block")).to_have_text("x = 1 < 2")
    await expect(shown.locator(".content strong")).to_have_text("bold")
    await expect(shown.locator(".content em")).to_have_text("italic")
    await expect(shown.locator(".content s")).to_have_text("gone")
    await expect(shown.locator(".content .mention")).to_have_text("@Alice")

    card = shown.locator(".embed")
    assert await card.evaluate("node => getComputedStyle(node).borderLeftColor") == "rgb(255, 0, 0)"
    await expect(card.locator(".embed-title")).to_have_text("Round 3")
    await expect(card.locator(".embed-description .mention")).to_have_text("@Alice")
    await expect(card.locator(".md-subtext")).to_have_text("small print")
    # Two notes of a final board's footer, a line each as Discord shows them (QA: they ran together on one line).
    footer = await card.locator(".embed-footer").evaluate("node => node.innerText")
    assert footer.splitlines() == ["💡 played with hints", "🤖 Games with a computer count in /stats"]
    names = card.locator(".embed-field-name")
    await expect(names).to_have_text(["Alice", "Bob", "Carol", "Rules"])
    tops = [(await names.nth(i).bounding_box() or {})["y"] for i in range(4)]
    assert tops[0] == tops[1] == tops[2] < tops[3]  # inline fields side by side, the other one below

    await expect(shown.get_by_role("button", name="🎲 Roll")).to_have_class("button primary")
    await expect(shown.get_by_role("button", name="Held")).to_be_disabled()
    await expect(shown.get_by_role("button", name="Quit")).to_have_class("button danger")
    await expect(shown.get_by_role("link", name="Rules")).to_have_attribute("href", "https://example.invalid/rules")
    await expect(shown.locator("a.button", has_text="Trap")).not_to_have_attribute("href", "javascript:alert(1)")
    toggle = shown.locator(".select-toggle")
    await expect(toggle).to_have_text("Chance▾")
    await toggle.click()
    await expect(shown.locator(".select-option", has_text="Ones")).to_contain_text("3 points")

    thinking = page.locator("li.message.ephemeral")
    await expect(thinking.locator(".thinking")).to_have_text("dicebot is thinking…")
    await expect(thinking).to_contain_text("Only you can see this")

    server.world.edit_message(message, {"content": "after the edit"})
    await expect(shown.locator(".content")).to_have_text("after the edit (edited)")

    await page.set_viewport_size(PHONE)
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = await card.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= PHONE["width"]


async def test_a_modal_opens_for_its_user_and_cancel_closes_it(server: FakeDiscord, browser: Browser) -> None:
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    general = next(iter(server.world.channels.values()))
    server.world.commands.overwrite(None, [{"name": "note", "description": "Leave a note", "type": 1}])
    opened = server.world.invoke_command(alice, general, "note", {})
    modal = {
        "custom_id": "note-form",
        "title": "Your <note>",
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "text", "label": "Text", "style": 2}]},
        ],
    }
    server.world.respond(opened, {"type": 9, "data": modal}, [])

    page = await (await browser.new_context(viewport=DESKTOP)).new_page()
    await page.goto(f"{server.url}?as={alice.id}&channel={general.id}")
    dialog = page.get_by_role("dialog")
    await expect(dialog.locator(".modal-title")).to_have_text("Your <note>")
    await expect(dialog.locator("textarea[name=text]")).to_be_visible()
    await dialog.get_by_role("button", name="Cancel").click()
    await expect(dialog).to_have_count(0)
    assert server.web is not None
    assert opened.id in server.web.closed_modals


async def test_the_page_follows_a_new_message_answering_its_users_own_press(
    server: FakeDiscord, browser: Browser
) -> None:
    """QA: Rematch pressed on a final board, scrolled up above a long review, posted the new board at the bottom
    and the page stayed where it was. A new message that answers the user's own press is followed as a new message
    is when the user is at the bottom; one nobody asked for leaves a scrolled-up page where it is."""
    alice = next(u for u in server.world.users.values() if u.name == "Alice")
    general = next(iter(server.world.channels.values()))
    rematch = {"type": 2, "style": 2, "label": "Rematch", "custom_id": "rematch"}
    final = {"embeds": [{"title": "Kniffel — final scores"}], "components": [{"type": 1, "components": [rematch]}]}
    board = server.world.create_message(general, server.bot, final)
    server.world.create_message(general, server.bot, {"content": "\n".join(f"review line {i}" for i in range(80))})

    page = await (await browser.new_context(viewport=PHONE)).new_page()
    await page.goto(f"{server.url}?as={alice.id}&channel={general.id}")
    messages = page.locator("#messages")
    shown = page.locator(f'li.message[data-message-id="{board.id}"]')
    await expect(shown).to_be_visible()
    await messages.evaluate("list => { list.scrollTop = 0; }")  # up at the final board, to press Rematch
    await expect(shown.get_by_role("button", name="Rematch")).to_be_in_viewport()

    news = server.world.create_message(general, server.bot, {"content": "news nobody pressed for"})
    await expect(page.locator(f'li.message[data-message-id="{news.id}"]')).to_be_attached()
    settled = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    await page.evaluate(settled)  # the page scrolls, if at all, in the frame after it renders
    assert await messages.evaluate("list => list.scrollTop") == 0

    pressed = server.world.click(alice, board, "rematch")  # her press (the page's needs a bot to answer it)
    answer = server.world.respond(pressed, {"type": 4, "data": {"content": "🎲 Kniffel — new lobby"}}, [])
    assert answer is not None
    await expect(page.locator("li.message", has_text="new lobby")).to_be_in_viewport()
