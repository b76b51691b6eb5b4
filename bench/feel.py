"""Play feel: clicks and channel messages of a scripted 2-player Kniffel and Knister game, and where the board is.

Run: ``.venv/bin/python -m bench.feel``. The same script measures an older checkout when that checkout comes
first on the path (``git archive <commit> | tar -x -C /tmp/before && PYTHONPATH=/tmp/before .venv/bin/python
-m bench.feel``): it uses only what the bot and its test harness offered before the live board.

Each game is played through fakediscord by the real bot with seeded dice (the same games on every run): Kniffel
rolls once and scores the best box, Knister places each number where it adds most. Two channels are measured:
a quiet one, and a chatty one where a spectator posts one message in every turn (after its first action). After
every action (a click, or a select) the bot is let to finish and the channel is read:

- clicks: the players' clicks and selects, plus the one command that opened the lobby;
- bot messages: public messages the bot posted in the channel (the spectator's are not counted);
- buried: actions after which the message with the game's controls was not among the channel's last three;
- deepest: the most messages that were ever below it.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bot.engine import kniffel
from bot.engine import knister as kn
from fakediscord import FakeDiscord, Message
from tests.e2e.conftest import TOKEN, Harness
from tests.e2e.dice import best_option

LAST = 3


@dataclass
class Count:
    game: str
    channel: str
    clicks: int = 0
    actions: int = 0
    buried: int = 0
    deepest: int = 0
    bot_messages: int = 0


async def board(h: Harness) -> Message:
    """The game's message with live controls, as the database names it."""
    record = await h.record()
    assert record is not None
    assert record.message_id is not None
    return next(m for m in h.server.channel_messages(h.channel) if m.id == record.message_id)


async def after_action(h: Harness, count: Count) -> Message:
    assert h.bot is not None
    await h.bot.service.drain(10)
    count.actions += 1
    live = await board(h)
    messages = h.server.channel_messages(h.channel)
    below = len(messages) - 1 - messages.index(live)
    count.deepest = max(count.deepest, below)
    count.buried += below >= LAST
    return live


async def chat(h: Harness, count: Count, chatty: bool) -> None:
    if chatty:
        await h.server.post_message(h.users[2], h.channel, f"spectator {count.actions}")


async def play_kniffel(h: Harness, count: Count, chatty: bool) -> None:
    while not kniffel.is_over(await h.state()):
        live = await board(h)
        user = h.user((await h.state()).current_player)
        await h.click(user, live, "Roll")
        count.clicks += 1
        live = await after_action(h, count)
        await chat(h, count, chatty)
        await (await h.server.select(user, live, live.select().custom_id, [best_option(live)])).response()
        count.clicks += 1
        await after_action(h, count)


async def play_knister(h: Harness, count: Count, chatty: bool) -> None:
    game_id = (await h.record()).id  # type: ignore[union-attr]
    while not kn.is_over(await h.state()):
        state = await h.state()
        await h.click(h.user(state.roller), await board(h), "Roll")
        count.clicks += 1
        await after_action(h, count)
        await chat(h, count, chatty)
        for user in h.users[:2]:
            state = await h.state()
            assert state.number is not None
            grid = await (await h.server.click_button(user, await board(h), prefix=f"g:{game_id}:grid:")).message()
            cell = kn.best_cell(state.grids[str(user.id)], state.number)
            button = grid.button(prefix=f"g:{game_id}:place:{cell}:")
            await (await h.server.click(user, grid, button.custom_id)).message()
            count.clicks += 2
            await after_action(h, count)


async def measure(game: str, chatty: bool, folder: Path) -> Count:
    count = Count(game, "chatty" if chatty else "quiet")
    async with FakeDiscord(token=TOKEN) as server:
        guild = server.add_guild("Dice Club")
        channel = server.add_channel(guild, "games")
        users = [server.add_user(name) for name in ("Alice", "Bob", "Spectator")]
        h = Harness(server, guild, channel, users, folder / f"{game}-{count.channel}.sqlite3")
        try:
            await h.start_bot(("cogs.help", f"cogs.{game}"))
            lobby = await h.open_lobby(game, h.alice)
            await h.click(h.bob, lobby, "Join")
            await h.click(h.alice, lobby, "Start")
            count.clicks += 3
            await after_action(h, count)
            await (play_kniffel if game == "kniffel" else play_knister)(h, count, chatty)
            count.bot_messages = sum(
                1 for m in server.channel_messages(channel) if m.author is server.world.bot and not m.ephemeral
            )
        finally:
            await h.stop_bot()
    return count


async def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print(f"# {platform.node()} · Python {platform.python_version()} · {platform.machine()}")
    print("| game | channel | clicks (+1 command) | actions | bot messages | buried after (of actions) | deepest |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for game in ("kniffel", "knister"):
            for chatty in (False, True):
                c = await measure(game, chatty, Path(folder))
                print(
                    f"| {c.game} | {c.channel} | {c.clicks - 1} | {c.actions} | {c.bot_messages} "
                    f"| {c.buried} of {c.actions} | {c.deepest} |"
                )


if __name__ == "__main__":
    asyncio.run(main())
