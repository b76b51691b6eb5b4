"""Saving and restoring a world, so a playground restart keeps its server, users and public messages.

The bot keeps its games in its own database and edits the game messages by id after a restart; those messages
(and the channel, user and application ids they refer to) must therefore still exist in the new fakediscord.
Ephemeral replies, "thinking" placeholders and interactions are not saved: a Discord client loses them on
reload too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from fakediscord import components as comps
from fakediscord.errors import shown
from fakediscord.messages import Message
from fakediscord.models import DISCORD_LOCALES, MAX_NAME
from fakediscord.state import World
from fakediscord.validation import invalid_text

FORMAT = 1
#: What :func:`dump_world` always writes; ``commands`` is missing from worlds saved before they were kept.
REQUIRED = ("application_id", "users", "guilds", "messages")


class DamagedWorld(ValueError):
    """A saved world that cannot be restored; the message says what is wrong, the caller names the file."""


@dataclass(frozen=True)
class Kind:
    """What a saved field holds, named as the error refusing another value names it (``"is not a snowflake"``)."""

    name: str
    accepts: Callable[[object], bool]


def _is_snowflake(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_permissions(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_snowflake_text(value: object) -> bool:
    """An id as Discord's JSON writes one (digits in a string), or as a number."""
    return _is_snowflake(value) or (isinstance(value, str) and value.isascii() and value.isdigit())


SNOWFLAKE = Kind("a snowflake", _is_snowflake)
SNOWFLAKE_OR_NULL = Kind("a snowflake or null", lambda value: value is None or _is_snowflake(value))
SNOWFLAKE_TEXT = Kind("a snowflake", _is_snowflake_text)
TEXT = Kind("text", lambda value: isinstance(value, str))
TEXT_OR_NULL = Kind("text or null", lambda value: value is None or isinstance(value, str))
LOCALE = Kind(
    "a Discord locale (en-US, de, hu, pl, …)", lambda value: isinstance(value, str) and value in DISCORD_LOCALES
)
PERMISSIONS = Kind("a permission bit set (a whole number from 0) or null", _is_permissions)
COUNT = Kind("a whole number from 0", _is_count)
FLAG = Kind("true or false", lambda value: isinstance(value, bool))
LIST = Kind("a list", lambda value: isinstance(value, list))
LIST_OR_NULL = Kind("a list or null", lambda value: value is None or isinstance(value, list))
OBJECT = Kind("an object", lambda value: isinstance(value, dict))
OBJECT_OR_NULL = Kind("an object or null", lambda value: value is None or isinstance(value, dict))
#: The fields :func:`dump_world` writes for each user, guild, channel and message. :func:`check_saved` refuses any
#: other value there, as the entry's field: restored as it is, a permission ``"all"`` ended the bot at its first
#: sight of the user's role, a name ``null`` failed only when the guild was built, blamed on the guild, and a
#: message's flags ``"x"`` failed every save after the restart.
USER = {"id": SNOWFLAKE, "name": TEXT, "locale": LOCALE, "permissions": PERMISSIONS}
GUILD = {"id": SNOWFLAKE, "name": TEXT, "locale": LOCALE, "owner_id": SNOWFLAKE, "channels": LIST}
CHANNEL = {"id": SNOWFLAKE, "name": TEXT, "topic": TEXT_OR_NULL}
MESSAGE = {
    "id": SNOWFLAKE,
    "channel_id": SNOWFLAKE,
    "author_id": SNOWFLAKE,
    "content": TEXT,
    "embeds": LIST,
    "components": LIST,
    "flags": COUNT,
    "type": COUNT,
    "webhook_id": SNOWFLAKE_OR_NULL,
    "application_id": SNOWFLAKE_OR_NULL,
    "interaction_metadata": OBJECT_OR_NULL,
    "timestamp": TEXT,
    "edited_timestamp": TEXT_OR_NULL,
    "edits": COUNT,
}
#: Missing from worlds saved before guilds kept their owner; :func:`restore_world` gives such a guild this run's.
OPTIONAL = frozenset({"owner_id"})
#: What the fake's own code reads of a saved embed (``Message.text``) and of a saved component (``components.walk``,
#: ``Button``/``Select.from_payload``), each field checked when present, as those read it with a default.
EMBED = {"title": TEXT_OR_NULL, "description": TEXT_OR_NULL, "fields": LIST_OR_NULL}
EMBED_FIELD = {"name": TEXT_OR_NULL, "value": TEXT_OR_NULL}
EMBED_PARTS = {"author": "name", "footer": "text"}
COMPONENT = {
    "id": COUNT,
    "components": LIST_OR_NULL,
    "accessory": OBJECT_OR_NULL,
    "component": OBJECT_OR_NULL,
    "label": TEXT_OR_NULL,
    "disabled": FLAG,
}
BUTTON = {"style": COUNT, "custom_id": TEXT_OR_NULL, "url": TEXT_OR_NULL, "emoji": OBJECT_OR_NULL}
SELECT = {
    "custom_id": TEXT,
    "placeholder": TEXT_OR_NULL,
    "options": LIST_OR_NULL,
    "min_values": COUNT,
    "max_values": COUNT,
}
SELECT_OPTION = {"label": TEXT, "value": TEXT, "description": TEXT_OR_NULL, "default": FLAG}


def dump_world(world: World) -> dict[str, Any]:
    """The world as JSON-ready data: guilds with their channels, users and every public message."""
    return {
        "format": FORMAT,
        "application_id": world.application_id,
        "users": [
            {"id": u.id, "name": u.name, "locale": u.locale, "permissions": u.permissions}
            for u in world.users.values()
            if not u.bot
        ],
        "guilds": [
            {
                "id": g.id,
                "name": g.name,
                "locale": g.locale,
                "owner_id": g.owner_id,
                "channels": [{"id": c.id, "name": c.name, "topic": c.topic} for c in g.channels],
            }
            for g in world.guilds.values()
        ],
        "messages": [_dump_message(m) for m in world.messages.values() if _kept(m)],
        # Discord keeps an application's synced commands between its runs; a bot that finds them unchanged does
        # not sync again, so the world keeps them too.
        "commands": [{"guild_id": scope, "commands": commands} for scope, commands in world.commands.scopes().items()],
    }


def restore_world(world: World, data: dict[str, Any]) -> None:
    """Rebuild what :func:`dump_world` saved, as :func:`load_world` read and checked it, into an empty world (before
    the bot connects); raise :class:`DamagedWorld` naming the first entry that is missing something or holds the
    wrong kind of value."""
    with _entry("users"):
        for index, user in enumerate(data["users"]):
            with _entry(f"users[{index}]"):
                world.add_user(user["name"], permissions=user["permissions"], locale=user["locale"], id=user["id"])
    with _entry("commands"):
        for index, scope in enumerate(data.get("commands", [])):
            with _entry(f"commands[{index}]"):
                world.commands.restore(scope["guild_id"], scope["commands"])
    with _entry("guilds"):
        for index, saved in enumerate(data["guilds"]):
            with _entry(f"guilds[{index}]"):
                _restore_guild(world, saved)
    with _entry("messages"):
        for index, saved in enumerate(data["messages"]):
            with _entry(f"messages[{index}]"):
                _restore_message(world, saved)


def check_saved(data: object) -> None:
    """Raise :class:`DamagedWorld` unless ``data`` is a saved world of this format, its users, guilds, channels and
    messages holding each field as :func:`dump_world` writes it, and holding only valid text (a lone surrogate in a
    user's name, saved by an older playground, would end the bot at that user's first move).

    Also refused, each of which started and went wrong only later: a user's name the page would not accept, two
    entries with one id (the later replaced the earlier, or a channel listed twice could not be reached), a message
    in a channel or by an author the world does not have (quietly dropped, so the bot's board was gone), and embeds
    or components the fake could not read (its page or its saves failed at that message later)."""
    if not isinstance(data, dict):
        raise DamagedWorld("it holds no saved world")
    if data.get("format") != FORMAT:
        raise DamagedWorld(f"its format is {shown(data.get('format'))}; this dicebot reads format {FORMAT}")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise DamagedWorld(f"it has no {missing[0]!r}")
    if not _is_snowflake(data["application_id"]):
        raise DamagedWorld(f"its application_id {shown(data['application_id'])} is not a snowflake")
    _check_entries("users", data["users"], USER)
    _check_entries("guilds", data["guilds"], GUILD)
    if not data["guilds"]:
        # No playground saves a world without its server, and restored as it is the page shows none to play in.
        raise DamagedWorld("guilds is empty (a saved world holds its server)")
    for index, guild in enumerate(data["guilds"]):
        _check_entries(f"guilds[{index}].channels", guild["channels"], CHANNEL)
    _check_entries("messages", data["messages"], MESSAGE)
    _check_names(data["users"])
    _check_ids(data)
    _check_messages(data)
    refused = invalid_text(data)
    if refused is not None:
        raise DamagedWorld(f"{refused} is not valid text (it holds a lone surrogate)")


def _check_entries(where: str, entries: object, fields: Mapping[str, Kind]) -> None:
    """Raise :class:`DamagedWorld` naming the first entry of the list ``entries`` that is no object, lacks one of
    ``fields`` that is not :data:`OPTIONAL`, or holds another kind of value in one, before any of them is restored:
    the world would otherwise be built from it and fail later, or elsewhere."""
    if not isinstance(entries, list):
        raise DamagedWorld(f"{where} {shown(entries)} is not {LIST.name}")
    for index, entry in enumerate(entries):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict):
            raise DamagedWorld(f"{at} {shown(entry)} is not an object")
        for key, kind in fields.items():
            if key not in entry:
                if key in OPTIONAL:
                    continue
                raise DamagedWorld(f"{at} has no {key!r}")
            if not kind.accepts(entry[key]):
                raise DamagedWorld(f"{at}.{key} {shown(entry[key])} is not {kind.name}")


def _check_names(users: list[dict[str, Any]]) -> None:
    """A user's name as the page accepts one: not blank, at most :data:`MAX_NAME` characters."""
    for index, user in enumerate(users):
        name = user["name"]
        if not name.strip():
            raise DamagedWorld(f"users[{index}].name {shown(name)} is empty")
        if len(name) > MAX_NAME:
            raise DamagedWorld(f"users[{index}].name {shown(name)} is longer than {MAX_NAME} characters")


def _check_ids(data: dict[str, Any]) -> None:
    """No two users, guilds, channels or messages with one id, and no user with the bot's: restored, the later
    entry replaced the earlier one (a user, the bot, a message) or could not be reached (a channel)."""
    users = [(f"users[{i}]", user["id"]) for i, user in enumerate(data["users"])]
    for where, known in users:
        if known == data["application_id"]:
            raise DamagedWorld(f"{where} has the id of the bot (application_id {known})")
    channels = [
        (f"guilds[{g}].channels[{c}]", channel["id"])
        for g, guild in enumerate(data["guilds"])
        for c, channel in enumerate(guild["channels"])
    ]
    for entries in (
        users,
        [(f"guilds[{i}]", guild["id"]) for i, guild in enumerate(data["guilds"])],
        channels,
        [(f"messages[{i}]", message["id"]) for i, message in enumerate(data["messages"])],
    ):
        seen: dict[int, str] = {}
        for where, known in entries:
            if known in seen:
                raise DamagedWorld(f"{seen[known]} and {where} have the same id {known}")
            seen[known] = where


def _check_messages(data: dict[str, Any]) -> None:
    """Each message in a channel of the world, by one of its users or the bot, with embeds and components the fake
    can read."""
    channels = {channel["id"] for guild in data["guilds"] for channel in guild["channels"]}
    authors = {user["id"] for user in data["users"]} | {data["application_id"]}
    for index, message in enumerate(data["messages"]):
        if message["channel_id"] not in channels:
            raise DamagedWorld(f"message {message['id']} names channel {message['channel_id']}, which does not exist")
        if message["author_id"] not in authors:
            raise DamagedWorld(f"message {message['id']} names author {message['author_id']}, who does not exist")
        at = f"messages[{index}]"
        for number, embed in enumerate(message["embeds"]):
            _check_embed(f"{at}.embeds[{number}]", embed)
        for number, component in enumerate(message["components"]):
            _check_component(f"{at}.components[{number}]", component)
        metadata = message["interaction_metadata"]
        if metadata is not None:
            _check_fields(f"{at}.interaction_metadata", metadata, {"id": SNOWFLAKE_TEXT})


def _check_embed(at: str, embed: object) -> None:
    embed = _object(at, embed)
    _check_fields(at, embed, EMBED)
    for number, field in enumerate(embed.get("fields") or []):
        _check_fields(f"{at}.fields[{number}]", _object(f"{at}.fields[{number}]", field), EMBED_FIELD)
    for part, text in EMBED_PARTS.items():
        _check_fields(at, embed, {part: OBJECT_OR_NULL})
        _check_fields(f"{at}.{part}", embed.get(part) or {}, {text: TEXT_OR_NULL})


def _check_component(at: str, component: object) -> None:
    component = _object(at, component)
    if "type" not in component:
        raise DamagedWorld(f"{at} has no 'type'")
    _check_fields(at, component, {"type": COUNT, **COMPONENT})
    if component["type"] == comps.BUTTON:
        _check_fields(at, component, BUTTON)
    elif component["type"] in comps.SELECT_TYPES:
        _check_fields(at, component, SELECT)
        for number, option in enumerate(component.get("options") or []):
            _check_fields(f"{at}.options[{number}]", _object(f"{at}.options[{number}]", option), SELECT_OPTION)
    for number, child in enumerate(component.get("components") or []):
        _check_component(f"{at}.components[{number}]", child)
    for key in ("accessory", "component"):
        if component.get(key) is not None:
            _check_component(f"{at}.{key}", component[key])


def _object(at: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DamagedWorld(f"{at} {shown(value)} is not {OBJECT.name}")
    return value


def _check_fields(at: str, entry: Mapping[str, Any], fields: Mapping[str, Kind]) -> None:
    """Raise :class:`DamagedWorld` naming the first of ``fields`` that ``entry`` holds with another kind of value
    (a field it lacks is left to the reader's default)."""
    for key, kind in fields.items():
        if key in entry and not kind.accepts(entry[key]):
            raise DamagedWorld(f"{at}.{key} {shown(entry[key])} is not {kind.name}")


@contextmanager
def _entry(where: str) -> Iterator[None]:
    """Turn what a damaged entry raises while it is restored into :class:`DamagedWorld` naming the entry."""
    try:
        yield
    except DamagedWorld:
        raise
    except KeyError as error:
        raise DamagedWorld(f"{where} has no {error.args[0]!r}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise DamagedWorld(f"{where} is not what a saved world holds ({error})") from None


def _restore_guild(world: World, saved: dict[str, Any]) -> None:
    guild = world.add_guild(saved["name"], locale=saved["locale"], id=saved["id"])
    # Kept as saved, even the id of the last run's owner who never acts; a world saved before guilds kept their
    # owner has this run's.
    guild.owner_id = saved.get("owner_id", guild.owner_id)
    for channel in saved["channels"]:
        world.add_channel(guild, channel["name"], topic=channel["topic"], id=channel["id"])


def _restore_message(world: World, saved: dict[str, Any]) -> None:
    channel = world.channels.get(saved["channel_id"])
    author = world.users.get(saved["author_id"])
    if channel is None or author is None:
        return
    message = Message(
        id=world.snowflakes.reuse(saved["id"]),
        channel=channel,
        author=author,
        content=saved["content"],
        embeds=saved["embeds"],
        components=saved["components"],
        flags=saved["flags"],
        type=saved["type"],
        webhook_id=saved["webhook_id"],
        application_id=saved["application_id"],
        interaction_metadata=saved["interaction_metadata"],
        timestamp=saved["timestamp"],
        edited_timestamp=saved["edited_timestamp"],
        edits=saved["edits"],
    )
    world.messages[message.id] = message
    channel.last_message_id = message.id


def save_world(world: World, path: Path) -> None:
    """Write atomically (temporary file, then rename), so a crash mid-write keeps the previous save.

    The playground saves before answering each of the bot's writes, so the encoding is orjson's: the standard
    library's took 40 ms for a world of 1,000 boards (2 MB), orjson 10 ms in all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(orjson.dumps(dump_world(world)))
    os.replace(temporary, path)


def load_world(path: Path) -> dict[str, Any] | None:
    """The saved data, or None when there is no save yet; :class:`DamagedWorld` when it cannot be read back, so
    :func:`restore_world` only meets entries that are damaged one by one."""
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DamagedWorld("it is not UTF-8 text") from None
    except OSError as error:
        raise DamagedWorld(f"it cannot be read ({error.strerror or error})") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise DamagedWorld(f"it is not JSON ({error})") from None
    check_saved(data)
    saved: dict[str, Any] = data
    return saved


def _kept(message: Message) -> bool:
    return not (message.deleted or message.ephemeral or message.loading or message.attachments)


def _dump_message(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "channel_id": message.channel.id,
        "author_id": message.author.id,
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "flags": message.flags,
        "type": message.type,
        "webhook_id": message.webhook_id,
        "application_id": message.application_id,
        "interaction_metadata": message.interaction_metadata,
        "timestamp": message.timestamp,
        "edited_timestamp": message.edited_timestamp,
        "edits": message.edits,
    }
