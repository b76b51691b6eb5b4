"""Browser tests of the playground: the real bot and fakediscord in this process, Debian's Chromium driving the page.

Playwright for Python launches ``/usr/bin/chromium`` (``apt-get install chromium``; Playwright's own browser
download is never used). Every wait is Playwright's auto-waiting ``expect`` on the DOM or a bounded wait on the
server's state, never a sleep. The bot's dice come from a :class:`~tests.scripted.ScriptedRandom` and its time
from a movable clock, so games and deadlines are the same on every run.

Set ``PLAYGROUND_SCREENSHOTS=docs/screenshots`` to write the README's screenshots while the tests run.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, FloatRect, Locator, Page, async_playwright, expect
from playwright.async_api import Error as PlaywrightError
from pytest_asyncio import is_async_test

from bot.playground import Playground
from fakediscord import Channel, User
from tests.scripted import ScriptedRandom

CHROMIUM = "/usr/bin/chromium"
#: Playwright's own ``--disable-features`` list (1.65). Chromium keeps only the last ``--disable-features`` on its
#: command line, so a test run that disables more features must repeat these.
PLAYWRIGHT_DISABLED_FEATURES = [
    *("AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades"),
    *("HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding"),
    *("ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin"),
    *("OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch"),
]
#: New-headless Chromium builds a whole browser window per page, and with it a hidden WebUI renderer for the
#: address bar's drop-down (chrome://omnibox-popup.top-chrome), loaded again in every window. Nobody types in that
#: address bar; without it a serial run of tests/playground took 45 s of CPU (Chromium, its driver and pytest)
#: instead of 82 s, most of it in renderers that never showed the playground.
TOP_CHROME_WEBUI_FEATURES = [
    *("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup", "PreloadTopChromeWebUI"),
]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + TOP_CHROME_WEBUI_FEATURES),
]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 375, "height": 780}
#: Playwright's auto-waiting limit for one expectation (the bot answers in milliseconds; CI machines are busy).
EXPECT_TIMEOUT = 15_000

expect.set_options(timeout=EXPECT_TIMEOUT)


class Clock:
    """Wall-clock time the test can move forward; the bot's deadlines read it."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass
class Screen:
    """One browser tab acting as one user, with the few gestures the tests need."""

    page: Page
    user: User

    @property
    def messages(self) -> Locator:
        return self.page.locator("#messages > li.message")

    def message_with(self, text: str) -> Locator:
        """The (last) message whose text contains ``text``."""
        return self.messages.filter(has_text=text).last

    async def pin(self, message: Locator) -> Locator:
        """The same message by id, so the locator keeps matching after the bot edits its text."""
        message_id = await message.get_attribute("data-message-id")
        return self.page.locator(f'#messages > li.message[data-message-id="{message_id}"]')

    def ephemerals(self) -> Locator:
        return self.page.locator("#messages > li.message.ephemeral")

    async def open_channel(self, name: str) -> None:
        await self.page.locator(".channel-link", has_text=name).click()
        await expect(self.page.locator("#channel-name")).to_have_text(f"# {name}")

    async def command(self, typed: str, **options: str) -> None:
        """Type a slash command, pick it from the autocomplete, fill its options and send it."""
        box = self.page.locator("#composer-input")
        await box.fill(typed)
        await self.page.locator(".suggestion", has_text=typed).first.click()
        for name, value in options.items():
            field = self.page.locator(f"#option-{name}")
            if await field.evaluate("node => node.tagName") == "SELECT":
                await field.select_option(value)
            else:
                await field.fill(value)
        await box.press("Enter")
        await expect(box).to_have_value("")

    async def click(self, message: Locator, label: str) -> None:
        await message.get_by_role("button", name=label, exact=True).click()

    async def pick(self, message: Locator, option: str | None = None) -> str:
        """Open the message's select and pick ``option`` (or the first one); returns the picked label."""
        await message.locator(".select-toggle").click()
        options = message.locator(".select-option")
        chosen = options.filter(has_text=option).first if option else options.first
        label = await chosen.locator(".option-label").inner_text()
        await chosen.click()
        return label

    async def screenshot(self, name: str) -> None:
        folder = os.environ.get("PLAYGROUND_SCREENSHOTS")
        if folder:
            await self.page.screenshot(path=str(Path(folder) / f"{name}.png"))


@dataclass
class Tabs:
    """Browser tabs lent to the tests, each in a browser context of its own, kept open from one test to the next.

    A new tab costs Chromium a whole browser window and a renderer process: about 0.3 s of CPU and, on a busy
    machine, most of a second of wall time, several times per test. A returned tab is navigated to
    ``about:blank`` (closing its page's WebSocket to the stopped playground, so it does not try to reconnect) and
    its cookies are cleared; the page keeps no other state (each test's playground is another origin).
    """

    browser: Browser
    free: list[Page] = field(default_factory=list)
    lent: list[Page] = field(default_factory=list)

    async def take(self, viewport: dict[str, int]) -> Page:
        if self.free:
            page = self.free.pop()
            await page.set_viewport_size({"width": viewport["width"], "height": viewport["height"]})
        else:
            page = await (await self.browser.new_context(viewport=viewport)).new_page()
        self.lent.append(page)
        return page

    async def give_back(self) -> None:
        """Blank the lent tabs for the next test; a tab that cannot be blanked is left out (its context closed)."""
        lent, self.lent = self.lent, []
        for page in lent:
            try:
                await page.goto("about:blank")
                await page.context.clear_cookies()
            except PlaywrightError:
                continue
            self.free.append(page)

    def keeps(self, context: BrowserContext) -> bool:
        return any(page.context is context for page in self.free)


TABS = pytest.StashKey[Tabs]()


@dataclass
class World:
    """The running playground plus the browser's tabs; ``screen()`` opens a tab for a user."""

    playground: Playground
    tabs: Tabs
    rng: ScriptedRandom
    clock: Clock
    screens: list[Screen] = field(default_factory=list)

    @property
    def server(self) -> Any:
        assert self.playground.server is not None
        return self.playground.server

    def user(self, name: str) -> User:
        return next(u for u in self.server.world.users.values() if u.name == name)

    def channel(self, name: str) -> Channel:
        return next(c for c in self.server.world.channels.values() if c.name == name)

    async def screen(self, name: str, channel: str = "general", viewport: dict[str, int] = DESKTOP) -> Screen:
        user = self.user(name)
        page = await self.tabs.take(viewport)
        await page.goto(f"{self.playground.url}?as={user.id}&channel={self.channel(channel).id}")
        await expect(page.locator("#channel-name")).to_have_text(f"# {channel}")
        await expect(page.locator("#user-switcher")).to_have_value(str(user.id))
        screen = Screen(page, user)
        self.screens.append(screen)
        return screen

    async def advance(self, seconds: float) -> None:
        """Move the bot's clock and fire every deadline that fell due, as its scheduler would."""
        assert self.playground.bot is not None
        self.clock.now += seconds
        await self.playground.bot.scheduler.run_due()

    async def lobby_saved(self, channel: str) -> None:
        """Wait until the bot stored the lobby message of ``channel``'s game (it answers before it saves the id)."""
        bot = self.playground.bot
        assert bot is not None
        channel_id = self.channel(channel).id

        async def saved() -> bool:
            row = await bot.db.fetch_one(
                "SELECT message_id FROM games WHERE channel_id = ? ORDER BY id DESC LIMIT 1", (channel_id,)
            )
            return row is not None and row[0] is not None

        await poll(saved, f"the lobby in #{channel} to be saved")


async def poll(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 10.0) -> None:
    """Wait for a condition on state the page does not show (the bot's database), bounded."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        if loop.time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def box_of(locator: Locator) -> FloatRect:
    """Where ``locator``'s element is on screen, once it holds still.

    The page replaces a message's node whenever the message or its interaction changes (``renderMessages`` in
    ``fakediscord/web/app.js``), and Playwright finds no box for a node replaced between finding and measuring
    it: measure again until one is found, bounded.
    """
    found: list[FloatRect] = []

    async def measured() -> bool:
        box = await locator.bounding_box()
        if box is not None:
            found.append(box)
        return box is not None

    await poll(measured, "an element's box on screen")
    return found[-1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the playground's tests in one event loop for the session, so they can share one browser.

    Starting Chromium and Playwright's driver took 4-5 s per test and closing them 2-3 s more: most of the
    suite's wall time. Each test still gets its own playground (bot, server, database); its tabs come from
    :class:`Tabs`, blanked when it ends.
    """
    here = Path(__file__).parent
    shared = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if is_async_test(item) and here in Path(str(item.path)).parents:
            item.add_marker(shared, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def tabs(request: pytest.FixtureRequest, browser: Browser) -> Tabs:
    request.session.stash[TABS] = lent = Tabs(browser)
    return lent


@pytest_asyncio.fixture(loop_scope="session")
async def world(tmp_path: Path, tabs: Tabs) -> AsyncIterator[World]:
    rng, clock = ScriptedRandom(), Clock()
    playground = Playground(port=0, data_dir=tmp_path, bot_options={"rng": lambda: rng, "clock": clock})
    await playground.start()
    world = World(playground, tabs, rng, clock)
    try:
        yield world
    finally:
        await world.playground.stop()  # a test may have restarted it


@pytest_asyncio.fixture(autouse=True, loop_scope="session")
async def fresh_contexts(request: pytest.FixtureRequest) -> AsyncIterator[None]:
    """When a test ends, blank the tabs it was lent and close whatever else it opened in the shared browser."""
    yield
    if "browser" in request.fixturenames:
        browser: Browser = request.getfixturevalue("browser")
        tabs = request.session.stash.get(TABS, None)
        if tabs is not None:
            await tabs.give_back()
        for context in browser.contexts:
            if tabs is None or not tabs.keeps(context):
                await context.close()
