"""The final standings' order, which every game's final board lists its lines, cards and grids in."""

from __future__ import annotations

from bot.engine.core import PlayerResult
from bot.ui.standings import ranked


def test_the_standings_go_by_rank_and_ties_by_rolling_order() -> None:
    """The rolling order (``state.players``, as the roll-off set it) breaks a tie, not the seats or the ids."""
    results = [
        PlayerResult(player=player, score=score, rank=rank, won=rank == 1)
        for player, score, rank in [("a", 10, 3), ("b", 30, 1), ("c", 20, 2), ("d", 30, 1), ("e", 20, 2)]
    ]
    rolling = ["e", "d", "c", "b", "a"]
    assert [result.player for result in ranked(results, rolling)] == ["d", "b", "e", "c", "a"]
