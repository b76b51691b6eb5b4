"""The objects built at start-up, kept out of the cycle collector's sight once the bot is up.

A full collection walks every tracked object. After start-up the bot holds about 180,000 of them (discord.py,
pydantic models, the catalogues, numba and the strategy code) that live as long as the process; under load a full
collection ran every few seconds and walked them all, 140 to 280 ms with the event loop stopped: the slowest
clicks of ``bench.load`` (docs/benchmarks.md, "Load"). Frozen, they are never walked again; what the clicks
create afterwards is collected as before (a full collection then takes 10 to 50 ms).
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)

#: Logged once start-up is over; ``bench/launch.py`` waits for it before measuring a bot in its steady state.
SETTLED = "start-up finished"


def settle() -> None:
    """Collect what start-up left behind, then freeze the rest (call once, when the bot is up)."""
    gc.collect()
    gc.freeze()
    log.info("%s: %d objects frozen out of the collector's sight", SETTLED, gc.get_freeze_count())
