"""Saving and restoring a world, so a playground restart keeps its server, users and public messages.

The bot keeps its games in its own database and edits the game messages by id after a restart; those messages
(and the channel, user and application ids they refer to) must therefore still exist in the new fakediscord.
Ephemeral replies, "thinking" placeholders and interactions are not saved: a Discord client loses them on
reload too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fakediscord.messages import Message
from fakediscord.state import World

FORMAT = 1


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
    """Rebuild what :func:`dump_world` saved into an empty world (before the bot connects)."""
    if data.get("format") != FORMAT:
        raise ValueError(f"unknown world format {data.get('format')!r}")
    for user in data["users"]:
        world.add_user(user["name"], permissions=user["permissions"], locale=user["locale"], id=user["id"])
    for scope in data.get("commands", []):
        world.commands.restore(scope["guild_id"], scope["commands"])
    for saved in data["guilds"]:
        guild = world.add_guild(saved["name"], locale=saved["locale"], id=saved["id"])
        # Kept as saved, even the id of the last run's owner who never acts; a world saved before guilds kept
        # their owner has this run's.
        guild.owner_id = saved.get("owner_id", guild.owner_id)
        for channel in saved["channels"]:
            world.add_channel(guild, channel["name"], topic=channel["topic"], id=channel["id"])
    for saved in data["messages"]:
        channel = world.channels.get(saved["channel_id"])
        author = world.users.get(saved["author_id"])
        if channel is None or author is None:
            continue
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
    """Write atomically (temporary file, then rename), so a crash mid-write keeps the previous save."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(dump_world(world)), encoding="utf-8")
    os.replace(temporary, path)


def load_world(path: Path) -> dict[str, Any] | None:
    """The saved data, or None when there is no save yet."""
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


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
