"""How late an interaction reaches the game service, so clicks Discord has already given up on cost nothing.

Discord takes an interaction's answer for 3 seconds; after that the user has seen "This interaction failed" and
any answer is refused. Under overload, clicks queue (in the socket, in the event loop, behind a game's lock); the
ones already past the deadline used to be decided, saved, rendered and sent anyway, which deepened the backlog.
A click found too late is now dropped before any work: nothing is saved, which is what its user was told.

The age of an interaction is read from its snowflake id (Discord's own clock) against this machine's clock.
Clocks differ, and an error of seconds would drop every click, so the age is measured relative to the lowest
offset seen recently (network delay plus clock difference): a click counts as late when it arrives more than
:data:`LATE_AFTER` seconds later than the quickest recent one did.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Discord's limit for the first answer to an interaction, in seconds.
DISCORD_DEADLINE = 3.0
#: Late by more than this (beyond the quickest recent arrival): the answer would no longer be taken.
LATE_AFTER = DISCORD_DEADLINE - 0.25
#: The lowest offset is kept for one to two periods of this many seconds, then forgotten: a clock stepped forward
#: by more than the deadline drops clicks for at most two periods; a shorter memory would let a long backlog
#: become the new normal and shed nothing.
BASELINE_SECONDS = 120.0
#: Milliseconds between Discord's epoch and the Unix epoch (snowflake ids count from the first).
DISCORD_EPOCH_MS = 1_420_070_400_000


def created_at(snowflake: int) -> float:
    """The Unix time (seconds) a Discord id was made."""
    return ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


class Lateness:
    """Tracks the quickest recent arrival and says whether an interaction is too late to answer."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._best: float | None = None
        self._best_at = 0.0
        self._previous_best: float | None = None

    def delay(self, snowflake: int) -> float:
        """Seconds this interaction arrived later than the quickest recent one (0 for the quickest)."""
        now = self._clock()
        offset = now - created_at(snowflake)
        if self._best is None or now - self._best_at > BASELINE_SECONDS:
            # A new period: start again from this arrival, remembering the last period's best meanwhile.
            self._previous_best, self._best, self._best_at = self._best, offset, now
        elif offset < self._best:
            self._best = offset
        baseline = self._best if self._previous_best is None else min(self._best, self._previous_best)
        return max(0.0, offset - baseline)

    def too_late(self, snowflake: int) -> bool:
        return self.delay(snowflake) > LATE_AFTER
