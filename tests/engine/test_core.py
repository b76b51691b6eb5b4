"""Tests for the shared ranking: players who left rank after everyone who stayed and never win."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.engine.core import competition_ranks, ranked_results, standing_ranks


@pytest.mark.parametrize(
    ("scores", "left", "ranks"),
    [
        ([300, 200, 100], [False, False, False], [1, 2, 3]),
        ([300, 200, 100], [True, False, False], [3, 1, 2]),
        ([300, 200, 200], [True, False, False], [3, 1, 1]),
        ([300, 300, 100], [True, True, False], [2, 2, 1]),
        ([100, 300, 200], [True, True, True], [3, 1, 2]),
        ([50, 400, 10, 90], [False, True, False, True], [1, 3, 2, 4]),
    ],
)
def test_leavers_rank_after_everyone_who_stayed(scores: list[int], left: list[bool], ranks: list[int]) -> None:
    assert standing_ranks(scores, left) == ranks


def test_a_leader_who_left_does_not_win_but_keeps_their_counters() -> None:
    results = ranked_results({"alice": 300, "bob": 200}, {"alice": {"n": 2}, "bob": {"n": 1}}, left=["alice"])
    assert [(r.player, r.score, r.rank, r.won, r.counters) for r in results] == [
        ("alice", 300, 2, False, {"n": 2}),
        ("bob", 200, 1, True, {"n": 1}),
    ]


def test_nobody_wins_when_everybody_left() -> None:
    results = ranked_results({"alice": 300, "bob": 200}, left=["alice", "bob"])
    assert [(r.rank, r.won) for r in results] == [(1, False), (2, False)]


seated = st.lists(st.tuples(st.integers(-100, 400), st.booleans()), min_size=1, max_size=8)


@given(seated)
def test_standing_ranks_property(players: list[tuple[int, bool]]) -> None:
    scores = [score for score, _ in players]
    left = [gone for _, gone in players]
    ranks = standing_ranks(scores, left)
    stayed = [i for i, gone in enumerate(left) if not gone]
    leavers = [i for i, gone in enumerate(left) if gone]
    # Everyone who stayed ranks before everyone who left, ...
    assert all(ranks[s] <= len(stayed) < ranks[g] for s in stayed for g in leavers)
    # ... each group among itself by competition ranks of its scores ...
    assert [ranks[i] for i in stayed] == competition_ranks([scores[i] for i in stayed])
    assert [ranks[i] - len(stayed) for i in leavers] == competition_ranks([scores[i] for i in leavers])
    # ... and without leavers it is plain competition ranking.
    if not leavers:
        assert ranks == competition_ranks(scores)


@given(seated)
def test_winners_are_exactly_the_best_players_who_stayed(players: list[tuple[int, bool]]) -> None:
    names = [f"p{i}" for i in range(len(players))]
    left = [name for name, (_, gone) in zip(names, players, strict=True) if gone]
    results = ranked_results({name: score for name, (score, _) in zip(names, players, strict=True)}, left=left)
    stayed = [(name, score) for name, (score, gone) in zip(names, players, strict=True) if not gone]
    best = max((score for _, score in stayed), default=None)
    assert [r.player for r in results if r.won] == [name for name, score in stayed if score == best]
