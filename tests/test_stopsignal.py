"""A stop signal during the start is noted, not raised: raised, it landed anywhere (a SchemaError traceback from
inside pydantic, exit code -2 without a word), and a SIGTERM killed the process outright."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from bot import __main__ as bot_main
from bot.stopsignal import SIGNALS, EarlyStop


@pytest.fixture
def handlers_restored() -> Iterator[None]:
    """The test process's own handlers back afterwards (pytest's Ctrl+C, xdist's SIGTERM)."""
    saved = {signum: signal.getsignal(signum) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


@pytest.mark.usefixtures("handlers_restored")
@pytest.mark.parametrize("signum", SIGNALS)
def test_a_stop_signal_during_the_start_is_noted_not_raised(signum: signal.Signals) -> None:
    early = EarlyStop()
    early.defer()
    signal.raise_signal(signum)  # a KeyboardInterrupt here (SIGINT), or the end of the test process (SIGTERM)
    assert early.requested


class NeverStarting:
    """A bot whose start never ends by itself; ``close`` is what a stop must reach."""

    def __init__(self) -> None:
        self.closed = False

    async def start(self, token: str) -> None:
        await asyncio.Event().wait()

    async def close(self) -> None:
        self.closed = True


@pytest.mark.usefixtures("handlers_restored")
async def test_a_signal_noted_before_the_loop_handled_signals_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The note is read once the loop's handlers are installed: a signal between the imports' check and them is
    not lost (the bot would have started and run on)."""
    early = EarlyStop()
    early.requested = True
    monkeypatch.setattr(bot_main, "early_stop", early)
    bot: Any = NeverStarting()
    try:
        await asyncio.wait_for(bot_main.run(bot, "token"), 30)
    finally:
        loop = asyncio.get_running_loop()
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
    assert bot.closed
