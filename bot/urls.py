"""Checks of the URLs an admin writes (``DATABASE_URL``, ``DISCORD_API_BASE``, ``DISCORD_GATEWAY_URL``), so a
mistake in one is a line naming the setting at start rather than a traceback from the driver or from aiohttp.

Pure: the standard library only, so settings and storage can both use it.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from urllib.parse import SplitResult, parse_qsl, urlsplit

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


#: Characters a URL reserves, which end a password written into it unencoded: ``/``, ``?`` and ``#`` start the path,
#: query or fragment, ``@`` ends the user information (PostgreSQL's drivers split at the first one), ``[`` and ``]``
#: enclose an IPv6 address. A generated password (base64 holds ``/``) then read as a port, a host or a database name.
RESERVED_IN_PASSWORD = frozenset("/?#@[]")
#: The fix, naming no character of the password: the line is printed and logged.
ENCODE_PASSWORD = (
    "the password or user name holds a character a URL reserves (/ ? # @ [ ]): percent-encode each "
    "(/ as %2F, ? as %3F, # as %23, @ as %40, [ as %5B, ] as %5D, and % itself as %25), "
    "or use a password of letters and digits only"
)


#: A URL that is only its scheme, as a half-edited ``.env`` leaves it.
NAMES_NOTHING = "names no server and no database: write postgresql://user:password@host:5432/database"
#: A URL naming a server but no database: libpq's default is a database named after the user.
NAMES_NO_DATABASE = (
    "names no database, so the driver would pick one named after the user: write "
    "postgresql://user:password@host:5432/database"
)
#: The query parameters that name the database instead of the path: libpq's ``dbname``, asyncpg's ``database``,
#: and ``service``, whose entry in pg_service.conf may.
DATABASE_PARAMETERS = frozenset({"dbname", "database", "service"})


def check_database_url(url: str) -> None:
    """Raise ValueError for a database URL its driver would misread, naming no part of its password: a reserved
    character in the user information as written (everything before the URL's last ``@``), then a bad port.

    Checked in that order because a password with ``/`` made the port check read its first part as the port and
    print it ("port 'Zx9' is not a number"). An ``@`` in a query value (``?user=a@b``) is refused alike; encoded as
    ``%40`` it reads the same to the driver. A URL naming nothing after its scheme is refused too: the drivers fill
    in libpq's defaults (the local socket, a database named after the user), so ``migrate-db --to postgresql://``
    copied into a database named ``root`` (QA), and so is one naming a server but no database
    (``postgresql://host:5432``, ``postgresql:///``): the copy went into the database named after the user (review).
    """
    if not url.partition("://")[2]:
        raise ValueError(NAMES_NOTHING)
    written_userinfo = url.partition("://")[2].rpartition("@")[0]
    if RESERVED_IN_PASSWORD.intersection(written_userinfo):
        raise ValueError(ENCODE_PASSWORD)
    if not _names_database(url) and not os.environ.get("PGDATABASE"):  # the drivers' default before the user's
        raise ValueError(NAMES_NO_DATABASE)
    check_ports(url)


def _names_database(url: str) -> bool:
    """Whether ``url`` names its database, in its path or its query (read after the user information)."""
    rest = url.partition("://")[2].rpartition("@")[2]
    path, _, query = rest.partition("?")
    if path.partition("/")[2].partition("#")[0].strip("/"):
        return True
    return any(name in DATABASE_PARAMETERS and value for name, value in parse_qsl(query.partition("#")[0]))


def describe_url(url: str) -> str:
    """A database URL for messages and logs: its user kept, its password left out of the user information (all
    of it, whatever characters it holds: everything before the last ``@`` is user information as written) and
    replaced by ``***`` as a ``password`` or ``sslpassword`` query value."""
    scheme, separator, rest = url.partition("://")
    if "@" in rest:
        userinfo, _, host = rest.rpartition("@")
        rest = f"{userinfo.partition(':')[0]}@{host}"
    return scheme + separator + _SECRET_QUERY.sub(r"\1***", rest)


#: A password given as a query parameter: ``?password=...`` (libpq's name) or the TLS key's ``sslpassword``.
_SECRET_QUERY = re.compile(r"([?&](?:ssl)?password=)[^&#]*", re.IGNORECASE)


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


def every_interface(host: str) -> bool:
    """Whether a server listening on ``host`` listens on every interface: ``0.0.0.0``, ``::`` or ``0`` (which
    the system reads as ``0.0.0.0``)."""
    address = _numeric(host)
    return address is not None and address.is_unspecified


def reached_by(host: str, port: int) -> str | None:
    """Who besides this machine can reach a server listening on ``host`` and ``port``, as a warning's words: None
    for a loopback address (``127.0.0.1``, ``::1``, ``localhost``), "this machine on port N" for every interface,
    else the address. The playground warned for ``localhost`` too and wrote ``0`` as ``0:8080`` (QA)."""
    address = _numeric(host)
    if host.lower() == "localhost" or (address is not None and address.is_loopback):
        return None
    return f"this machine on port {port}" if every_interface(host) else netloc(host, port)


def _numeric(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a numeric ``host`` names as the system reads it for a bind ("0" is 0.0.0.0), None for a name."""
    try:
        numeric = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST)[0][4][0]
    except socket.gaierror:
        return None
    return ipaddress.ip_address(str(numeric).partition("%")[0])
