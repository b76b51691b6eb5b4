"""The fake world and Discord's rules, independent of HTTP and websockets.

:class:`World` owns users, guilds, channels, messages, commands and interactions, and implements what Discord
does with them: creating and editing messages, acknowledging interactions within their deadline, expiring
interaction tokens, hiding ephemeral messages. The REST and gateway layers only translate to and from the wire;
everything they change goes through here and is announced to the bot with :attr:`World.emit`.
"""

from __future__ import annotations

import asyncio
import heapq
import marshal
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakediscord import components as comps
from fakediscord import interactions as ix
from fakediscord.commands import CommandStore, Focus, Invocation, permitted
from fakediscord.errors import APIError, ComponentNotFound, InvalidInput, UnknownCommand, shown
from fakediscord.messages import (
    CHAT_INPUT_COMMAND,
    DEFAULT,
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    Attachment,
    Message,
    mentioned_ids,
)
from fakediscord.models import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_PERMISSIONS,
    DM,
    PUBLIC_THREAD,
    Channel,
    Guild,
    Role,
    Snowflakes,
    User,
    iso_now,
)
from fakediscord.validation import check_autocomplete, check_message, check_modal
from fakediscord.waiting import Changes

# Gateway intents an event needs (https://discord.com/developers/docs/events/gateway#gateway-intents).
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12
NO_INTENT = 0

#: Message flags a bot may set or clear when editing (the rest, like EPHEMERAL, are fixed at creation).
EDITABLE_FLAGS = 1 << 2 | 1 << 12 | IS_COMPONENTS_V2
Emitter = Callable[[str, dict[str, Any], int], None]


def copy_json(value: Any) -> Any:
    """A deep copy of parsed JSON (dicts, lists, strings, numbers), kept apart from the recorded request it came from.

    Through ``marshal``: about a tenth of ``copy.deepcopy``'s CPU, which copied every message body the bot sent.
    """
    return marshal.loads(marshal.dumps(value))


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request (``files[n]``), before it becomes an attachment."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


class World:
    """State plus rules. ``clock`` is monotonic seconds; :meth:`advance_time` moves it for deadline tests."""

    def __init__(
        self,
        *,
        application_id: int | None,
        bot_name: str,
        bot_permissions: int,
        interaction_timeout: float,
        token_lifetime: float,
    ) -> None:
        self.snowflakes = Snowflakes()
        self.changes = Changes()
        self.application_id = application_id or self.snowflakes.next()
        self.bot = User(id=self.application_id, name=bot_name, bot=True)
        self.bot_permissions = bot_permissions
        self.interaction_timeout = interaction_timeout
        self.token_lifetime = token_lifetime
        self.commands = CommandStore(self.application_id, self.snowflakes)
        self.owner = User(id=self.snowflakes.next(), name="Owner")
        self.users: dict[int, User] = {self.bot.id: self.bot}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, ix.InteractionHandle] = {}
        self._by_token: dict[str, ix.InteractionHandle] = {}
        self._dms: dict[int, Channel] = {}
        #: (deadline, interaction id) of every interaction, earliest first, and the one timer waiting for the earliest.
        self._deadlines: list[tuple[float, int]] = []
        self._expiry: asyncio.TimerHandle | None = None
        self._expiry_due = 0.0
        self._expiry_loop: asyncio.AbstractEventLoop | None = None
        self._clock_offset = 0.0
        self.emit: Emitter = lambda event, data, intent: None

    # -- time ---------------------------------------------------------------------------------------------

    def clock(self) -> float:
        return time.monotonic() + self._clock_offset

    def advance_time(self, seconds: float) -> None:
        """Jump the clock forward: pending interactions past their deadline fail, old tokens expire."""
        self._clock_offset += seconds
        self.cancel_timers()  # set on the clock before the jump; expiring re-arms it on the new one
        self.expire_interactions()

    def expire_interactions(self) -> None:
        """Fail the interactions whose acknowledgement deadline passed, then wait for the next deadline.

        A heap and one timer: at a thousand clicks a second, a timer per interaction (each click pruning the list of
        them) and a scan of every interaction at each expiry cost ``bench.load``'s load generator half its CPU."""
        now = self.clock()
        while self._deadlines and self._deadlines[0][0] <= now:
            _, interaction_id = heapq.heappop(self._deadlines)
            handle = self.interactions.get(interaction_id)
            if handle is not None:  # a benchmark drops the interactions it saw answered (bench/measure.py)
                handle.expire(now)
        self._arm_expiry()

    def _arm_expiry(self) -> None:
        """Have the event loop call :meth:`expire_interactions` at the earliest pending deadline (none without a loop:
        a test driving the world by hand advances its clock instead)."""
        if not self._deadlines:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        due = self._deadlines[0][0]
        if self._expiry is not None and self._expiry_loop is loop and self._expiry_due <= due:
            return
        self.cancel_timers()
        self._expiry_due, self._expiry_loop = due, loop
        self._expiry = loop.call_later(max(0.0, due - self.clock()), self._expiry_fired)

    def _expiry_fired(self) -> None:
        self._expiry = None
        self.expire_interactions()

    def cancel_timers(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None

    # -- population ---------------------------------------------------------------------------------------

    def add_user(
        self, name: str, *, permissions: int | None = None, locale: str = "en-US", id: int | None = None
    ) -> User:
        """A member of every guild; ``id`` restores a saved user (the playground keeps its world across restarts)."""
        user = User(id=self.snowflakes.reuse(id), name=name, locale=locale, permissions=permissions)
        self.users[user.id] = user
        for guild in self.guilds.values():
            self._join(guild, user)
            self.emit("GUILD_MEMBER_ADD", {**guild.member_payload(user), "guild_id": str(guild.id)}, GUILD_MEMBERS)
        self.changes.notify()
        return user

    def add_guild(self, name: str, *, locale: str = "en-US", id: int | None = None, owner: User | None = None) -> Guild:
        """A guild the bot is in, every user a member; ``owner`` (every permission there) is by default a user
        of its own who never acts."""
        owner_id = (owner or self.owner).id
        guild = Guild(id=self.snowflakes.reuse(id), name=name, owner_id=owner_id, locale=locale)
        guild.roles.append(Role(id=guild.id, name="@everyone", permissions=DEFAULT_PERMISSIONS))
        bot_role = Role(self.snowflakes.next(), self.bot.name, self.bot_permissions, position=1, managed=True)
        guild.roles.append(bot_role)
        for user in self.users.values():
            self._join(guild, user)
        guild.member_roles[self.bot.id] = [bot_role.id]
        self.guilds[guild.id] = guild
        self.emit("GUILD_CREATE", guild.payload(), GUILDS)
        self.changes.notify()
        return guild

    def add_channel(self, guild: Guild, name: str, *, topic: str | None = None, id: int | None = None) -> Channel:
        channel = Channel(self.snowflakes.reuse(id), name, guild=guild, position=len(guild.channels), topic=topic)
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self.emit("CHANNEL_CREATE", channel.payload(), GUILDS)
        self.changes.notify()
        return channel

    def add_thread(self, channel: Channel, name: str) -> Channel:
        """A public thread in a guild text channel: a channel with a parent, announced as THREAD_CREATE."""
        assert channel.guild is not None, "threads start in guild text channels"
        assert channel.parent is None, "threads start in guild text channels, not in threads"
        thread = Channel(self.snowflakes.next(), name, guild=channel.guild, type=PUBLIC_THREAD, parent=channel)
        channel.guild.threads.append(thread)
        self.channels[thread.id] = thread
        self.emit("THREAD_CREATE", {**thread.payload(), "newly_created": True}, GUILDS)
        self.changes.notify()
        return thread

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and ``user`` (created on first use, as Discord does)."""
        if user.id not in self._dms:
            channel = Channel(self.snowflakes.next(), "", type=DM, recipient=user)
            self._dms[user.id] = channel
            self.channels[channel.id] = channel
        return self._dms[user.id]

    def _join(self, guild: Guild, user: User) -> None:
        guild.members[user.id] = user
        if user.permissions is not None:
            role = Role(self.snowflakes.next(), f"{user.name} role", user.permissions, position=1)
            guild.roles.append(role)
            guild.member_roles[user.id] = [role.id]

    def app_permissions(self, channel: Channel) -> int:
        return channel.guild.permissions_of(self.bot) if channel.guild is not None else DEFAULT_BOT_PERMISSIONS

    # -- lookups for the REST layer -----------------------------------------------------------------------

    def channel(self, channel_id: int) -> Channel:
        """A channel the bot may reach: one that is gone is Unknown Channel, one of a guild the bot left (kicked)
        is Missing Access, as on Discord."""
        try:
            channel = self.channels[channel_id]
        except KeyError:
            raise APIError.unknown_channel() from None
        if channel.guild is not None and channel.guild.id not in self.guilds:
            raise APIError.missing_access()
        return channel

    def guild(self, guild_id: int) -> Guild:
        try:
            return self.guilds[guild_id]
        except KeyError:
            raise APIError.unknown_guild() from None

    def message(self, channel: Channel, message_id: int) -> Message:
        """A message the bot may see through the channel routes (never ephemeral ones, as on Discord)."""
        message = self.messages.get(message_id)
        if message is None or message.deleted or message.channel is not channel or message.ephemeral:
            raise APIError.unknown_message()
        return message

    def channel_messages(self, channel: Channel) -> list[Message]:
        """Messages everyone in the channel sees, oldest first."""
        return [m for m in self.messages.values() if m.channel is channel and not m.deleted and not m.ephemeral]

    def visible_messages(self, channel: Channel, user: User) -> list[Message]:
        """What ``user`` sees in the channel: the public messages plus their own ephemeral replies."""
        return [m for m in self.messages.values() if m.channel is channel and m.is_visible_to(user)]

    # -- messages -----------------------------------------------------------------------------------------

    def create_message(
        self,
        channel: Channel,
        author: User,
        data: dict[str, Any],
        uploads: list[Upload] | None = None,
        *,
        kind: int = DEFAULT,
        visible_to: User | None = None,
        handle: ix.InteractionHandle | None = None,
    ) -> Message:
        message = Message(id=self.snowflakes.next(), channel=channel, author=author, type=kind)
        self._apply(message, data, uploads or [], creating=True)
        if handle is not None:
            message.application_id = message.webhook_id = self.application_id
            message.interaction_metadata = self._interaction_metadata(handle)
        message.visible_to = visible_to if message.ephemeral else None
        self.messages[message.id] = message
        channel.last_message_id = message.id
        if not message.ephemeral:
            self.emit("MESSAGE_CREATE", message.payload(), _message_intent(channel))
        self.changes.notify()
        return message

    def edit_message(self, message: Message, data: dict[str, Any], uploads: list[Upload] | None = None) -> Message:
        self._apply(message, data, uploads or [], creating=False)
        message.edited_timestamp = iso_now()
        message.edits += 1
        if not message.ephemeral:
            self.emit("MESSAGE_UPDATE", message.payload(), _message_intent(message.channel))
        self.changes.notify()
        return message

    def delete_message(self, message: Message) -> None:
        message.deleted = True
        if not message.ephemeral:
            payload = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild_id is not None:
                payload["guild_id"] = str(message.channel.guild_id)
            self.emit("MESSAGE_DELETE", payload, _message_intent(message.channel))
        self.changes.notify()

    def bulk_delete(self, channel: Channel, messages: list[Message]) -> None:
        """Delete several messages of one channel at once: one MESSAGE_DELETE_BULK, as Discord sends for a purge."""
        for message in messages:
            message.deleted = True
        payload: dict[str, Any] = {"ids": [str(m.id) for m in messages], "channel_id": str(channel.id)}
        if channel.guild_id is not None:
            payload["guild_id"] = str(channel.guild_id)
        self.emit("MESSAGE_DELETE_BULK", payload, _message_intent(channel))
        self.changes.notify()

    def delete_channel(self, channel: Channel) -> None:
        """Delete a guild channel with its threads and their messages: CHANNEL_DELETE only (Discord sends no event
        per message or thread), and from then on every route naming any of them answers ``404 10003 Unknown
        Channel``."""
        guild = channel.guild
        assert guild is not None, "only guild channels can be deleted"
        assert channel.parent is None, "a thread is deleted with delete_thread"
        guild.channels.remove(channel)
        for thread in [t for t in guild.threads if t.parent is channel]:
            self._forget_channel(thread)
        self._forget_channel(channel)
        self.emit("CHANNEL_DELETE", channel.payload(), GUILDS)
        self.changes.notify()

    def delete_thread(self, thread: Channel) -> None:
        """Delete a thread with its messages: THREAD_DELETE (its id, guild, parent and type, as Discord sends it), and
        from then on every route naming it answers ``404 10003 Unknown Channel``."""
        assert thread.guild is not None, "not a thread"
        assert thread.parent is not None, "not a thread"
        self._forget_channel(thread)
        payload = {"id": str(thread.id), "guild_id": str(thread.guild.id), "parent_id": str(thread.parent.id)}
        self.emit("THREAD_DELETE", {**payload, "type": thread.type}, GUILDS)
        self.changes.notify()

    def _forget_channel(self, channel: Channel) -> None:
        if channel.guild is not None and channel in channel.guild.threads:
            channel.guild.threads.remove(channel)
        del self.channels[channel.id]
        for message in self.messages.values():
            if message.channel is channel:
                message.deleted = True

    def remove_bot(self, guild: Guild) -> None:
        """The bot is kicked from ``guild``: GUILD_DELETE without ``unavailable``; from then on its channels answer
        ``403 50001 Missing Access`` and a new session's READY no longer lists it."""
        del self.guilds[guild.id]
        self.emit("GUILD_DELETE", {"id": str(guild.id)}, GUILDS)
        self.changes.notify()

    def guild_outage(self, guild: Guild) -> None:
        """Discord loses ``guild`` for a while: GUILD_DELETE with ``unavailable: true``; the bot is still in it."""
        self.emit("GUILD_DELETE", {"id": str(guild.id), "unavailable": True}, GUILDS)
        self.changes.notify()

    def post_user_message(self, user: User, channel: Channel, content: str) -> Message:
        """A message typed by a user (for bots that also read chat)."""
        check_message({"content": content})
        return self.create_message(channel, user, {"content": content})

    def _apply(self, message: Message, data: dict[str, Any], uploads: list[Upload], *, creating: bool) -> None:
        """Copy the message fields present in ``data``; a PATCH leaves absent fields untouched, as on Discord."""
        if "content" in data:
            message.content = data["content"] or ""
        if "allowed_mentions" in data:
            message.allowed_mentions = copy_json(data["allowed_mentions"])
        if "content" in data or "allowed_mentions" in data:
            mentioned = mentioned_ids(message.content, message.allowed_mentions)
            message.mentions = [self.users[user] for user in mentioned if user in self.users]
        if "embeds" in data:
            message.embeds = copy_json(data["embeds"] or [])
        if "components" in data:
            message.components = copy_json(data["components"] or [])
            comps.assign_ids(message.components)
        if "flags" in data and data["flags"] is not None:
            flags = int(data["flags"])
            message.flags = flags if creating else (message.flags & ~EDITABLE_FLAGS) | (flags & EDITABLE_FLAGS)
        if "tts" in data:
            message.tts = bool(data["tts"])
        if "attachments" in data:
            # Entries naming an existing attachment keep it; the others describe files[n] by their index n.
            listed = {int(a["id"]): a for a in data["attachments"] or []}
            message.attachments = [a for a in message.attachments if a.id in listed]
            described = {i: a for i, a in listed.items() if i < len(uploads)}
            for index, upload in enumerate(uploads):
                meta = described.get(index, {})
                message.attachments.append(self._attachment(upload, meta.get("description")))
        else:
            message.attachments += [self._attachment(u, None) for u in uploads]

    def _attachment(self, upload: Upload, description: str | None) -> Attachment:
        return Attachment(self.snowflakes.next(), upload.filename, upload.data, upload.content_type, description)

    def _interaction_metadata(self, handle: ix.InteractionHandle) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "id": str(handle.id),
            "type": handle.type,
            "user": handle.user.payload(),
            "authorizing_integration_owners": handle.payload.get("authorizing_integration_owners", {}),
        }
        if handle.source is not None:
            metadata["interacted_message_id"] = str(handle.source.id)
        if handle.original is not None and handle.original is not handle.source:
            metadata["original_response_message_id"] = str(handle.original.id)
        return metadata

    # -- user actions that create interactions ------------------------------------------------------------

    def invoke_command(
        self, user: User, channel: Channel, path: str, values: dict[str, Any], *, forged: bool = False
    ) -> ix.InteractionHandle:
        invocation = self.commands.build_invocation(channel.guild_id, path, values, forged=forged, locale=user.locale)
        data = self._command_data(user, channel, invocation)
        return self._dispatch(ix.APPLICATION_COMMAND, user, channel, data, description=f"/{path}")

    def autocomplete(
        self, user: User, channel: Channel, path: str, focus: Focus, values: dict[str, Any]
    ) -> ix.InteractionHandle:
        """``user`` types into an option of ``/path``: Discord asks the bot for suggestions (interaction type 4)."""
        invocation = self.commands.build_autocomplete(channel.guild_id, path, focus, values, locale=user.locale)
        data = self._command_data(user, channel, invocation)
        description = f"typing {focus.typed!r} into /{path} {focus.option}"
        return self._dispatch(ix.APPLICATION_COMMAND_AUTOCOMPLETE, user, channel, data, description=description)

    def _command_data(self, user: User, channel: Channel, invocation: Invocation) -> dict[str, Any]:
        """The interaction data of a command ``user`` may use in ``channel`` (else :class:`UnknownCommand`)."""
        command = invocation.command
        guild = channel.guild
        if guild is not None and not permitted(command, guild.permissions_of(user)):
            required = command["default_member_permissions"]
            raise UnknownCommand(f"{user.name} lacks the permissions /{command['name']} requires ({required})")
        context = 0 if guild is not None else 1
        if (command.get("contexts") is not None and context not in command["contexts"]) or (
            guild is None and command.get("dm_permission") is False
        ):
            raise UnknownCommand(f"/{command['name']} is not available in this context")
        data = invocation.data
        if invocation.referenced:
            data["resolved"] = ix.resolved_data(guild, user, invocation.referenced)
        return data

    def click(self, user: User, message: Message, custom_id: str) -> ix.InteractionHandle:
        self._check_can_use(user, message)
        button = comps.find_button(message.components, custom_id=custom_id)
        if button is None:
            raise ComponentNotFound(
                f"no button {shown(custom_id)} on message {message.id}: {comps.describe(message.components)}"
            )
        if button.disabled:
            raise InvalidInput(f"button {button.label!r} ({custom_id}) is disabled")
        data = {"custom_id": custom_id, "component_type": comps.BUTTON, "id": button.raw.get("id")}
        return self._dispatch(
            ix.MESSAGE_COMPONENT, user, message.channel, data, source=message, description=f"click {custom_id!r}"
        )

    def select(self, user: User, message: Message, custom_id: str, values: list[Any]) -> ix.InteractionHandle:
        self._check_can_use(user, message)
        select = comps.find_select(message.components, custom_id=custom_id)
        if select is None:
            raise ComponentNotFound(
                f"no select {shown(custom_id)} on message {message.id}: {comps.describe(message.components)}"
            )
        if select.disabled:
            raise InvalidInput(f"select {custom_id!r} is disabled")
        if not select.min_values <= len(values) <= select.max_values:
            raise InvalidInput(f"select {custom_id!r} takes {select.min_values}..{select.max_values} values")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": select.type, "id": select.raw.get("id")}
        if select.type == comps.STRING_SELECT:
            unknown = [v for v in values if v not in select.values]
            if unknown:
                raise InvalidInput(f"select {custom_id!r} has no option(s) {shown(unknown)}; options: {select.values}")
            data["values"] = list(values)
        else:
            if not all(isinstance(v, User | Role | Channel) for v in values):
                raise InvalidInput(f"select {custom_id!r} takes users, roles or channels, got {shown(values)}")
            data["values"] = [str(v.id) for v in values]
            data["resolved"] = ix.resolved_data(message.channel.guild, user, values)
        return self._dispatch(
            ix.MESSAGE_COMPONENT, user, message.channel, data, source=message, description=f"select {custom_id!r}"
        )

    def submit_modal(
        self, user: User, opened_by: ix.InteractionHandle, values: dict[str, str | list[str]]
    ) -> ix.InteractionHandle:
        modal = opened_by.modal
        if modal is None:
            raise InvalidInput(f"{opened_by.description} did not open a modal")
        inputs = [c for c in comps.walk(modal["components"]) if c.get("custom_id")]
        unknown = sorted(set(values) - {c["custom_id"] for c in inputs})
        if unknown:
            raise InvalidInput(f"modal {modal['custom_id']!r} has no input(s) {shown(unknown)}")
        missing = [c["custom_id"] for c in inputs if c.get("required", True) and c["custom_id"] not in values]
        if missing:
            raise InvalidInput(f"modal {modal['custom_id']!r} needs value(s) for {missing}")
        submitted = [_submitted(c, values) for c in modal["components"]]
        data = {"custom_id": modal["custom_id"], "components": submitted}
        return self._dispatch(
            ix.MODAL_SUBMIT,
            user,
            opened_by.channel,
            data,
            source=opened_by.source,
            description=f"modal {modal['custom_id']!r}",
        )

    def _check_can_use(self, user: User, message: Message) -> None:
        if not message.is_visible_to(user):
            raise InvalidInput(f"{user.name} cannot see message {message.id}")
        guild = message.channel.guild
        if guild is not None and user.id not in guild.members:
            raise InvalidInput(f"{user.name} is not a member of {guild.name}")

    def _dispatch(
        self,
        kind: int,
        user: User,
        channel: Channel,
        data: dict[str, Any],
        *,
        source: Message | None = None,
        description: str,
    ) -> ix.InteractionHandle:
        interaction_id = self.snowflakes.next()
        token = f"aW50ZXJhY3Rpb24.{interaction_id}.{secrets.token_urlsafe(24)}"
        payload = ix.build_payload(
            interaction_id=interaction_id,
            token=token,
            application_id=self.application_id,
            kind=kind,
            user=user,
            channel=channel,
            data=data,
            app_permissions=self.app_permissions(channel),
            # Discord reports the message as it stores it, whatever a (doctored) client showed around the click.
            message=self.messages.get(source.id, source) if source is not None else None,
        )
        now = self.clock()
        handle = ix.InteractionHandle(
            id=interaction_id,
            token=token,
            type=kind,
            user=user,
            channel=channel,
            payload=payload,
            created_at=now,
            deadline=now + self.interaction_timeout,
            changes=self.changes,
            description=f"{description} by {user.name}",
            source=source,
        )
        self.interactions[interaction_id] = handle
        self._by_token[token] = handle
        heapq.heappush(self._deadlines, (handle.deadline, interaction_id))
        self._arm_expiry()
        self.emit("INTERACTION_CREATE", payload, NO_INTENT)
        self.changes.notify()
        return handle

    # -- the bot's answers --------------------------------------------------------------------------------

    def interaction_for_callback(self, interaction_id: int, token: str) -> ix.InteractionHandle:
        handle = self.interactions.get(interaction_id)
        if handle is None or handle.token != token:
            raise APIError.unknown_interaction()
        return handle

    def respond(self, handle: ix.InteractionHandle, body: dict[str, Any], uploads: list[Upload]) -> dict[str, Any]:
        """POST /interactions/{id}/{token}/callback; returns the callback response object."""
        if handle.acknowledged:
            raise APIError.already_acknowledged()
        handle.expire(self.clock())
        if handle.failed:
            raise APIError.unknown_interaction()
        callback_type = body.get("type")
        data = body.get("data") or {}
        from_component = handle.source is not None and handle.type in (ix.MESSAGE_COMPONENT, ix.MODAL_SUBMIT)
        allowed = {ix.CHANNEL_MESSAGE_WITH_SOURCE, ix.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE}
        if from_component:
            allowed |= {ix.DEFERRED_UPDATE_MESSAGE, ix.UPDATE_MESSAGE}
        if handle.type != ix.MODAL_SUBMIT:
            allowed.add(ix.MODAL)
        if handle.type == ix.APPLICATION_COMMAND_AUTOCOMPLETE:
            allowed = {ix.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT}  # suggestions only: no message, no modal
        if callback_type not in allowed:
            raise APIError.invalid_form_body(
                {"type": {"_errors": [{"code": "INTERACTION_CALLBACK_TYPE_INVALID", "message": "Invalid type"}]}}
            )
        original: Message | None = None
        if callback_type == ix.CHANNEL_MESSAGE_WITH_SOURCE:
            check_message(data, prefix=("data",))
            if not _has_body(data, uploads):
                raise APIError.empty_message()
            kind = CHAT_INPUT_COMMAND if handle.type == ix.APPLICATION_COMMAND else DEFAULT
            original = self.create_message(
                handle.channel, self.bot, data, uploads, kind=kind, visible_to=handle.user, handle=handle
            )
        elif callback_type == ix.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
            ephemeral = int(data.get("flags") or 0) & EPHEMERAL
            kind = CHAT_INPUT_COMMAND if handle.type == ix.APPLICATION_COMMAND else DEFAULT
            original = self.create_message(
                handle.channel,
                self.bot,
                {"content": "", "flags": ephemeral | LOADING},
                kind=kind,
                visible_to=handle.user,
                handle=handle,
            )
        elif callback_type == ix.UPDATE_MESSAGE:
            assert handle.source is not None
            check_message(data, prefix=("data",))
            original = self.edit_message(handle.source, data, uploads)
        elif callback_type == ix.DEFERRED_UPDATE_MESSAGE:
            original = handle.source
        elif callback_type == ix.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
            check_autocomplete(data, _focused_type(handle.payload["data"]))
            handle.choices = copy_json(data["choices"])
        else:
            check_modal(data)
            handle.modal = copy_json(data)
        handle.acknowledge(callback_type, original)
        response: dict[str, Any] = {
            "interaction": {
                "id": str(handle.id),
                "type": handle.type,
                "activity_instance_id": None,
                "response_message_id": str(original.id) if original is not None else None,
                "response_message_loading": callback_type == ix.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
                "response_message_ephemeral": bool(original is not None and original.ephemeral),
            }
        }
        if original is not None and callback_type != ix.DEFERRED_UPDATE_MESSAGE:
            response["resource"] = {"type": callback_type, "message": original.payload()}
        return response

    def handle_by_token(self, token: str) -> ix.InteractionHandle | None:
        return self._by_token.get(token)

    def interaction_for_webhook(self, application_id: int, token: str) -> ix.InteractionHandle:
        """The interaction behind a webhook token, enforcing its 15-minute (configurable) lifetime."""
        handle = self._by_token.get(token)
        if handle is None or application_id != self.application_id:
            raise APIError.unknown_webhook()
        if self.clock() - handle.created_at > self.token_lifetime:
            raise APIError.invalid_webhook_token()
        return handle

    def followup(self, handle: ix.InteractionHandle, data: dict[str, Any], uploads: list[Upload]) -> Message:
        """POST /webhooks/{app}/{token}: the first followup after a deferred reply replaces the placeholder."""
        if not handle.acknowledged:
            raise APIError.unknown_webhook()
        check_message(data)
        if not _has_body(data, uploads):
            raise APIError.empty_message()
        original = handle.original
        if (
            handle.response_type == ix.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
            and original is not None
            and original.loading
            and not original.deleted
        ):
            original.flags &= ~LOADING
            message = self.edit_message(original, {k: v for k, v in data.items() if k != "flags"}, uploads)
        else:
            message = self.create_message(
                handle.channel, self.bot, data, uploads, visible_to=handle.user, handle=handle
            )
        handle.followups.append(message)
        self.changes.notify()
        return message

    def webhook_message(self, handle: ix.InteractionHandle, message_id: str) -> Message:
        """``@original`` or one of this interaction's followups; anything else is Unknown Message."""
        if message_id == "@original":
            message = handle.original
        else:
            wanted = int(message_id) if message_id.isdigit() else -1
            message = next((m for m in [handle.original, *handle.followups] if m and m.id == wanted), None)
        if message is None or message.deleted:
            raise APIError.unknown_message()
        return message

    def edit_webhook_message(
        self, handle: ix.InteractionHandle, message: Message, data: dict[str, Any], uploads: list[Upload]
    ) -> Message:
        check_message(data)
        if message.loading:
            message.flags &= ~LOADING
        return self.edit_message(message, data, uploads)

    def summary(self) -> str:
        """Interactions so far, for timeout diagnostics."""
        return "\n".join(h.summary() for h in self.interactions.values()) or "no interactions"


def _has_body(data: dict[str, Any], uploads: list[Upload]) -> bool:
    return bool(data.get("content") or data.get("embeds") or data.get("components") or uploads or data.get("poll"))


def _focused_type(data: dict[str, Any]) -> int:
    """The type of the option an autocomplete interaction's ``data`` says the user is typing into."""
    options: list[dict[str, Any]] = data.get("options") or []
    while options:
        focused = next((o for o in options if o.get("focused")), None)
        if focused is not None:
            return int(focused["type"])
        options = next((o.get("options") or [] for o in options if "options" in o), [])
    raise AssertionError(f"an autocomplete interaction without a focused option: {data}")


def _message_intent(channel: Channel) -> int:
    return DIRECT_MESSAGES if channel.type == DM else GUILD_MESSAGES


def _submitted(component: dict[str, Any], values: dict[str, str | list[str]]) -> dict[str, Any]:
    """Mirror one modal component as Discord reports it on submit (rows and labels keep their structure)."""
    kind = component.get("type")
    if kind == comps.ACTION_ROW:
        return {"type": kind, "components": [_submitted(c, values) for c in component.get("components") or []]}
    if kind == comps.LABEL:
        return {"type": kind, "id": component.get("id"), "component": _submitted(component["component"], values)}
    custom_id = component.get("custom_id")
    out: dict[str, Any] = {"type": kind, "id": component.get("id"), "custom_id": custom_id}
    value = values.get(custom_id or "", "" if kind == comps.TEXT_INPUT else [])
    if kind == comps.TEXT_INPUT:
        out["value"] = value if isinstance(value, str) else " ".join(value)
    else:
        out["values"] = [value] if isinstance(value, str) else list(value)
    return out
