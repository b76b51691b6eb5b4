"""Checks of the URLs an admin writes (``DATABASE_URL``, ``DISCORD_API_BASE``, ``DISCORD_GATEWAY_URL``), so a
mistake in one is a line naming the setting at start rather than a traceback from the driver or from aiohttp.

Pure: the standard library only, so settings and storage can both use it.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

#: The ports a server can listen on.
PORTS = range(1, 65536)


def _split(url: str) -> SplitResult:
    """``urlsplit``, with its one error said as an admin would fix it (it reads "Invalid IPv6 URL")."""
    try:
        return urlsplit(url)
    except ValueError:
        raise ValueError("the [ of an IPv6 address is never closed with ]") from None


def check_ports(url: str) -> None:
    """Raise ValueError naming a port that is no number or outside 1 to 65535, as an admin wrote it: a database
    driver meets the first with a bare int() error, the second with an OverflowError traceback from the socket.
    A URL may list several hosts (``host1:5432,host2:5432``, as PostgreSQL's may); an IPv6 host is in brackets."""
    hosts = _split(url).netloc.rpartition("@")[2]
    for host in hosts.split(","):
        after_address = host.rpartition("]")[2]
        port = after_address.rpartition(":")[2] if ":" in after_address else ""
        if port and not port.isdecimal():
            raise ValueError(f"port {port!r} is not a number")
        if port and int(port) not in PORTS:
            raise ValueError(f"port {int(port)} is not between {PORTS.start} and {PORTS.stop - 1}")


def check_server(url: str, schemes: tuple[str, str]) -> str:
    """``url`` if it starts with one of ``schemes`` (plain and secure, as ``("ws", "wss")``), names a host and, if
    it names a port, one from 1 to 65535: the address of one server (Discord's REST base or gateway), which aiohttp
    and yarl otherwise refuse with a traceback. Else ValueError."""
    plain, secure = schemes
    if not url.startswith((f"{plain}://", f"{secure}://")):
        raise ValueError(f"must start with {plain}:// or {secure}://")
    if not _split(url).hostname:
        raise ValueError("no host")
    check_ports(url)
    return url


def netloc(host: str, port: int) -> str:
    """``host:port`` as a URL writes it: an IPv6 address in brackets (``[::1]:8080``), which URL parsers otherwise
    read up to its last colon as the host and the rest as the port."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
