"""The :class:`FakeDiscord` server: lifecycle, world building, user actions, waiting and fault injection.

This is the one class tests (and, later, the browser playground) talk to. It composes the world
(:mod:`fakediscord.state`), the REST API (:mod:`fakediscord.rest`) and the gateway (:mod:`fakediscord.gateway`)
behind one aiohttp application bound to a free port on 127.0.0.1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Self, TypeVar

from aiohttp import web
from aiohttp.web import AppRunner
from bot.urls import netloc

from fakediscord.commands import Focus
from fakediscord.errors import FakeDiscordError, InvalidInput
from fakediscord.faults import Fault, Faults
from fakediscord.gateway import PRIVILEGED_INTENTS, Gateway, GatewayFrame
from fakediscord.interactions import InteractionHandle
from fakediscord.messages import Message
from fakediscord.models import DEFAULT_BOT_PERMISSIONS, MANAGE_MESSAGES, Channel, Guild, User
from fakediscord.rest import API_PREFIX, RecordedRequest, RestAPI
from fakediscord.state import World
from fakediscord.waiting import POLL_INTERVAL
from fakediscord.web import WebUI

T = TypeVar("T")


class FakeDiscord:
    """A local Discord: REST under :attr:`api_base`, the gateway at :attr:`gateway_url`.

    Use it as an async context manager (or call :meth:`start` / :meth:`close`). ``interaction_timeout`` is the
    3-second acknowledgement deadline and ``token_lifetime`` the 15-minute interaction token lifetime; both can
    be shortened for tests, and :meth:`advance_time` moves the server's clock instead of sleeping.
    ``allowed_intents`` are the privileged intents "enabled in the developer portal" (all by default).
    ``shard_count`` is the count ``GET /gateway/bot`` recommends; a sharded client gets each guild's events and
    interactions on the connection of the guild's shard only.
    """

    def __init__(
        self,
        token: str = "fakediscord-bot-token",
        *,
        application_id: int | None = None,
        bot_name: str = "dicebot",
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        interaction_timeout: float = 3.0,
        token_lifetime: float = 15 * 60.0,
        heartbeat_interval: float = 41.25,
        allowed_intents: int = PRIVILEGED_INTENTS,
        host: str = "127.0.0.1",
        port: int = 0,
        web: bool = False,
        shard_count: int = 1,
    ) -> None:
        self.token = token
        self.world = World(
            application_id=application_id,
            bot_name=bot_name,
            bot_permissions=bot_permissions,
            interaction_timeout=interaction_timeout,
            token_lifetime=token_lifetime,
        )
        self.gateway = Gateway(
            self.world,
            token,
            heartbeat_interval=heartbeat_interval,
            allowed_intents=allowed_intents,
            shard_count=shard_count,
        )
        self.world.emit = self.gateway.dispatch
        self.faults = Faults()
        self.rest = RestAPI(self.world, token, self.gateway, self.faults)
        #: The browser playground (page, live WebSocket, acting as users), served beside the API when ``web``.
        self.web: WebUI | None = WebUI(self) if web else None
        self._host = host
        self._port = port
        self._runner: AppRunner | None = None
        self._base = ""

    # -- lifecycle ----------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the port and serve; afterwards :attr:`api_base` and :attr:`gateway_url` are valid."""
        app = web.Application()
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        self.rest.install(app)
        if self.web is not None:
            self.web.install(app)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self._base = netloc(host, port)
        self.gateway.url = self.gateway_url

    async def close(self) -> None:
        """Stop listening, close gateway sockets and the HTTP server, then stop the world's timer (a click answered
        meanwhile could have set it again).

        Listening stops first: a client told the gateway closed reconnects at once, and a connection accepted while
        the server shut down hung unanswered (a bot saw no outage for over a minute), where a closed port refuses
        it as Discord's outage would."""
        if self._runner is not None:
            for site in list(self._runner.sites):
                await site.stop()
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self.world.cancel_timers()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def url(self) -> str:
        """The server's root, where the playground page is when ``web`` is on (``http://127.0.0.1:PORT/``)."""
        return f"http://{self._base}/"

    @property
    def api_base(self) -> str:
        """The REST base to give discord.py (``http://127.0.0.1:PORT/api/v10``)."""
        return f"http://{self._base}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """The gateway URL (also what READY's ``resume_gateway_url`` and ``GET /gateway`` return)."""
        return f"ws://{self._base}/gateway"

    @property
    def application_id(self) -> int:
        return self.world.application_id

    @property
    def bot(self) -> User:
        """The bot's own user (its id is the application id, as for most real bots)."""
        return self.world.bot

    @property
    def interaction_timeout(self) -> float:
        return self.world.interaction_timeout

    @interaction_timeout.setter
    def interaction_timeout(self, seconds: float) -> None:
        self.world.interaction_timeout = seconds

    @property
    def token_lifetime(self) -> float:
        return self.world.token_lifetime

    @token_lifetime.setter
    def token_lifetime(self, seconds: float) -> None:
        self.world.token_lifetime = seconds

    def advance_time(self, seconds: float) -> None:
        """Move the server clock forward (fails pending interactions, expires tokens) without sleeping."""
        self.world.advance_time(seconds)

    # -- building the world -------------------------------------------------------------------------------

    def add_guild(
        self, name: str, *, locale: str = "en-US", shard: tuple[int, int] | None = None, owner: User | None = None
    ) -> Guild:
        """A guild the bot is in; every user is a member. Sent as GUILD_CREATE if the bot is connected.

        ``shard=(id, count)`` picks an id that Discord routes to that shard (``(guild_id >> 22) % count == id``).
        ``owner`` has every permission in it, as a guild's owner has on Discord (by default nobody who acts).
        """
        known = None if shard is None else self.world.snowflakes.on_shard(*shard)
        return self.world.add_guild(name, locale=locale, id=known, owner=owner)

    def add_channel(self, guild: Guild, name: str, *, topic: str | None = None) -> Channel:
        """A text channel in ``guild``."""
        return self.world.add_channel(guild, name, topic=topic)

    def add_user(self, name: str, *, permissions: int | None = None, locale: str = "en-US") -> User:
        """A person, member of every guild; ``permissions`` (a bit set) are granted through a personal role."""
        return self.world.add_user(name, permissions=permissions, locale=locale)

    def add_thread(self, channel: Channel, name: str) -> Channel:
        """A public thread in the text channel ``channel`` (THREAD_CREATE); commands and messages work in it."""
        return self.world.add_thread(channel, name)

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and ``user``; slash commands can be invoked there too."""
        return self.world.dm_channel(user)

    # -- reading the world --------------------------------------------------------------------------------

    def channel_messages(self, channel: Channel) -> list[Message]:
        """Messages everybody sees in ``channel``, oldest first (no ephemeral ones)."""
        return self.world.channel_messages(channel)

    def visible_messages(self, channel: Channel, user: User) -> list[Message]:
        """What ``user`` sees in ``channel``: public messages plus ephemeral replies addressed to them."""
        return self.world.visible_messages(channel, user)

    def commands(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        """The synced commands of one scope (global when ``guild`` is None), as Discord stores them."""
        return self.world.commands.list(guild.id if guild else None)

    @property
    def interactions(self) -> list[InteractionHandle]:
        return list(self.world.interactions.values())

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every REST request the bot made, in order."""
        return self.rest.requests

    @property
    def unhandled_requests(self) -> list[RecordedRequest]:
        """Requests to routes fakediscord does not implement (answered 404, code 0)."""
        return [r for r in self.rest.requests if r.unhandled]

    @property
    def gateway_frames(self) -> list[GatewayFrame]:
        """Every gateway payload sent and received, in order."""
        return self.gateway.frames

    def find_requests(self, method: str | None = None, path: str | None = None) -> list[RecordedRequest]:
        """Recorded requests filtered by method and a regex searched in the path (relative to the API base)."""
        return [
            r
            for r in self.rest.requests
            if (method is None or r.method == method.upper()) and (path is None or re.search(path, r.path))
        ]

    # -- waiting ------------------------------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = 5.0,
        what: str = "condition",
        *,
        poll: float = POLL_INTERVAL,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value; ``TimeoutError`` with diagnostics.

        The predicate runs after every change in the fake world and every ``poll`` seconds (see
        :mod:`fakediscord.waiting`)."""
        return await self.world.changes.wait_for(predicate, timeout, what, self.diagnostics, poll)

    async def wait_until_ready(self, timeout: float = 10.0, *, shards: Iterable[int] | None = None) -> None:
        """Wait until the bot identified and was sent READY and a GUILD_CREATE per guild (of each of ``shards``)."""
        if shards is None:
            await self.wait_for(lambda: self.gateway.ready, timeout, "the bot to connect to the gateway")
            return
        wanted = set(shards)
        await self.wait_for(
            lambda: wanted <= self.gateway.connected_shards(), timeout, f"shards {sorted(wanted)} to connect"
        )

    async def wait_for_commands(
        self, timeout: float = 10.0, *, names: list[str] | None = None, guild: Guild | None = None
    ) -> list[dict[str, Any]]:
        """Wait until the bot synced commands (and, if given, ``names`` are invocable in ``guild``'s scope).

        Returns the commands invocable there: the guild's plus the global ones.
        """
        store = self.world.commands
        scope = guild.id if guild else None

        def synced() -> list[dict[str, Any]] | None:
            if store.writes == 0 or not set(names or []) <= set(store.names(scope)):
                return None
            return store.list(scope) + (store.list(None) if scope is not None else [])

        return await self.wait_for(synced, timeout, f"command sync {names or ''}".strip())

    def diagnostics(self) -> str:
        """State worth reading when a wait times out: interactions, API errors, unhandled requests."""
        errors = [r for r in self.rest.requests if r.status >= 400][-10:]
        lines = [self.world.summary()]
        lines += [f"API error: {r} {r.response}" for r in errors]
        lines += [f"unhandled request: {r.method} {r.path}" for r in self.unhandled_requests]
        lines += [f"gateway error: {e}" for e in self.gateway.errors]
        return "\n".join(lines)

    # -- user actions -------------------------------------------------------------------------------------

    async def slash(self, user: User, channel: Channel, command: str, /, **options: Any) -> InteractionHandle:
        """``user`` runs ``/command`` (``"group sub"`` for subcommands) with typed ``options`` in ``channel``.

        Raises :class:`UnknownCommand` / :class:`InvalidInput` if Discord would not let the user send it.
        """
        await self._require_bot(channel)
        return self.world.invoke_command(user, channel, command, options)

    async def forge_slash(self, user: User, channel: Channel, command: str, /, **options: Any) -> InteractionHandle:
        """Like :meth:`slash`, but option values are sent as given: no choice, range or type check.

        A fault injection for bots that must not trust Discord's validation (a hand-made API request).
        """
        await self._require_bot(channel)
        return self.world.invoke_command(user, channel, command, options, forged=True)

    async def autocomplete(
        self, user: User, channel: Channel, command: str, option: str, typed: str, /, **options: Any
    ) -> InteractionHandle:
        """``user`` has typed ``typed`` into ``option`` of ``/command``, with the typed ``options`` filled so far.

        Discord asks the bot for suggestions (an APPLICATION_COMMAND_AUTOCOMPLETE interaction); await the handle's
        :meth:`~InteractionHandle.suggestions` for the choices the user sees. Raises :class:`UnknownCommand` /
        :class:`InvalidInput` if Discord would not ask: an option without ``autocomplete``, a bad filled value.
        """
        await self._require_bot(channel)
        return self.world.autocomplete(user, channel, command, Focus(option, typed), options)

    async def click(self, user: User, message: Message, custom_id: str) -> InteractionHandle:
        """``user`` clicks the button with ``custom_id`` on ``message``."""
        await self._require_bot(message.channel)
        return self.world.click(user, message, custom_id)

    async def click_button(
        self,
        user: User,
        message: Message,
        *,
        label: str | None = None,
        custom_id: str | None = None,
        prefix: str | None = None,
    ) -> InteractionHandle:
        """``user`` clicks the first button matching the label / custom_id / custom_id prefix."""
        button = message.button(label=label, custom_id=custom_id, prefix=prefix)
        if button.custom_id is None:
            raise FakeDiscordError(f"button {button.label!r} is a link button; clicking it opens {button.url}")
        return await self.click(user, message, button.custom_id)

    async def select(self, user: User, message: Message, custom_id: str, values: list[Any]) -> InteractionHandle:
        """``user`` picks ``values`` in a select (option values; users/roles/channels for entity selects)."""
        await self._require_bot(message.channel)
        return self.world.select(user, message, custom_id, values)

    async def submit_modal(
        self, user: User, opened_by: InteractionHandle, values: dict[str, str | list[str]]
    ) -> InteractionHandle:
        """``user`` submits the modal the bot answered ``opened_by`` with; ``values`` by input custom_id."""
        await self._require_bot(opened_by.channel)
        return self.world.submit_modal(user, opened_by, values)

    async def post_message(self, user: User, channel: Channel, content: str) -> Message:
        """``user`` types a message in ``channel`` (sent to the bot as MESSAGE_CREATE)."""
        await self._require_bot(channel)
        return self.world.post_user_message(user, channel, content)

    def delete_message(self, user: User, message: Message) -> None:
        """``user`` deletes ``message`` (their own, or any with Manage Messages): MESSAGE_DELETE, if a session gets it.

        No bot session is needed: a message deleted while the bot is away is an event it never gets, as on Discord.
        """
        self._check_can_delete(user, [message])
        self.world.delete_message(message)

    def bulk_delete(self, user: User, messages: list[Message]) -> None:
        """``user`` (with Manage Messages) purges 2-100 messages of one channel: one MESSAGE_DELETE_BULK."""
        channels = {message.channel.id for message in messages}
        if not 2 <= len(messages) <= 100 or len(channels) != 1:
            raise InvalidInput("a bulk delete takes 2 to 100 messages of one channel")
        self._check_can_delete(user, messages, moderator=True)
        self.world.bulk_delete(messages[0].channel, messages)

    def delete_channel(self, channel: Channel) -> None:
        """A server admin deletes a text channel: CHANNEL_DELETE; its messages, threads and routes are gone (10003)."""
        self.world.delete_channel(channel)

    def delete_thread(self, thread: Channel) -> None:
        """A moderator deletes a thread: THREAD_DELETE; its messages and routes are gone (10003)."""
        self.world.delete_thread(thread)

    def remove_bot(self, guild: Guild) -> None:
        """An admin kicks the bot from ``guild``: GUILD_DELETE (no ``unavailable``), then 403 50001 on its channels."""
        self.world.remove_bot(guild)

    def guild_outage(self, guild: Guild) -> None:
        """Discord's outage of ``guild``: GUILD_DELETE with ``unavailable: true``; nothing else changes."""
        self.world.guild_outage(guild)

    def _check_can_delete(self, user: User, messages: list[Message], *, moderator: bool = False) -> None:
        for message in messages:
            guild = message.channel.guild
            allowed = guild is not None and bool(guild.permissions_of(user) & MANAGE_MESSAGES)
            if message.deleted or message.ephemeral or not (allowed or (message.author is user and not moderator)):
                raise InvalidInput(f"{user.name} cannot delete message {message.id}")

    async def _require_bot(self, channel: Channel, timeout: float = 5.0) -> None:
        """Events need a session on the channel's shard; while one resumes they are buffered and replayed, as on
        Discord (a shard whose process died without closing keeps its session: the events are lost with it)."""
        guild = channel.guild_id
        await self.wait_for(
            lambda: self.gateway.session_for(guild) is not None, timeout, f"a bot gateway session for guild {guild}"
        )

    # -- faults -------------------------------------------------------------------------------------------

    def inject_rest_error(
        self,
        method: str,
        path_regex: str,
        status: int,
        *,
        code: int = 0,
        retry_after: float | None = None,
        times: int = 1,
        global_: bool = False,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status`` (429 with ``retry_after``, a 5xx, or a 4xx with
        Discord's error ``code``, e.g. ``400, code=50035`` Invalid Form Body, ``404, code=10008`` Unknown Message).

        ``path_regex`` is searched in the path relative to :attr:`api_base`, e.g. ``r"/callback$"``.
        """
        return self.faults.add(
            method, path_regex, status, code=code, retry_after=retry_after, times=times, global_=global_
        )

    def clear_faults(self) -> None:
        self.faults.clear()

    async def reconnect_gateway(self, timeout: float = 10.0) -> None:
        """Send op 7 RECONNECT and wait until the bot RESUMEd (missed events are replayed)."""
        await self.gateway.reconnect(timeout)

    async def invalidate_session(self, resumable: bool = False, timeout: float = 10.0) -> None:
        """Send op 9 INVALID_SESSION; wait for the bot to RESUME (resumable) or IDENTIFY anew."""
        await self.gateway.invalidate(resumable, timeout)

    async def drop_gateway(self, code: int = 4000, timeout: float = 10.0) -> None:
        """Close the bot's socket with ``code`` as a network failure would, and wait for its RESUME."""
        await self.gateway.drop(code, timeout)
