"""A damaged world file is one line naming the file and what is wrong in it, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.playground import WORLD_FILE, Playground, WorldUnreadable


def saved_world(tmp_path: Path) -> dict[str, object]:
    """A world as the playground saves it (a real one: users, a guild and its channels, a board the bot posted with
    an embed and a button, a user's message; no bot needed)."""
    from fakediscord import FakeDiscord
    from fakediscord.persist import dump_world

    server = FakeDiscord()
    Playground._populate(server)
    world = server.world
    channel = next(iter(world.guilds.values())).channels[0]
    board = {
        "embeds": [{"title": "Kniffel", "fields": [{"name": "Alice", "value": "0"}], "footer": {"text": "Round 1"}}],
        "components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Roll", "custom_id": "g:1:r::1"}]}],
    }
    world.create_message(channel, world.bot, board)
    world.post_user_message(next(u for u in world.users.values() if not u.bot), channel, "good luck")
    return dump_world(world)


def with_entry(data: dict[str, object], entries: str, index: int, **fields: object) -> str:
    """The saved world as JSON, with ``fields`` of ``data[entries][index]`` set as a hand edit would set them."""
    changed = [dict(entry) for entry in data[entries]]  # type: ignore[attr-defined]
    changed[index].update(fields)
    return json.dumps({**data, entries: changed})


def with_channel(data: dict[str, object], index: int, **fields: object) -> str:
    """The saved world as JSON, with ``fields`` of the first guild's channel ``index`` set."""
    guild = dict(data["guilds"][0])  # type: ignore[index]
    guild["channels"] = [dict(channel) for channel in guild["channels"]]
    guild["channels"][index].update(fields)
    return json.dumps({**data, "guilds": [guild]})


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda text, data: text[: len(text) // 2], "it is not JSON ("),
        (lambda text, data: "[]", "it holds no saved world"),
        (lambda text, data: '{"format": 1}', "it has no 'application_id'"),
        (lambda text, data: '{"format": 2}', "its format is 2; this dicebot reads format 1"),
        (lambda text, data: json.dumps({**data, "application_id": "1"}), "its application_id '1' is not a snowflake"),
        (lambda text, data: json.dumps({**data, "users": [{"id": 1}]}), "users[0] has no 'name'"),
        (lambda text, data: json.dumps({**data, "guilds": 3}), "guilds 3 is not a list"),
        (lambda text, data: json.dumps({**data, "guilds": []}), "guilds is empty (a saved world holds its server)"),
        (lambda text, data: json.dumps({**data, "users": [7]}), "users[0] 7 is not an object"),
        (lambda text, data: with_entry(data, "users", 1, permissions="all"), "users[1].permissions 'all' is not a "),
        (lambda text, data: with_entry(data, "users", 1, permissions=-1), "users[1].permissions -1 is not a "),
        (lambda text, data: with_entry(data, "users", 0, name=None), "users[0].name None is not text"),
        (lambda text, data: with_entry(data, "users", 2, id=True), "users[2].id True is not a snowflake"),
        (lambda text, data: with_entry(data, "guilds", 0, owner_id="1"), "guilds[0].owner_id '1' is not a snowflake"),
        (lambda text, data: with_entry(data, "guilds", 0, channels=[{"id": 5}]), "guilds[0].channels[0] has no 'name'"),
        (
            lambda text, data: with_entry(data, "guilds", 0, channels=[{"id": 5, "name": "general", "topic": 3}]),
            "guilds[0].channels[0].topic 3 is not text or null",
        ),
        (lambda text, data: text.replace('"Bob"', '"B\\ud800b"'), "users[1].name is not valid text"),
        (lambda text, data: b"\xff{}", "it is not UTF-8 text"),
        # Restored as they were, these started and failed later, or quietly lost what they named (QA).
        (lambda text, data: with_entry(data, "users", 1, locale="english"), "users[1].locale 'english' is not a "),
        (lambda text, data: with_entry(data, "guilds", 0, locale="xx"), "guilds[0].locale 'xx' is not a Discord "),
        (lambda text, data: with_entry(data, "users", 1, name=" "), "users[1].name ' ' is empty"),
        (lambda text, data: with_entry(data, "users", 1, name="B" * 33), "users[1].name 'BBB"),
        (
            lambda text, data: with_entry(data, "users", 1, id=data["users"][0]["id"]),
            lambda data: f"users[0] and users[1] have the same id {data['users'][0]['id']}",
        ),
        (
            lambda text, data: with_entry(data, "users", 1, id=data["application_id"]),
            lambda data: f"users[1] has the id of the bot (application_id {data['application_id']})",
        ),
        (
            lambda text, data: with_channel(data, 1, id=data["guilds"][0]["channels"][0]["id"]),
            lambda data: (
                f"guilds[0].channels[0] and guilds[0].channels[1] have the same id "
                f"{data['guilds'][0]['channels'][0]['id']}"
            ),
        ),
        (
            lambda text, data: with_entry(data, "messages", 1, id=data["messages"][0]["id"]),
            lambda data: f"messages[0] and messages[1] have the same id {data['messages'][0]['id']}",
        ),
        (
            lambda text, data: with_entry(data, "messages", 0, id=123, channel_id=9),
            "message 123 names channel 9, which does not exist",
        ),
        (
            lambda text, data: with_entry(data, "messages", 1, id=123, author_id=7),
            "message 123 names author 7, who does not exist",
        ),
        (lambda text, data: with_entry(data, "messages", 0, flags="x"), "messages[0].flags 'x' is not a whole number"),
        (lambda text, data: with_entry(data, "messages", 0, embeds=["Kniffel"]), "messages[0].embeds[0] 'Kniffel' is "),
        (
            lambda text, data: with_entry(data, "messages", 0, embeds=[{"title": 5}]),
            "messages[0].embeds[0].title 5 is not text or null",
        ),
        (
            lambda text, data: with_entry(data, "messages", 0, embeds=[{"fields": [{"name": "a", "value": ["b"]}]}]),
            "messages[0].embeds[0].fields[0].value ['b'] is not text or null",
        ),
        (
            lambda text, data: with_entry(data, "messages", 0, components=[{"type": 1, "components": "roll"}]),
            "messages[0].components[0].components 'roll' is not a list or null",
        ),
        (
            lambda text, data: with_entry(
                data, "messages", 0, components=[{"type": 1, "components": [{"type": 2, "style": "big", "label": "R"}]}]
            ),
            "messages[0].components[0].components[0].style 'big' is not a whole number",
        ),
        (
            lambda text, data: with_entry(data, "messages", 0, components=[{"type": 3, "custom_id": None}]),
            "messages[0].components[0].custom_id None is not text",
        ),
        (
            lambda text, data: with_entry(data, "messages", 0, interaction_metadata={"id": "abc", "type": 2}),
            "messages[0].interaction_metadata.id 'abc' is not a snowflake",
        ),
    ],
)
async def test_a_damaged_world_file_is_one_line_naming_the_file_and_the_damage(
    tmp_path: Path, damage: object, problem: str | Callable[[dict[str, object]], str]
) -> None:
    data = saved_world(tmp_path)
    text = json.dumps(data)
    path = tmp_path / WORLD_FILE
    damaged = damage(text, data)  # type: ignore[operator]
    if callable(problem):
        problem = problem(data)
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    playground = Playground(port=0, data_dir=tmp_path)
    with pytest.raises(WorldUnreadable) as refused:
        await playground.start()
    await playground.stop()
    message = str(refused.value)
    assert message.startswith(f"cannot restore the playground's world from {path}: {problem}")
    assert message.endswith("; repair the file, or move it away to start a new world")
    assert "\n" not in message
