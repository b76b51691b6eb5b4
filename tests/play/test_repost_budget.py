"""A deleted board is posted anew a few times per version of its game, not as often as something deletes it."""

from __future__ import annotations

from bot.play.live_board import RepostBudget


def test_a_version_is_posted_anew_at_most_its_budget_and_a_new_version_starts_afresh() -> None:
    budget = RepostBudget(per_version=2)
    assert [budget.take(7, 3) for _ in range(4)] == [True, True, False, False]
    assert budget.take(8, 3), "another game has its own budget"
    assert [budget.take(7, 4) for _ in range(3)] == [True, True, False]


def test_only_the_latest_games_are_remembered() -> None:
    budget = RepostBudget(per_version=1, remembered=2)
    assert budget.take(1, 1) and budget.take(2, 1) and budget.take(3, 1)
    assert budget.take(1, 1), "game 1 was forgotten, so its budget is whole again"
    assert not budget.take(3, 1)
