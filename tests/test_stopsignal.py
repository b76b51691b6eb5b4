"""A stop signal during the start is noted, not raised: raised, it landed anywhere (a SchemaError traceback from
inside pydantic, exit code -2 without a word), and a SIGTERM killed the process outright."""

from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot import __main__ as bot_main
from bot import datalock
from bot.settings import environment_names
from bot.stopsignal import SIGNALS, EarlyStop, early_stop
from bot.storage import DatabaseError


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_stop_signal_during_the_start_is_noted_not_raised(signum: signal.Signals) -> None:
    early = EarlyStop()
    early.defer()
    signal.raise_signal(signum)  # a KeyboardInterrupt here (SIGINT), or the end of the test process (SIGTERM)
    assert early.requested


class NeverStarting:
    """A bot whose start never ends by itself; ``close`` is what a stop must reach."""

    def __init__(self, stopped_by: str | None = None) -> None:
        self.closed = False
        self.stopped_by: str | None = None
        self._stops_by = stopped_by

    async def start(self, token: str) -> None:
        await asyncio.Event().wait()

    async def close(self) -> None:
        """Closed; with ``stopped_by``, as the bot's own guard closes it once another process took its games."""
        self.closed = True
        self.stopped_by = self._stops_by


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


async def test_a_bot_that_stopped_itself_as_a_signal_came_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its games taken while its claim was lost, the bot closed itself; a stop signal landing meanwhile won the
    wait, and the process exited 0 without the line (review)."""
    early = EarlyStop()
    early.requested = True
    monkeypatch.setattr(bot_main, "early_stop", early)
    bot: Any = NeverStarting(stopped_by="another dicebot process uses the database")
    try:
        with pytest.raises(DatabaseError, match=r"^another dicebot process uses the database$"):
            await asyncio.wait_for(bot_main.run(bot, "token"), 30)
    finally:
        loop = asyncio.get_running_loop()
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)


async def test_a_signal_after_the_stop_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's handlers go when it closes, and Python's finalization sets the system's default: a second Ctrl+C
    in the last tenth of a second of a stop ended the process by SIGINT, exit code -2 (QA). Once the stop is done
    there is nothing left to stop."""
    early = EarlyStop()
    early.requested = True
    monkeypatch.setattr(bot_main, "early_stop", early)
    bot: Any = NeverStarting()
    await asyncio.wait_for(bot_main.run(bot, "token"), 30)
    loop = asyncio.get_running_loop()
    assert not [signum for signum in SIGNALS if loop.remove_signal_handler(signum)]
    assert [signal.getsignal(signum) for signum in SIGNALS] == [signal.SIG_IGN] * len(SIGNALS)


@pytest.mark.skipif(signal.SIGHUP not in SIGNALS, reason="the suite runs under nohup, which the bot keeps")
async def test_a_hangup_stops_the_bot_as_sigterm_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the terminal the bot was started in killed it without a drain (QA): clicks in progress were lost.
    (A handler of the test's own stands in for that default, which would end the test process.)"""
    monkeypatch.setattr(bot_main, "early_stop", EarlyStop())
    signal.signal(signal.SIGHUP, lambda signum, frame: None)
    bot: Any = NeverStarting()
    running = asyncio.ensure_future(bot_main.run(bot, "token"))
    await asyncio.sleep(0)  # run() installs its handlers before its first wait
    signal.raise_signal(signal.SIGHUP)
    await asyncio.wait_for(running, 30)
    assert bot.closed


def hangup_default() -> None:
    """A terminal's hangup as a shell started from it has it, whatever the suite's own (``nohup pytest``)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def test_the_bot_started_by_nohup_outlives_the_terminal() -> None:
    """``nohup`` ignores the hangup and the bot keeps that: it must not stop when the terminal closes."""
    check = "import signal; from bot.stopsignal import SIGNALS; print(signal.SIGHUP in SIGNALS)"
    nohup = "import signal; signal.signal(signal.SIGHUP, signal.SIG_IGN); " + check
    read = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, preexec_fn=hangup_default
        ).stdout
        for code in (nohup, check)
    ]
    assert read == ["False\n", "True\n"]


def test_a_stop_during_the_imports_gives_the_database_lock_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The start returned after taking the SQLite database's lock without releasing it: harmless for a process
    that ends there, but a caller in the same process could not start on that database again (review)."""
    for name in environment_names():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "token")
    monkeypatch.setattr(early_stop, "requested", True)  # as if Ctrl+C came while discord.py was imported

    assert bot_main.run_bot(argparse.Namespace()) == 0

    lock = datalock.hold(Path("data/dicebot.sqlite3"), "still held")
    assert lock is not None
    lock.release()
