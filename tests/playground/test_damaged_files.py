"""A damaged world file is one line naming the file and what is wrong in it, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.playground import WORLD_FILE, Playground, WorldUnreadable


def saved_world(tmp_path: Path) -> dict[str, object]:
    """A world as the playground saves it (a real one: users, a guild and its channels, no bot needed)."""
    from fakediscord import FakeDiscord
    from fakediscord.persist import dump_world

    server = FakeDiscord()
    Playground._populate(server)
    return dump_world(server.world)


def with_entry(data: dict[str, object], entries: str, index: int, **fields: object) -> str:
    """The saved world as JSON, with ``fields`` of ``data[entries][index]`` set as a hand edit would set them."""
    changed = [dict(entry) for entry in data[entries]]  # type: ignore[attr-defined]
    changed[index].update(fields)
    return json.dumps({**data, entries: changed})


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda text, data: text[: len(text) // 2], "it is not JSON (Expecting"),
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
    ],
)
async def test_a_damaged_world_file_is_one_line_naming_the_file_and_the_damage(
    tmp_path: Path, damage: object, problem: str
) -> None:
    data = saved_world(tmp_path)
    text = json.dumps(data)
    path = tmp_path / WORLD_FILE
    damaged = damage(text, data)  # type: ignore[operator]
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    playground = Playground(port=0, data_dir=tmp_path)
    with pytest.raises(WorldUnreadable) as refused:
        await playground.start()
    await playground.stop()
    message = str(refused.value)
    assert message.startswith(f"cannot restore the playground's world from {path}: {problem}")
    assert message.endswith("; repair the file, or move it away to start a new world")
    assert "\n" not in message
