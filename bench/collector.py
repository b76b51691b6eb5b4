"""The benchmark harness's own cycle collector, kept from stopping the process that measures a bot.

Its own module (no psutil) so that the test suite, which installs only the test extra, can check it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection in this process (fakediscord and the players) while the load runs.

    fakediscord keeps every message and edit, so this process's heap grows by hundreds of thousands of objects a
    run, and each full collection walked them all: 0.1 to 1.4 s with fakediscord and every player stopped, which
    the clicks in flight then counted as the bot's latency (the p99 of whichever bot was running). The instrument
    must not stall; the bots themselves are separate processes and keep their own collectors.
    """
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
