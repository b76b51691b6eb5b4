"""Lateness of interactions: measured against the quickest recent arrival, so a skewed clock drops nothing."""

from __future__ import annotations

from bot.play.lateness import BASELINE_SECONDS, DISCORD_EPOCH_MS, LATE_AFTER, Lateness, created_at


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def snowflake(at: float) -> int:
    """A Discord id made at Unix time ``at``."""
    return (round(at * 1000) - DISCORD_EPOCH_MS) << 22


def test_a_snowflake_tells_when_it_was_made() -> None:
    assert created_at(snowflake(1_800_000_000.25)) == 1_800_000_000.25


def test_a_click_is_late_only_against_the_quickest_recent_arrival_whatever_the_clocks() -> None:
    for skew in (-40.0, 0.0, 7.5, 3600.0):  # this machine's clock minus Discord's
        clock = Clock(1_800_000_000.0 + skew)
        lateness = Lateness(clock)
        made = 1_800_000_000.0 - 0.05  # 50 ms on the way
        assert lateness.delay(snowflake(made)) == 0.0 and not lateness.too_late(snowflake(made))
        assert not lateness.too_late(snowflake(made - LATE_AFTER + 0.1))  # queued 2.6 s: still answerable
        assert lateness.too_late(snowflake(made - LATE_AFTER - 0.1))  # queued past the deadline: dropped


def test_the_baseline_follows_a_clock_corrected_later() -> None:
    clock = Clock(1_800_000_000.0)
    lateness = Lateness(clock)
    assert lateness.delay(snowflake(clock.now + 30)) == 0.0  # this clock runs 30 s behind Discord's
    clock.now += 60
    assert lateness.delay(snowflake(clock.now + 30)) == 0.0
    # The clock is corrected (Discord's and ours agree now): after two baseline periods it is the new normal.
    for _ in range(2):
        clock.now += BASELINE_SECONDS + 1
        lateness.delay(snowflake(clock.now))
    assert lateness.delay(snowflake(clock.now - 1.0)) == 1.0
    assert lateness.too_late(snowflake(clock.now - LATE_AFTER - 0.1))
