"""The gateway: Discord's websocket protocol (v10, JSON, optional zlib-stream / zstd-stream transport).

One :class:`GatewaySession` per IDENTIFY holds the sequence counter and a replay buffer, and outlives its
websocket so a client that RESUMEs gets every dispatch it missed. Sessions are sharded as on Discord: an IDENTIFY
names ``shard: [id, count]`` (none means ``[0, 1]``) and gets only the guilds with ``(guild_id >> 22) % count ==
id``, their events and their interactions; direct messages go to shard 0. Each :class:`GatewayConnection` writes frames
through a single queue, because a zlib stream must be compressed and sent in exactly the order it was produced.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from fakediscord.state import GUILD_MEMBERS, GUILDS, World
from fakediscord.waiting import Changes

_log = logging.getLogger(__name__)

# Opcodes.
DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE_UPDATE = 3
VOICE_STATE_UPDATE = 4
RESUME = 6
RECONNECT = 7
REQUEST_GUILD_MEMBERS = 8
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

# Close codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-close-event-codes).
UNKNOWN_OPCODE = 4001
DECODE_ERROR = 4002
NOT_AUTHENTICATED = 4003
AUTHENTICATION_FAILED = 4004
ALREADY_AUTHENTICATED = 4005
INVALID_SHARD = 4010
DISALLOWED_INTENTS = 4014
UNSUPPORTED_DATA = 1003

#: Seconds between a heartbeat and its ACK: a network round trip, as from Discord. An ACK in the same instant raced
#: discord.py 2.7's keep-alive thread, which notes when it sent a heartbeat only after the event loop has sent it:
#: a loop that read the ACK first measured the whole interval, "Can't keep up, websocket is 41.3s behind" (fixed
#: upstream after 2.7.1, discord.py pull request 10448).
HEARTBEAT_ACK_DELAY = 0.05

MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = 1 << 1 | 1 << 8 | MESSAGE_CONTENT
REPLAY_BUFFER = 5000
SNOWFLAKE_SHIFT = 22


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard Discord routes ``guild_id``'s events to (direct messages: shard 0)."""
    return 0 if guild_id is None else (guild_id >> SNOWFLAKE_SHIFT) % count


def event_guild(event: str, data: dict[str, Any]) -> int | None:
    """The guild an event belongs to (None: a direct message or no guild at all)."""
    raw = data.get("id") if event.startswith("GUILD_") and "guild_id" not in data else data.get("guild_id")
    return int(raw) if raw else None


@dataclass(frozen=True)
class GatewayFrame:
    """One recorded gateway payload; ``direction`` is ``"sent"`` (server to bot) or ``"received"``."""

    direction: str
    op: int
    t: str | None
    s: int | None
    d: Any = field(repr=False)


class Compressor:
    """Turns a JSON text into what goes on the wire for one ``compress`` transport.

    ``zlib-stream`` keeps one deflate context for the whole connection and ends every message with a
    Z_SYNC_FLUSH (``00 00 ff ff``), which is how discord.py detects the end of a message.
    """

    def __init__(self, kind: str | None) -> None:
        self.kind = kind
        self._zlib = zlib.compressobj() if kind == "zlib-stream" else None
        self._zstd: Any = None
        self._zstd_flush = 0
        if kind == "zstd-stream":
            try:
                import zstandard  # type: ignore[import-not-found]
            except ImportError:
                raise ValueError(
                    "compress=zstd-stream was requested but the 'zstandard' module is not installed "
                    "in the fakediscord server's environment"
                ) from None
            self._zstd = zstandard.ZstdCompressor().compressobj()
            self._zstd_flush = zstandard.COMPRESSOBJ_FLUSH_BLOCK
        elif kind not in (None, "zlib-stream"):
            raise ValueError(f"unsupported gateway compression {kind!r} (use zlib-stream, zstd-stream or none)")

    def encode(self, text: str) -> str | bytes:
        data = text.encode()
        if self._zlib is not None:
            return self._zlib.compress(data) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
        if self._zstd is not None:
            return self._zstd.compress(data) + self._zstd.flush(self._zstd_flush)
        return text


class GatewayConnection:
    """One websocket. Frames are queued and written by a single task to keep the stream in order."""

    def __init__(self, ws: web.WebSocketResponse, compressor: Compressor, record: Callable[[GatewayFrame], None]):
        self.ws = ws
        self.compressor = compressor
        self.session: GatewaySession | None = None
        self.closed_by_server = False
        self._record = record
        self._queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())

    def send(self, frame: dict[str, Any]) -> None:
        self._record(GatewayFrame("sent", frame["op"], frame.get("t"), frame.get("s"), frame.get("d")))
        self._queue.put_nowait(frame)

    def send_if_open(self, frame: dict[str, Any]) -> None:
        """:meth:`send`, unless the connection closed meanwhile (a delayed frame such as a heartbeat's ACK)."""
        if not (self.closed_by_server or self.ws.closed or self._writer.done()):
            self.send(frame)

    async def close(self, code: int, reason: str = "") -> None:
        """Flush queued frames, then close with ``code`` (the reason is visible to the client)."""
        self.closed_by_server = True
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._writer), 2)
        await self.ws.close(code=code, message=reason.encode())

    async def stop(self) -> None:
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer

    async def _write(self) -> None:
        while (frame := await self._queue.get()) is not None:
            if self.ws.closed:
                continue
            encoded = self.compressor.encode(json.dumps(frame, separators=(",", ":")))
            try:
                if isinstance(encoded, bytes):
                    await self.ws.send_bytes(encoded)
                else:
                    await self.ws.send_str(encoded)
            except ConnectionError:
                _log.debug("gateway write to a closed socket dropped %s", frame.get("t") or frame["op"])


@dataclass(eq=False)
class GatewaySession:
    """An identified session: sequence numbers and the replay buffer survive reconnects."""

    id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    #: The server's IDENTIFY count when this session was identified (the newest session of a shard wins).
    identified: int = 0
    resumable: bool = True
    resumes: int = 0
    connection: GatewayConnection | None = None
    buffer: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=REPLAY_BUFFER))

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.buffer.append(frame)
        if self.connection is not None:
            self.connection.send(frame)

    def replay_after(self, seq: int | None) -> list[dict[str, Any]]:
        return [f for f in self.buffer if seq is None or f["s"] > seq]

    @property
    def shard_id(self) -> int:
        return self.shard[0] if self.shard else 0

    @property
    def shard_count(self) -> int:
        return self.shard[1] if self.shard else 1

    def covers(self, guild_id: int | None) -> bool:
        """Whether Discord would send this guild's events to this session's shard."""
        return shard_of(guild_id, self.shard_count) == self.shard_id


def _valid_shard(shard: Any) -> bool:
    """``[id, count]`` with ``0 <= id < count``, as Discord requires (else it closes with 4010)."""
    return (
        isinstance(shard, list)
        and len(shard) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
        and 0 <= shard[0] < shard[1]
    )


class Gateway:
    """The ``/gateway`` websocket endpoint and the server-side controls tests use to disturb it."""

    def __init__(
        self,
        world: World,
        token: str,
        *,
        heartbeat_interval: float,
        allowed_intents: int,
        shard_count: int = 1,
    ) -> None:
        self.world = world
        self.token = token
        self.heartbeat_interval = heartbeat_interval
        self.allowed_intents = allowed_intents
        #: What ``GET /gateway/bot`` recommends; clients may IDENTIFY with any count.
        self.shard_count = shard_count
        self.url = ""
        self.sessions: dict[str, GatewaySession] = {}
        #: The session each shard's events go to: the latest IDENTIFY for that shard id wins.
        self.shards: dict[int, GatewaySession] = {}
        self.identifies = 0
        self.heartbeats = 0
        self.frames: list[GatewayFrame] = []
        self.errors: list[str] = []
        self._connections: set[GatewayConnection] = set()

    @property
    def changes(self) -> Changes:
        return self.world.changes

    @property
    def current(self) -> GatewaySession | None:
        """The most recently identified session still serving its shard (the bot's, when it is not sharded)."""
        return max(self.shards.values(), key=lambda session: session.identified, default=None)

    @property
    def ready(self) -> bool:
        """A session is identified, connected, and has been sent READY and its GUILD_CREATEs."""
        return any(session.connection is not None for session in self.shards.values())

    def connected_shards(self) -> set[int]:
        """The shard ids whose session is identified and connected now."""
        return {shard for shard, session in self.shards.items() if session.connection is not None}

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The session that gets ``guild_id``'s events (None when no process holds its shard)."""
        return next((s for s in self.shards.values() if s.covers(guild_id)), None)

    def dispatch(self, event: str, data: dict[str, Any], intent: int) -> None:
        """Send an event to its guild's shard if that session's intents include ``intent`` (0: always)."""
        session = self.session_for(event_guild(event, data))
        if session is None or (intent and not session.intents & intent):
            return
        if event == "GUILD_CREATE":
            data = self._guild_create(data, session)
        author = data.get("author")
        if author and int(author["id"]) != self.world.bot.id and not session.intents & MESSAGE_CONTENT:
            data = {**data, "content": "", "embeds": [], "attachments": [], "components": []}
        session.dispatch(event, data)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        problem = None
        if request.query.get("encoding", "json") != "json":
            problem = f"encoding={request.query['encoding']} is not supported (only json)"
        try:
            compressor = Compressor(request.query.get("compress"))
        except ValueError as exc:
            compressor = Compressor(None)
            problem = str(exc)
        conn = GatewayConnection(ws, compressor, self.frames.append)
        self._connections.add(conn)
        try:
            if problem is not None:
                self.errors.append(problem)
                await conn.close(UNSUPPORTED_DATA, problem)
                return ws
            conn.send({"op": HELLO, "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    await conn.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                try:
                    frame = json.loads(msg.data)
                    op = frame["op"]
                except (ValueError, KeyError, TypeError):
                    await conn.close(DECODE_ERROR, "Error while decoding payload.")
                    break
                self.frames.append(GatewayFrame("received", op, None, None, frame.get("d")))
                await self._on_frame(conn, op, frame.get("d"))
        finally:
            self._detach(conn, None if conn.closed_by_server else ws.close_code)
            self._connections.discard(conn)
            await conn.stop()
        return ws

    async def _on_frame(self, conn: GatewayConnection, op: int, d: Any) -> None:
        if op == HEARTBEAT:
            self.heartbeats += 1
            asyncio.get_running_loop().call_later(HEARTBEAT_ACK_DELAY, conn.send_if_open, {"op": HEARTBEAT_ACK})
        elif op == IDENTIFY:
            await self._identify(conn, d or {})
        elif op == RESUME:
            await self._resume(conn, d or {})
        elif conn.session is None:
            await conn.close(NOT_AUTHENTICATED, "Not authenticated.")
        elif op == REQUEST_GUILD_MEMBERS:
            self._send_member_chunk(conn.session, d or {})
        elif op not in (PRESENCE_UPDATE, VOICE_STATE_UPDATE):
            await conn.close(UNKNOWN_OPCODE, "Unknown opcode.")

    async def _identify(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if conn.session is not None:
            await conn.close(ALREADY_AUTHENTICATED, "Already authenticated.")
            return
        if d.get("token") != self.token:
            self.errors.append("IDENTIFY with a wrong token")
            await conn.close(AUTHENTICATION_FAILED, "Authentication failed.")
            return
        intents = int(d.get("intents") or 0)
        if intents & PRIVILEGED_INTENTS & ~self.allowed_intents:
            self.errors.append(f"IDENTIFY asked for disallowed privileged intents {intents:#x}")
            await conn.close(DISALLOWED_INTENTS, "Disallowed intent(s).")
            return
        shard = d.get("shard")
        if shard is not None and not _valid_shard(shard):
            self.errors.append(f"IDENTIFY with an invalid shard {shard!r}")
            await conn.close(INVALID_SHARD, "Invalid shard.")
            return
        session = GatewaySession(secrets.token_hex(16), intents, list(shard) if shard is not None else None)
        self.identifies += 1
        session.identified = self.identifies
        self.sessions[session.id] = session
        self.shards[session.shard_id] = session
        session.connection = conn
        conn.session = session
        session.dispatch("READY", self._ready_payload(session))
        if intents & GUILDS:
            for guild in self._guilds_of(session):
                session.dispatch("GUILD_CREATE", self._guild_create(guild.payload(), session))
        self.changes.notify()

    async def _resume(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if d.get("token") != self.token:
            await conn.close(AUTHENTICATION_FAILED, "Authentication failed.")
            return
        session = self.sessions.get(d.get("session_id") or "")
        if session is None or not session.resumable:
            conn.send({"op": INVALID_SESSION, "d": False})
            return
        old = session.connection
        session.connection = conn
        conn.session = session
        if old is not None and old is not conn:
            old.session = None
            await old.close(4000, "Session resumed on another connection.")
        for frame in session.replay_after(d.get("seq")):
            conn.send(frame)
        session.dispatch("RESUMED", {"_trace": ["fakediscord"]})
        session.resumes += 1
        self.changes.notify()

    def _detach(self, conn: GatewayConnection, close_code: int | None) -> None:
        session = conn.session
        if session is None or session.connection is not conn:
            return
        session.connection = None
        if close_code in (1000, 1001):
            # Discord ends the session when the client closes it normally; a later RESUME is refused.
            self._end(session)
        self.changes.notify()

    def _end(self, session: GatewaySession) -> None:
        session.resumable = False
        self.sessions.pop(session.id, None)
        if self.shards.get(session.shard_id) is session:
            del self.shards[session.shard_id]

    def _guilds_of(self, session: GatewaySession) -> list[Any]:
        return [guild for guild in self.world.guilds.values() if session.covers(guild.id)]

    def _guild_create(self, payload: dict[str, Any], session: GatewaySession) -> dict[str, Any]:
        """Without the GUILD_MEMBERS intent Discord lists only the bot itself among a guild's members."""
        if session.intents & GUILD_MEMBERS:
            return payload
        bot_id = str(self.world.bot.id)
        return {**payload, "members": [m for m in payload["members"] if m["user"]["id"] == bot_id]}

    def _ready_payload(self, session: GatewaySession) -> dict[str, Any]:
        user = {**self.world.bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0, "locale": "en-US"}
        return {
            "v": 10,
            "user": user,
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self._guilds_of(session)],
            "session_id": session.id,
            "resume_gateway_url": self.url,
            "shard": session.shard or [0, 1],
            "application": {"id": str(self.world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "session_type": "normal",
            "auth": {},
            "_trace": ["fakediscord"],
        }

    def _send_member_chunk(self, session: GatewaySession, d: dict[str, Any]) -> None:
        guild = self.world.guilds.get(int(d.get("guild_id") or 0))
        if guild is None:
            return
        wanted = {int(u) for u in d.get("user_ids") or []}
        query = (d.get("query") or "").lower()
        members = [
            u for u in guild.members.values() if (not wanted or u.id in wanted) and u.name.lower().startswith(query)
        ]
        limit = int(d.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [guild.member_payload(u) for u in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [str(u) for u in wanted - set(guild.members)],
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # -- disturbances tests trigger -----------------------------------------------------------------------

    def _connected_session(self) -> tuple[GatewaySession, GatewayConnection]:
        session = self.current
        if session is None or session.connection is None:
            raise RuntimeError("no bot is connected to the gateway")
        return session, session.connection

    async def reconnect(self, timeout: float) -> None:
        """Send op 7 RECONNECT and wait until the client has RESUMEd the session."""
        session, conn = self._connected_session()
        before = session.resumes
        conn.send({"op": RECONNECT, "d": None})
        await self.changes.wait_for(lambda: session.resumes > before, timeout, "the bot to RESUME after RECONNECT")

    async def invalidate(self, resumable: bool, timeout: float) -> None:
        """Send op 9; wait for the client's RESUME (resumable) or a fresh IDENTIFY (not resumable)."""
        session, conn = self._connected_session()
        resumes, identifies = session.resumes, self.identifies
        if not resumable:
            self._end(session)
        conn.send({"op": INVALID_SESSION, "d": resumable})
        if resumable:
            await self.changes.wait_for(lambda: session.resumes > resumes, timeout, "the bot to RESUME")
        else:
            await self.changes.wait_for(
                lambda: self.identifies > identifies and self.ready, timeout, "the bot to IDENTIFY again"
            )

    async def drop(self, code: int, timeout: float) -> None:
        """Close the socket with ``code`` as a network failure would; wait until the client RESUMEs."""
        session, conn = self._connected_session()
        before = session.resumes
        await conn.close(code, "fakediscord dropped the connection")
        await self.changes.wait_for(lambda: session.resumes > before, timeout, "the bot to RESUME after a drop")

    async def close(self) -> None:
        for conn in list(self._connections):
            with contextlib.suppress(Exception):
                await conn.close(1001, "fakediscord is shutting down")
