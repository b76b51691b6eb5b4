"""The bot's log output: discord.py's handler and level, and one line per attempt to reach a gateway that is down.

discord.py logs every retry of a lost or unreachable gateway at ERROR with the whole traceback of the failed
connection (two chained exceptions, some fifty lines): during a Discord outage, or a network one, that was hundreds
of lines a minute in an admin's ``docker logs`` or journal, burying everything else, for a condition the bot
handles by itself. :class:`OneLineRetries` turns each such record into one WARNING line that names the reason
(``cannot connect to gateway.discord.gg:443: Connection refused``); the traceback stays at ``LOG_LEVEL=DEBUG``.

Only the retry messages of :data:`RETRIES`, and only for the network failures of :data:`NETWORK_ERRORS`, are
rewritten: an exception of any other kind (``launch_shard`` retries after any exception, a bug included) keeps its
traceback, and so does every other record.
"""

from __future__ import annotations

import logging
import os

import aiohttp
import discord

from bot.urls import netloc

#: discord.py's loggers and the messages they log, with the failure as ``exc_info``, before waiting to retry a
#: gateway connection (``discord/shard.py`` and ``discord/client.py``, discord.py 2.7). Matched exactly: a message
#: discord.py rewords is left as it is, traceback included, rather than guessed at.
RETRIES = {
    ("discord.shard", "Attempting a reconnect for shard ID %s in %.2fs"),
    ("discord.shard", "Failed to connect for shard_id: %s. Retrying..."),
    ("discord.client", "Attempting a reconnect in %.2fs"),
}

#: What a connection to Discord fails with when Discord or the network is down: the exceptions discord.py's
#: reconnect loops catch (``Shard._handled_exceptions``, ``Client.connect``).
NETWORK_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    discord.HTTPException,
    discord.GatewayNotFound,
    discord.ConnectionClosed,
    aiohttp.ClientError,
    TimeoutError,
)


def reason(error: BaseException) -> str:
    """Why a connection to Discord failed, in a few words, e.g. ``cannot connect to 127.0.0.1:8080: Connection
    refused`` (aiohttp's own text repeats the address, adds ``ssl:default`` and the failed system call)."""
    if isinstance(error, aiohttp.ClientConnectorError):
        where = error.host if error.port is None else netloc(error.host, error.port)
        return f"cannot connect to {where}: {system_reason(error.os_error)}"
    if isinstance(error, discord.ConnectionClosed):
        return f"the gateway closed the connection with code {error.code}"
    if isinstance(error, discord.HTTPException):
        # A proxy's error page is HTML over many lines (Cloudflare's 502): its status's name says enough (review).
        lines = error.text.strip().splitlines()
        text = getattr(error.response, "reason", "") if not lines or lines[0].startswith("<") else lines[0][:100]
        return f"Discord answered {error.status} {text or ''}".strip()
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, OSError):
        return system_reason(error)
    return str(error) or type(error).__name__


def system_reason(error: OSError) -> str:
    """The system's words for an errno (``Connection refused``), not asyncio's "Connect call failed (address)";
    a resolver's error has its own (``Name or service not known``)."""
    if error.errno is not None and error.errno > 0:
        return os.strerror(error.errno)
    return error.strerror or str(error) or type(error).__name__


class OneLineRetries(logging.Filter):
    """Rewrites discord.py's records of a gateway retry (:data:`RETRIES`) into one WARNING line with the reason.

    A filter on discord.py's loggers, so every handler sees the short line. The logger let the record through at
    ERROR: a rewritten record whose logger is set above WARNING is dropped, as a WARNING logged there would be.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str) or (record.name, record.msg) not in RETRIES or not record.exc_info:
            return True
        error = record.exc_info[1]
        if not isinstance(error, NETWORK_ERRORS):
            return True
        logger = logging.getLogger(record.name)
        record.msg, record.args = "%s (%s)", (record.getMessage(), reason(error))
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        if not logger.isEnabledFor(logging.DEBUG):
            record.exc_info, record.exc_text = None, None
        return logger.isEnabledFor(logging.WARNING)


#: The one instance: ``addFilter`` skips a filter a logger already has, so a second set-up in a process adds none.
ONE_LINE_RETRIES = OneLineRetries()


def setup_logging(level: str) -> None:
    """discord.py's log handler on the root logger at ``level`` (``"INFO"``), with gateway retries one line each."""
    discord.utils.setup_logging(level=logging.getLevelNamesMapping()[level])
    for name in {name for name, _ in RETRIES}:
        logging.getLogger(name).addFilter(ONE_LINE_RETRIES)
