"""Tests for the Knister engine: line patterns, the worked example, the round machine, leaving and timeouts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import knister as kn
from bot.engine.core import (
    AlreadyPlaced,
    CellFilled,
    GameOver,
    IllegalAction,
    MustRollFirst,
    NotAPlayer,
    NotYourTurn,
)
from tests.scripted import assert_apply_accepts_only_legal, scripted_dice

EXAMPLE_53 = [
    [7, 4, 8, 9, 11],
    [3, 7, 3, 7, 7],
    [5, 5, 10, 5, 5],
    [8, 9, 3, 6, 9],
    [8, 11, 8, 8, 7],
]


# --------------------------------------------------------------------------------------------------
# Scoring


@pytest.mark.parametrize(
    ("line", "points"),
    [
        ([4, 5, 6, 7, 5], 1),  # pair (rulebook example)
        ([7, 8, 7, 7, 4], 3),  # three equal
        ([6, 3, 6, 6, 6], 6),  # four equal
        ([8, 8, 8, 8, 8], 10),  # five equal
        ([5, 6, 6, 10, 5], 3),  # two pairs
        ([4, 9, 4, 4, 9], 8),  # full house
        ([7, 10, 8, 6, 9], 8),  # straight with a 7
        ([3, 5, 6, 2, 4], 12),  # straight without a 7 (2-6)
        ([12, 9, 11, 8, 10], 12),  # straight without a 7 (8-12)
        ([3, 4, 5, 6, 7], 8),
        ([2, 4, 6, 8, 10], 0),  # nothing
        ([2, 3, 4, 5, 7], 0),  # four in a row is no straight
    ],
)
def test_score_line_patterns(line: list[int], points: int) -> None:
    assert kn.score_line(line) == points


def test_worked_example_totals_53_with_its_breakdown() -> None:
    assert kn.score_grid(EXAMPLE_53) == 53
    scores = kn.line_scores(EXAMPLE_53)
    assert scores.rows == [0, 8, 6, 1, 3]
    assert scores.columns == [1, 0, 3, 8, 1]
    assert scores.diagonals == [3, 8]  # 7,7,10,6,7 three equal; 11,7,10,9,8 straight with 7
    assert scores.total == 53


@pytest.mark.parametrize(
    "bad",
    [[2, 3, 4, 5], [2, 3, 4, 5, 6, 7], [1, 3, 4, 5, 6], [2, 3, 4, 5, 13], [2, 3, 4, 5, True], [2, 3, 4, 5, 6.0]],
)
def test_score_line_rejects_invalid_input(bad: list) -> None:
    with pytest.raises(ValueError, match="Knister"):
        kn.score_line(bad)


def test_score_grid_rejects_wrong_shape_and_empty_cells() -> None:
    with pytest.raises(ValueError, match="rows"):
        kn.score_grid(EXAMPLE_53[:4])
    with pytest.raises(ValueError, match="line"):
        kn.score_grid([*EXAMPLE_53[:4], [2, 3]])
    with pytest.raises(ValueError, match="number"):
        kn.score_grid([*EXAMPLE_53[:4], [2, 3, 4, 5, None]])


@pytest.mark.parametrize(
    ("line", "points"),
    [
        ([None] * 5, 0),
        ([7, 7, None, None, None], 1),
        ([7, None, 7, 9, 9], 3),
        ([7, 7, 7, 9, 9], 8),
        ([2, 3, 4, 5, None], 0),  # a straight counts only once complete
        ([8, None, 8, 8, 8], 6),
    ],
)
def test_partial_line_score(line: list[int | None], points: int) -> None:
    assert kn.partial_line_score(line) == points


def test_line_scores_final_vs_partial_on_incomplete_grid() -> None:
    grid: list[list[int | None]] = [list(row) for row in EXAMPLE_53]
    grid[2][2] = None  # the centre lies on row 2, column 2 and both diagonals
    final = kn.line_scores(grid)
    assert final.rows == [0, 8, 0, 1, 3]
    assert final.columns == [1, 0, 0, 8, 1]
    assert final.diagonals == [0, 0]
    partial = kn.line_scores(grid, partial=True)
    assert partial.rows[2] == 6  # 5 5 _ 5 5: four equal so far
    assert partial.diagonals == [3, 0]  # 7,7,_,6,7 three equal; 11,7,_,9,8 not a straight yet


@pytest.mark.parametrize(
    ("total", "rating"),
    [(0, None), (49, None), (50, "good"), (79, "good"), (80, "very_good"), (99, "very_good"), (100, "amazing")],
)
def test_solo_rating(total: int, rating: str | None) -> None:
    assert kn.solo_rating(total) == rating


numbers = st.integers(min_value=2, max_value=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(numbers, min_size=5, max_size=5), st.randoms())
def test_score_line_in_range_and_order_free(line: list[int], rnd: random.Random) -> None:
    points = kn.score_line(line)
    assert points in {0, 1, 3, 6, 8, 10, 12}
    shuffled = list(line)
    rnd.shuffle(shuffled)
    assert kn.score_line(shuffled) == points


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(numbers, min_size=5, max_size=5), min_size=5, max_size=5))
def test_score_grid_in_range(grid: list[list[int]]) -> None:
    assert 0 <= kn.score_grid(grid) <= 10 * 12 + 2 * 2 * 12
    assert kn.line_scores(grid).total == kn.line_scores(grid, partial=True).total == kn.score_grid(grid)


# --------------------------------------------------------------------------------------------------
# State machine


def test_new_game_picks_a_random_first_roller_and_records_it() -> None:
    rollers = {kn.new_game(["a", "b", "c"], random.Random(seed)).roller for seed in range(30)}
    assert rollers == {"a", "b", "c"}
    state = kn.new_game(["a", "b", "c"], random.Random(1))
    assert [e.key for e in state.events] == ["game.order", "knister.round"]
    assert state.events[0].params["order"][0] == state.roller
    assert kn.to_act(state) == [state.roller]


def test_new_game_rejects_no_or_duplicate_players() -> None:
    with pytest.raises(ValueError, match="at least one"):
        kn.new_game([], random.Random(0))
    with pytest.raises(ValueError, match="unique"):
        kn.new_game(["a", "a"], random.Random(0))


def _game(roller: str = "a") -> kn.State:
    state = kn.new_game(["a", "b", "c"], random.Random(0))
    return state.model_copy(update={"roller": roller, "events": []})


def test_a_round_everyone_places_the_sum_in_any_order() -> None:
    state = _game("b")
    with pytest.raises(NotYourTurn):
        kn.apply(state, "a", kn.Roll(), scripted_dice(3, 5))
    with pytest.raises(MustRollFirst):
        kn.apply(state, "a", kn.Place(cell=0), scripted_dice())
    state = kn.apply(state, "b", kn.Roll(), scripted_dice(3, 5))
    assert state.events[0].key == "knister.rolled"
    assert state.events[0].params == {"player": "b", "dice": [3, 5], "sum": 8}
    assert state.number == 8
    assert kn.to_act(state) == ["a", "b", "c"]
    with pytest.raises(IllegalAction):
        kn.apply(state, "b", kn.Roll(), scripted_dice(1, 1))
    state = kn.apply(state, "c", kn.Place(cell=24), scripted_dice())
    state = kn.apply(state, "a", kn.Place(cell=12), scripted_dice())
    with pytest.raises(AlreadyPlaced):
        kn.apply(state, "a", kn.Place(cell=13), scripted_dice())
    assert kn.to_act(state) == ["b"]
    state = kn.apply(state, "b", kn.Place(cell=0), scripted_dice())
    assert state.grids["a"][2][2] == 8
    assert state.grids["b"][0][0] == 8
    assert state.grids["c"][4][4] == 8
    assert state.round == 2
    assert state.roller == "c"
    assert state.dice is None
    assert state.events[-1].key == "knister.round"
    assert state.events[-1].params == {"round": 2, "roller": "c"}
    state = kn.apply(state, "c", kn.Roll(), scripted_dice(1, 1))
    with pytest.raises(CellFilled):
        kn.apply(state, "a", kn.Place(cell=12), scripted_dice())


def test_roller_rotates_in_join_order_and_the_game_ends_after_25_rounds() -> None:
    state = _game("c")
    rollers = []
    for _ in range(kn.ROUNDS):
        rollers.append(state.roller)
        state = kn.apply(state, state.roller, kn.Roll(), scripted_dice(2, 2))
        for player in ["a", "b", "c"]:
            state = kn.apply(state, player, kn.timeout_action(state, player), scripted_dice())
    assert rollers[:4] == ["c", "a", "b", "c"]
    assert kn.is_over(state)
    assert state.events[-1].key == "game.over"
    assert kn.to_act(state) == []
    assert all(cell == 4 for grid in state.grids.values() for row in grid for cell in row)
    results = kn.results(state)
    assert [r.score for r in results] == [10 * 10 + 2 * 2 * 10] * 3  # every line five equal
    assert all(r.rank == 1 and r.won and r.counters == {} for r in results)
    with pytest.raises(GameOver):
        kn.apply(state, "a", kn.Roll(), scripted_dice(1, 1))


def test_timeout_rolls_for_the_roller_then_places_where_it_adds_most() -> None:
    state = _game("a")
    assert kn.timeout_action(state, "a") == kn.Roll()
    with pytest.raises(IllegalAction):
        kn.timeout_action(state, "b")
    state = kn.apply(state, "a", kn.Roll(), scripted_dice(3, 4))
    assert kn.timeout_action(state, "b") == kn.Place(cell=0)  # nothing gains: the first empty cell
    state.grids["b"][0][0] = 7
    # A second 7 at cell 6 makes a pair on the main diagonal (worth 2); row 0 or column 0 only 1.
    assert kn.timeout_action(state, "b") == kn.Place(cell=6)
    assert kn.best_cell(state.grids["b"], 9) == 1


def test_leave_skips_the_player_and_scores_their_unfinished_grid() -> None:
    state = _game("a")
    state = kn.apply(state, "a", kn.Roll(), scripted_dice(4, 4))
    state = kn.apply(state, "a", kn.Place(cell=0), scripted_dice())
    state = kn.apply(state, "b", kn.Place(cell=0), scripted_dice())
    state = kn.leave(state, "c")  # the round no longer waits for c
    assert state.round == 2
    assert state.roller == "b"
    with pytest.raises(NotAPlayer):
        kn.apply(state, "c", kn.Place(cell=1), scripted_dice())
    with pytest.raises(NotAPlayer):
        kn.leave(state, "c")
    state = kn.leave(state, "b")  # the roller leaves before rolling: the roll passes on
    assert state.roller == "a"
    assert kn.to_act(state) == ["a"]
    state = kn.leave(state, "a")
    assert kn.is_over(state)
    results = kn.results(state)
    assert [r.score for r in results] == [0, 0, 0]  # every line of a one-number grid has an empty cell


def test_a_leader_who_left_ranks_after_everyone_who_stayed() -> None:
    empty = [[None] * kn.SIZE for _ in range(kn.SIZE)]
    state = _game("a").model_copy(update={"grids": {"a": EXAMPLE_53, "b": empty, "c": empty}, "left": ["a"]}, deep=True)
    assert [(r.player, r.score, r.rank, r.won) for r in kn.results(state)] == [
        ("a", 53, 3, False),
        ("b", 0, 1, True),
        ("c", 0, 1, True),
    ]


def test_state_round_trips_and_actions_parse() -> None:
    state = _game("a")
    state = kn.apply(state, "a", kn.Roll(), scripted_dice(6, 6))
    assert kn.State.load(state.dump()) == state
    assert kn.parse_action({"kind": "place", "cell": 24}) == kn.Place(cell=24)
    assert kn.parse_action({"kind": "roll"}) == kn.Roll()
    with pytest.raises(ValueError, match="cell"):
        kn.parse_action({"kind": "place", "cell": 25})
    with pytest.raises(ValueError, match="kind"):
        kn.parse_action({"kind": "swap"})


def _all_actions() -> list[kn.Roll | kn.Place]:
    return [kn.Roll(), *(kn.Place(cell=i) for i in range(kn.CELLS))]


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=5), st.integers(min_value=0, max_value=2**32))
def test_random_legal_play_fills_every_grid_in_25_rounds(n_players: int, seed: int) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n_players)]
    state = kn.new_game(players, rng)
    moves = 0
    while not kn.is_over(state):
        player = rng.choice(kn.to_act(state))
        legal = kn.legal_actions(state, player)
        if rng.random() < 0.2:  # probe: apply accepts exactly the legal actions and never mutates its input
            assert_apply_accepts_only_legal(kn, state, rng.choice([*players, "stranger"]), rng.choice(_all_actions()))
        state = kn.apply(state, player, rng.choice(legal), rng)
        assert kn.State.load(state.dump()) == state
        moves += 1
    assert moves == kn.ROUNDS * (n_players + 1)
    assert state.round == kn.ROUNDS
    assert all(cell is not None for grid in state.grids.values() for row in grid for cell in row)
    assert [r.score for r in kn.results(state)] == [kn.score_grid(state.grids[p]) for p in players]


def test_full_seeded_game_timeout_strategy_against_first_free_cell() -> None:
    rng = random.Random(2024)
    state = kn.new_game(["alice", "bob"], rng)
    while not kn.is_over(state):
        player = kn.to_act(state)[0]
        action = kn.timeout_action(state, player) if player == "alice" else kn.legal_actions(state, player)[0]
        state = kn.apply(state, player, action, rng)
    assert state.move == 75
    assert [(r.player, r.score, r.rank, r.won) for r in kn.results(state)] == [
        ("alice", 62, 1, True),
        ("bob", 29, 2, False),
    ]
    assert kn.line_scores(state.grids["alice"]) == kn.LineScores(
        rows=[1, 0, 1, 1, 10], columns=[3, 8, 3, 8, 1], diagonals=[10, 3], total=62
    )


def test_the_rolling_order_starts_at_the_roller_and_after_a_roller_who_left_at_the_next_in_line() -> None:
    state = kn.new_game(["a", "b", "c", "d"], random.Random(0)).model_copy(update={"roller": "c", "events": []})
    assert kn.rolling_order(state) == ["c", "d", "a", "b"]
    state = kn.apply(state, "c", kn.Roll(), scripted_dice(4, 4))
    gone = kn.leave(state, "c")  # the roller leaves after rolling: the round goes on without them
    assert gone.roller == "c"
    assert kn.rolling_order(gone) == ["d", "a", "b"]
