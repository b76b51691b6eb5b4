"""Tests for the dice poker engine: docs/RULES.md §2 examples, doubling, settlement, the state machine, random play."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import dicepoker
from bot.engine.core import (
    BoxFilled,
    BoxNotAllowed,
    GameOver,
    IllegalAction,
    MustRollFirst,
    NoRollsLeft,
    NotAPlayer,
    NotYourTurn,
)
from bot.engine.dicepoker import (
    LOWER,
    ROWS,
    UPPER,
    Pass,
    Roll,
    Score,
    State,
    ToggleHold,
    apply,
    legal_actions,
    score,
    settlement,
    timeout_action,
    total,
)
from tests.scripted import chase_most_common_face, play_randomly, scripted_dice

FAST = settings(max_examples=60, deadline=None)


def game(players: list[str] | None = None) -> State:
    """A fresh game whose seat order is exactly ``players`` (the shuffle is undone for readable tests)."""
    seats = players or ["alice", "bob"]
    state = dicepoker.new_game(seats, random.Random(0))
    return state.model_copy(update={"players": list(seats)}, deep=True)


def playing(state: State, dice: list[int], rolls: int = 1, card: dict[str, int] | None = None) -> State:
    """The given state with the current player's dice, roll count and card (and so turn number) replaced."""
    cards = dict(state.cards)
    turns = dict(state.turns)
    if card is not None:
        cards[state.current_player] = dict(card)
        turns[state.current_player] = len(card)
    return state.model_copy(update={"dice": dice, "rolls": rolls, "cards": cards, "turns": turns}, deep=True)


UPPER_DONE = {"ones": 0, "twos": 0, "threes": 0, "fours": 0, "fives": 0, "sixes": 0}


# --------------------------------------------------------------------------------------------------
# docs/RULES.md §2 worked examples


@pytest.mark.parametrize(
    ("dice", "row", "first_roll", "points"),
    [
        ([2, 2, 3, 5, 6], "twos", False, -2),
        ([4, 1, 2, 3, 5], "fours", False, -8),
        ([2, 3, 4, 5, 6], "ones", False, -3),
        ([3, 3, 3, 1, 2], "threes", False, 0),
        ([5, 5, 5, 5, 1], "fives", False, 5),
        ([6, 6, 6, 6, 6], "sixes", False, 12),  # Decision: five sixes = +12
        ([6, 6, 6, 6, 6], "sixes", True, 12),  # part 1 is never doubled
        ([5, 5, 5, 2, 2], "two_pairs", False, 14),
        ([5, 5, 5, 2, 2], "full_house", False, 19),
        ([5, 5, 5, 2, 2], "three_of_a_kind", False, 15),
        ([5, 5, 5, 2, 2], "pair", False, 10),
        ([2, 3, 4, 5, 6], "large_straight", True, 40),
        ([2, 3, 4, 5, 6], "large_straight", False, 20),
        ([1, 2, 3, 4, 5], "small_straight", False, 15),
        ([1, 3, 5, 4, 6], "chance", False, 19),
        ([1, 3, 5, 4, 6], "chance", True, 19),
        ([6, 6, 6, 6, 6], "poker", True, 110),
        ([6, 6, 6, 6, 6], "poker", False, 80),
        ([3, 3, 3, 3, 1], "four_of_a_kind", False, 12),
        ([3, 3, 3, 3, 1], "four_of_a_kind", True, 24),
        ([4, 4, 4, 4, 4], "four_of_a_kind", False, 16),
        ([4, 4, 4, 4, 4], "pair", False, 8),
        ([6, 1, 1, 6, 2], "pair", False, 12),
        ([6, 1, 1, 6, 2], "two_pairs", True, 28),
    ],
)
def test_worked_examples(dice: list[int], row: str, first_roll: bool, points: int) -> None:
    assert score(dice, row, first_roll) == points


@pytest.mark.parametrize(
    ("dice", "row"),
    [
        ([1, 2, 3, 4, 6], "pair"),
        ([3, 3, 3, 3, 1], "two_pairs"),
        ([3, 3, 3, 3, 3], "two_pairs"),
        ([3, 3, 2, 2, 1], "three_of_a_kind"),
        ([2, 3, 4, 5, 6], "small_straight"),
        ([1, 2, 3, 4, 4], "small_straight"),
        ([1, 2, 3, 4, 5], "large_straight"),
        ([3, 3, 3, 3, 3], "full_house"),
        ([3, 3, 3, 2, 1], "four_of_a_kind"),
        ([3, 3, 3, 3, 1], "poker"),
    ],
)
def test_missing_combination_cannot_be_scored(dice: list[int], row: str) -> None:
    assert score(dice, row) is None
    assert score(dice, row, first_roll=True) is None


def test_settlement_example_and_exactness() -> None:
    assert settlement([200, 150, 100]) == [50, 0, -50]
    thirds = settlement([10, 0, 0])
    assert thirds == [Fraction(20, 3), Fraction(-10, 3), Fraction(-10, 3)]
    assert sum(thirds) == 0
    assert settlement([]) == []


def test_totals_and_upper_bonus() -> None:
    upper_zero = {"ones": -3, "twos": 0, "threes": 3, "fours": 0, "fives": 0, "sixes": 0}
    assert total(upper_zero) == 0 + 50
    assert total({**upper_zero, "twos": -2}) == -2
    assert total({**upper_zero, "poker": 80, "chance": 20}) == 150
    # bonus only once all six upper rows are filled
    assert total({"sixes": 12, "pair": 12}) == 24
    assert total({}) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: score([0, 1, 2, 3, 4], "ones"), "a die shows"),
        (lambda: score([1, 2, 3, 4, 7], "ones"), "a die shows"),
        (lambda: score([1, 2, 3, 4], "ones"), "expected 5 dice"),
        (lambda: score([1, 2, 3, 4, 5], "yahtzee"), "unknown row"),
        (lambda: score([1, 2, 3, 4, 5], "kniffel"), "unknown row"),
        (lambda: total({"sevens": 1}), "unknown row"),
        (lambda: settlement([1, 2.5]), "int"),
        (lambda: dicepoker.row_options([1, 2, 3, 4, 5], {}, 16), "turn"),
    ],
)
def test_invalid_input_raises_value_error(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


dice_st = st.lists(st.integers(1, 6), min_size=5, max_size=5)


@FAST
@given(dice=dice_st, first_roll=st.booleans())
def test_scores_within_range(dice: list[int], first_roll: bool) -> None:
    for face, row in enumerate(UPPER, start=1):
        points = score(dice, row, first_roll)
        assert points is not None
        assert -3 * face <= points <= 2 * face
    for row in LOWER:
        points = score(dice, row, first_roll)
        assert points is None or 2 <= points <= 110
        assert score(list(reversed(dice)), row, first_roll) == points
    assert score(dice, "chance", first_roll) == sum(dice)
    later = score(dice, "poker")
    if later is not None:
        assert score(dice, "poker", first_roll=True) == 2 * (later - 50) + 50


card_st = st.dictionaries(st.sampled_from(ROWS), st.integers(-18, 110))


@FAST
@given(card=card_st)
def test_total_is_the_sum_of_its_parts(card: dict[str, int]) -> None:
    upper = sum(points for row, points in card.items() if row in UPPER)
    bonus = 50 if set(UPPER) <= set(card) and upper >= 0 else 0
    assert total(card) == sum(card.values()) + bonus


@FAST
@given(totals=st.lists(st.integers(-100, 500), max_size=6))
def test_settlement_sums_to_zero(totals: list[int]) -> None:
    shares = settlement(totals)
    assert sum(shares) == 0
    assert all(isinstance(share, Fraction) for share in shares)
    assert [a - b for a, b in pairwise(totals)] == [a - b for a, b in pairwise(shares)]


# --------------------------------------------------------------------------------------------------
# The state machine


def test_start_order_is_a_recorded_shuffle() -> None:
    state = dicepoker.new_game(["a", "b", "c", "d"], random.Random(7))
    expected = ["a", "b", "c", "d"]
    random.Random(7).shuffle(expected)
    assert state.players == expected
    assert state.events[0].key == "dicepoker.order"
    assert state.events[0].params == {"players": expected}
    assert state.events[1].params == {"player": expected[0], "turn": 1, "part": 1}


@pytest.mark.parametrize("players", [[], ["a", "a"]])
def test_new_game_rejects_bad_setup(players: list[str]) -> None:
    with pytest.raises(ValueError, match="player"):
        dicepoker.new_game(players, random.Random(1))


def test_part_one_takes_only_upper_rows_and_is_never_doubled() -> None:
    state = playing(game(), [6, 6, 6, 6, 6])
    assert state.first_roll
    allowed = {a.row for a in legal_actions(state, "alice") if isinstance(a, Score)}
    assert allowed == set(UPPER)
    with pytest.raises(BoxNotAllowed):
        apply(state, "alice", Score(row="poker"), random.Random(1))
    state = apply(state, "alice", Score(row="sixes"), random.Random(1))
    assert state.cards["alice"] == {"sixes": 12}
    assert state.events[0].params["doubled"] is False


def test_part_two_doubles_on_the_first_roll_only() -> None:
    rng = scripted_dice(6, 6, 6, 6, 6, 2)
    state = apply(playing(game(), [], rolls=0, card=UPPER_DONE), "alice", Roll(), rng)
    assert state.turn == 7
    assert state.part == 2
    assert state.first_roll
    options = dicepoker.row_options(state.dice, state.cards["alice"], state.turn, state.first_roll)
    assert options == {"pair": 24, "three_of_a_kind": 36, "four_of_a_kind": 48, "poker": 110, "chance": 30}
    first = apply(state, "alice", Score(row="poker"), rng)
    assert first.cards["alice"]["poker"] == 110
    assert first.events[0].params["doubled"] is True
    state = apply(state, "alice", ToggleHold(index=4), rng)
    state = apply(state, "alice", ToggleHold(index=4), rng)
    for index in range(4):
        state = apply(state, "alice", ToggleHold(index=index), rng)
    state = apply(state, "alice", Roll(), rng)
    assert state.dice == [6, 6, 6, 6, 2]
    assert not state.first_roll
    with pytest.raises(BoxNotAllowed):
        apply(state, "alice", Score(row="poker"), rng)
    state = apply(state, "alice", Score(row="four_of_a_kind"), rng)
    assert state.cards["alice"]["four_of_a_kind"] == 24


def test_roll_limits() -> None:
    state = game()
    rng = random.Random(4)
    with pytest.raises(MustRollFirst):
        apply(state, "alice", ToggleHold(index=0), rng)
    with pytest.raises(MustRollFirst):
        apply(state, "alice", Score(row="ones"), rng)
    with pytest.raises(MustRollFirst):
        apply(state, "alice", Pass(), rng)
    state = apply(state, "alice", Roll(), rng)
    for index in range(5):
        state = apply(state, "alice", ToggleHold(index=index), rng)
    with pytest.raises(IllegalAction):
        apply(state, "alice", Roll(), rng)
    state = apply(state, "alice", ToggleHold(index=2), rng)
    state = apply(state, "alice", Roll(), rng)
    state = apply(state, "alice", Roll(), rng)
    assert state.rolls == 3
    with pytest.raises(NoRollsLeft):
        apply(state, "alice", Roll(), rng)
    with pytest.raises(NoRollsLeft):
        apply(state, "alice", ToggleHold(index=2), rng)


def test_pass_only_when_nothing_fits() -> None:
    card = {**UPPER_DONE, "chance": 20, "pair": 10}
    state = playing(game(), [1, 2, 3, 4, 6], card=card)
    assert legal_actions(state, "alice") == [Roll(), *(ToggleHold(index=i) for i in range(5)), Pass()]
    assert timeout_action(state, "alice") == Pass()
    passed = apply(state, "alice", Pass(), random.Random(1))
    assert passed.cards["alice"] == card
    assert passed.turns["alice"] == 9
    assert [e.key for e in passed.events] == ["dicepoker.passed", "dicepoker.turn"]
    fitting = playing(game(), [1, 2, 3, 4, 5], card=card)
    with pytest.raises(IllegalAction):
        apply(fitting, "alice", Pass(), random.Random(1))
    assert timeout_action(fitting, "alice") == Score(row="small_straight")


def test_refusals() -> None:
    state = playing(game(), [2, 2, 2, 5, 5], card={**UPPER_DONE, "pair": 4})
    rng = random.Random(1)
    with pytest.raises(NotYourTurn):
        apply(state, "bob", Roll(), rng)
    with pytest.raises(NotAPlayer):
        apply(state, "eve", Roll(), rng)
    with pytest.raises(BoxFilled):
        apply(state, "alice", Score(row="pair"), rng)
    with pytest.raises(BoxFilled):
        apply(state, "alice", Score(row="twos"), rng)
    with pytest.raises(BoxNotAllowed):
        apply(state, "alice", Score(row="poker"), rng)


def test_timeout_takes_the_best_row_first_in_order() -> None:
    state = game()
    assert timeout_action(state, "alice") == Roll()
    # ones -1 beats threes -3
    assert timeout_action(playing(state, [3, 3, 1, 1, 2]), "alice") == Score(row="ones")
    # ones and twos both -2: the first row wins the tie
    assert timeout_action(playing(state, [1, 2, 2, 5, 6]), "alice") == Score(row="ones")
    assert timeout_action(playing(state, [3, 3, 3, 6, 6]), "alice") == Score(row="threes")
    assert timeout_action(playing(state, [5, 5, 5, 2, 2], card=UPPER_DONE), "alice") == Score(row="full_house")


def test_last_turn_dashes_the_empty_rows() -> None:
    card = {row: 5 for row in ROWS if row not in ("poker", "chance")}
    # 13 rows after 14 turns: one turn was passed
    state = playing(game(), [1, 1, 2, 3, 4], card=card).model_copy(update={"turns": {"alice": 14, "bob": 0}})
    assert state.turn == 15
    state = apply(state, "alice", Score(row="chance"), random.Random(1))
    assert state.turns["alice"] == 15
    assert state.cards["alice"]["poker"] == 0
    assert state.dashes == {"alice": ["poker"], "bob": []}
    assert state.current_player == "bob"


def test_leave_and_results() -> None:
    state = dicepoker.leave(apply(game(), "alice", Roll(), random.Random(1)), "alice")
    assert [e.key for e in state.events] == ["game.left", "dicepoker.turn"]
    assert (state.current_player, state.rolls) == ("bob", 0)
    with pytest.raises(NotAPlayer):
        dicepoker.leave(state, "alice")
    state = dicepoker.leave(state, "bob")
    assert dicepoker.is_over(state)
    assert dicepoker.to_act(state) == []
    with pytest.raises(GameOver):
        apply(state, "bob", Roll(), random.Random(1))
    # the cards of players who left stay as they were: no dashes, no upper bonus
    assert state.dashes == {"alice": [], "bob": []}


def test_results_rank_and_settle() -> None:
    state = game(["a", "b", "c"]).model_copy(
        update={"cards": {"a": {"poker": 80, "chance": 20}, "b": {"chance": 20}, "c": {"chance": 20}}}, deep=True
    )
    results = dicepoker.results(state)
    assert [(r.player, r.score, r.rank, r.won) for r in results] == [
        ("a", 100, 1, True),
        ("b", 20, 2, False),
        ("c", 20, 2, False),
    ]
    assert [r.counters for r in results] == [{"settlement": 53.33}, {"settlement": -26.67}, {"settlement": -26.67}]
    assert dicepoker.settlements(state) == {"a": Fraction(160, 3), "b": Fraction(-80, 3), "c": Fraction(-80, 3)}


def test_a_leader_who_left_ranks_last_but_keeps_their_settlement() -> None:
    state = game(["a", "b", "c"]).model_copy(
        update={
            "cards": {"a": {"poker": 80, "chance": 20}, "b": {"chance": 20}, "c": {"chance": 10}},
            "left": ["a"],
        },
        deep=True,
    )
    results = dicepoker.results(state)
    assert [(r.player, r.score, r.rank, r.won) for r in results] == [
        ("a", 100, 3, False),
        ("b", 20, 1, True),
        ("c", 10, 2, False),
    ]
    assert [r.counters for r in results] == [{"settlement": 56.67}, {"settlement": -23.33}, {"settlement": -33.33}]


def test_parse_action() -> None:
    assert dicepoker.parse_action({"kind": "pass"}) == Pass()
    assert dicepoker.parse_action({"kind": "score", "row": "poker"}) == Score(row="poker")
    assert dicepoker.parse_action({"kind": "toggle_hold", "index": 0}) == ToggleHold(index=0)
    with pytest.raises(ValueError, match="validation error"):
        dicepoker.parse_action({"kind": "score", "row": "kniffel"})


# --------------------------------------------------------------------------------------------------
# Random legal play


def all_actions() -> list[dicepoker.Action]:
    return [Roll(), *(ToggleHold(index=i) for i in range(5)), *(Score(row=row) for row in ROWS), Pass()]


@FAST
@given(players=st.integers(1, 4).map(lambda n: [f"p{i}" for i in range(n)]), seed=st.integers(0, 2**32))
def test_random_play_fills_or_dashes_every_row(players: list[str], seed: int) -> None:
    state = play_randomly(dicepoker, players, seed, all_actions())
    for player in players:
        assert set(state.cards[player]) == set(ROWS)
        assert state.turns[player] == 15
        assert set(state.dashes[player]) <= set(LOWER)
        assert all(state.cards[player][row] == 0 for row in state.dashes[player])
    results = dicepoker.results(state)
    assert sum(dicepoker.settlements(state).values()) == 0
    assert min(r.rank for r in results) == 1


@settings(max_examples=10, deadline=None)
@given(players=st.integers(1, 3).map(lambda n: [f"p{i}" for i in range(n)]), seed=st.integers(0, 2**32))
def test_random_play_probes_every_state(players: list[str], seed: int) -> None:
    play_randomly(dicepoker, players, seed, all_actions(), probe=True)


# --------------------------------------------------------------------------------------------------
# Pinned seeded game


def school_then_first_roll(state: State, player: str) -> dicepoker.Action:
    """A fixed strategy: in part 1 chase the most common face (ties: the higher); in part 2 take roll 1."""
    chase = chase_most_common_face(state) if state.part == 1 else None
    return chase if chase is not None else timeout_action(state, player)


def test_seeded_game() -> None:
    rng = random.Random(0)
    state = dicepoker.new_game(["alice", "bob"], rng)
    while not dicepoker.is_over(state):
        (player,) = dicepoker.to_act(state)
        state = apply(state, player, school_then_first_roll(state, player), rng)
    assert state.players == ["alice", "bob"]
    assert state.cards["alice"] == {
        "ones": 0,
        "twos": 0,
        "threes": -9,  # 6-1-1-1-1: no three
        "fours": 4,  # 4-4-3-4-4
        "fives": 5,
        "sixes": 0,
        "pair": 20,  # 3-5-1-4-5 on roll 1: 2 x 10
        "two_pairs": 12,
        "three_of_a_kind": 24,
        "small_straight": 0,
        "large_straight": 0,
        "full_house": 0,
        "four_of_a_kind": 0,
        "poker": 0,
        "chance": 18,  # 6-3-1-6-2, never doubled
    }
    assert state.cards["bob"] == {
        "ones": -3,
        "twos": -6,
        "threes": 0,
        "fours": -12,
        "fives": 5,
        "sixes": 0,
        "pair": 12,
        "two_pairs": 24,
        "three_of_a_kind": 36,
        "small_straight": 30,
        "large_straight": 0,
        "full_house": 54,  # 5-6-5-5-6 on roll 1: 2 x 27
        "four_of_a_kind": 0,
        "poker": 0,
        "chance": 14,
    }
    assert state.dashes == {
        "alice": ["small_straight", "large_straight", "full_house", "four_of_a_kind", "poker"],
        "bob": ["large_straight", "four_of_a_kind", "poker"],
    }
    # alice: U = 0 earns the bonus: 0 + 50 + 74; bob: -16 + 170
    assert dicepoker.card_totals(state, "alice") == dicepoker.CardTotals(upper=0, upper_bonus=50, lower=74, total=124)
    assert dicepoker.card_totals(state, "bob") == dicepoker.CardTotals(upper=-16, upper_bonus=0, lower=170, total=154)
    assert [(r.player, r.score, r.rank, r.won, r.counters) for r in dicepoker.results(state)] == [
        ("alice", 124, 2, False, {"settlement": -15.0}),
        ("bob", 154, 1, True, {"settlement": 15.0}),
    ]
    assert state.events[-1].params == {"winners": ["bob"]}
