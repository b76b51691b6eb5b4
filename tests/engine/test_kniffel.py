"""Tests for the Kniffel engine: docs/RULES.md §1 examples, the joker, the state machine and random legal play."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import kniffel
from bot.engine.core import (
    BoxFilled,
    BoxNotAllowed,
    Event,
    GameOver,
    IllegalAction,
    MustRollFirst,
    NoRollsLeft,
    NotAPlayer,
    NotYourTurn,
)
from bot.engine.kniffel import (
    BOXES,
    LOWER,
    UPPER,
    Roll,
    Score,
    State,
    ToggleHold,
    apply,
    extra_bonus,
    legal_actions,
    score_options,
    timeout_action,
    total,
)
from tests.scripted import chase_most_common_face, play_randomly, scripted_dice

FAST = settings(max_examples=60, deadline=None)


def full_card(**overrides: int) -> dict[str, int]:
    """Every box filled with 0, except the given ones."""
    card = dict.fromkeys(BOXES, 0)
    card.update(overrides)
    return card


def card_without(*boxes: str, **points: int) -> dict[str, int]:
    """A card with every box filled (0 unless given) except ``boxes``."""
    card = full_card(**points)
    for box in boxes:
        del card[box]
    return card


def playing(state: State, dice: list[int], rolls: int = 1, card: dict[str, int] | None = None) -> State:
    """The given state with the current player's dice, roll count and card replaced."""
    cards = dict(state.cards)
    if card is not None:
        cards[state.current_player] = dict(card)
    return state.model_copy(update={"dice": dice, "rolls": rolls, "cards": cards}, deep=True)


def two_player_game(ruleset: str = "kniffel") -> State:
    # alice rolls 30, bob 5: alice starts
    return kniffel.new_game(["alice", "bob"], scripted_dice(*[6] * 5, *[1] * 5), ruleset=ruleset)


# --------------------------------------------------------------------------------------------------
# docs/RULES.md §1 worked examples


@pytest.mark.parametrize(
    ("dice", "box", "points"),
    [
        ([2, 2, 2, 3, 4], "twos", 6),
        ([2, 2, 3, 5, 6], "twos", 4),
        ([4, 4, 4, 4, 1], "fours", 16),
        ([6, 6, 6, 3, 1], "three_of_a_kind", 22),
        ([3, 3, 3, 3, 5], "four_of_a_kind", 17),
        ([3, 3, 3, 3, 5], "threes", 12),
        ([4, 4, 4, 3, 3], "full_house", 25),
        ([1, 2, 3, 4, 3], "small_straight", 30),
        ([2, 3, 4, 5, 3], "small_straight", 30),
        ([1, 2, 3, 4, 5], "large_straight", 40),
        ([2, 3, 4, 5, 6], "large_straight", 40),
        ([6, 6, 6, 6, 6], "kniffel", 50),
        ([1, 3, 5, 4, 6], "chance", 19),
    ],
)
@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_worked_examples(dice: list[int], box: str, points: int, ruleset: str) -> None:
    assert score_options(dice, {}, ruleset)[box] == points


def test_four_of_a_kind_filled_leaves_three_of_a_kind_or_threes() -> None:
    options = score_options([3, 3, 3, 3, 5], {"four_of_a_kind": 20})
    assert options["three_of_a_kind"] == 17
    assert options["threes"] == 12
    assert "four_of_a_kind" not in options


def test_classic_example() -> None:
    options = score_options([1, 3, 2, 4, 4], {}, "classic")
    assert (options["ones"], options["fours"], options["small_straight"]) == (1, 8, 30)


@pytest.mark.parametrize(
    ("dice", "box"),
    [
        ([2, 2, 3, 3, 4], "three_of_a_kind"),
        ([3, 3, 3, 5, 5], "four_of_a_kind"),
        ([5, 5, 5, 5, 5], "full_house"),
        ([3, 3, 3, 3, 5], "full_house"),
        ([1, 2, 3, 5, 6], "small_straight"),
        ([1, 2, 3, 4, 6], "large_straight"),
        ([1, 1, 1, 1, 2], "kniffel"),
    ],
)
def test_failed_condition_scores_zero(dice: list[int], box: str) -> None:
    assert score_options(dice, {})[box] == 0


def test_joker_example_with_extra_kniffel_bonus() -> None:
    card = {"kniffel": 50, "fives": 15}
    options = score_options([5, 5, 5, 5, 5], card)
    assert options == {
        "three_of_a_kind": 25,
        "four_of_a_kind": 25,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 25,
    }
    assert extra_bonus([5, 5, 5, 5, 5], card) == 100


def test_joker_forces_the_matching_upper_box() -> None:
    assert score_options([3, 3, 3, 3, 3], {"kniffel": 50}) == {"threes": 15}
    assert extra_bonus([3, 3, 3, 3, 3], {"kniffel": 50}) == 100


def test_joker_after_a_scratched_kniffel_gives_no_bonus() -> None:
    card = {"kniffel": 0, "twos": 4}
    assert score_options([2, 2, 2, 2, 2], card)["large_straight"] == 40
    assert extra_bonus([2, 2, 2, 2, 2], card) == 0


def test_joker_with_lower_section_full_writes_zero_in_an_open_upper_box() -> None:
    card = card_without("ones", "sixes", kniffel=50, fives=25)
    assert score_options([5, 5, 5, 5, 5], card) == {"ones": 0, "sixes": 0}
    assert extra_bonus([5, 5, 5, 5, 5], card) == 100


def test_open_kniffel_box_scores_five_of_a_kind_normally() -> None:
    options = score_options([4, 4, 4, 4, 4], {"fours": 12})
    assert options["kniffel"] == 50
    assert options["full_house"] == 0
    assert options["small_straight"] == 0
    assert options["three_of_a_kind"] == 20
    assert extra_bonus([4, 4, 4, 4, 4], {"fours": 12}) == 0


def test_classic_has_no_joker_and_no_bonus() -> None:
    card = {"kniffel": 50}
    options = score_options([3, 3, 3, 3, 3], card, "classic")
    assert options["threes"] == 15
    assert options["full_house"] == 0
    assert options["large_straight"] == 0
    assert len(options) == 12
    assert extra_bonus([3, 3, 3, 3, 3], card, "classic") == 0


def test_full_card_offers_nothing_and_earns_nothing() -> None:
    card = full_card(kniffel=50)
    assert score_options([6, 6, 6, 6, 6], card) == {}
    assert extra_bonus([6, 6, 6, 6, 6], card) == 0


def test_totals_with_and_without_upper_bonus() -> None:
    upper_63 = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    assert total(upper_63) == 63 + 35
    assert total(upper_63, ruleset="classic") == 63
    assert total({**upper_63, "ones": 2}) == 62
    assert total({**upper_63, "chance": 20, "kniffel": 50}, bonus=200) == 63 + 35 + 70 + 200
    assert total({}) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: score_options([0, 1, 2, 3, 4], {}), "a die shows"),
        (lambda: score_options([1, 2, 3, 4, 7], {}), "a die shows"),
        (lambda: score_options([1, 2, 3, 4], {}), "expected 5 dice"),
        (lambda: score_options([1, 2, 3, 4, 5, 6], {}), "expected 5 dice"),
        (lambda: score_options([1, 2, 3, 4, 5], {"yahtzee": 50}), "unknown box"),
        (lambda: score_options([1, 2, 3, 4, 5], {}, "poker"), "unknown ruleset"),
        (lambda: extra_bonus([1, 1, 1, 1, 7], {}), "a die shows"),
        (lambda: extra_bonus([1, 1, 1, 1], {"kniffel": 50}), "expected 5 dice"),
        (lambda: total({"sevens": 7}), "unknown box"),
        (lambda: total({}, ruleset="yahtzee"), "unknown ruleset"),
    ],
)
def test_invalid_input_raises_value_error(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


dice_st = st.lists(st.integers(1, 6), min_size=5, max_size=5)
card_st = st.dictionaries(st.sampled_from(BOXES), st.integers(0, 50))


@FAST
@given(dice=dice_st, card=card_st, ruleset=st.sampled_from(["kniffel", "classic"]))
def test_options_are_open_boxes_within_range(dice: list[int], card: dict[str, int], ruleset: str) -> None:
    options = score_options(dice, card, ruleset)
    assert not set(options) & set(card)
    assert bool(options) == (len(card) < len(BOXES))
    for box, points in options.items():
        if box in UPPER:
            assert 0 <= points <= 5 * (UPPER.index(box) + 1)
        else:
            assert 0 <= points <= 50
    assert extra_bonus(dice, card, ruleset) in (0, 100)
    assert score_options(list(reversed(dice)), card, ruleset) == options


@FAST
@given(card=card_st, bonus=st.integers(0, 12).map(lambda n: 100 * n), ruleset=st.sampled_from(["kniffel", "classic"]))
def test_total_is_the_sum_of_its_parts(card: dict[str, int], bonus: int, ruleset: str) -> None:
    upper = sum(points for box, points in card.items() if box in UPPER)
    lower = sum(points for box, points in card.items() if box in LOWER)
    upper_bonus = 35 if ruleset == "kniffel" and upper >= 63 else 0
    expected = upper + upper_bonus + lower + bonus
    assert total(card, bonus, ruleset) == expected == sum(card.values()) + upper_bonus + bonus


# --------------------------------------------------------------------------------------------------
# Start order


def test_roll_off_rerolls_ties_and_keeps_join_order_from_the_starter() -> None:
    # round 1: ann 30, ben 30, cat 5; round 2 among ann and ben: ann 5, ben 10 -> ben starts
    rng = scripted_dice(*[6] * 5, *[6] * 5, *[1] * 5, *[1] * 5, *[2] * 5)
    state = kniffel.new_game(["ann", "ben", "cat"], rng)
    assert state.players == ["ben", "cat", "ann"]
    assert state.rolloff == [
        {"ann": [6] * 5, "ben": [6] * 5, "cat": [1] * 5},
        {"ann": [1] * 5, "ben": [2] * 5},
    ]
    assert state.current_player == "ben"
    assert [event.key for event in state.events] == [
        "kniffel.rolloff",
        "kniffel.rolloff",
        "kniffel.order",
        "kniffel.turn",
    ]
    assert state.events[1].params["highest"] == ["ben"]
    assert kniffel.to_act(state) == ["ben"]


def test_single_player_needs_no_roll_off() -> None:
    state = kniffel.new_game(["solo"], random.Random(1))
    assert state.players == ["solo"]
    assert state.rolloff == []


@pytest.mark.parametrize(("players", "ruleset"), [([], "kniffel"), (["a", "a"], "kniffel"), (["a", "b"], "yahtzee")])
def test_new_game_rejects_bad_setup(players: list[str], ruleset: str) -> None:
    with pytest.raises(ValueError, match=r"player|ruleset"):
        kniffel.new_game(players, random.Random(1), ruleset=ruleset)


# --------------------------------------------------------------------------------------------------
# Turns


def test_roll_hold_reroll_and_score() -> None:
    state = two_player_game()
    rng = scripted_dice(1, 2, 3, 4, 6, 6, 4)
    with pytest.raises(MustRollFirst):
        apply(state, "alice", ToggleHold(index=0), rng)
    with pytest.raises(MustRollFirst):
        apply(state, "alice", Score(box="chance"), rng)
    state = apply(state, "alice", Roll(), rng)
    assert state.dice == [1, 2, 3, 4, 6]
    for index in (0, 1, 2):
        state = apply(state, "alice", ToggleHold(index=index), rng)
    assert state.held == [True, True, True, False, False]
    state = apply(state, "alice", Roll(), rng)
    assert state.dice == [1, 2, 3, 6, 4]
    assert state.rolls == 2
    state = apply(state, "alice", Score(box="small_straight"), rng)
    assert state.cards["alice"] == {"small_straight": 30}
    assert state.events[0].key == "kniffel.scored"
    assert state.events[0].params == {
        "player": "alice",
        "box": "small_straight",
        "points": 30,
        "bonus": 0,
        "upper_bonus": 0,
        "dice": [1, 2, 3, 6, 4],
    }
    assert state.events[1].params == {"player": "bob", "turn": 1}
    assert (state.current_player, state.dice, state.rolls) == ("bob", [], 0)
    assert state.held == [False] * 5


def test_three_rolls_at_most_and_no_holding_after_the_last() -> None:
    state = two_player_game()
    rng = random.Random(3)
    for _ in range(3):
        state = apply(state, "alice", Roll(), rng)
    with pytest.raises(NoRollsLeft):
        apply(state, "alice", Roll(), rng)
    with pytest.raises(NoRollsLeft):
        apply(state, "alice", ToggleHold(index=1), rng)
    assert Roll() not in legal_actions(state, "alice")


def test_reroll_needs_an_unheld_die() -> None:
    state = apply(two_player_game(), "alice", Roll(), random.Random(2))
    for index in range(5):
        state = apply(state, "alice", ToggleHold(index=index), random.Random(2))
    with pytest.raises(IllegalAction):
        apply(state, "alice", Roll(), random.Random(2))
    assert Roll() not in legal_actions(state, "alice")


def test_wrong_player_filled_box_and_forced_joker_are_refused() -> None:
    state = playing(two_player_game(), [3, 3, 3, 3, 3], card={"kniffel": 50, "chance": 12})
    rng = random.Random(1)
    with pytest.raises(NotYourTurn):
        apply(state, "bob", Roll(), rng)
    with pytest.raises(NotAPlayer):
        apply(state, "mallory", Roll(), rng)
    with pytest.raises(BoxFilled):
        apply(state, "alice", Score(box="chance"), rng)
    with pytest.raises(BoxNotAllowed):
        apply(state, "alice", Score(box="full_house"), rng)
    assert [a for a in legal_actions(state, "alice") if isinstance(a, Score)] == [Score(box="threes")]


def test_extra_kniffel_scores_bonus_and_counts() -> None:
    state = playing(two_player_game(), [5] * 5, card={"kniffel": 50, "fives": 20})
    state = state.model_copy(update={"kniffels": {"alice": 1, "bob": 0}}, deep=True)
    state = apply(state, "alice", Score(box="large_straight"), random.Random(1))
    assert state.cards["alice"]["large_straight"] == 40
    assert state.bonuses["alice"] == 100
    assert state.kniffels["alice"] == 2
    assert state.events[0].params["bonus"] == 100
    totals = kniffel.card_totals(state, "alice")
    assert (totals.upper, totals.lower, totals.extra_bonus, totals.total) == (20, 90, 100, 210)


def test_timeout_rolls_then_takes_the_best_box_first_in_card_order() -> None:
    state = two_player_game()
    assert timeout_action(state, "alice") == Roll()
    # 1-2-3-4-6: chance 16 is less than small straight 30
    assert timeout_action(playing(state, [1, 2, 3, 4, 6]), "alice") == Score(box="small_straight")
    # all boxes left score 0: the first open one in card order wins the tie
    card = card_without("fives", "kniffel")
    assert timeout_action(playing(state, [1, 1, 2, 2, 3], card=card), "alice") == Score(box="fives")
    with pytest.raises(NotYourTurn):
        timeout_action(state, "bob")


def test_leave_passes_the_turn_and_an_empty_table_ends_the_game() -> None:
    state = apply(two_player_game(), "alice", Roll(), random.Random(1))
    state = kniffel.leave(state, "alice")
    assert [event.key for event in state.events] == ["game.left", "kniffel.turn"]
    assert (state.current_player, state.dice, state.rolls) == ("bob", [], 0)
    with pytest.raises(NotAPlayer):
        apply(state, "alice", Roll(), random.Random(1))
    with pytest.raises(NotAPlayer):
        kniffel.leave(state, "alice")
    rng = random.Random(5)
    state = apply(state, "bob", Roll(), rng)
    state = apply(state, "bob", timeout_action(state, "bob"), rng)
    assert state.current_player == "bob"
    state = kniffel.leave(state, "bob")
    assert kniffel.is_over(state)
    assert kniffel.to_act(state) == []
    assert state.events[-1].key == "game.over"
    with pytest.raises(GameOver):
        apply(state, "bob", Roll(), rng)
    with pytest.raises(GameOver):
        kniffel.leave(state, "bob")


def test_leave_of_a_waiting_player_keeps_the_turn() -> None:
    state = apply(two_player_game(), "alice", Roll(), random.Random(1))
    state = kniffel.leave(state, "bob")
    assert state.current_player == "alice"
    assert state.rolls == 1
    assert kniffel.legal_actions(state, "bob") == []


def test_results_share_ranks_and_count_kniffels() -> None:
    state = two_player_game().model_copy(
        update={
            "cards": {
                "alice": {"kniffel": 50, "sixes": 30, "fives": 25, "fours": 8},
                "bob": {"kniffel": 50, "chance": 63},
            },
            "bonuses": {"alice": 0, "bob": 100},
            "kniffels": {"alice": 1, "bob": 2},
        },
        deep=True,
    )
    results = kniffel.results(state)
    # alice: upper 63 + bonus 35 + kniffel 50; bob: 50 + 63 + one extra Kniffel
    assert [(r.player, r.score, r.rank, r.won) for r in results] == [("alice", 148, 2, False), ("bob", 213, 1, True)]
    assert results[0].counters == {"kniffels": 1, "upper_bonus": 1}
    assert results[1].counters == {"kniffels": 2, "upper_bonus": 0}


def test_equal_totals_share_the_win() -> None:
    state = two_player_game().model_copy(update={"cards": {"alice": {"chance": 20}, "bob": {"chance": 20}}}, deep=True)
    assert [(r.rank, r.won) for r in kniffel.results(state)] == [(1, True), (1, True)]


def test_parse_action() -> None:
    assert kniffel.parse_action({"kind": "roll"}) == Roll()
    assert kniffel.parse_action({"kind": "toggle_hold", "index": 4}) == ToggleHold(index=4)
    assert kniffel.parse_action({"kind": "score", "box": "chance"}) == Score(box="chance")
    for bad in ({"kind": "score", "box": "sevens"}, {"kind": "toggle_hold", "index": 5}, {"kind": "pass"}):
        with pytest.raises(ValueError, match="validation error"):
            kniffel.parse_action(bad)


# --------------------------------------------------------------------------------------------------
# Random legal play


def all_actions() -> list[kniffel.Action]:
    return [Roll(), *(ToggleHold(index=i) for i in range(5)), *(Score(box=box) for box in BOXES)]


@FAST
@given(
    players=st.integers(1, 4).map(lambda n: [f"p{i}" for i in range(n)]),
    seed=st.integers(0, 2**32),
    ruleset=st.sampled_from(["kniffel", "classic"]),
)
def test_random_play_fills_every_box(players: list[str], seed: int, ruleset: str) -> None:
    state = play_randomly(kniffel, players, seed, all_actions(), ruleset=ruleset)
    for player in players:
        assert set(state.cards[player]) == set(BOXES)
        assert state.turns[player] == 13
    results = kniffel.results(state)
    assert [r.score for r in results] == [kniffel.card_totals(state, p).total for p in state.players]
    assert min(r.rank for r in results) == 1


@settings(max_examples=10, deadline=None)
@given(players=st.integers(1, 3).map(lambda n: [f"p{i}" for i in range(n)]), seed=st.integers(0, 2**32))
def test_random_play_probes_every_state(players: list[str], seed: int) -> None:
    play_randomly(kniffel, players, seed, all_actions(), probe=True, ruleset="kniffel")


@FAST
@given(seed=st.integers(0, 2**32), leave_at=st.integers(0, 60))
def test_leaving_midway_still_ends_the_game(seed: int, leave_at: int) -> None:
    rng = random.Random(seed)
    state = kniffel.new_game(["a", "b", "c"], rng)
    moves = 0
    while not kniffel.is_over(state):
        if moves == leave_at:
            state = kniffel.leave(state, "b")
        else:
            (player,) = kniffel.to_act(state)
            assert player != "b" or moves < leave_at
            state = apply(state, player, timeout_action(state, player), rng)
        moves += 1
    assert state.left == ["b"]
    assert all(len(state.cards[p]) == 13 for p in ("a", "c"))
    assert len(state.cards["b"]) == state.turns["b"] <= 13


# --------------------------------------------------------------------------------------------------
# Pinned seeded games


def chase_a_kind(state: State, player: str) -> kniffel.Action:
    """A fixed strategy: hold the most common face (ties: the higher), reroll the rest, then take the best box."""
    chase = chase_most_common_face(state)
    return chase if chase is not None else timeout_action(state, player)


def play_seeded_game(ruleset: str) -> State:
    # seed 53 was picked because it reaches an extra Kniffel played as a joker and an upper bonus
    rng = random.Random(53)
    state = kniffel.new_game(["alice", "bob"], rng, ruleset=ruleset)
    while not kniffel.is_over(state):
        (player,) = kniffel.to_act(state)
        state = apply(state, player, chase_a_kind(state, player), rng)
    return state


SEEDED_KNIFFEL_BOB_CARD = {
    "ones": 0,
    "twos": 8,
    "threes": 3,
    "fours": 16,
    "fives": 15,
    "sixes": 24,
    "three_of_a_kind": 12,
    "four_of_a_kind": 13,
    "full_house": 25,
    "small_straight": 0,
    "large_straight": 40,  # 4-4-4-4-4 with fours and kniffel filled: joker, plus 100
    "kniffel": 50,
    "chance": 12,
}
"""Bob's card at the end of the seeded Kniffel game; the classic rules play the same dice."""


def test_seeded_kniffel_game() -> None:
    state = play_seeded_game("kniffel")
    # roll-off: alice 5-2-4-5-6 = 22, bob 4-6-5-3-6 = 24, so bob starts
    assert state.rolloff == [{"alice": [5, 2, 4, 5, 6], "bob": [4, 6, 5, 3, 6]}]
    assert state.players == ["bob", "alice"]
    assert state.cards["bob"] == SEEDED_KNIFFEL_BOB_CARD
    assert state.cards["alice"] == {
        "ones": 2,
        "twos": 0,
        "threes": 0,
        "fours": 8,
        "fives": 5,
        "sixes": 12,
        "three_of_a_kind": 18,
        "four_of_a_kind": 12,
        "full_house": 25,
        "small_straight": 0,
        "large_straight": 0,
        "kniffel": 50,
        "chance": 19,
    }
    assert state.bonuses == {"bob": 100, "alice": 0}
    # bob: upper 66 + 35 + lower 152 + 100; alice: upper 27 + lower 124
    assert kniffel.card_totals(state, "bob") == kniffel.CardTotals(
        upper=66, upper_bonus=35, lower=152, extra_bonus=100, total=353
    )
    assert [(r.player, r.score, r.rank, r.won, r.counters) for r in kniffel.results(state)] == [
        ("bob", 353, 1, True, {"kniffels": 2, "upper_bonus": 1}),
        ("alice", 151, 2, False, {"kniffels": 1, "upper_bonus": 0}),
    ]
    assert state.events[-1].params == {"winners": ["bob"]}


def test_seeded_classic_game() -> None:
    state = play_seeded_game("classic")
    assert state.players == ["bob", "alice"]
    # the same 4-4-4-4-4 is plain dice here: every open box scores 0 and ones comes first
    assert state.cards["bob"] == {**SEEDED_KNIFFEL_BOB_CARD, "large_straight": 0}
    assert state.cards["alice"] == play_seeded_game("kniffel").cards["alice"]
    assert state.bonuses == {"bob": 0, "alice": 0}
    assert [(r.player, r.score, r.rank, r.counters) for r in kniffel.results(state)] == [
        ("bob", 178, 1, {"kniffels": 1}),
        ("alice", 151, 2, {"kniffels": 1}),
    ]  # classic has no upper bonus, so no such counter


def test_a_leader_who_left_ranks_after_the_player_who_stayed() -> None:
    state = two_player_game().model_copy(
        update={
            "cards": {"alice": card_without("chance", sixes=30), "bob": card_without("chance")},
            "turns": {"alice": 12, "bob": 12},
            "kniffels": {"alice": 1, "bob": 0},
            "current": 1,
            "left": ["alice"],
        },
        deep=True,
    )
    state = apply(state, "bob", Roll(), scripted_dice(1, 1, 1, 1, 2))
    state = apply(state, "bob", Score(box="chance"), scripted_dice())
    assert kniffel.is_over(state)
    assert state.events[-1] == Event(key="game.over", params={"winners": ["bob"]})
    results = kniffel.results(state)
    assert [(r.player, r.score, r.rank, r.won) for r in results] == [("alice", 30, 2, False), ("bob", 6, 1, True)]
    assert results[0].counters == {"kniffels": 1, "upper_bonus": 0}


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_remembered_card_totals_are_the_cards_sums_all_game_long(ruleset: str) -> None:
    """card_totals is remembered by the card's contents: it must still follow every box filled, and the bonuses."""
    ids = ["1", "2", "3"]
    rng = random.Random(11)
    state = kniffel.new_game(ids, rng, ruleset)
    while not kniffel.is_over(state):
        for player in ids:
            expected = kniffel.card_breakdown(state.cards[player], state.bonuses[player], ruleset)
            assert kniffel.card_totals(state, player) == expected
        player = kniffel.to_act(state)[0]
        state = kniffel.apply(state, player, kniffel.timeout_action(state, player), rng)
    with pytest.raises(NotAPlayer):
        kniffel.card_totals(state, "4")


@pytest.mark.parametrize(
    ("card", "box", "points", "ruleset", "gained"),
    [
        ({"sixes": 24, "fives": 20, "fours": 16}, "threes", 3, "kniffel", 35),  # 60 + 3: reaches 63
        ({"sixes": 24, "fives": 20, "fours": 16}, "twos", 2, "kniffel", 0),  # 62: one short
        ({"sixes": 24, "fives": 20, "fours": 16}, "chance", 30, "kniffel", 0),  # not an upper box
        ({"sixes": 24, "fives": 25, "fours": 16}, "threes", 9, "kniffel", 0),  # earned already
        ({"sixes": 24, "fives": 20, "fours": 16}, "threes", 9, "classic", 0),  # no bonus under these rules
    ],
)
def test_the_upper_bonus_is_gained_by_the_box_that_reaches_63(
    card: dict[str, int], box: str, points: int, ruleset: str, gained: int
) -> None:
    assert kniffel.upper_bonus_gained(card, box, points, ruleset) == gained
