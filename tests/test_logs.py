"""discord.py's gateway retries are one log line each (``bot/logs.py``): an outage was fifty lines of traceback per
attempt, hundreds a minute in an admin's logs (QA)."""

from __future__ import annotations

import inspect
import io
import logging
import socket
from types import SimpleNamespace

import aiohttp
import discord
import pytest

from bot.logs import ONE_LINE_RETRIES, RETRIES, reason


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on: connecting to it is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def refused(closed_port: int) -> aiohttp.ClientConnectorError:
    """What discord.py's connection to an unreachable gateway fails with (aiohttp's, chained to the system's)."""
    async with aiohttp.ClientSession() as session:
        try:
            await session.ws_connect(f"ws://127.0.0.1:{closed_port}/gateway")
        except aiohttp.ClientConnectorError as error:
            return error
    raise AssertionError("the connection was not refused")


class Captured:
    """The output of one of discord.py's loggers, with the bot's filter, as ``setup_logging``'s plain formatter
    writes it; the logger's level and filters are restored afterwards."""

    def __init__(self, name: str, level: int) -> None:
        self.logger = logging.getLogger(name)
        self.level = level
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(logging.Formatter("{levelname} {name}: {message}", style="{"))

    def __enter__(self) -> logging.Logger:
        self.saved = self.logger.level, self.logger.propagate
        self.logger.setLevel(self.level)
        self.logger.propagate = False
        self.logger.addHandler(self.handler)
        self.logger.addFilter(ONE_LINE_RETRIES)
        return self.logger

    def __exit__(self, *exc_info: object) -> None:
        self.logger.removeFilter(ONE_LINE_RETRIES)
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.saved[0])
        self.logger.propagate = self.saved[1]

    @property
    def lines(self) -> list[str]:
        return self.stream.getvalue().splitlines()


async def test_a_shard_s_reconnect_is_one_warning_line_naming_the_refused_address(
    refused: aiohttp.ClientConnectorError, closed_port: int
) -> None:
    capture = Captured("discord.shard", logging.INFO)
    with capture as log:
        # As Shard._handle_disconnect logs it.
        log.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 0.77, exc_info=refused)
    assert capture.lines == [
        "WARNING discord.shard: Attempting a reconnect for shard ID 0 in 0.77s "
        f"(cannot connect to 127.0.0.1:{closed_port}: Connection refused)"
    ]


async def test_the_client_s_reconnect_and_a_shard_s_failed_launch_are_one_line_each(
    refused: aiohttp.ClientConnectorError, closed_port: int
) -> None:
    client, shard = Captured("discord.client", logging.INFO), Captured("discord.shard", logging.INFO)
    with client as client_log, shard as shard_log:
        try:
            raise refused
        except aiohttp.ClientConnectorError:
            client_log.exception("Attempting a reconnect in %.2fs", 3.2)  # as Client.connect logs it
            shard_log.exception("Failed to connect for shard_id: %s. Retrying...", 1)  # AutoShardedClient.launch_shard
    why = f"(cannot connect to 127.0.0.1:{closed_port}: Connection refused)"
    assert client.lines == [f"WARNING discord.client: Attempting a reconnect in 3.20s {why}"]
    assert shard.lines == [f"WARNING discord.shard: Failed to connect for shard_id: 1. Retrying... {why}"]


async def test_log_level_debug_keeps_the_traceback(refused: aiohttp.ClientConnectorError) -> None:
    capture = Captured("discord.shard", logging.DEBUG)
    with capture as log:
        log.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 0.77, exc_info=refused)
    assert capture.lines[0].startswith("WARNING discord.shard: Attempting a reconnect for shard ID 0 in 0.77s (")
    assert "Traceback (most recent call last):" in capture.lines


async def test_log_level_error_leaves_the_retries_out(refused: aiohttp.ClientConnectorError) -> None:
    capture = Captured("discord.shard", logging.ERROR)
    with capture as log:
        log.error("Attempting a reconnect for shard ID %s in %.2fs", 0, 0.77, exc_info=refused)
    assert capture.lines == []


def test_other_errors_keep_their_traceback() -> None:
    """A launch that fails with a bug is retried like a network failure: its traceback is the only clue. Other
    records of the same loggers are not touched."""
    capture = Captured("discord.shard", logging.INFO)
    with capture as log:
        try:
            raise KeyError("shard")
        except KeyError:
            log.exception("Failed to connect for shard_id: %s. Retrying...", 0)
            log.exception("Ignoring exception in %s", "on_ready")
    assert capture.lines[0] == "ERROR discord.shard: Failed to connect for shard_id: 0. Retrying..."
    assert capture.lines.count("Traceback (most recent call last):") == 2
    assert "ERROR discord.shard: Ignoring exception in on_ready" in capture.lines


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (socket.gaierror(-2, "Name or service not known"), "Name or service not known"),
        (ConnectionResetError(104, "reset"), "Connection reset by peer"),
        (TimeoutError(), "no answer in time"),
        (discord.GatewayNotFound(), "The gateway to connect to discord was not found."),
        # Cloudflare's error page, many lines of HTML, was the "one line" (review).
        (
            discord.DiscordServerError(
                SimpleNamespace(status=502, reason="Bad Gateway"),
                "<html>\r\n<head><title>502</title></head>\r\n</html>",
            ),
            "Discord answered 502 Bad Gateway",
        ),
        (
            discord.DiscordServerError(SimpleNamespace(status=503, reason="x"), "upstream\nbusy"),
            "Discord answered 503 upstream",
        ),
    ],
)
def test_the_reason_is_a_few_words(error: BaseException, said: str) -> None:
    assert reason(error) == said


def test_discord_py_still_logs_the_retries_it_is_matched_on() -> None:
    """The filter matches discord.py's messages exactly; an upgrade that rewords one shows here, not as a flood."""
    sources = {"discord.shard": inspect.getsource(discord.shard), "discord.client": inspect.getsource(discord.client)}
    for name, message in RETRIES:
        assert f"'{message}'" in sources[name], (name, message)
