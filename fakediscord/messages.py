"""Live message objects: every edit the bot makes is applied in place, so a test can hold on to one.

A :class:`Message` is what both sides see: the REST layer serialises it for the bot with :meth:`payload`, and
tests read ``content``, ``embeds``, ``components``, ``flags`` and the component helpers directly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakediscord import components as comps
from fakediscord.errors import ComponentNotFound, shown
from fakediscord.models import Channel, User, iso_now

EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15

DEFAULT = 0
CHAT_INPUT_COMMAND = 20

#: A user's mention in a message's text as Discord reads it: ``<@id>``, or ``<@!id>`` as older clients wrote it.
USER_MENTION = re.compile(r"<@!?([0-9]+)>")


def mentioned_ids(content: str, allowed_mentions: dict[str, Any] | None) -> list[int]:
    """The users ``content`` mentions whom Discord pings under ``allowed_mentions``, in order, once each: every
    one without it (Discord's default); with it, all when its ``parse`` holds ``users``, else those it lists."""
    found = list(dict.fromkeys(int(match) for match in USER_MENTION.findall(content)))
    if allowed_mentions is None or "users" in (allowed_mentions.get("parse") or []):
        return found
    listed = {int(user) for user in allowed_mentions.get("users") or []}
    return [user for user in found if user in listed]


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded; ``data`` keeps the bytes so tests can inspect generated images or text."""

    id: int
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    description: str | None = None

    def payload(self) -> dict[str, Any]:
        url = f"https://cdn.fakediscord.invalid/attachments/{self.id}/{self.filename}"
        payload: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            payload["description"] = self.description
        return payload


@dataclass(eq=False)
class Message:
    """A message in a channel. ``visible_to`` is set for ephemeral messages: only that user sees them."""

    id: int
    channel: Channel
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = DEFAULT
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    visible_to: User | None = None
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    tts: bool = False
    edits: int = 0
    #: What the sender let Discord ping (its last ``allowed_mentions``; None: never sent, Discord's default).
    allowed_mentions: dict[str, Any] | None = None
    #: The users the text mentions and ``allowed_mentions`` lets Discord ping, as the payload's ``mentions``.
    mentions: list[User] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred "Bot is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def text(self) -> str:
        """All human-readable text (content, embed titles, descriptions, fields, footers), for assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            parts += [(embed.get("author") or {}).get("name") or ""]
            for f in embed.get("fields") or []:
                parts += [f.get("name") or "", f.get("value") or ""]
            parts += [(embed.get("footer") or {}).get("text") or ""]
        for component in comps.walk(self.components):
            if component.get("type") == 10:  # components v2 text display
                parts.append(component.get("content") or "")
        return "\n".join(p for p in parts if p)

    @property
    def buttons(self) -> list[comps.Button]:
        return comps.buttons(self.components)

    @property
    def selects(self) -> list[comps.Select]:
        return comps.selects(self.components)

    def button(
        self, *, label: str | None = None, custom_id: str | None = None, prefix: str | None = None
    ) -> comps.Button:
        """The button matching every given criterion; raises :class:`ComponentNotFound` listing what exists."""
        found = comps.find_button(self.components, label=label, custom_id=custom_id, prefix=prefix)
        if found is None:
            wanted = {"label": label, "custom_id": custom_id, "prefix": prefix}
            criteria = ", ".join(f"{k}={shown(v)}" for k, v in wanted.items() if v is not None)
            raise ComponentNotFound(
                f"no button with {criteria} on message {self.id}: {comps.describe(self.components)}"
            )
        return found

    def select(self, *, custom_id: str | None = None, prefix: str | None = None) -> comps.Select:
        """The select matching the criteria (the only/first select when none given)."""
        found = comps.find_select(self.components, custom_id=custom_id, prefix=prefix)
        if found is None:
            raise ComponentNotFound(
                f"no select custom_id={shown(custom_id)} prefix={shown(prefix)} on message {self.id}: "
                f"{comps.describe(self.components)}"
            )
        return found

    def is_visible_to(self, user: User) -> bool:
        return not self.deleted and (self.visible_to is None or self.visible_to.id == user.id)

    def payload(self) -> dict[str, Any]:
        """The message object as the REST API and gateway return it."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [user.payload() for user in self.mentions],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.channel.guild_id is not None:
            payload["guild_id"] = str(self.channel.guild_id)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            payload["interaction_metadata"] = self.interaction_metadata
        return payload

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        flags += " loading" if self.loading else ""
        return f"<Message id={self.id} author={self.author.name!r}{flags} text={self.text[:60]!r}>"
