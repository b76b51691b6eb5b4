"""A stop signal (Ctrl+C, SIGTERM) that arrives while the bot or the playground starts: noted, not raised.

Until the event loop handles signals, Python raises a Ctrl+C as ``KeyboardInterrupt`` wherever the main thread is
at that instant. Sent at moments of the start on a loaded machine, it landed inside pydantic's schema build (a
``SchemaError`` traceback, exit code 1) and inside a library's own evaluation, which Python records as unhandled:
``main`` caught it, yet Python ended itself by SIGINT at exit (code -2, no message). A SIGTERM then killed the
process outright. Noted instead, the start stops at its next step; once the loop runs, its own handlers take over,
and ``run`` and ``serve_playground`` read the note after installing them, so a signal in between is not lost.
When the stop is done they ignore later ones (:meth:`EarlyStop.hand_over`): the process ends as its stop said.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The health check imports this module through ``bot.__main__`` every few seconds, without asyncio.
    import asyncio

#: The stop signals: Ctrl+C, SIGTERM, and the hangup of the terminal the bot was started in (its default killed
#: the process without a drain; QA) unless the bot was started to outlive it (``nohup`` ignores it, and the bot
#: inherits that at this import, before it installs any handler of its own).
SIGNALS = (signal.SIGINT, signal.SIGTERM) + (
    () if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else (signal.SIGHUP,)
)


class EarlyStop:
    """Whether a stop signal came before the event loop's handlers were installed."""

    def __init__(self) -> None:
        self.requested = False

    def defer(self) -> None:
        """From now on a stop signal only sets :attr:`requested` (until the event loop installs its handlers)."""
        for signum in SIGNALS:
            signal.signal(signum, self._note)

    def hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        """Once the stop is done, take the signals back from ``loop`` and ignore them for the rest of the process:
        nothing is left to stop. Closing, the loop set Python's handler back, and Python's finalization sets the
        system's default for any handler but "ignore": a second Ctrl+C in the last tenth of a second of a stop
        ended the process by SIGINT (exit code -2, no message; QA)."""
        for signum in SIGNALS:
            loop.remove_signal_handler(signum)
            signal.signal(signum, signal.SIG_IGN)

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True


#: Signal handlers belong to the process, so the note does too.
early_stop = EarlyStop()
