"""What a leaderboard page or a /stats answer is, as plain data: computed by ``bot/storage``, shown by ``bot/ui``.

Neither side owns these types, so the renderers never import the storage layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

#: A counter's value: whole numbers stay integers (Kniffels thrown), others are floats (a settlement).
CounterValue = int | float

Metric = Literal["wins", "best", "average", "games"]
Period = Literal["all", "month", "week"]
METRICS: tuple[Metric, ...] = get_args(Metric)
PERIODS: tuple[Period, ...] = get_args(Period)
#: Length of the rolling windows, in days.
PERIOD_DAYS: dict[str, int] = {"week": 7, "month": 30}
#: Fewer games than this make an average luck rather than skill, so they do not rank by average.
MIN_AVERAGE_GAMES = 5
PAGE_SIZE = 10
#: The counter of a result from a game played alone (one person, no computer): never a win, so /stats counts the
#: win rate over the other games; written by the plumbing at a game's end, read back through the counter totals.
SOLO = "solo"
#: The counter of a result whose player used the Hint button in that game (written by the plumbing, as :data:`SOLO`).
HINTS_USED = "hints_used"


@dataclass(frozen=True)
class Standing:
    """One player's line on a board: shared competition rank ("1224"), figure and games counted."""

    rank: int
    user_id: int
    display_name: str
    value: float
    games: int


@dataclass(frozen=True)
class LeaderboardPage:
    """One page of a board plus what the caller needs to know about themselves."""

    kind: str
    metric: Metric
    period: Period
    #: The guild for a server board, None for every server.
    guild_id: int | None
    #: Zero-based; a request past the end is answered with the last page.
    page: int
    total: int
    rows: tuple[Standing, ...]
    #: The caller's line when they rank on this board at all.
    caller: Standing | None
    #: Games the caller has in this board's scope and period (tells them how far they are from averaging).
    caller_games: int
    page_size: int = PAGE_SIZE
    #: Whether an empty board's game has results kept apart from it (games with a computer) in its scope and
    #: period: the board then says where they went. False on a board with lines (not looked up).
    apart_results: bool = False

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def caller_on_page(self) -> bool:
        return self.caller is not None and any(row.user_id == self.caller.user_id for row in self.rows)


@dataclass(frozen=True)
class CounterTotal:
    """One game counter summed over a user's results, and how many of those results had the counter at all."""

    total: CounterValue
    #: Results whose game kept this counter (a rule set without it leaves it out): what a rate is out of.
    games: int

    @property
    def rate(self) -> float:
        return self.total / self.games if self.games else 0.0


@dataclass(frozen=True)
class GameStats:
    """A user's figures in one game over every server; ``counters`` by the names the game reports them under."""

    kind: str
    games: int
    wins: int
    best: int
    score_sum: int
    last_at: float
    #: Only counters the user has at least one result with; storage knows no names, the UI picks what to show.
    counters: Mapping[str, CounterTotal] = field(default_factory=dict)
    #: The rule set these figures are of, when the game's were asked for one by one (Kniffel's two score apart:
    #: a best or an average over both would describe neither); None for figures over all the game's results.
    variant: str | None = None

    @property
    def solo(self) -> int:
        """Games played alone (one person, no computer): never a win."""
        alone = self.counters.get(SOLO)
        return alone.games if alone else 0

    @property
    def hinted(self) -> int:
        """Games in which the user pressed the Hint button (the counter is 1 in each of those results)."""
        used = self.counters.get(HINTS_USED)
        return int(used.total) if used else 0

    @property
    def win_rate(self) -> float:
        """Wins over the games that had an opponent: a game played alone can be neither won nor lost."""
        contested = self.games - self.solo
        return self.wins / contested if contested else 0.0

    @property
    def average(self) -> float:
        return self.score_sum / self.games if self.games else 0.0
