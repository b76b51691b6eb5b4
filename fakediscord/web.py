"""The browser playground's side of fakediscord: the page, a WebSocket of world changes, and acting as a user.

Installed on the server's aiohttp app when ``FakeDiscord(web=True)``. The page (static files in ``web/``, no
build step) renders exactly the message JSON the world holds; it never sees more than the user it acts as would
see on Discord: public messages plus that user's own ephemeral replies.

- ``GET /`` is the page, ``GET /static/...`` its script and style sheet.
- ``GET /ui/ws`` is a WebSocket. The page sends ``{"type": "view", "user": id}`` (again after switching user);
  the server answers with the whole view and then pushes only what changed: ``world`` (guild, channels, members,
  synced commands, the viewer's interactions and open modals; the commands only when they changed since the
  last ``world``, as they are most of its size and change far less often than the rest) and ``messages``
  (upserts and removals).
- ``POST /ui/api/<action>`` acts as a user through the same world methods the tests use (slash command, click,
  select, modal submit, dismiss an ephemeral) or changes the cast (add a user, set a locale). Anything Discord's
  client would refuse is answered ``400 {"error": ...}`` and changes nothing. A refused press on a message edited or
  deleted since the page showed it (the ``edits`` count the page sends with it) is also marked ``"changed": true``
  (a double click whose first press the bot answered by editing the message), where Discord's client tells the
  player only that the interaction failed, so the page says that in a player's words; the diagnostic listing what
  the message holds stays in ``error`` for API clients and tests.

Only the page itself may act (:func:`refusal`): any site the player visits could otherwise post to these
endpoints (a ``text/plain`` form post needs no permission from this server) or open the socket and read every
user's private replies (QA). So an ``Origin`` other than the server's own, an API request that is not JSON, and a
``Host`` that is neither an address nor one of this machine's names are refused with 403: the last is a DNS
rebinding, another site's name made to resolve to this machine, whose pages are then of the same origin as it.
A reverse proxy in front must keep the ``Host`` the browser sent and name the machine.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, WSMsgType, web
from yarl import URL

from fakediscord import commands as cmd
from fakediscord.errors import APIError, FakeDiscordError, InvalidInput, cut, shown
from fakediscord.interactions import APPLICATION_COMMAND, MODAL_SUBMIT, InteractionHandle
from fakediscord.messages import Message
from fakediscord.models import DISCORD_LOCALES, MAX_NAME, Channel, User
from fakediscord.validation import MAX_CONTENT, invalid_text

if TYPE_CHECKING:
    from fakediscord.server import FakeDiscord


STATIC_DIR = Path(__file__).parent / "web"
#: The page loads nothing from elsewhere; this header makes the browser enforce it (and blocks inline scripts).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: How many of a viewer's latest interactions the page is told about (for "This interaction failed").
RECENT_INTERACTIONS = 30
#: What a request the page never sends raises on the way in: wrong JSON types, ``Infinity`` as an id, a body
#: nested too deep. Refused (a 400, a frame ignored), never a traceback and a dead handler.
MALFORMED = (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError)


def own_names() -> frozenset[str]:
    """The names this machine answers to, lower-cased: ``localhost``, its host name, that name on the local network
    (``.local``) and its fully qualified one."""
    name = socket.gethostname().lower()
    return frozenset({"localhost", name, f"{name}.local", socket.getfqdn().lower()})


def refusal(request: web.Request, *, json_body: bool = False) -> str | None:
    """Why ``request`` did not come from the playground's own page, or None (see the module's docstring)."""
    try:
        host = (URL(f"http://{request.host}").host or "").lower()
        origin = request.headers.get("Origin")
        foreign = origin is not None and URL(origin).raw_authority.lower() != request.host.lower()
    except ValueError:
        return "the request names no valid host or origin"
    if not _address(host) and host not in own_names():
        return f"this playground answers to this machine's names and addresses, not to {request.host}"
    if foreign:
        return "another site may not act in the playground"
    if json_body and request.content_type != "application/json":
        return "the body must be JSON (Content-Type: application/json)"
    return None


def _address(host: str) -> bool:
    """Whether ``host`` is an IP address: a page reached by address was not reached through somebody's DNS."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class BadRequest(Exception):
    """A request the page should not have sent (unknown user, message or malformed body)."""


class Changed(Exception):
    """A press refused on a message that changed since the page showed it (``edits`` in the request): a button an
    edit replaced or disabled, a select whose options it changed, a message deleted. The text is fakediscord's
    reason, for API clients; the page says what Discord's client says."""


@dataclass(eq=False)
class Viewer:
    """One open page: the user it acts as and what it was last sent, so pushes carry only changes."""

    socket: web.WebSocketResponse
    user_id: int | None = None
    sent_messages: dict[int, tuple[int, int, str]] = field(default_factory=dict)
    sent_world: str = ""
    sent_commands: list[dict[str, Any]] | None = None
    scheduled: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class WebUI:
    """Serves the playground page and keeps every open page in step with the world."""

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.world = server.world
        self.viewers: set[Viewer] = set()
        self.fatal: str | None = None
        self.closed_modals: set[int] = set()
        self.dismissed: set[int] = set()
        self._pushing: set[asyncio.Future[None]] = set()
        self.world.changes.subscribe(self._changed)

    def install(self, app: web.Application) -> None:
        app.router.add_get("/", self.page)
        app.router.add_static("/static/", STATIC_DIR, show_index=False)
        app.router.add_get("/ui/ws", self.socket)
        actions: dict[str, Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]] = {
            "command": self.command,
            "click": self.click,
            "select": self.select,
            "modal": self.submit_modal,
            "close-modal": self.close_modal,
            "dismiss": self.dismiss,
            "message": self.post_message,
            "add-user": self.add_user,
            "locale": self.set_locale,
        }
        for name, action in actions.items():
            app.router.add_post(f"/ui/api/{name}", self._endpoint(action))
        app.on_shutdown.append(self._close_pages)

    async def _close_pages(self, app: web.Application) -> None:
        """Close every open page's socket when the server stops; the page reconnects to the next server.

        Without this the server waits out its whole shutdown timeout for sockets that never end on their own.
        """
        for viewer in list(self.viewers):
            await viewer.socket.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping")

    # -- the page -----------------------------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.StreamResponse:
        refused = refusal(request)
        if refused is not None:
            return web.json_response({"ok": False, "error": refused}, status=403)
        response = web.FileResponse(STATIC_DIR / "index.html")
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers["Cache-Control"] = "no-store"
        return response

    async def socket(self, request: web.Request) -> web.StreamResponse:
        refused = refusal(request)
        if refused is not None:
            return web.json_response({"ok": False, "error": refused}, status=403)
        ws = web.WebSocketResponse(heartbeat=20.0)
        await ws.prepare(request)
        viewer = Viewer(ws)
        self.viewers.add(viewer)
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(frame.data)
                    viewing = data.get("type") == "view"
                    user_id = int(data["user"]) if viewing and data.get("user") else None
                except MALFORMED:
                    continue  # a frame the page never sends: ignored, the socket stays open
                if viewing:
                    viewer.user_id = user_id
                    viewer.sent_messages.clear()
                    viewer.sent_world = ""
                    viewer.sent_commands = None
                    await self._push(viewer)
        finally:
            self.viewers.discard(viewer)
        return ws

    async def announce_fatal(self, error: str) -> None:
        """Tell every open page that the bot stopped (the page keeps showing it after the server is gone)."""
        self.fatal = error
        for viewer in list(self.viewers):
            await self._send(viewer, {"type": "fatal", "error": error})

    # -- pushing changes ----------------------------------------------------------------------------------

    def _changed(self) -> None:
        for viewer in self.viewers:
            if not viewer.scheduled:
                viewer.scheduled = True
                asyncio.get_running_loop().call_soon(self._schedule_push, viewer)

    def _schedule_push(self, viewer: Viewer) -> None:
        task = asyncio.ensure_future(self._push(viewer))
        self._pushing.add(task)
        task.add_done_callback(self._pushing.discard)

    async def _push(self, viewer: Viewer) -> None:
        viewer.scheduled = False
        if viewer.socket.closed:
            return
        async with viewer.lock:  # one push at a time per page, so diffs arrive in the order they were taken
            await self._push_changes(viewer)

    async def _push_changes(self, viewer: Viewer) -> None:
        user = self.world.users.get(viewer.user_id or 0)
        view = self._world_view(user)
        commands = view.pop("commands")
        world = json.dumps(view)
        # Usually the very command dicts sent last time: the comparison stops at their identity.
        if commands != viewer.sent_commands:
            viewer.sent_world, viewer.sent_commands = world, commands
            await self._send(viewer, {**view, "commands": commands})
        elif world != viewer.sent_world:
            viewer.sent_world = world
            await self._send_text(viewer, world)
        upsert, current = [], {}
        for message in self.world.messages.values():
            if user is None or message.channel.guild is None or not message.is_visible_to(user):
                continue
            if message.id in self.dismissed:
                continue
            # The locale too: the "used /command" line is in the viewer's language, so a new locale sends it again.
            current[message.id] = version = (message.edits, message.flags, user.locale)
            if viewer.sent_messages.get(message.id) != version:
                upsert.append(self._annotated(message, user.locale))
        removed = [str(i) for i in viewer.sent_messages if i not in current]
        viewer.sent_messages = current
        if upsert or removed:
            # Named by its user: a page that switched user meanwhile drops a push still meant for the last one.
            shown_to = str(user.id) if user is not None else None
            await self._send(viewer, {"type": "messages", "for": shown_to, "upsert": upsert, "remove": removed})

    def _annotated(self, message: Message, locale: str) -> dict[str, Any]:
        """The message JSON as held, plus how many edits it has had and which command it answers (Discord's client
        shows "used /command", in the viewer's language where the bot named the command in it)."""
        payload = message.payload()
        payload["playground"] = {"edits": message.edits}  # sent back with a press (``_as_shown``)
        metadata = message.interaction_metadata or {}
        handle = self.world.interactions.get(int(metadata.get("id") or 0))
        if handle is not None and handle.type == APPLICATION_COMMAND:
            path = _command_path(handle.payload["data"])
            command = self.world.commands.find(message.channel.guild_id, path[0])
            shown = cmd.shown_path(command, path, locale) if command is not None else path
            payload["playground"]["command"] = "/" + " ".join(shown)
        return payload

    async def _send(self, viewer: Viewer, data: dict[str, Any]) -> None:
        await self._send_text(viewer, json.dumps(data))

    async def _send_text(self, viewer: Viewer, text: str) -> None:
        if viewer.socket.closed:
            return
        try:
            await viewer.socket.send_str(text)
        except ConnectionError:
            self.viewers.discard(viewer)

    def _world_view(self, user: User | None) -> dict[str, Any]:
        guild = next(iter(self.world.guilds.values()), None)
        commands: list[dict[str, Any]] = []
        if guild is not None:
            local = self.world.commands.list(guild.id)
            shadowed = {c["name"] for c in local}
            commands = local + [c for c in self.world.commands.list(None) if c["name"] not in shadowed]
            if user is not None:  # as Discord's client: a command the member may not use is not offered
                permissions = guild.permissions_of(user)
                commands = [c for c in commands if cmd.permitted(c, permissions)]
        return {
            "type": "world",
            "me": str(user.id) if user else None,
            "bot": {"id": str(self.world.bot.id), "name": self.world.bot.name},
            "connected": self.server.gateway.current is not None,
            "fatal": self.fatal,
            "guild": {"id": str(guild.id), "name": guild.name} if guild else None,
            "channels": [{"id": str(c.id), "name": c.name, "topic": c.topic} for c in guild.channels] if guild else [],
            "users": [
                {"id": str(u.id), "name": u.name, "bot": u.bot, "locale": u.locale} for u in self.world.users.values()
            ],
            "commands": [c for c in commands if c["type"] == cmd.CHAT_INPUT],
            "interactions": self._interactions_of(user),
            "modals": self._modals_of(user),
        }

    def _interactions_of(self, user: User | None) -> list[dict[str, Any]]:
        if user is None:
            return []
        mine = [h for h in self.world.interactions.values() if h.user is user][-RECENT_INTERACTIONS:]
        return [
            {
                "id": str(h.id),
                "message_id": str(h.source.id) if h.source else None,
                "channel_id": str(h.channel.id),
                "custom_id": h.payload["data"].get("custom_id"),
                "state": "failed" if h.failed else "done" if h.acknowledged else "pending",
            }
            for h in mine
        ]

    def _modals_of(self, user: User | None) -> list[dict[str, Any]]:
        if user is None:
            return []
        return [
            {"interaction_id": str(h.id), "modal": h.modal}
            for h in self.world.interactions.values()
            if h.user is user and h.modal is not None and h.id not in self.closed_modals
        ]

    # -- acting as a user ---------------------------------------------------------------------------------

    def _endpoint(
        self, action: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            refused = refusal(request, json_body=True)
            if refused is not None:
                return web.json_response({"ok": False, "error": refused}, status=403)
            try:
                body = await request.json()
                if not isinstance(body, dict):
                    raise BadRequest("the body must be a JSON object")
                # Checked once here, for every field of every action, not at each field an action happens to read.
                refused = invalid_text(body)
                if refused is not None:
                    raise BadRequest(f"{cut(refused)} is not valid text (it holds a lone surrogate)")
                return web.json_response({"ok": True, **await action(body)})
            except Changed as error:
                return web.json_response({"ok": False, "error": str(error), "changed": True}, status=400)
            except (BadRequest, FakeDiscordError) as error:
                return web.json_response({"ok": False, "error": str(error)}, status=400)
            except APIError as error:  # what Discord itself would refuse, e.g. a message over 2,000 characters
                return web.json_response({"ok": False, "error": error.message}, status=400)
            except TimeoutError:
                return web.json_response({"ok": False, "error": "the bot is not connected"}, status=503)
            except MALFORMED as error:
                return web.json_response({"ok": False, "error": f"malformed request: {cut(str(error))}"}, status=400)

        return handle

    async def command(self, body: dict[str, Any]) -> dict[str, Any]:
        user, channel = self._user(body), self._channel(body)
        path = " ".join(str(body.get("command", "")).split())
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise BadRequest("options must be an object")
        values = self._typed_options(user, channel, path, options)
        return _started(await self.server.slash(user, channel, path, **values))

    async def click(self, body: dict[str, Any]) -> dict[str, Any]:
        user = self._user(body)
        with self._as_shown(body, user):
            return _started(await self.server.click(user, self._message(body, user), str(body["custom_id"])))

    async def select(self, body: dict[str, Any]) -> dict[str, Any]:
        user = self._user(body)
        values = body.get("values")
        if not isinstance(values, list):
            raise BadRequest("values must be a list")
        with self._as_shown(body, user):
            message = self._message(body, user)
            select = message.select(custom_id=str(body["custom_id"]))
            if select.type != 3:
                values = [self._entity(v) for v in values]
            return _started(await self.server.select(user, message, select.custom_id, values))

    @contextmanager
    def _as_shown(self, body: dict[str, Any], user: User) -> Iterator[None]:
        """A press refused on a message that changed since the page showed it (its ``edits`` count, sent with the
        press) is :class:`Changed`, whatever fakediscord found wrong: the page tells a stale press from a forged
        one by the message it pressed on, not by the refusal (QA: a double click on a button the first click's edit
        disabled showed fakediscord's "is disabled", and a custom_id no message ever had read as "changed")."""
        try:
            yield
        except (BadRequest, FakeDiscordError) as error:
            shown_edits = body.get("edits")
            message = self.world.messages.get(int(body.get("message") or 0))
            if (
                isinstance(shown_edits, int)
                and message is not None
                and (message.visible_to is None or message.visible_to.id == user.id)
                and (message.deleted or message.edits != shown_edits)
            ):
                raise Changed(str(error)) from error
            raise

    async def submit_modal(self, body: dict[str, Any]) -> dict[str, Any]:
        user = self._user(body)
        opened_by = self._modal_interaction(body, user)
        values = body.get("values") or {}
        if not isinstance(values, dict):
            raise BadRequest("values must be an object")
        handle = await self.server.submit_modal(user, opened_by, {str(k): v for k, v in values.items()})
        self.closed_modals.add(opened_by.id)
        return _started(handle)

    async def close_modal(self, body: dict[str, Any]) -> dict[str, Any]:
        self.closed_modals.add(self._modal_interaction(body, self._user(body)).id)
        self.world.changes.notify()
        return {}

    async def dismiss(self, body: dict[str, Any]) -> dict[str, Any]:
        user = self._user(body)
        message = self._message(body, user)
        if not message.ephemeral:
            raise BadRequest("only ephemeral messages can be dismissed")
        # As on Discord, dismissing hides the message from its user's client; it still exists for the bot.
        self.dismissed.add(message.id)
        self.world.changes.notify()
        return {}

    async def post_message(self, body: dict[str, Any]) -> dict[str, Any]:
        user, channel = self._user(body), self._channel(body)
        content = str(body.get("content", ""))
        if not content.strip():
            raise BadRequest("an empty message is not sent")
        if len(content) > MAX_CONTENT:
            raise BadRequest(f"a message has at most {MAX_CONTENT} characters")
        message = await self.server.post_message(user, channel, content)
        return {"message": str(message.id)}

    async def add_user(self, body: dict[str, Any]) -> dict[str, Any]:
        name = " ".join(str(body.get("name") or "").split())
        if not 1 <= len(name) <= MAX_NAME:
            raise BadRequest(f"a name has 1 to {MAX_NAME} characters")
        user = self.server.add_user(name)
        return {"user": str(user.id)}

    async def set_locale(self, body: dict[str, Any]) -> dict[str, Any]:
        user = self._user(body)
        locale = str(body.get("locale", ""))
        if locale not in DISCORD_LOCALES:
            raise BadRequest(f"unknown locale {shown(locale)}")
        user.locale = locale
        self.world.changes.notify()
        return {}

    # -- lookups ------------------------------------------------------------------------------------------

    def _user(self, body: dict[str, Any]) -> User:
        user = self.world.users.get(int(body.get("user") or 0))
        if user is None or user.bot:
            raise BadRequest("unknown user")
        return user

    def _channel(self, body: dict[str, Any]) -> Channel:
        channel = self.world.channels.get(int(body.get("channel") or 0))
        if channel is None:
            raise BadRequest("unknown channel")
        return channel

    def _message(self, body: dict[str, Any], user: User) -> Message:
        message = self.world.messages.get(int(body.get("message") or 0))
        if message is None or not message.is_visible_to(user):
            raise BadRequest("unknown message")
        return message

    def _modal_interaction(self, body: dict[str, Any], user: User) -> InteractionHandle:
        handle = self.world.interactions.get(int(body.get("interaction") or 0))
        if handle is None or handle.user is not user or handle.modal is None or handle.type == MODAL_SUBMIT:
            raise BadRequest("no such modal")
        return handle

    def _entity(self, value: object) -> User | Channel:
        key = int(str(value))
        found = self.world.users.get(key) or self.world.channels.get(key)
        if found is None:
            raise BadRequest(f"unknown user or channel {shown(value)}")
        return found

    def _typed_options(self, user: User, channel: Channel, path: str, raw: dict[str, Any]) -> dict[str, Any]:
        """Turn the page's text values into what the option types take, as Discord's option picker does.

        The path and option names are as the page shows them to ``user``: in their locale where the bot named
        them so."""
        names = path.split()
        command = self.world.commands.find(channel.guild_id, names[0], locale=user.locale) if names else None
        if command is None:
            raise InvalidInput(f"/{path} is not a command here")
        _, node = cmd.resolve(command, names, user.locale)
        declared = {o["name"]: o for o in node.get("options") or []}
        values: dict[str, Any] = {}
        for typed, value in raw.items():
            if value != "":
                name = cmd.option_name(node, typed, user.locale)
                values[name] = self._typed(declared.get(name), name, value)
        return values

    def _typed(self, option: dict[str, Any] | None, name: str, value: object) -> object:
        if option is None:
            return value
        text = str(value).strip()
        kind = option["type"]
        try:
            if kind == cmd.INTEGER:
                return int(text)
            if kind == cmd.NUMBER:
                return float(text)
        except ValueError:
            raise InvalidInput(f"{name} must be a number") from None
        if kind == cmd.BOOLEAN:
            if text not in ("true", "false"):
                raise InvalidInput(f"{name} must be true or false")
            return text == "true"
        if kind in (cmd.USER, cmd.CHANNEL, cmd.MENTIONABLE):
            return self._entity(text)
        return value


def _command_path(data: dict[str, Any]) -> list[str]:
    """``["kniffel", "start"]`` from APPLICATION_COMMAND data (subcommands are nested options)."""
    path = [data["name"]]
    options = data.get("options") or []
    while options and options[0].get("type") in (cmd.SUB_COMMAND, cmd.SUB_COMMAND_GROUP):
        path.append(options[0]["name"])
        options = options[0].get("options") or []
    return path


def _started(handle: InteractionHandle) -> dict[str, Any]:
    return {"interaction": str(handle.id)}
