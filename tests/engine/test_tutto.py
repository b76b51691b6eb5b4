"""Tests for the Tutto engine: dice scoring, every card, the worked example turn, timeouts and random play."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import tutto as t
from bot.engine.core import (
    Event,
    GameOver,
    IllegalAction,
    InvalidSelection,
    MustNotStop,
    MustRollFirst,
    NotAPlayer,
    NotYourTurn,
)
from tests.scripted import act, assert_apply_accepts_only_legal, scripted_dice, take, tutto_table


def keys(state: t.State) -> list[str]:
    return [e.key for e in state.events]


def event(state: t.State, key: str) -> dict:
    return next(e.params for e in state.events if e.key == key)


# --------------------------------------------------------------------------------------------------
# Scoring


@pytest.mark.parametrize(
    ("dice", "points"),
    [
        ([1], 100),
        ([5], 50),
        ([1, 5], 150),
        ([1, 1, 1], 1000),
        ([2, 2, 2], 200),
        ([6, 6, 6], 600),
        ([1, 1, 4, 4, 4, 5], 650),  # the rulebook's Tutto
        ([2] * 6, 400),  # six of a kind is two triples
        ([1] * 6, 2000),
        ([1, 1, 1, 1], 1100),
        ([5] * 5, 600),
        ([1, 2, 3, 4, 5, 6], None),
        ([2, 2], None),
        ([3, 3, 3, 3], None),
    ],
)
def test_score_selection(dice: list[int], points: int | None) -> None:
    assert t.score_selection(dice) == points


@pytest.mark.parametrize(
    ("dice", "points"),
    [
        ([1, 2, 3, 4, 5, 6], 150),  # only the 1 and the 5
        ([2, 2, 3, 3, 4, 4], 0),  # three pairs: a null
        ([1, 1, 4, 4, 4, 5], 650),
        ([6] * 6, 1200),
        ([3, 3, 3, 3, 2, 6], 300),
        ([2, 3, 4, 6, 2, 3], 0),
    ],
)
def test_best_score(dice: list[int], points: int) -> None:
    assert t.best_score(dice) == points


@pytest.mark.parametrize("bad", [[], [0], [7], [1] * 7, [True], [1.0]])
def test_scoring_rejects_invalid_dice(bad: list) -> None:
    with pytest.raises(ValueError, match=r"dice|die"):
        t.score_selection(bad)
    with pytest.raises(ValueError, match=r"dice|die"):
        t.best_score(bad)


dice_lists = st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(dice_lists, st.randoms())
def test_best_score_bounds_every_valid_selection(dice: list[int], rnd: random.Random) -> None:
    best = t.best_score(dice)
    assert 0 <= best <= 2000
    subset = [face for face in dice if rnd.random() < 0.5] or dice[:1]
    points = t.score_selection(subset)
    assert points is None or 0 < points <= best
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    assert t.best_score(shuffled) == best
    assert t.score_selection(shuffled) == t.score_selection(dice)


# --------------------------------------------------------------------------------------------------
# Deck and set-up


def test_deck_has_the_56_listed_cards() -> None:
    assert len(t.DECK) == 56
    assert Counter(t.card_kind(card) for card in t.DECK) == {
        "stop": 10,
        "fireworks": 5,
        "bonus": 25,
        "double": 5,
        "plus_minus": 5,
        "street": 5,
        "cloverleaf": 1,
    }
    assert Counter(t.card_bonus(card) for card in t.DECK if card.startswith("bonus")) == dict.fromkeys(t.BONUSES, 5)


def test_card_rule_keys() -> None:
    assert t.card_rule("bonus_600") == ("tutto.rule.bonus", {"bonus": 600})
    assert t.card_rule("plus_minus") == ("tutto.rule.plus_minus", {"points": 1000})
    assert t.card_rule("street") == ("tutto.rule.street", {"bonus": 2000})
    assert t.card_rule("stop") == ("tutto.rule.stop", {})
    with pytest.raises(ValueError, match="unknown"):
        t.card_rule("joker")


def test_the_seats_are_in_play_order_from_the_starter() -> None:
    """The scoreboard and the standings list the seats: in play order, as Kniffel's and dice poker's are."""
    for seed in range(10):
        state = t.new_game(["a", "b", "c"], random.Random(seed))
        assert state.players == state.events[0].params["order"]
        assert state.players[0] == state.current
        assert state.players in (["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"])


def test_new_game_shuffles_and_draws_the_starter() -> None:
    state = t.new_game(["a", "b", "c"], random.Random(5), target=2000)
    assert sorted(state.deck) == sorted(t.DECK)
    assert state.deck != list(t.DECK)
    assert state.target == 2000
    assert state.phase == "draw"
    assert state.events[0].key == "game.order"
    assert state.events[0].params["order"][0] == state.current
    starters = {t.new_game(["a", "b", "c"], random.Random(seed)).current for seed in range(30)}
    assert starters == {"a", "b", "c"}
    with pytest.raises(ValueError, match="target"):
        t.new_game(["a"], random.Random(0), target=0)
    with pytest.raises(ValueError, match="unique"):
        t.new_game(["a", "a"], random.Random(0))


def test_the_discards_are_reshuffled_when_the_deck_runs_out() -> None:
    state = tutto_table([]).model_copy(update={"discards": ["bonus_200", "double"]})
    state = act(state, t.Draw())
    assert keys(state)[:2] == ["tutto.reshuffled", "tutto.card"]
    assert sorted([state.card, *state.deck]) == ["bonus_200", "double"]
    assert state.discards == []


# --------------------------------------------------------------------------------------------------
# The worked example and the cards


def test_worked_example_bonus_600_to_1050_then_street_to_a_null() -> None:
    state = act(tutto_table(["bonus_600", "street"]), t.Draw())
    assert state.card == "bonus_600"
    assert event(state, "tutto.card") == {"player": "alice", "card": "bonus_600"}
    state = act(state, t.Roll(), 1, 2, 3, 4, 5, 6)
    state = take(state, 1)
    assert t.check_selection(state) == t.SelectionCheck(points=100)
    state = act(state, t.RollOn(), 2, 2, 2, 3, 6)
    assert state.card_points == 100
    state = take(state, 2, 2, 2)
    assert t.check_selection(state).points == 200
    assert t.can_stop(state)
    assert act(state, t.Stop()).scores["alice"] == 300  # stopping now banks 300
    state = act(state, t.RollOn(), 1, 5)
    state = take(state, 1, 5)
    assert t.check_selection(state) == t.SelectionCheck(points=150, tutto=True)
    assert act(state, t.Stop()).scores["alice"] == 1050  # Stop sets the Tutto aside first
    state = act(state, t.RollOn())
    assert state.phase == "tutto"
    assert state.secured == 1050
    assert event(state, "tutto.bonus") == {"player": "alice", "bonus": 600, "points": 1050}
    assert t.legal_actions(state, "alice") == [t.Stop(), t.Continue()]
    assert act(state, t.Stop()).scores["alice"] == 1050
    state = act(state, t.Continue())
    assert state.card == "street"
    state = act(state, t.Roll(), 2, 3, 3, 3, 5, 5)
    state = take(state, 2, 3, 5)
    state = act(state, t.RollOn(), 1, 2, 3)
    state = take(state, 1)
    state = act(state, t.RollOn(), 1, 6)
    state = take(state, 6)
    state = act(state, t.RollOn(), 1)
    assert event(state, "tutto.null") == {"player": "alice", "lost": 1050}
    assert state.scores == {"alice": 0, "bob": 0}
    assert state.current == "bob"
    assert state.phase == "draw"
    assert state.tuttos == {"alice": 1, "bob": 0}


def test_stop_card_ends_the_turn_and_loses_earlier_tuttos() -> None:
    state = act(tutto_table(["stop"]), t.Draw())
    assert keys(state) == ["tutto.card", "tutto.stop_card", "tutto.turn"]
    assert state.current == "bob"
    state = act(tutto_table(["bonus_200", "stop"]), t.Draw())
    state = act(state, t.Roll(), 1, 1, 1, 5, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5, 5), t.RollOn())
    assert state.secured == 1700
    state = act(state, t.Continue())
    assert event(state, "tutto.stop_card") == {"player": "alice", "lost": 1700}
    assert state.scores == {"alice": 0, "bob": 0}
    assert state.discards == ["bonus_200", "stop"]


def test_a_null_on_the_first_roll_ends_the_turn() -> None:
    state = act(act(tutto_table(["bonus_300"]), t.Draw()), t.Roll(), 2, 3, 4, 6, 2, 3)
    assert event(state, "tutto.null") == {"player": "alice", "lost": 0}
    assert state.current == "bob"


def test_double_doubles_the_whole_turn_on_a_tutto() -> None:
    state = act(act(tutto_table(["double"]), t.Draw()), t.Roll(), 1, 1, 4, 4, 4, 5)
    state = act(take(state, 1, 1, 4, 4, 4, 5), t.RollOn())
    assert event(state, "tutto.double") == {"player": "alice", "points": 1300}
    assert act(state, t.Stop()).scores["alice"] == 1300
    # With T from an earlier Tutto: T = 2 x (T + S).
    state = act(act(tutto_table(["bonus_200", "double"]), t.Draw()), t.Roll(), 1, 1, 1, 5, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5, 5), t.RollOn())
    state = act(act(state, t.Continue()), t.Roll(), 1, 1, 4, 4, 4, 5)
    state = act(take(state, 1, 1, 4, 4, 4, 5), t.RollOn())
    assert state.secured == 2 * (1700 + 650)


def test_double_stopping_before_a_tutto_banks_t_plus_s_undoubled() -> None:
    state = act(act(tutto_table(["double"]), t.Draw()), t.Roll(), 1, 2, 3, 4, 6, 6)
    state = act(take(state, 1), t.Stop())
    assert event(state, "tutto.banked") == {"player": "alice", "points": 100, "score": 100}


def test_fireworks_must_take_every_scoring_die_and_banks_at_the_first_null() -> None:
    state = act(act(tutto_table(["fireworks"]), t.Draw()), t.Roll(), 1, 5, 2, 3, 4, 6)
    state = take(state, 1)
    assert t.check_selection(state) == t.SelectionCheck(points=None, reason="fireworks_take_all")
    with pytest.raises(InvalidSelection) as err:
        act(state, t.RollOn(), 2, 2, 2, 2)
    assert err.value.params == {"reason": "fireworks_take_all"}
    with pytest.raises(MustNotStop):
        act(take(state, 5), t.Stop())
    state = act(take(state, 5), t.RollOn(), 2, 3, 4, 6)
    assert event(state, "tutto.fireworks_null") == {"player": "alice", "points": 150}
    assert state.scores["alice"] == 150


def test_fireworks_tutto_rolls_six_again_under_the_same_card() -> None:
    state = act(act(tutto_table(["fireworks", "stop"]), t.Draw()), t.Roll(), 1, 1, 1, 5, 5, 2)
    state = act(take(state, 1, 1, 1, 5, 5), t.RollOn(), 5)
    state = act(take(state, 5), t.RollOn())
    assert event(state, "tutto.fireworks") == {"player": "alice", "points": 1150}
    assert state.phase == "roll"
    assert state.card == "fireworks"
    assert state.in_hand == 6
    assert not t.can_stop(state)
    state = act(state, t.Roll(), 5, 2, 3, 4, 6, 6)
    state = act(take(state, 5), t.RollOn(), 2, 3, 4, 6, 2)
    assert state.scores["alice"] == 1150 + 50
    assert state.tuttos["alice"] == 1
    assert state.deck == ["stop"]  # no card was drawn


@pytest.mark.parametrize(
    ("before", "after", "losers"),
    [
        # Every other player sharing the top score loses 1000.
        (
            {"alice": 0, "bob": 3000, "carol": 3000, "dave": 500},
            {"alice": 1000, "bob": 2000, "carol": 2000, "dave": 500},
            {"bob": 1000, "carol": 1000},
        ),
        # Never below 0.
        ({"alice": 0, "bob": 600}, {"alice": 1000, "bob": 0}, {"bob": 600}),
        # The card's player shares the top: only the others lose.
        ({"alice": 3000, "bob": 3000}, {"alice": 4000, "bob": 2000}, {"bob": 1000}),
        # The card's player leads alone: nobody loses.
        ({"alice": 3000, "bob": 2000}, {"alice": 4000, "bob": 2000}, {}),
        # The leader is judged before the bank: overtaking bob still costs him 1000.
        ({"alice": 2500, "bob": 3000}, {"alice": 3500, "bob": 2000}, {"bob": 1000}),
    ],
)
def test_plus_minus(before: dict[str, int], after: dict[str, int], losers: dict[str, int]) -> None:
    state = act(act(tutto_table(["plus_minus"], before), t.Draw()), t.Roll(), 1, 1, 4, 4, 4, 5)
    state = take(state, 1, 1, 4, 4, 4, 5)
    assert not t.can_stop(state)
    with pytest.raises(MustNotStop):
        act(state, t.Stop())
    state = act(state, t.RollOn())
    assert event(state, "tutto.plus_minus") == {"player": "alice", "points": 1000, "losers": losers}
    assert state.scores == after
    assert state.current == "bob"


@pytest.mark.parametrize(
    ("before", "left", "after", "losers"),
    [
        # The leader left: the top among the players still in the game loses instead.
        (
            {"alice": 0, "bob": 5000, "carol": 3000},
            ["bob"],
            {"alice": 1000, "bob": 5000, "carol": 2000},
            {"carol": 1000},
        ),
        # A co-leader who left keeps their points; the one who stayed loses.
        (
            {"alice": 0, "bob": 3000, "carol": 3000},
            ["carol"],
            {"alice": 1000, "bob": 2000, "carol": 3000},
            {"bob": 1000},
        ),
        # The card's player leads among those still in the game: nobody loses.
        ({"alice": 2000, "bob": 5000, "carol": 1000}, ["bob"], {"alice": 3000, "bob": 5000, "carol": 1000}, {}),
    ],
)
def test_plus_minus_takes_only_from_leaders_still_in_the_game(
    before: dict[str, int], left: list[str], after: dict[str, int], losers: dict[str, int]
) -> None:
    table = tutto_table(["plus_minus"], before).model_copy(update={"left": left})
    state = act(act(table, t.Draw()), t.Roll(), 1, 1, 4, 4, 4, 5)
    state = act(take(state, 1, 1, 4, 4, 4, 5), t.RollOn())
    assert event(state, "tutto.plus_minus") == {"player": "alice", "points": 1000, "losers": losers}
    assert state.scores == after


def test_plus_minus_banks_earlier_tuttos_too_and_ignores_dice_points() -> None:
    state = act(act(tutto_table(["bonus_300", "plus_minus"]), t.Draw()), t.Roll(), 5, 5, 5, 1, 1, 1)
    state = act(take(state, 5, 5, 5, 1, 1, 1), t.RollOn())
    state = act(act(state, t.Continue()), t.Roll(), 1, 2, 3, 4, 6, 6)
    state = act(take(state, 1), t.RollOn(), 1, 1, 1, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5), t.RollOn())
    assert state.scores["alice"] == 1800 + 1000
    assert state.tuttos["alice"] == 2


def test_street_refuses_a_die_of_a_face_collected_or_already_picked() -> None:
    """Such a die could never be set aside with its selection, so the engine refuses it (and the board greys it).

    Taking a die out stays allowed, also from a selection stored before these dice were refused."""
    state = act(act(tutto_table(["street"]), t.Draw()), t.Roll(), 1, 2, 3, 3, 4, 4)
    state = act(take(state, 1), t.RollOn(), 1, 5, 5, 6, 2)
    assert t.toggle_actions(state) == [t.ToggleSelect(index=i) for i in (1, 2, 3, 4)]
    with pytest.raises(InvalidSelection) as refused:
        act(state, t.ToggleSelect(index=0))
    assert refused.value.params == {"reason": "street_face_taken"}
    state = act(state, t.ToggleSelect(index=1))
    assert t.legal_actions(state, "alice") == [
        *(t.ToggleSelect(index=i) for i in (1, 3, 4)),
        t.SelectScoring(),
        t.RollOn(),
    ]
    with pytest.raises(InvalidSelection) as refused:
        act(state, t.ToggleSelect(index=2))
    assert refused.value.params == {"reason": "street_one_per_face"}
    stored = t.State.model_validate({**state.model_dump(), "selected": [0, 1, 2]})
    assert t.toggle_actions(stored) == [t.ToggleSelect(index=i) for i in range(5)]
    assert act(act(stored, t.ToggleSelect(index=0)), t.ToggleSelect(index=2)).selection == [5]


def test_street_collects_new_faces_and_pays_2000() -> None:
    state = act(act(tutto_table(["street"]), t.Draw()), t.Roll(), 1, 1, 2, 2, 3, 3)
    state = take(state, 1)
    assert t.check_selection(state) == t.SelectionCheck(points=0)
    assert not t.can_stop(state)
    with pytest.raises(MustNotStop):
        act(state, t.Stop())
    state = act(state, t.RollOn(), 1, 4, 4, 5, 6)
    state = act(take(state, 4, 5, 6), t.RollOn(), 2, 3)
    state = take(state, 2, 3)
    assert t.can_stop(state)  # completing the street is the Tutto, after which stopping is allowed
    banked = act(state, t.Stop())
    assert event(banked, "tutto.street") == {"player": "alice", "bonus": 2000, "points": 2000}
    assert banked.scores["alice"] == 2000
    state = act(state, t.RollOn())
    assert state.phase == "tutto"
    assert state.secured == 2000
    assert state.card_points == 0


def test_cloverleaf_two_tuttos_win_the_game_at_once() -> None:
    scores = {"alice": 1000, "bob": 5000, "carol": 200}
    state = act(act(tutto_table(["cloverleaf", "stop"], scores), t.Draw()), t.Roll(), 1, 1, 1, 5, 5, 5)
    state = take(state, 1, 1, 1, 5, 5, 5)
    assert not t.can_stop(state)
    state = act(state, t.RollOn())
    assert keys(state)[-1] == "tutto.cloverleaf"
    assert state.phase == "roll"
    with pytest.raises(MustRollFirst):
        act(state, t.Stop())
    state = act(state, t.Roll(), 2, 2, 2, 3, 3, 3)
    state = act(take(state, 2, 2, 2, 3, 3, 3), t.RollOn())
    assert t.is_over(state)
    assert state.winner == "alice"
    assert keys(state)[-2:] == ["tutto.cloverleaf_win", "game.over"]
    assert event(state, "game.over") == {"winners": ["alice"], "buys_round": ["carol"]}
    assert [(r.player, r.score, r.rank, r.won, r.counters) for r in t.results(state)] == [
        ("alice", 1000, 1, True, {"tuttos": 2}),
        ("bob", 5000, 2, False, {"tuttos": 0}),
        ("carol", 200, 3, False, {"tuttos": 0}),
    ]
    with pytest.raises(GameOver):
        act(state, t.Draw())


def test_cloverleaf_null_loses_the_turn() -> None:
    state = act(act(tutto_table(["cloverleaf"]), t.Draw()), t.Roll(), 1, 5, 5, 5, 5, 5)
    state = act(take(state, 1, 5, 5, 5, 5, 5), t.RollOn())
    state = act(state, t.Roll(), 1, 2, 3, 4, 6, 6)
    state = act(take(state, 1), t.RollOn(), 2, 3, 3, 4, 6)
    assert event(state, "tutto.null") == {"player": "alice", "lost": 700 + 100}
    assert state.scores["alice"] == 0
    assert state.discards == ["cloverleaf"]


def test_invalid_selections_are_refused_and_change_nothing() -> None:
    state = act(act(tutto_table(["bonus_400"]), t.Draw()), t.Roll(), 1, 2, 3, 4, 6, 6)
    assert t.check_selection(state) == t.SelectionCheck(points=None, reason="empty")
    with pytest.raises(InvalidSelection) as err:
        act(state, t.RollOn(), 1)
    assert err.value.params == {"reason": "empty"}
    picked = take(state, 1, 2)
    assert t.check_selection(picked).reason == "not_scoring"
    assert not t.can_stop(picked)
    snapshot = picked.model_copy(deep=True)
    for action in (t.RollOn(), t.Stop()):
        with pytest.raises(InvalidSelection) as err:
            act(picked, action, 1, 1, 1, 1)
        assert err.value.params == {"reason": "not_scoring"}
    assert picked == snapshot
    assert t.RollOn() not in t.legal_actions(picked, "alice")


def test_a_triple_cannot_use_a_die_of_an_earlier_roll() -> None:
    state = act(act(tutto_table(["bonus_400"]), t.Draw()), t.Roll(), 4, 4, 4, 1, 2, 3)
    state = act(take(state, 4, 4, 4), t.RollOn(), 4, 4, 1)
    state = take(state, 4, 4)
    assert t.check_selection(state) == t.SelectionCheck(points=None, reason="triple_across_rolls")
    state = act(take(state, 1), t.ToggleSelect(index=1))
    assert t.check_selection(state).reason == "triple_across_rolls"
    state = act(state, t.ToggleSelect(index=0))
    assert t.check_selection(state) == t.SelectionCheck(points=100)


# --------------------------------------------------------------------------------------------------
# Selecting every scoring die in one tap


def test_select_scoring_takes_every_scoring_die_in_one_move() -> None:
    state = act(act(tutto_table(["bonus_400"]), t.Draw()), t.Roll(), 4, 1, 4, 5, 4, 3)
    assert t.SelectScoring() in t.legal_actions(state, "alice")
    assert t.scoring_selection(state) == [0, 1, 2, 3, 4]
    state = act(state, t.SelectScoring())
    assert state.selection == [4, 1, 4, 5, 4]
    assert t.check_selection(state) == t.SelectionCheck(points=550)
    assert t.legal_actions(state, "alice") == [*(t.ToggleSelect(index=i) for i in range(6)), t.RollOn(), t.Stop()]
    state = act(state, t.RollOn(), 5)
    assert event(state, "tutto.set_aside") == {"player": "alice", "dice": [4, 1, 4, 5, 4], "points": 550, "total": 550}


def test_select_scoring_keeps_the_dice_picked_and_drops_those_that_do_not_score() -> None:
    state = act(act(tutto_table(["bonus_400"]), t.Draw()), t.Roll(), 5, 2, 5, 3, 2, 6)
    picked = take(state, 2)
    assert picked.selected == [1]
    state = act(picked, t.ToggleSelect(index=2))  # the second 5
    state = act(state, t.SelectScoring())
    assert state.selected == [0, 2]
    assert state.selection == [5, 5]
    assert t.check_selection(state) == t.SelectionCheck(points=100)


def test_select_scoring_is_refused_once_every_scoring_die_is_selected() -> None:
    state = act(act(tutto_table(["bonus_400"]), t.Draw()), t.Roll(), 1, 2, 3, 4, 6, 6)
    state = take(state, 1)
    assert t.SelectScoring() not in t.legal_actions(state, "alice")
    snapshot = state.model_copy(deep=True)
    with pytest.raises(IllegalAction, match="selected already"):
        act(state, t.SelectScoring())
    assert state == snapshot


def test_select_scoring_needs_a_roll_on_the_table() -> None:
    state = tutto_table(["bonus_400"])
    with pytest.raises(IllegalAction):
        act(state, t.SelectScoring())
    state = act(state, t.Draw())
    with pytest.raises(MustRollFirst):
        act(state, t.SelectScoring())
    assert t.scoring_selection(state) == []


def test_select_scoring_under_street_takes_one_die_of_every_new_face() -> None:
    state = act(act(tutto_table(["street"]), t.Draw()), t.Roll(), 1, 2, 3, 3, 4, 4)
    state = act(take(state, 1), t.RollOn(), 1, 5, 5, 6, 2)
    state = act(state, t.ToggleSelect(index=2))  # the second 5 stays the 5 taken
    state = act(state, t.SelectScoring())
    assert state.selected == [2, 3, 4]
    assert state.selection == [5, 6, 2]
    assert t.check_selection(state) == t.SelectionCheck(points=0)
    assert t.SelectScoring() not in t.legal_actions(state, "alice")


def test_select_scoring_under_fireworks_takes_what_the_card_demands() -> None:
    state = act(act(tutto_table(["fireworks"]), t.Draw()), t.Roll(), 1, 5, 2, 3, 4, 6)
    state = act(take(state, 1), t.SelectScoring())
    assert t.check_selection(state) == t.SelectionCheck(points=150)
    state = act(state, t.RollOn(), 2, 3, 4, 6)
    assert event(state, "tutto.fireworks_null") == {"player": "alice", "points": 150}


_CARDS = sorted({card for card in t.DECK if t.card_kind(card) != t.STOP})


@settings(max_examples=200, deadline=None)
@given(card=st.sampled_from(_CARDS), dice=dice_lists, rnd=st.randoms())
def test_select_scoring_yields_the_best_valid_selection(card: str, dice: list[int], rnd: random.Random) -> None:
    """For any roll and any dice picked from it, the action (when legal) leaves a selection ``check_selection``
    accepts: worth the roll's best score, or under Street one die of every face not collected yet."""
    street = t.card_kind(card) == t.STREET
    faces = [1, 2, 3, 4, 5, 6]
    rnd.shuffle(faces)
    aside = faces[: t.DICE - len(dice)] if street else [rnd.randint(1, 6) for _ in range(t.DICE - len(dice))]
    state = tutto_table([]).model_copy(
        update={
            "card": card,
            "phase": "select",
            "aside": aside,
            "roll": dice,
            "selected": sorted(i for i in range(len(dice)) if rnd.random() < 0.5),
        }
    )
    new_faces = set(dice) - set(aside) if street else set()
    if (street and not new_faces) or (not street and t.best_score(dice) == 0):
        return  # a null: the engine never leaves one on the table
    legal = t.SelectScoring() in t.legal_actions(state, "alice")
    if not legal:
        assert state.selected == t.scoring_selection(state)
        return
    after = act(state, t.SelectScoring())
    check = t.check_selection(after)
    assert check.points is not None
    if street:
        assert sorted(after.selection) == sorted(new_faces)
    else:
        assert check.points == t.best_score(dice)
    kept = Counter(dice[i] for i in set(state.selected) & set(after.selected))
    before = Counter(state.selection)
    assert kept == Counter({face: min(n, before[face]) for face, n in Counter(after.selection).items()})
    assert t.SelectScoring() not in t.legal_actions(after, "alice")


def test_actions_out_of_phase_or_turn_are_refused() -> None:
    state = tutto_table(["bonus_400"], {"alice": 0, "bob": 0})
    with pytest.raises(IllegalAction):
        act(state, t.Roll(), 1, 1, 1, 1, 1, 1)
    with pytest.raises(IllegalAction):
        act(state, t.ToggleSelect(index=0))
    with pytest.raises(IllegalAction):
        act(state, t.Stop())
    with pytest.raises(IllegalAction):
        act(state, t.Continue())
    with pytest.raises(MustRollFirst):
        act(act(state, t.Draw()), t.ToggleSelect(index=0))
    with pytest.raises(NotYourTurn):
        t.apply(state, "bob", t.Draw(), scripted_dice())
    with pytest.raises(NotAPlayer):
        t.apply(state, "zed", t.Draw(), scripted_dice())
    state = act(act(state, t.Draw()), t.Roll(), 1, 2, 3, 4, 6, 6)
    with pytest.raises(IllegalAction):
        act(state, t.Draw())
    state = act(take(state, 1), t.RollOn(), 2, 3, 4, 6, 5)
    with pytest.raises(IllegalAction, match="no die 5"):
        act(state, t.ToggleSelect(index=5))
    toggled = act(act(state, t.ToggleSelect(index=4)), t.ToggleSelect(index=4))
    assert toggled.selected == []


def test_reaching_the_target_ends_the_game() -> None:
    state = act(act(tutto_table(["bonus_200"], target=1000), t.Draw()), t.Roll(), 1, 1, 1, 5, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5, 5), t.Stop())
    assert t.is_over(state)
    assert t.to_act(state) == []
    assert event(state, "game.over") == {"winners": ["alice"], "buys_round": ["bob"]}
    assert [(r.player, r.score, r.won) for r in t.results(state)] == [("alice", 1700, True), ("bob", 0, False)]


def test_leave_passes_the_turn_and_ends_the_game_when_nobody_is_left() -> None:
    scores = {"alice": 0, "bob": 0, "carol": 0}
    state = act(act(tutto_table(["bonus_200"], scores), t.Draw()), t.Roll(), 1, 2, 3, 4, 6, 6)
    state = t.leave(state, "alice")
    assert state.current == "bob"
    assert state.phase == "draw"
    assert state.discards == ["bonus_200"]
    with pytest.raises(NotAPlayer):
        t.leave(state, "alice")
    state = t.leave(state, "carol")
    assert state.current == "bob"
    state = t.leave(state, "bob")
    assert t.is_over(state)
    assert len(t.results(state)) == 3


def test_a_leader_who_left_cannot_win_when_the_target_is_reached() -> None:
    table = tutto_table(["bonus_200"], {"alice": 0, "bob": 900, "carol": 0}, target=1000)
    state = act(act(table.model_copy(update={"left": ["bob"]}), t.Draw()), t.Roll(), 1, 1, 1, 5, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5, 5), t.Stop())
    assert t.is_over(state)
    assert event(state, "game.over")["winners"] == ["alice"]
    assert [(r.player, r.score, r.rank, r.won) for r in t.results(state)] == [
        ("alice", 1700, 1, True),
        ("bob", 900, 3, False),
        ("carol", 0, 2, False),
    ]


def test_a_cloverleaf_winner_ranks_first_and_leavers_last() -> None:
    state = tutto_table([], {"alice": 0, "bob": 5000, "carol": 4000, "dave": 100}).model_copy(
        update={"left": ["bob"], "winner": "alice", "phase": "over"}
    )
    assert [(r.player, r.rank, r.won) for r in t.results(state)] == [
        ("alice", 1, True),
        ("bob", 4, False),
        ("carol", 2, False),
        ("dave", 3, False),
    ]


def test_timeout_selects_the_most_then_stops_when_allowed() -> None:
    state = act(act(tutto_table(["bonus_200"]), t.Draw()), t.Roll(), 2, 1, 5, 3, 4, 6)
    state = take(state, 2)
    moves = []
    while state.current == "alice":
        action = t.timeout_action(state, "alice")
        moves.append(action)
        state = act(state, action)
    assert moves == [t.SelectScoring(), t.Stop()]  # the wrong die out and the 1 and the 5 in: Take all's selection
    assert state.scores["alice"] == 150
    with pytest.raises(IllegalAction):
        t.timeout_action(state, "alice")


def test_timeout_rolls_on_when_the_card_forbids_stopping() -> None:
    state = act(act(tutto_table(["street"]), t.Draw()), t.Roll(), 3, 3, 5, 5, 6, 6)
    state = act(state, t.timeout_action(state, "alice"))
    assert state.selection == [3, 5, 6]
    assert t.timeout_action(state, "alice") == t.RollOn()
    state = act(state, t.RollOn(), 1, 2, 4)
    state = act(state, t.timeout_action(state, "alice"))
    assert t.timeout_action(state, "alice") == t.Stop()  # completes the street
    assert act(state, t.Stop()).scores["alice"] == 2000


def test_state_round_trips_and_actions_parse() -> None:
    state = act(act(tutto_table(["fireworks"]), t.Draw()), t.Roll(), 1, 5, 2, 3, 4, 6)
    state = take(state, 1)
    assert t.State.load(state.dump()) == state
    assert t.parse_action({"kind": "toggle", "index": 3}) == t.ToggleSelect(index=3)
    assert t.parse_action({"kind": "roll_on"}) == t.RollOn()
    assert t.parse_action({"kind": "select_scoring"}) == t.SelectScoring()
    with pytest.raises(ValueError, match="index"):
        t.parse_action({"kind": "toggle", "index": 6})
    with pytest.raises(ValueError, match="kind"):
        t.parse_action({"kind": "pass"})


# --------------------------------------------------------------------------------------------------
# Random play

_ALL_ACTIONS: list[t.AnyAction] = [
    t.Draw(),
    t.Roll(),
    *(t.ToggleSelect(index=i) for i in range(6)),
    t.SelectScoring(),
    t.RollOn(),
    t.Stop(),
    t.Continue(),
]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=1000, max_value=2000),
    st.integers(min_value=0, max_value=2**32),
)
def test_random_legal_play_reaches_the_target(n_players: int, target: int, seed: int) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n_players)]
    state = t.new_game(players, rng, target=target)
    dumped = state.dump()  # each state's dump, taken once: nothing changes a state once apply returned it
    for _ in range(20_000):
        if t.is_over(state):
            break
        player = t.to_act(state)[0]
        legal = t.legal_actions(state, player)
        before = dumped
        if rng.random() < 0.2:  # probe: apply accepts exactly the legal actions and never mutates its input
            assert_apply_accepts_only_legal(t, state, rng.choice([*players, "stranger"]), rng.choice(_ALL_ACTIONS))
        decisions = [a for a in legal if not isinstance(a, t.ToggleSelect)]
        action = rng.choice(decisions if decisions and rng.random() < 0.6 else legal)
        state = t.apply(state, player, action, rng)
        dumped = state.dump()
        assert dumped != before
        assert t.State.load(dumped) == state
        assert all(score >= 0 for score in state.scores.values())
        assert len(state.deck) + len(state.discards) + (state.card is not None) == len(t.DECK)
    assert t.is_over(state)
    assert max(state.scores.values()) >= target or state.winner is not None
    assert sum(r.won for r in t.results(state)) >= 1


def test_full_seeded_game_with_the_timeout_strategy() -> None:
    rng = random.Random(0)
    state = t.new_game(["alice", "bob"], rng, target=2000)
    while not t.is_over(state):
        player = t.to_act(state)[0]
        state = t.apply(state, player, t.timeout_action(state, player), rng)
    assert state.move == 76  # a selection is one move (Take all), not a toggle per die
    assert [(r.player, r.score, r.rank, r.won, r.counters) for r in t.results(state)] == [
        ("alice", 900, 2, False, {"tuttos": 1}),
        ("bob", 3250, 1, True, {"tuttos": 2}),  # two Fireworks Tuttos, then 2800 banked at the null
    ]
    assert state.events[-1] == Event(key="game.over", params={"winners": ["bob"], "buys_round": ["alice"]})


def test_a_cloverleaf_winner_never_buys_the_next_round() -> None:
    """The winner with the fewest points (a Cloverleaf from behind) is not among those who buy: the fewest points
    of the others are."""
    state = tutto_table([], {"alice": 0, "bob": 0, "carol": 300})
    state = state.model_copy(update={"winner": "alice"})
    assert t.buys_next_round(state) == ["bob"]
    alone = tutto_table([], {"alice": 200}).model_copy(update={"winner": "alice"})
    assert t.buys_next_round(alone) == []
