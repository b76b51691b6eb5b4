"""The REST API under ``/api/v10``: routing, auth, body parsing, recording and fault injection.

Handlers are thin: they parse ids and bodies, call :class:`fakediscord.state.World`, and serialise the result.
Every request is recorded (method, path, query, JSON body, status, response) before anything can fail, and any
route fakediscord does not implement answers ``404`` with code 0 and is flagged ``unhandled`` so a test failure
points straight at the missing call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, web

from fakediscord.errors import APIError
from fakediscord.faults import Faults
from fakediscord.gateway import Gateway
from fakediscord.interactions import InteractionHandle
from fakediscord.models import MANAGE_MESSAGES, Guild
from fakediscord.state import Upload, World
from fakediscord.validation import check_message

API_PREFIX = "/api/v10"
#: Routes authorised by the interaction token in the path rather than the bot token.
TOKEN_ROUTES = re.compile(r"^/(interactions/\d+/[^/]+/callback|webhooks/\d+/[^/]+)")
CALLBACK_PATH = re.compile(r"^/interactions/(\d+)/[^/]+/callback$")
WEBHOOK_PATH = re.compile(r"^/webhooks/\d+/([^/]+)")
#: Methods of requests that may change the world (an interaction's callback and typing are POSTs too).
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(eq=False)
class RecordedRequest:
    """One REST call the bot made. ``json`` is the parsed body (``payload_json`` for multipart requests)."""

    method: str
    path: str
    query: dict[str, str]
    json: Any = None
    files: list[Upload] = field(default_factory=list, repr=False)
    status: int = 0
    response: Any = field(default=None, repr=False)
    unhandled: bool = False

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass(eq=False)
class Call:
    """Per-request context the middleware hands to handlers: the record and the parsed body."""

    record: RecordedRequest
    body: Any = None
    uploads: list[Upload] = field(default_factory=list)


CALL = web.RequestKey("fakediscord_call", Call)


class RestAPI:
    """Registers the routes on an aiohttp application and keeps the request log."""

    def __init__(self, world: World, token: str, gateway: Gateway, faults: Faults) -> None:
        self.world = world
        self.token = token
        self.gateway = gateway
        self.faults = faults
        self.requests: list[RecordedRequest] = []
        #: Called after a request that may have changed the world succeeded, before it is answered: what the bot is
        #: told exists is kept by then (the playground saves its world here, as Discord never loses what it
        #: acknowledged).
        self.before_answering_writes: list[Callable[[], None]] = []

    def install(self, app: web.Application) -> None:
        app.middlewares.append(self._middleware)
        r = app.router
        p = API_PREFIX
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", self.get_me),
            ("GET", "/users/@me/guilds", self.get_my_guilds),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/applications/{app}/commands", self.list_commands),
            ("PUT", "/applications/{app}/commands", self.overwrite_commands),
            ("POST", "/applications/{app}/commands", self.upsert_command),
            ("GET", "/applications/{app}/commands/{command}", self.get_command),
            ("PATCH", "/applications/{app}/commands/{command}", self.edit_command),
            ("DELETE", "/applications/{app}/commands/{command}", self.delete_command),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self.list_commands),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self.overwrite_commands),
            ("POST", "/applications/{app}/guilds/{guild}/commands", self.upsert_command),
            ("GET", "/applications/{app}/guilds/{guild}/commands/{command}", self.get_command),
            ("PATCH", "/applications/{app}/guilds/{guild}/commands/{command}", self.edit_command),
            ("DELETE", "/applications/{app}/guilds/{guild}/commands/{command}", self.delete_command),
            ("POST", "/interactions/{interaction}/{token}/callback", self.interaction_callback),
            ("POST", "/webhooks/{app}/{token}", self.create_followup),
            ("GET", "/webhooks/{app}/{token}/messages/{message}", self.get_webhook_message),
            ("PATCH", "/webhooks/{app}/{token}/messages/{message}", self.edit_webhook_message),
            ("DELETE", "/webhooks/{app}/{token}/messages/{message}", self.delete_webhook_message),
            ("GET", "/channels/{channel}", self.get_channel),
            ("GET", "/channels/{channel}/messages", self.list_messages),
            ("POST", "/channels/{channel}/messages", self.create_message),
            ("GET", "/channels/{channel}/messages/{message}", self.get_message),
            ("PATCH", "/channels/{channel}/messages/{message}", self.edit_message),
            ("DELETE", "/channels/{channel}/messages/{message}", self.delete_message),
            ("POST", "/channels/{channel}/typing", self.typing),
            ("GET", "/guilds/{guild}", self.get_guild),
            ("GET", "/guilds/{guild}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild}/roles", self.get_guild_roles),
            ("GET", "/guilds/{guild}/members", self.list_members),
            ("GET", "/guilds/{guild}/members/{user_id}", self.get_member),
        ]
        for method, path, handler in routes:
            r.add_route(method, p + path, handler)
        r.add_route("*", p + "/{tail:.*}", self.unknown_route)

    # -- plumbing -----------------------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX + "/"):
            return await handler(request)
        path = request.path[len(API_PREFIX) :]
        record = RecordedRequest(request.method, path, dict(request.query))
        self.requests.append(record)
        request[CALL] = Call(record)
        self._attach_to_interaction(path, record)
        try:
            await self._read_body(request, request[CALL])
            if not TOKEN_ROUTES.match(path) and request.headers.get("Authorization") != f"Bot {self.token}":
                raise APIError.unauthorized()
            fault = self.faults.match(request.method, path)
            if fault is not None:
                body, headers = fault.response()
                response: web.StreamResponse = self._reply(request, body, fault.status)
                response.headers.update(headers)
            else:
                response = await handler(request)
        except APIError as exc:
            response = self._reply(request, exc.body(), exc.status)
        record.status = response.status
        self.world.changes.notify()
        if request.method in WRITES and response.status < 400:
            # After the change was announced: a save here also stands for the delayed one it scheduled.
            for listener in self.before_answering_writes:
                listener()
        return response

    def _attach_to_interaction(self, path: str, record: RecordedRequest) -> None:
        """File requests about an interaction under its handle, faulted and refused ones included."""
        handle = None
        if (match := CALLBACK_PATH.match(path)) is not None:
            handle = self.world.interactions.get(int(match.group(1)))
        elif (match := WEBHOOK_PATH.match(path)) is not None:
            handle = self.world.handle_by_token(match.group(1))
        if handle is not None:
            handle.requests.append(record)

    async def _read_body(self, request: web.Request, call: Call) -> None:
        if not request.can_read_body:
            return
        if request.content_type.startswith("multipart/"):
            uploads: dict[int, Upload] = {}
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):  # a nested multipart: Discord's uploads have none
                    continue
                name = part.name or ""
                if name == "payload_json":
                    call.body = _loads(await part.text())
                elif (match := re.fullmatch(r"files\[(\d+)\]", name)) is not None:
                    content_type = part.headers.get("Content-Type", "application/octet-stream")
                    data = await part.read()
                    uploads[int(match.group(1))] = Upload(part.filename or "file", bytes(data), content_type)
            call.uploads = [uploads[i] for i in sorted(uploads)]
        else:
            text = await request.text()
            call.body = _loads(text) if text else None
        call.record.json = call.body
        call.record.files = call.uploads

    @staticmethod
    def _reply(request: web.Request, data: Any, status: int = 200) -> web.Response:
        request[CALL].record.response = data
        if status == 204:
            return web.Response(status=204)
        # Exactly "application/json": discord.py compares the header verbatim, a charset suffix makes it text.
        body = json.dumps(data, separators=(",", ":")).encode()
        return web.Response(body=body, status=status, headers={"Content-Type": "application/json"})

    def _body(self, request: web.Request) -> dict[str, Any]:
        body = request[CALL].body
        if body is None:
            return {}
        if not isinstance(body, dict):
            raise APIError.invalid_form_body(
                {"_errors": [{"code": "DICT_TYPE_CONVERT", "message": "Only dictionaries may be used in a DictType"}]}
            )
        return body

    def _check_app(self, request: web.Request) -> Guild | None:
        if _snowflake(request, "app") != self.world.application_id:
            raise APIError.wrong_application()
        if "guild" not in request.match_info:
            return None
        guild = self.world.guilds.get(_snowflake(request, "guild"))
        if guild is None:
            raise APIError.missing_access()
        return guild

    def _webhook_interaction(self, request: web.Request) -> InteractionHandle:
        return self.world.interaction_for_webhook(_snowflake(request, "app"), request.match_info["token"])

    # -- users, application, gateway ----------------------------------------------------------------------

    async def get_me(self, request: web.Request) -> web.Response:
        user = {**self.world.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0, "locale": "en-US"}
        return self._reply(request, user)

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.world.users.get(_snowflake(request, "user_id"))
        if user is None:
            raise APIError.unknown_user()
        return self._reply(request, user.payload())

    async def get_my_guilds(self, request: web.Request) -> web.Response:
        guilds: list[dict[str, Any]] = [
            {
                "id": str(g.id),
                "name": g.name,
                "icon": None,
                "owner": False,
                "permissions": str(g.permissions_of(self.world.bot)),
                "features": [],
            }
            for g in self.world.guilds.values()
        ]
        return self._reply(request, guilds)

    async def create_dm(self, request: web.Request) -> web.Response:
        recipient: Any = self._body(request).get("recipient_id")
        user = self.world.users.get(int(recipient)) if str(recipient).isdigit() else None
        if user is None:
            raise APIError.unknown_user()
        return self._reply(request, self.world.dm_channel(user).payload())

    async def get_application(self, request: web.Request) -> web.Response:
        world = self.world
        app: dict[str, Any] = {
            "id": str(world.application_id),
            "name": world.bot.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot": world.bot.payload(),
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": world.owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "tags": [],
            "redirect_uris": [],
            "rpc_origins": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(world.guilds),
            "integration_types_config": {"0": {}},
        }
        return self._reply(request, app)

    async def get_gateway(self, request: web.Request) -> web.Response:
        return self._reply(request, {"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 1000 - self.gateway.identifies, "reset_after": 86_400_000}
        limit["max_concurrency"] = 1
        body = {"url": self.gateway.url, "shards": self.gateway.shard_count, "session_start_limit": limit}
        return self._reply(request, body)

    # -- application commands -----------------------------------------------------------------------------

    async def list_commands(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        return self._reply(request, self.world.commands.list(guild.id if guild else None))

    async def overwrite_commands(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        body = request[CALL].body if request[CALL].body is not None else []
        stored = self.world.commands.overwrite(guild.id if guild else None, body)
        self.world.changes.notify()
        return self._reply(request, stored)

    async def upsert_command(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        stored, created = self.world.commands.upsert(guild.id if guild else None, self._body(request))
        self.world.changes.notify()
        return self._reply(request, stored, 201 if created else 200)

    async def get_command(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        command = self.world.commands.get(guild.id if guild else None, _snowflake(request, "command"))
        return self._reply(request, command)

    async def edit_command(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        scope = guild.id if guild else None
        command = self.world.commands.edit(scope, _snowflake(request, "command"), self._body(request))
        self.world.changes.notify()
        return self._reply(request, command)

    async def delete_command(self, request: web.Request) -> web.Response:
        guild = self._check_app(request)
        self.world.commands.delete(guild.id if guild else None, _snowflake(request, "command"))
        self.world.changes.notify()
        return self._reply(request, None, 204)

    # -- interactions and their webhook -------------------------------------------------------------------

    async def interaction_callback(self, request: web.Request) -> web.Response:
        handle = self.world.interaction_for_callback(_snowflake(request, "interaction"), request.match_info["token"])
        response = self.world.respond(handle, self._body(request), request[CALL].uploads)
        if _truthy(request.query.get("with_response")):
            return self._reply(request, response)
        return self._reply(request, None, 204)

    async def create_followup(self, request: web.Request) -> web.Response:
        handle = self._webhook_interaction(request)
        message = self.world.followup(handle, self._body(request), request[CALL].uploads)
        if _truthy(request.query.get("wait")):
            return self._reply(request, message.payload())
        return self._reply(request, None, 204)

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._webhook_interaction(request)
        return self._reply(request, self.world.webhook_message(handle, request.match_info["message"]).payload())

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._webhook_interaction(request)
        message = self.world.webhook_message(handle, request.match_info["message"])
        edited = self.world.edit_webhook_message(handle, message, self._body(request), request[CALL].uploads)
        return self._reply(request, edited.payload())

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        handle = self._webhook_interaction(request)
        self.world.delete_message(self.world.webhook_message(handle, request.match_info["message"]))
        return self._reply(request, None, 204)

    # -- channels and messages ----------------------------------------------------------------------------

    async def get_channel(self, request: web.Request) -> web.Response:
        return self._reply(request, self.world.channel(_snowflake(request, "channel")).payload())

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self.world.channel(_snowflake(request, "channel"))
        messages = self.world.channel_messages(channel)
        query = request.query
        limit = min(max(int(query.get("limit", "50")), 1), 100)
        if "before" in query:
            messages = [m for m in messages if m.id < int(query["before"])]
        if "after" in query:
            messages = [m for m in messages if m.id > int(query["after"])][:limit]
        if "around" in query:
            around = int(query["around"])
            older = [m for m in messages if m.id <= around][-((limit + 1) // 2) :]
            messages = older + [m for m in messages if m.id > around][: limit - len(older)]
        newest_first = list(reversed(messages))[:limit]
        return self._reply(request, [m.payload() for m in newest_first])

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self.world.channel(_snowflake(request, "channel"))
        data = self._body(request)
        check_message(data)
        uploads = request[CALL].uploads
        if not (data.get("content") or data.get("embeds") or data.get("components") or uploads):
            raise APIError.empty_message()
        message = self.world.create_message(channel, self.world.bot, data, uploads)
        return self._reply(request, message.payload())

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self.world.channel(_snowflake(request, "channel"))
        return self._reply(request, self.world.message(channel, _snowflake(request, "message")).payload())

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self.world.channel(_snowflake(request, "channel"))
        message = self.world.message(channel, _snowflake(request, "message"))
        if message.author is not self.world.bot:
            raise APIError.not_message_author()
        data = self._body(request)
        check_message(data)
        return self._reply(request, self.world.edit_message(message, data, request[CALL].uploads).payload())

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self.world.channel(_snowflake(request, "channel"))
        message = self.world.message(channel, _snowflake(request, "message"))
        guild = channel.guild
        if (
            message.author is not self.world.bot
            and guild
            and not guild.permissions_of(self.world.bot) & MANAGE_MESSAGES
        ):
            raise APIError(403, 50013, "Missing Permissions")
        self.world.delete_message(message)
        return self._reply(request, None, 204)

    async def typing(self, request: web.Request) -> web.Response:
        self.world.channel(_snowflake(request, "channel"))
        return self._reply(request, None, 204)

    # -- guilds -------------------------------------------------------------------------------------------

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self.world.guild(_snowflake(request, "guild"))
        payload = guild.payload()
        for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at", "member_count"):
            payload.pop(key, None)
        if _truthy(request.query.get("with_counts")):
            payload["approximate_member_count"] = len(guild.members)
            payload["approximate_presence_count"] = 0
        return self._reply(request, payload)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self.world.guild(_snowflake(request, "guild"))
        return self._reply(request, [c.payload() for c in guild.channels])

    async def get_guild_roles(self, request: web.Request) -> web.Response:
        guild = self.world.guild(_snowflake(request, "guild"))
        return self._reply(request, [r.payload() for r in guild.roles])

    async def list_members(self, request: web.Request) -> web.Response:
        guild = self.world.guild(_snowflake(request, "guild"))
        after = int(request.query.get("after", "0"))
        limit = min(max(int(request.query.get("limit", "1")), 1), 1000)
        members = sorted((u for u in guild.members.values() if u.id > after), key=lambda u: u.id)[:limit]
        return self._reply(request, [guild.member_payload(u) for u in members])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self.world.guild(_snowflake(request, "guild"))
        user = guild.members.get(_snowflake(request, "user_id"))
        if user is None:
            raise APIError.unknown_member()
        return self._reply(request, guild.member_payload(user))

    async def unknown_route(self, request: web.Request) -> web.Response:
        request[CALL].record.unhandled = True
        raise APIError.not_found()


def _snowflake(request: web.Request, name: str) -> int:
    value = request.match_info[name]
    if not value.isdigit():
        raise APIError.not_found()
    return int(value)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true")


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise APIError.bad_json() from None
