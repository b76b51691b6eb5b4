"""The page itself: escaping, the slash-command autocomplete, users and locales, restarts and a crashing bot."""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import Page, expect

from bot.playground import BotCrashed, Playground
from tests.playground.conftest import World, box_of

pytestmark = pytest.mark.timeout(180)

HOSTILE_NAME = "<img src=x onerror=__xss=1>"
#: What a QA engineer typed as a new user's name (the page keeps the 32 UTF-16 units its field takes).
LONG_NAME = "**Zed**_x_ ||sp|| `c` 🎲🎲 Ümlaut with a very very long display name here"
SIDEBAR_CONTROLS = ("#user-switcher", "#locale", "#new-user-name", "#add-user button")
HOSTILE_TEXT = "<script>window.__xss=2</script><b>raw</b> **bold** and <@{alice}> in `code`"


async def test_user_and_bot_texts_are_escaped(world: World) -> None:
    alice = await world.screen("Alice", "general")
    await alice.page.locator("#new-user-name").fill(HOSTILE_NAME)
    await alice.page.get_by_role("button", name="Add", exact=True).click()
    await expect(alice.page.locator("#user-switcher option:checked")).to_have_text(HOSTILE_NAME)
    await expect(alice.page.locator(".member-name", has_text=HOSTILE_NAME)).to_have_count(1)

    box = alice.page.locator("#composer-input")
    await box.fill(HOSTILE_TEXT.format(alice=world.user("Alice").id))
    await box.press("Enter")
    posted = alice.message_with("window.__xss=2")
    await expect(posted.locator(".author")).to_have_text(HOSTILE_NAME)
    shown = "<script>window.__xss=2</script><b>raw</b> bold and @Alice"
    await expect(posted.locator(".content")).to_contain_text(shown)
    await expect(posted.locator("strong")).to_have_text("bold")
    await expect(posted.locator(".mention")).to_have_text("@Alice")
    await expect(posted.locator("code")).to_have_text("code")

    # The bot repeats the name in its own embed (the lobby's players): shown as text there too.
    await alice.open_channel("kniffel")
    await alice.command("/kniffel start")
    await expect(alice.message_with("Kniffel").locator(".embed")).to_contain_text(HOSTILE_NAME)

    assert await alice.page.evaluate("typeof window.__xss") == "undefined"
    await expect(alice.page.locator("#app img, #app script, #app b")).to_have_count(0)


async def test_an_avatar_shows_a_name_s_first_character_whole(world: World) -> None:
    """QA: a name starting with an emoji had U+FFFD as its avatar: the page took half of the emoji's surrogate pair."""
    alice = await world.screen("Alice", "general")
    await alice.page.locator("#new-user-name").fill("🐉🔥 Drache")
    await alice.page.get_by_role("button", name="Add", exact=True).click()
    member = alice.page.locator(".member", has=alice.page.locator(".member-name", has_text="Drache"))
    await expect(member.locator(".avatar")).to_have_text("🐉")
    await expect(alice.page.locator(".member", has_text="Alice").locator(".avatar")).to_have_text("A")


async def assert_sidebar_holds_its_controls(page: Page) -> None:
    sidebar = await box_of(page.locator("#sidebar"))
    for control in SIDEBAR_CONTROLS:
        box = await box_of(page.locator(control))
        assert sidebar["x"] <= box["x"] and box["x"] + box["width"] <= sidebar["x"] + sidebar["width"], control
        assert sidebar["y"] <= box["y"] and box["y"] + box["height"] <= sidebar["y"] + sidebar["height"], control


async def test_the_sidebar_s_controls_stay_inside_it_with_a_long_user_name(world: World) -> None:
    alice = await world.screen("Alice", "general", {"width": 1280, "height": 800})
    await assert_sidebar_holds_its_controls(alice.page)
    await alice.page.locator("#new-user-name").fill(LONG_NAME)
    await alice.page.get_by_role("button", name="Add", exact=True).click()
    await expect(alice.page.locator("#user-switcher option:checked")).to_contain_text("**Zed**_x_ ||sp|| `c` 🎲🎲 Ümla")
    await assert_sidebar_holds_its_controls(alice.page)
    await alice.page.set_viewport_size({"width": 390, "height": 844})
    await alice.page.locator("#toggle-sidebar").click()
    await expect(alice.page.locator("#sidebar")).to_be_visible()
    await assert_sidebar_holds_its_controls(alice.page)


async def test_a_time_out_of_range_is_shown_as_typed_and_the_channel_goes_on_rendering(world: World) -> None:
    """``<t:9999999999999>`` made an invalid date whose formatting threw: no later message of the channel showed."""
    alice = await world.screen("Alice", "general")
    box = alice.page.locator("#composer-input")
    # One at a time: the composer is cleared when its message was taken, which would wipe a text typed meanwhile.
    for text, shown in (("before", "before"), ("<t:9999999999999> and <t:1800000000:R>", "<t:9999999999999>")):
        await box.fill(text)
        await box.press("Enter")
        await expect(alice.message_with(shown)).to_have_count(1)
    await box.fill("after")
    await box.press("Enter")
    await expect(alice.message_with("after")).to_have_count(1)
    await expect(alice.page.locator("time.timestamp-mention")).to_have_count(1)


async def test_autocomplete_offers_subcommands_options_choices_and_ranges(world: World) -> None:
    alice = await world.screen("Alice", "kniffel")
    box = alice.page.locator("#composer-input")
    await box.fill("/kni")
    suggestions = alice.page.locator(".suggestion")
    await expect(suggestions.filter(has_text="/kniffel start")).to_contain_text("[rules] [turn_timeout]")
    await expect(suggestions.filter(has_text="/knister start")).to_have_count(1)
    await expect(suggestions.filter(has_text="/kniffel scorecard")).to_have_count(1)
    await box.press("ArrowDown")
    await expect(suggestions.nth(1)).to_have_class("suggestion active")

    await box.fill("/kniffel sta")
    await suggestions.filter(has_text="/kniffel start").click()
    rules = alice.page.locator("#option-rules")
    await expect(rules.locator("option")).to_have_text(["(default)", "Kniffel", "Classic"])
    timeout = alice.page.locator("#option-turn_timeout")
    await expect(timeout).to_have_attribute("min", "1")
    await expect(timeout).to_have_attribute("max", "60")

    await timeout.fill("99")
    await box.press("Enter")
    await expect(alice.page.locator("#notice")).to_contain_text("turn_timeout")
    await expect(alice.messages).to_have_count(0)

    await rules.select_option("classic")
    await timeout.fill("5")
    await box.press("Enter")
    await expect(alice.message_with("Kniffel").locator(".embed")).to_contain_text("Classic")
    await expect(alice.page.locator("#notice")).to_be_hidden()  # the complaint went with the command that worked

    await box.fill("/stats")
    await suggestions.filter(has_text="/stats").first.click()
    await expect(alice.page.locator("#option-user option")).to_contain_text(["(nobody)", "dicebot (app)", "Alice"])


async def test_commands_are_offered_and_typed_by_their_names_in_the_user_s_language(world: World) -> None:
    """As in Discord's client: a Polish user sees (and types) the Polish names; the bot gets the command's own."""
    alice = await world.screen("Alice", "kniffel")
    await alice.page.locator("#locale").select_option("pl")
    await world.server.wait_for(lambda: alice.user.locale == "pl", what="Alice's locale to be Polish")
    box = alice.page.locator("#composer-input")
    paths = alice.page.locator(".suggestion-path")
    await box.fill("/kniffel")
    await expect(paths.filter(has_text="/kniffel zasady")).to_have_count(1)
    await expect(paths.filter(has_text="/kniffel rules")).to_have_count(0)
    await expect(alice.page.locator(".suggestion", has_text="/kniffel start")).to_contain_text("[zasady] [czas_tury]")
    await box.fill("/sta")
    await expect(paths.filter(has_text="/statystyki")).to_have_count(1)
    await expect(paths.filter(has_text="/stats")).to_have_count(0)
    await box.fill("/rank")
    await expect(paths).to_have_text(["/ranking"])

    await alice.command("/kniffel zasady")
    await expect(alice.ephemerals().last).to_contain_text("Kniffel")
    assert world.server.interactions[-1].payload["data"]["options"][0]["name"] == "rules"
    await box.fill("/kniffel start zasady:classic czas_tury:5")
    await box.press("Enter")
    await expect(alice.message_with("Kniffel").locator(".embed")).to_contain_text("Classic")
    data = world.server.interactions[-1].payload["data"]
    assert (data["name"], data["options"][0]["name"]) == ("kniffel", "start")
    assert {o["name"]: o["value"] for o in data["options"][0]["options"]} == {"rules": "classic", "turn_timeout": 5}


async def test_switching_user_and_locale(world: World) -> None:
    screen = await world.screen("Alice", "general")
    bob = world.user("Bob")
    await screen.page.locator("#user-switcher").select_option(str(bob.id))
    await expect(screen.page.locator(".member.me .member-name")).to_have_text("Bob")
    assert f"as={bob.id}" in screen.page.url
    await screen.page.locator("#locale").select_option("de")
    await world.server.wait_for(lambda: bob.locale == "de", what="Bob's locale to be German")
    await screen.command("/hilfe")
    help_reply = screen.ephemerals().last
    await expect(help_reply).to_contain_text("/kniffel")
    interaction = await world.server.wait_for(lambda: world.server.interactions[-1:], what="the /help interaction")
    assert interaction[0].payload["locale"] == "de"


async def test_the_page_reconnects_and_the_game_survives_a_restart(world: World) -> None:
    alice = await world.screen("Alice", "kniffel")
    await alice.command("/kniffel start")
    lobby = await alice.pin(alice.message_with("Kniffel"))
    await world.lobby_saved("kniffel")
    port = int(world.playground.url.rsplit(":", 1)[1].strip("/"))
    data_dir = world.playground.database.parent
    await world.playground.stop()
    await expect(alice.page.locator("#banner")).to_contain_text("reconnecting")

    again = Playground(port=port, data_dir=data_dir, bot_options={"rng": lambda: world.rng, "clock": world.clock})
    await again.start()
    world.playground = again
    await expect(alice.page.locator("#banner")).to_be_hidden()
    await expect(lobby).to_contain_text("Kniffel")
    await alice.click(lobby, "Start")
    await expect(lobby.locator(".embed-title")).to_contain_text("turn 1/13")
    # The bot found its commands unchanged and did not sync again: the restored world still offers them.
    assert "kniffel" in again.server.world.commands.names(None)
    await alice.command("/help")
    await expect(alice.message_with("/kniffel")).to_be_visible()


async def test_a_crashing_bot_is_shown_on_the_page(world: World) -> None:
    alice = await world.screen("Alice", "general")
    stopped = asyncio.create_task(world.playground.wait())
    # Close the bot's gateway session with "authentication failed": discord.py gives up and its task ends.
    with pytest.raises(TimeoutError):
        await world.server.drop_gateway(code=4004, timeout=1)
    with pytest.raises(BotCrashed, match="4004"):
        await stopped
    await expect(alice.page.locator("#banner")).to_contain_text("The bot crashed")
    await expect(alice.page.locator("#banner")).to_have_class("banner fatal")


async def test_a_message_link_is_a_pill_that_jumps_to_the_message(world: World) -> None:
    """The bot's "already … here: <link>" points at its lobby: the page shows the link as Discord's client does, a
    pill naming the channel ("#kniffel › 💬", not the URL), and a click on it scrolls to the message instead of
    leaving for discord.com; a link pasted in another channel switches to the message's channel."""
    alice = await world.screen("Alice", "kniffel")
    await alice.command("/kniffel start")
    await world.lobby_saved("kniffel")
    lobby = await alice.pin(alice.messages.last)
    await alice.command("/kniffel start")
    refusal = alice.ephemerals().last
    jump = refusal.locator("a.jump-link")
    await expect(jump).to_have_text("#kniffel › 💬")
    await expect(refusal).not_to_contain_text("discord.com")
    url = alice.page.url
    await jump.click()
    await expect(lobby).to_have_class(re.compile(r"\bjumped\b"))
    assert alice.page.url == url

    link = await jump.get_attribute("href")
    assert link is not None and link.startswith("https://discord.com/channels/")
    unknown = re.sub(r"/\d+/(\d+)$", r"/1/\1", link)
    await world.server.post_message(world.user("Bob"), world.channel("general"), f"The lobby: {link} (or {unknown})")
    await alice.open_channel("general")
    pasted = alice.message_with("The lobby:")
    await expect(pasted.locator("a.jump-link")).to_have_text(["#kniffel › 💬", unknown])
    await pasted.locator("a.jump-link").first.click()
    await expect(alice.page.locator("#channel-name")).to_have_text("# kniffel")
    await expect(lobby).to_have_class(re.compile(r"\bjumped\b"))
    await expect(lobby).to_be_in_viewport()
