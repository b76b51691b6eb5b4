"""A TCP relay between the bot and the PostgreSQL server that a test can take down and bring back.

Taking it down closes every relayed connection and turns new ones away, which is what the bot sees while its
database server restarts, without stopping the server other tests share. Two partial failures act on the
connections relayed so far only: :meth:`Relay.stall` drops whatever either side sends and never passes a close on
(a partition: neither side hears of the other), :meth:`Relay.cut_clients` closes the client's side and keeps the
server's open (a proxy or NAT that dropped only the client: the server's session and its locks stay).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit


@dataclass(eq=False)
class _Link:
    """One relayed connection: its client's and its server's writers, and how it fails."""

    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    stalled: bool = False
    lingering: bool = False


class Relay:
    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._up = True
        self._writers: set[asyncio.StreamWriter] = set()
        self._links: set[_Link] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    @classmethod
    @contextlib.asynccontextmanager
    async def to(cls, url: str) -> AsyncIterator[Relay]:
        """A relay to the server of a ``postgresql://`` URL, listening on a free local port."""
        parts = urlsplit(url)
        relay = cls(parts.hostname or "127.0.0.1", parts.port or 5432)
        relay._server = await asyncio.start_server(relay._accept, "127.0.0.1", 0)
        relay.port = relay._server.sockets[0].getsockname()[1]
        try:
            yield relay
        finally:
            await relay.down()
            relay._server.close()
            await relay._server.wait_closed()

    def url(self, url: str) -> str:
        """``url`` pointed at the relay instead of the server."""
        parts = urlsplit(url)
        credentials = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        return urlunsplit(parts._replace(netloc=f"{credentials}127.0.0.1:{self.port}"))

    async def down(self) -> None:
        """Close every relayed connection and refuse new ones until :meth:`up`."""
        self._up = False
        for writer in list(self._writers):
            writer.close()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    def up(self) -> None:
        self._up = True

    def stall(self) -> None:
        """From now on the connections relayed so far carry nothing and are never closed by the relay."""
        for link in self._links:
            link.stalled = True

    def cut_clients(self) -> None:
        """Close the client's side of every connection relayed so far; their server sessions stay open."""
        for link in self._links:
            link.lingering = True
            link.client.close()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if not self._up:
            client_writer.close()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self._target)
        except OSError:
            client_writer.close()
            return
        self._writers.update((client_writer, server_writer))
        link = _Link(client_writer, server_writer)
        self._links.add(link)
        for source, sink in ((client_reader, server_writer), (server_reader, client_writer)):
            pump = asyncio.create_task(self._pump(source, sink, link))
            self._pumps.add(pump)
            pump.add_done_callback(self._pumps.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, link: _Link) -> None:
        try:
            while data := await source.read(65536):
                if link.stalled:
                    continue
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            if not (link.stalled and self._up) and not (link.lingering and sink is link.server):
                sink.close()
                self._writers.discard(sink)
