"""The world without sockets: command store semantics and the interaction payloads users produce."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from fakediscord import APIError, InvalidInput, UnknownCommand
from fakediscord import interactions as ix
from fakediscord.commands import Focus
from fakediscord.models import ADMINISTRATOR, ALL_PERMISSIONS, DEFAULT_BOT_PERMISSIONS
from fakediscord.state import Upload, World

pytestmark = pytest.mark.timeout(5)

SUB = {
    "name": "kniffel",
    "description": "Kniffel",
    "options": [
        {
            "name": "admin",
            "description": "admin tools",
            "type": 2,
            "options": [
                {
                    "name": "reset",
                    "description": "reset",
                    "type": 1,
                    "options": [{"name": "player", "description": "who", "type": 6, "required": True}],
                }
            ],
        },
        {"name": "start", "description": "start", "type": 1, "options": []},
    ],
}


#: A command with an option of each kind autocomplete concerns: fixed choices, an integer and a string typed into.
FIND = {
    "name": "find",
    "description": "f",
    "options": [
        {"name": "kind", "description": "k", "type": 3, "required": True, "choices": [{"name": "A", "value": "a"}]},
        {"name": "game", "description": "g", "type": 4, "autocomplete": True},
        {"name": "word", "description": "w", "type": 3, "autocomplete": True, "max_length": 20},
    ],
}


def make_world() -> World:
    return World(
        application_id=None,
        bot_name="dicebot",
        bot_permissions=DEFAULT_BOT_PERMISSIONS,
        interaction_timeout=3.0,
        token_lifetime=900.0,
    )


def test_overwrite_keeps_ids_of_commands_that_stay() -> None:
    world = make_world()
    (first,) = world.commands.overwrite(None, [SUB])
    kept, added = world.commands.overwrite(None, [SUB, {"name": "help", "description": "h"}])
    assert kept["id"] == first["id"]
    assert added["id"] != first["id"]
    assert world.commands.overwrite(None, []) == []
    with pytest.raises(APIError) as caught:
        world.commands.get(None, int(first["id"]))
    assert caught.value.code == 10063


async def test_group_subcommand_options_and_resolved_user() -> None:
    world = make_world()
    guild = world.add_guild("G")
    channel = world.add_channel(guild, "c")
    alice, bob = world.add_user("Alice"), world.add_user("Bob")
    world.commands.overwrite(guild.id, [SUB])
    handle = world.invoke_command(alice, channel, "kniffel admin reset", {"player": bob})
    data = handle.payload["data"]
    assert data["guild_id"] == str(guild.id)
    assert data["options"] == [
        {
            "name": "admin",
            "type": 2,
            "options": [{"name": "reset", "type": 1, "options": [{"name": "player", "type": 6, "value": str(bob.id)}]}],
        }
    ]
    assert data["resolved"]["members"][str(bob.id)]["permissions"]
    payload: dict[str, Any] = handle.payload
    assert payload["member"]["user"]["id"] == str(alice.id)
    assert "user" not in payload
    assert payload["context"] == 0
    assert payload["authorizing_integration_owners"] == {"0": str(guild.id)}
    assert payload["app_permissions"] == str(DEFAULT_BOT_PERMISSIONS)
    with pytest.raises(UnknownCommand, match="needs a subcommand"):
        world.invoke_command(alice, channel, "kniffel admin", {})
    world.cancel_timers()


async def test_member_permissions_gate_commands() -> None:
    world = make_world()
    guild = world.add_guild("G")
    channel = world.add_channel(guild, "c")
    admin = world.add_user("Admin", permissions=ADMINISTRATOR)
    player = world.add_user("Player")
    world.commands.overwrite(None, [{"name": "wipe", "description": "w", "default_member_permissions": "32"}])
    handle = world.invoke_command(admin, channel, "wipe", {})
    assert int(handle.payload["member"]["permissions"]) & 32
    with pytest.raises(UnknownCommand, match="lacks"):
        world.invoke_command(player, channel, "wipe", {})
    world.cancel_timers()


async def test_a_guild_s_owner_has_every_permission() -> None:
    world = make_world()
    owner = world.add_user("Owner")
    member = world.add_user("Member")
    guild = world.add_guild("G", owner=owner)
    channel = world.add_channel(guild, "c")
    world.commands.overwrite(None, [{"name": "wipe", "description": "w", "default_member_permissions": "32"}])
    handle = world.invoke_command(owner, channel, "wipe", {})
    assert int(handle.payload["member"]["permissions"]) == ALL_PERMISSIONS
    assert guild.payload()["owner_id"] == str(owner.id)
    with pytest.raises(UnknownCommand, match="Member lacks"):
        world.invoke_command(member, channel, "wipe", {})
    world.cancel_timers()


#: A command with German names for itself, its subcommand and an option, as the bot's translator syncs them.
LOCALIZED = {
    "name": "kniffel",
    "description": "Kniffel",
    "name_localizations": {"de": "kniffel-de"},
    "options": [
        {
            "name": "start",
            "description": "start",
            "type": 1,
            "name_localizations": {"de": "beginnen"},
            "options": [
                {"name": "rules", "description": "r", "type": 3, "name_localizations": {"de": "regeln"}},
            ],
        },
    ],
}


async def test_a_command_typed_by_its_localized_names_carries_the_base_names() -> None:
    """A user whose client shows German names types them; Discord sends the bot the command's own names."""
    world = make_world()
    guild = world.add_guild("G")
    channel = world.add_channel(guild, "c")
    german = world.add_user("Greta", locale="de")
    english = world.add_user("Emma")
    world.commands.overwrite(None, [LOCALIZED])
    for user, path, option in ((german, "kniffel-de beginnen", "regeln"), (german, "kniffel start", "rules")):
        data = world.invoke_command(user, channel, path, {option: "classic"}).payload["data"]
        assert data["name"] == "kniffel"
        assert data["options"] == [
            {"name": "start", "type": 1, "options": [{"name": "rules", "type": 3, "value": "classic"}]}
        ]
    with pytest.raises(UnknownCommand, match="kniffel-de"):
        world.invoke_command(english, channel, "kniffel-de beginnen", {})
    world.cancel_timers()


async def test_dm_invocation_carries_the_user() -> None:
    world = make_world()
    alice = world.add_user("Alice")
    world.commands.overwrite(None, [{"name": "help", "description": "h"}])
    handle = world.invoke_command(alice, world.dm_channel(alice), "help", {})
    assert handle.payload["user"]["id"] == str(alice.id)
    assert "member" not in handle.payload
    assert handle.payload["context"] == 1
    assert handle.payload["channel"]["type"] == 1
    world.cancel_timers()


async def test_advancing_the_clock_fails_pending_interactions_and_expires_tokens() -> None:
    world = make_world()
    alice = world.add_user("Alice")
    world.commands.overwrite(None, [{"name": "help", "description": "h"}])
    handle = world.invoke_command(alice, world.dm_channel(alice), "help", {})
    world.advance_time(3.5)
    assert handle.failed
    with pytest.raises(APIError) as caught:
        world.respond(handle, {"type": 4, "data": {"content": "late"}}, [])
    assert caught.value.code == 10062
    world.advance_time(900)
    with pytest.raises(APIError) as caught:
        world.interaction_for_webhook(world.application_id, handle.token)
    assert caught.value.code == 50027
    world.cancel_timers()


def _helping_world() -> tuple[World, Callable[[], ix.InteractionHandle]]:
    """A world with a /help command and a call that has Alice run it in her DMs (one new interaction each)."""
    world = make_world()
    alice = world.add_user("Alice")
    world.commands.overwrite(None, [{"name": "help", "description": "h"}])
    return world, lambda: world.invoke_command(alice, world.dm_channel(alice), "help", {})


def _timer_delays(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delay of every timer the running event loop is asked for from now on."""
    loop = asyncio.get_running_loop()
    delays: list[float] = []
    call_later = loop.call_later

    def recorded(delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        delays.append(delay)
        return call_later(delay, callback, *args)

    monkeypatch.setattr(loop, "call_later", recorded)
    return delays


async def test_pending_interactions_share_one_timer_and_each_fails_at_its_own_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A timer per interaction, pruned at every click, cost bench.load's load generator half its CPU."""
    world, help_command = _helping_world()
    timers = _timer_delays(monkeypatch)
    world.interaction_timeout = 3.0
    late = [help_command() for _ in range(500)]
    assert len(timers) == 1
    world.interaction_timeout = 0.05
    soon = help_command()
    assert len(timers) == 2, "an earlier deadline re-arms the timer"
    await world.changes.wait_for(lambda: soon.failed, 5, "the short interaction to fail on its timer")
    assert not any(handle.failed for handle in late)
    world.advance_time(3)
    assert all(handle.failed for handle in late)
    world.cancel_timers()


async def test_an_interaction_dropped_from_the_table_does_not_stop_the_others_expiring() -> None:
    """bench/measure.py drops the interactions it saw answered; expiry must skip them, not raise."""
    world, help_command = _helping_world()
    world.interaction_timeout = 0.01
    dropped = help_command()
    kept = help_command()
    del world.interactions[dropped.id]
    world.advance_time(1)
    assert kept.failed and not dropped.failed
    world.cancel_timers()


async def test_advancing_the_clock_short_of_a_deadline_moves_the_timer_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timer was set on the clock before the jump; left alone it would fire as late as the jump was long."""
    world, help_command = _helping_world()
    delays = _timer_delays(monkeypatch)
    world.interaction_timeout = 1.0
    handle = help_command()
    world.advance_time(0.9)
    assert len(delays) == 2 and delays[-1] <= 0.1, delays
    await world.changes.wait_for(lambda: handle.failed, 5, "the interaction to fail at its deadline")
    world.cancel_timers()


def test_a_world_used_from_a_second_event_loop_still_expires_interactions() -> None:
    """A timer of a finished loop never fires; it must not keep a new loop from getting one."""
    world, help_command = _helping_world()

    async def first() -> None:
        world.interaction_timeout = 0.2
        help_command()

    async def second() -> bool:
        world.interaction_timeout = 0.3
        handle = help_command()
        return await world.changes.wait_for(lambda: handle.failed, 5, "the interaction to fail on the new loop")

    asyncio.run(first())
    assert asyncio.run(second())
    world.cancel_timers()


async def test_edits_keep_listed_attachments_and_add_new_files() -> None:
    world = make_world()
    guild = world.add_guild("G")
    channel = world.add_channel(guild, "c")
    first = Upload("a.txt", b"a")
    message = world.create_message(channel, world.bot, {"content": "x", "attachments": [{"id": 0}]}, [first])
    (kept,) = message.attachments
    listed = [{"id": str(kept.id), "filename": "a.txt"}, {"id": 0, "filename": "b.txt"}]
    world.edit_message(message, {"attachments": listed}, [Upload("b.txt", b"b")])
    assert [(a.filename, a.data) for a in message.attachments] == [("a.txt", b"a"), ("b.txt", b"b")]
    world.edit_message(message, {"attachments": []})
    assert message.attachments == []


async def test_an_autocomplete_sends_the_text_typed_so_far_and_takes_only_choices() -> None:
    world = make_world()
    guild = world.add_guild("G")
    channel = world.add_channel(guild, "c")
    alice = world.add_user("Alice")
    world.commands.overwrite(None, [FIND])
    typing = world.autocomplete(alice, channel, "find", Focus("game", "12"), {})  # the required kind not yet filled
    assert typing.type == ix.APPLICATION_COMMAND_AUTOCOMPLETE
    assert typing.payload["data"]["options"] == [{"name": "game", "type": 4, "value": "12", "focused": True}]
    filled = world.autocomplete(alice, channel, "find", Focus("word", ""), {"kind": "a", "game": 3})
    assert filled.payload["data"]["options"] == [
        {"name": "kind", "type": 3, "value": "a"},
        {"name": "game", "type": 4, "value": 3},
        {"name": "word", "type": 3, "value": "", "focused": True},
    ]
    for focus, values, refused in (
        (Focus("kind", "a"), {}, "has no autocomplete"),
        (Focus("nope", ""), {}, "has no option 'nope'"),
        (Focus("game", "1"), {"game": 1}, "being typed into"),
        (Focus("word", ""), {"kind": "b"}, "must be one of"),
    ):
        with pytest.raises(InvalidInput, match=refused):
            world.autocomplete(alice, channel, "find", focus, values)

    with pytest.raises(APIError) as caught:  # suggestions only: no message, no modal
        world.respond(typing, {"type": 4, "data": {"content": "12?"}}, [])
    assert caught.value.code == 50035 and "type" in (caught.value.errors or {})
    assert not typing.acknowledged
    choices = [{"name": "#12 · yesterday", "value": 12}, {"name": "#123", "value": 123}]
    world.respond(typing, {"type": 8, "data": {"choices": choices}}, [])
    assert await typing.suggestions() == choices
    assert typing.response_type == 8 and typing.original is None
    with pytest.raises(APIError) as caught:
        world.respond(typing, {"type": 8, "data": {"choices": []}}, [])
    assert caught.value.code == 40060

    command = world.invoke_command(alice, channel, "find", {"kind": "a"})
    with pytest.raises(APIError) as caught:  # choices answer an autocomplete only
        world.respond(command, {"type": 8, "data": {"choices": []}}, [])
    assert caught.value.code == 50035
    world.cancel_timers()


BAD_LENGTH = "BASE_TYPE_BAD_LENGTH"
NO_GERMAN_NAME = {"name": "ok", "value": 1, "name_localizations": {"de": ""}}


@pytest.mark.parametrize(
    ("focus", "choices", "where", "code"),
    [
        ("game", [{"name": f"#{i}", "value": i} for i in range(26)], "choices", "BASE_TYPE_MAX_LENGTH"),
        ("game", [{"name": "", "value": 1}], "choices.0.name", BAD_LENGTH),
        ("game", [{"name": "ok", "value": 1}, {"name": "x" * 101, "value": 2}], "choices.1.name", BAD_LENGTH),
        ("game", [NO_GERMAN_NAME], "choices.0.name_localizations.de", BAD_LENGTH),
        ("game", [{"name": "ok"}], "choices.0.value", "BASE_TYPE_REQUIRED"),
        ("game", [{"name": "ok", "value": "12"}], "choices.0.value", "NUMBER_TYPE_COERCE"),
        ("game", [{"name": "ok", "value": 1.5}], "choices.0.value", "NUMBER_TYPE_COERCE"),
        ("game", [{"name": "ok", "value": True}], "choices.0.value", "NUMBER_TYPE_COERCE"),
        ("game", [{"name": "ok", "value": 2**53 + 1}], "choices.0.value", "NUMBER_TYPE_MAX"),
        ("game", [{"name": "ok", "value": -(2**53) - 1}], "choices.0.value", "NUMBER_TYPE_MIN"),
        ("word", [{"name": "ok", "value": 5}], "choices.0.value", "STRING_TYPE_CONVERT"),
        ("word", [{"name": "ok", "value": "x" * 101}], "choices.0.value", "BASE_TYPE_MAX_LENGTH"),
        ("word", None, "choices", "BASE_TYPE_REQUIRED"),
    ],
)  # fmt: skip
async def test_autocomplete_choices_break_no_limit_of_discord(
    focus: str, choices: list[dict[str, Any]] | None, where: str, code: str
) -> None:
    """At most 25 choices, named 1..100, each value of the focused option's type (text of at most 100, an integer
    for an integer option), within ±2^53; a refused answer leaves the interaction to be answered again."""
    world = make_world()
    channel = world.add_channel(world.add_guild("G"), "c")
    alice = world.add_user("Alice")
    world.commands.overwrite(None, [FIND])
    typing = world.autocomplete(alice, channel, "find", Focus(focus, ""), {})
    with pytest.raises(APIError) as caught:
        world.respond(typing, {"type": 8, "data": {} if choices is None else {"choices": choices}}, [])
    assert caught.value.code == 50035
    node = (caught.value.errors or {})["data"]
    for key in where.split("."):
        node = node[key]
    assert [error["code"] for error in node["_errors"]] == [code]
    assert not typing.acknowledged
    fitting = [{"name": "x" * 100, "value": 2**53 if focus == "game" else "y" * 100}] * 25
    world.respond(typing, {"type": 8, "data": {"choices": fitting}}, [])
    assert await typing.suggestions() == fitting
    world.cancel_timers()


async def test_a_message_mentions_the_users_its_text_names_that_its_allowed_mentions_let_discord_ping() -> None:
    world = make_world()
    channel = world.add_channel(world.add_guild("G"), "c")
    alice, bob = world.add_user("Alice"), world.add_user("Bob")
    text = f"<@{alice.id}> <@!{bob.id}> <@{alice.id}> <@1> <@&{bob.id}> <#{bob.id}> @everyone"
    message = world.create_message(channel, world.bot, {"content": text})
    assert message.mentions == [alice, bob]  # no allowed_mentions: Discord parses every kind
    assert [user["id"] for user in message.payload()["mentions"]] == [str(alice.id), str(bob.id)]
    world.edit_message(message, {"allowed_mentions": {"parse": []}})
    assert message.mentions == []
    world.edit_message(message, {"allowed_mentions": {"parse": [], "users": [str(bob.id)]}})
    assert message.mentions == [bob]
    world.edit_message(message, {"content": f"<@\u200b{bob.id}>", "allowed_mentions": {"parse": ["users"]}})
    assert message.mentions == []
