"""The load benchmark's own process never stops for a full collection while it measures a bot."""

from __future__ import annotations

import gc

from bench.collector import collector_paused


def test_the_harness_collector_is_off_and_its_heap_frozen_only_while_the_load_runs() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
