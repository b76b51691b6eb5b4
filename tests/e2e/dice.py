"""Playing the five-dice games (Kniffel, dice poker) through the bot's buttons and select, as users would."""

from __future__ import annotations

import copy
import dataclasses
from collections import Counter

from fakediscord import InteractionHandle, Message, User
from tests.e2e.conftest import Harness


def best_option(message: Message) -> str:
    """The Score… option giving the most points (labels read "Name — points ..."), first on a tie."""
    options = message.select().options

    def points(label: str) -> int:
        figure = label.split(" — ")[1].split(" ")[0].replace("−", "-")
        return int(figure) if figure.lstrip("+-").isdigit() else -999

    return max(options, key=lambda option: points(option.label)).value


async def play_turn(harness: Harness, message: Message, chase: bool = True) -> None:
    """Roll; hold the most common face and reroll twice (when ``chase``); score the best option."""
    record = await harness.record()
    assert record is not None
    state = await harness.state(record)
    user = harness.user(state.current_player)
    state_id = record.id
    await harness.click(user, message, "Roll")
    for _ in range(2 if chase else 0):
        state = await harness.state()
        face, _count = Counter(state.dice).most_common(1)[0]
        for index, die in enumerate(state.dice):
            if (die == face) != state.held[index]:
                hold = await harness.server.click_button(user, message, prefix=f"g:{state_id}:hold:{index}.")
                await hold.response()
        state = await harness.state()
        if all(state.held):
            break
        await harness.click(user, message, "Roll" if state.rolls == 0 else f"Roll ({state.rolls + 1}/3)")
    handle = await harness.server.select(user, message, message.select().custom_id, [best_option(message)])
    await handle.response()


async def play_to_end(harness: Harness, message: Message, engine: object, chase: bool = True) -> None:
    for _ in range(200):
        if engine.is_over(await harness.state()):
            return
        await play_turn(harness, message, chase)
    raise AssertionError("the game did not end")


async def forge(h: Harness, message: Message, user: User, value: str, label: str) -> InteractionHandle:
    """A doctored client: the user's copy of the message gets an extra option, which is then picked.

    The custom id and its stamp are the genuine current ones, so only the bot's own rule check can refuse it.
    """
    doctored = dataclasses.replace(message, components=copy.deepcopy(message.components))
    for row in doctored.components:
        for component in row.get("components", []):
            if component.get("type") == 3:
                component["options"].append({"label": label, "value": value})
    return await h.server.select(user, doctored, message.select().custom_id, [value])
