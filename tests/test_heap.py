"""The start-up heap is frozen out of the cycle collector's sight, and garbage made before is collected first."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from bot import heap


class Node:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_settle_collects_cycles_then_freezes_the_rest(unfrozen: None) -> None:
    kept = Node()
    gc.disable()
    try:
        garbage = weakref.ref(Node())
        assert garbage() is not None
        heap.settle()
    finally:
        gc.enable()
    assert garbage() is None
    assert gc.get_freeze_count() > 0
    assert not any(obj is kept for obj in gc.get_objects())  # frozen: no collection walks it any more


def test_settle_says_start_up_is_over(unfrozen: None, caplog: pytest.LogCaptureFixture) -> None:
    """bench/launch.py waits for this line before measuring a bot in its steady state."""
    with caplog.at_level("INFO", logger="bot.heap"):
        heap.settle()
    assert any(record.getMessage().startswith(heap.SETTLED) for record in caplog.records)
