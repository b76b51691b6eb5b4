"""Users, guilds, roles and channels of the fake world, and their Discord JSON payloads.

The objects are plain mutable dataclasses owned by :class:`fakediscord.state.World`; tests receive them from
``server.add_user()`` and friends and pass them back in (``server.slash(alice, channel, ...)``). Payload methods
build exactly the fields discord.py 2.7 reads, so the unmodified client can parse them.
"""

from __future__ import annotations

import datetime
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000

# Permission bits used to build sensible defaults (https://discord.com/developers/docs/topics/permissions).
CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
ALL_PERMISSIONS = (1 << 51) - 1

#: What ``@everyone`` may do in a fresh guild: read, write, react and use application commands.
DEFAULT_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
)
#: The bot's managed role: the defaults plus managing messages, what a game bot is usually invited with.
DEFAULT_BOT_PERMISSIONS = DEFAULT_PERMISSIONS | MANAGE_MESSAGES

#: A user's name as the playground's page accepts one (Discord's display names have at most 32 characters too).
MAX_NAME = 32
#: Locales a Discord client can be set to (https://discord.com/developers/docs/reference#locales).
DISCORD_LOCALES = frozenset(
    {
        *("id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl"),
        *("pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja"),
        *("zh-TW", "ko"),
    }
)

# Channel types.
GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11


class Snowflakes:
    """Generates Discord-style ids: time-based and strictly increasing, so ids sort like creation order."""

    def __init__(self) -> None:
        self._last = 0
        self._counter = itertools.count()

    def next(self) -> int:
        stamp = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22 | (next(self._counter) & 0xFFF)
        self._last = max(stamp, self._last + 1)
        return self._last

    def on_shard(self, shard: int, count: int) -> int:
        """A fresh id whose guild Discord would route to ``shard`` of ``count`` (still larger than every id before)."""
        fresh = self.next()
        stamp = fresh >> 22
        stamp += (shard - stamp) % count
        self._last = max(self._last, stamp << 22 | (fresh & 0x3FFFFF))
        return self._last

    def reuse(self, known: int | None) -> int:
        """``known`` (an id restored from a saved world; later ids stay larger), or a fresh id when None."""
        if known is None:
            return self.next()
        self._last = max(self._last, known)
        return known


def iso_now() -> str:
    """The current time in the ISO 8601 form Discord uses for timestamps."""
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass(eq=False)
class User:
    """A Discord account: a player in tests, or the bot itself (``bot=True``).

    ``permissions`` (when given) is granted through a personal role in every guild; ``None`` means the user
    has only what ``@everyone`` has. ``locale`` becomes the interaction's ``locale``.
    """

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    locale: str = "en-US"
    permissions: int | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name.lower().replace(" ", "_"),
            "global_name": self.global_name if self.global_name is not None else self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass(eq=False)
class Role:
    """A guild role; ``@everyone`` has the guild's id, as on Discord."""

    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class Channel:
    """A guild text channel, a public thread in one (``parent`` set), or a DM channel (``guild is None``,
    ``recipient`` set)."""

    id: int
    name: str
    guild: Guild | None = None
    type: int = GUILD_TEXT
    position: int = 0
    topic: str | None = None
    recipient: User | None = None
    last_message_id: int | None = None
    parent: Channel | None = None

    @property
    def guild_id(self) -> int | None:
        return self.guild.id if self.guild is not None else None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        if self.type == DM:
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": _opt_str(self.last_message_id),
                "recipients": [self.recipient.payload()] if self.recipient else [],
                "flags": 0,
            }
        payload: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "topic": self.topic,
            "nsfw": False,
            "parent_id": _opt_str(self.parent.id if self.parent is not None else None),
            "rate_limit_per_user": 0,
            "last_message_id": _opt_str(self.last_message_id),
            "permission_overwrites": [],
            "flags": 0,
        }
        if self.type == PUBLIC_THREAD and self.guild is not None:
            payload["owner_id"] = str(self.guild.owner_id)
            payload["message_count"] = payload["member_count"] = 0
            payload["thread_metadata"] = {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": iso_now(),
                "locked": False,
            }
        return payload


@dataclass(eq=False)
class Guild:
    """A guild with its roles, channels, active threads and members (member ids map to their extra role ids)."""

    id: int
    name: str
    owner_id: int
    locale: str = "en-US"
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    threads: list[Channel] = field(default_factory=list)
    members: dict[int, User] = field(default_factory=dict)
    member_roles: dict[int, list[int]] = field(default_factory=dict)
    joined_at: str = field(default_factory=iso_now)

    @property
    def everyone(self) -> Role:
        return self.roles[0]

    def role(self, role_id: int) -> Role | None:
        return next((r for r in self.roles if r.id == role_id), None)

    def permissions_of(self, user: User) -> int:
        """Guild-level permissions of a member, computed from its roles as Discord does (no overwrites); the
        guild's owner has every permission whatever their roles."""
        if user.id == self.owner_id:
            return ALL_PERMISSIONS
        perms = self.everyone.permissions
        for role_id in self.member_roles.get(user.id, []):
            role = self.role(role_id)
            if role is not None:
                perms |= role.permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def member_payload(self, user: User, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "roles": [str(r) for r in self.member_roles.get(user.id, [])],
            "nick": None,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = user.payload()
        if with_permissions:
            payload["permissions"] = str(self.permissions_of(user))
        return payload

    def payload(self) -> dict[str, Any]:
        """The GUILD_CREATE / GET /guilds/{id} payload, members included (so discord.py needs no chunking)."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "features": [],
            "roles": [r.payload() for r in self.roles],
            "emojis": [],
            "stickers": [],
            "unavailable": False,
            "large": False,
            "joined_at": self.joined_at,
            "member_count": len(self.members),
            "members": [self.member_payload(u) for u in self.members.values()],
            "channels": [c.payload() for c in self.channels],
            "threads": [t.payload() for t in self.threads],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


def _opt_str(value: int | None) -> str | None:
    return None if value is None else str(value)
