"""Interactions: the INTERACTION_CREATE payloads Discord sends, and the handle a test holds for each one.

The :class:`InteractionHandle` is also the server's record of the interaction, so what the test reads is what the
REST layer enforces: whether it was acknowledged within the deadline, with which callback type, the original
response and followups, and every error the API answered the bot while handling it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fakediscord.errors import FakeDiscordError, InteractionFailed
from fakediscord.messages import Message
from fakediscord.models import DM, Channel, Guild, Role, User
from fakediscord.waiting import Changes

if TYPE_CHECKING:
    from fakediscord.rest import RecordedRequest

# Interaction types.
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
APPLICATION_COMMAND_AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Interaction callback types.
PONG = 1
CHANNEL_MESSAGE_WITH_SOURCE = 4
DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
MODAL = 9
CALLBACK_NAMES = {
    PONG: "PONG",
    CHANNEL_MESSAGE_WITH_SOURCE: "CHANNEL_MESSAGE_WITH_SOURCE",
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE",
    DEFERRED_UPDATE_MESSAGE: "DEFERRED_UPDATE_MESSAGE",
    UPDATE_MESSAGE: "UPDATE_MESSAGE",
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
    MODAL: "MODAL",
}

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


@dataclass(eq=False)
class InteractionHandle:
    """One user action (slash command, autocomplete, click, select, modal submit) and everything the bot did about it.

    Read-only for tests: ``failed``, ``response_type``, ``original``, ``followups``, ``ephemeral_messages``,
    ``modal``, ``choices`` and ``api_errors``; await :meth:`response`, :meth:`message`, :meth:`followup`,
    :meth:`suggestions` or :meth:`wait_failed` to synchronise with the bot without sleeping.
    """

    id: int
    token: str
    type: int
    user: User
    channel: Channel
    payload: dict[str, Any]
    created_at: float
    deadline: float
    changes: Changes = field(repr=False)
    description: str = ""
    source: Message | None = None
    response_type: int | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    #: The choices an autocomplete was answered with (callback type 8), as the bot sent them.
    choices: list[dict[str, Any]] | None = None
    failure: str | None = None
    requests: list[RecordedRequest] = field(default_factory=list, repr=False)
    _edits_at_ack: int = 0

    @property
    def failed(self) -> bool:
        """True once the user saw "This interaction failed" (no acknowledgement before the deadline)."""
        return self.failure is not None

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        return self.response_type in (DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, DEFERRED_UPDATE_MESSAGE)

    @property
    def messages(self) -> list[Message]:
        """The original response (when the interaction created one) followed by the followups."""
        own = [self.original] if self.original is not None and self.original is not self.source else []
        unique = list(dict.fromkeys(own + self.followups))  # a deferred reply's first followup is the original
        return [m for m in unique if not m.deleted]

    @property
    def ephemeral_messages(self) -> list[Message]:
        """The replies only ``user`` can see."""
        return [m for m in self.messages if m.ephemeral]

    @property
    def api_errors(self) -> list[RecordedRequest]:
        """Requests about this interaction that the API refused (their ``response`` holds Discord's error)."""
        return [r for r in self.requests if r.status >= 400]

    def expire(self, now: float) -> bool:
        """Mark the interaction failed if its acknowledgement deadline passed; True when this call failed it."""
        if self.response_type is None and self.failure is None and now >= self.deadline:
            self.failure = f"not acknowledged within {self.deadline - self.created_at:g}s"
            self.changes.notify()
            return True
        return False

    def acknowledge(self, callback_type: int, original: Message | None) -> None:
        self.response_type = callback_type
        self.original = original
        self._edits_at_ack = original.edits if original is not None else 0
        self.changes.notify()

    async def response(self, timeout: float = 5.0) -> int:
        """Wait for the first callback and return its type; raise :class:`InteractionFailed` if none came in time."""
        await self.changes.wait_for(
            lambda: self.acknowledged or self.failed, timeout, f"a response to {self.description}", self.summary
        )
        self._raise_if_failed()
        assert self.response_type is not None
        return self.response_type

    async def message(self, timeout: float = 5.0) -> Message:
        """The message the user sees as the response, once it is final.

        A reply (type 4) or update (type 7) is final at once; a deferred reply (type 5) when its "thinking"
        placeholder is replaced (edit of ``@original`` or first followup); a deferred update (type 6) when the
        bot edits the message. Raises :class:`InteractionFailed` if the interaction failed.
        """
        found = await self.changes.wait_for(
            lambda: self._final_message() or self.failed,
            timeout,
            f"the response message of {self.description}",
            self.summary,
        )
        self._raise_if_failed()
        assert isinstance(found, Message)
        return found

    async def followup(self, index: int = 0, timeout: float = 5.0) -> Message:
        """The ``index``-th followup message, waiting for it if needed."""
        await self.changes.wait_for(
            lambda: len(self.followups) > index or self.failed,
            timeout,
            f"followup #{index} of {self.description}",
            self.summary,
        )
        self._raise_if_failed()
        return self.followups[index]

    async def suggestions(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """The choices the user sees under the option they type into, once the bot answered the autocomplete.

        Raises :class:`InteractionFailed` if it was not answered in time (Discord shows "Loading options failed")
        and :class:`FakeDiscordError` if it was answered with anything but choices.
        """
        await self.response(timeout)
        if self.choices is None:
            name = CALLBACK_NAMES.get(self.response_type or 0, self.response_type)
            raise FakeDiscordError(f"{self.description} was answered with {name}, not with choices")
        return self.choices

    async def wait_failed(self, timeout: float = 5.0) -> str:
        """Wait until the interaction fails and return why; ``TimeoutError`` if it does not."""
        await self.changes.wait_for(lambda: self.failed, timeout, f"{self.description} to fail", self.summary)
        assert self.failure is not None
        return self.failure

    def summary(self) -> str:
        """A readable state dump used in timeout messages."""
        lines = [f"{self.description}: {'failed (' + self.failure + ')' if self.failure else 'not failed'}"]
        lines.append(f"  response type: {CALLBACK_NAMES.get(self.response_type or 0, self.response_type)}")
        if self.original is not None:
            lines.append(f"  original: {self.original!r}")
        lines += [f"  followup: {m!r}" for m in self.followups]
        lines += [f"  API error: {r.method} {r.path} -> {r.status} {r.response}" for r in self.api_errors]
        return "\n".join(lines)

    def _final_message(self) -> Message | None:
        if self.response_type in (MODAL, PONG, APPLICATION_COMMAND_AUTOCOMPLETE_RESULT):
            raise FakeDiscordError(f"{self.description} was answered with {CALLBACK_NAMES[self.response_type]}")
        original = self.original
        if original is None:
            return None
        if self.response_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE and original.loading:
            return None
        if self.response_type == DEFERRED_UPDATE_MESSAGE and original.edits == self._edits_at_ack:
            return None
        return original

    def _raise_if_failed(self) -> None:
        if self.failure is not None:
            raise InteractionFailed(f"{self.description}: This interaction failed ({self.failure})")


def build_payload(
    *,
    interaction_id: int,
    token: str,
    application_id: int,
    kind: int,
    user: User,
    channel: Channel,
    data: dict[str, Any],
    app_permissions: int,
    message: Message | None = None,
) -> dict[str, Any]:
    """The INTERACTION_CREATE ``d`` object, as Discord builds it for a guild-installed bot."""
    guild = channel.guild
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": kind,
        "data": data,
        "token": token,
        "version": 1,
        "channel_id": str(channel.id),
        "channel": {**channel.payload(), "permissions": str(guild.permissions_of(user) if guild else app_permissions)},
        "app_permissions": str(app_permissions),
        "locale": user.locale,
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if guild is not None:
        payload["guild_id"] = str(guild.id)
        payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
        payload["guild_locale"] = guild.locale
        payload["member"] = guild.member_payload(user, with_permissions=True)
        payload["authorizing_integration_owners"] = {"0": str(guild.id)}
        payload["context"] = 0
    else:
        payload["user"] = user.payload()
        payload["authorizing_integration_owners"] = {"0": "0"}
        payload["context"] = 1 if channel.type == DM and channel.recipient is not None else 2
    if message is not None:
        payload["message"] = message.payload()
    return payload


def resolved_data(guild: Guild | None, invoker: User, entities: list[User | Role | Channel]) -> dict[str, Any]:
    """The ``resolved`` object for user/role/channel option or select values (members too, inside a guild).

    Channel ``permissions`` are the invoking user's, as Discord reports them.
    """
    resolved: dict[str, dict[str, Any]] = {}
    for entity in entities:
        key = str(entity.id)
        if isinstance(entity, User):
            resolved.setdefault("users", {})[key] = entity.payload()
            if guild is not None and entity.id in guild.members:
                member = guild.member_payload(entity, with_user=False, with_permissions=True)
                resolved.setdefault("members", {})[key] = member
        elif isinstance(entity, Role):
            resolved.setdefault("roles", {})[key] = entity.payload()
        else:
            permissions = guild.permissions_of(invoker) if guild else 0
            resolved.setdefault("channels", {})[key] = {**entity.payload(), "permissions": str(permissions)}
    return resolved
