"""Time from a click in the playground page to the updated message on screen (p50/p95), in Debian's Chromium.

Starts the playground in this process (fakediscord with its page, the real bot, a temporary data folder), opens
the page in headless Chromium as Alice, starts a solo Kniffel game and rolls once. Then it clicks a die again and
again (holding and releasing it; each click is a full round trip: interaction over the gateway, the bot's answer,
the edited message pushed over the page's WebSocket and rendered). The time is measured inside the page, from
the click to the first animation frame after the message's DOM node changed.

    .venv/bin/python bench/playground.py            # --clicks N (default 200), --warmup N (default 20)
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright, expect

from bot.playground import Playground

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Clicks the first die of the message and resolves with the milliseconds until the message node was replaced
#: and the next frame was drawn.
CLICK_AND_WAIT = """
async (messageId) => {
  const list = document.getElementById("messages");
  const find = () => list.querySelector(`li[data-message-id="${messageId}"]`);
  const before = find();
  const die = before.querySelector(".action-row button");
  const start = performance.now();
  const changed = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      const now = find();
      if (now && now !== before) { observer.disconnect(); resolve(); }
    });
    observer.observe(list, { childList: true, subtree: true });
  });
  die.click();
  await changed;
  await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  return performance.now() - start;
}
"""


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(clicks: int, warmup: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        playground = Playground(port=0, data_dir=Path(folder))
        await playground.start()
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = await browser.new_page(viewport={"width": 1280, "height": 860})
                assert playground.server is not None
                world = playground.server.world
                alice = next(u for u in world.users.values() if u.name == "Alice")
                channel = next(c for c in world.channels.values() if c.name == "kniffel")
                await page.goto(f"{playground.url}?as={alice.id}&channel={channel.id}")
                await page.locator("#composer-input").fill("/kniffel start")
                await page.locator("#composer-input").press("Enter")
                game = page.locator("#messages > li.message").filter(has_text="Kniffel").last
                await expect(game.get_by_role("button", name="Start", exact=True)).to_be_visible()
                message_id = await game.get_attribute("data-message-id")
                game = page.locator(f'li.message[data-message-id="{message_id}"]')
                await expect(game.get_by_role("button", name="Start", exact=True)).to_be_enabled()
                await wait_saved(playground)
                await game.get_by_role("button", name="Start", exact=True).click()
                await game.get_by_role("button", name="Roll", exact=True).click()
                await expect(game.get_by_role("button", name="Roll (2/3)")).to_be_visible()
                samples = []
                for _ in range(warmup + clicks):
                    samples.append(await page.evaluate(CLICK_AND_WAIT, message_id))
                await browser.close()
                return samples[warmup:]
        finally:
            await playground.stop()


async def wait_saved(playground: Playground) -> None:
    """The lobby answer comes before the bot stores the message id; Start is clicked only after that."""
    assert playground.bot is not None
    for _ in range(500):
        row = await playground.bot.db.fetch_one("SELECT message_id FROM games ORDER BY id DESC LIMIT 1")
        if row is not None and row[0] is not None:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the lobby was never saved")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    samples = asyncio.run(measure(args.clicks, args.warmup))
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"clicks measured: {len(samples)} (after {args.warmup} warm-up clicks)")
    print(f"p50  {percentile(samples, 0.50):7.1f} ms")
    print(f"p95  {percentile(samples, 0.95):7.1f} ms")
    print(f"max  {max(samples):7.1f} ms")
    print(f"mean {statistics.fmean(samples):7.1f} ms")


if __name__ == "__main__":
    main()
