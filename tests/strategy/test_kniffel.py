"""The exact Kniffel solver: published value, hand-checked positions, the joker, legality and a simulation check."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from bot import strategy
from bot.engine import kniffel as engine
from bot.strategy import kniffel

ALL = (1 << len(engine.BOXES)) - 1
ONLY = {box: ALL & ~(1 << engine.BOXES.index(box)) for box in engine.BOXES}


def test_fresh_game_matches_the_published_optimum(kniffel_tables: kniffel.Tables) -> None:
    # Published optimum with the Yahtzee bonus and joker: 254.59 (Verhoeff; Glenn). RULES.md forces the joker,
    # which yatzy-solver 1.0 ("american+forced-joker") puts at 254.5877287.
    assert kniffel_tables.expected_score() == pytest.approx(254.5877287, abs=1e-6)


def test_classic_has_no_bonus_at_all(classic_tables: kniffel.Tables) -> None:
    # Without the upper bonus the upper sum does not matter: the table keeps a single column for it.
    assert classic_tables.rules.cap == 0
    assert classic_tables.by_level["perfect"].shape == (ALL + 1, 1, 2)
    # Below the published 245.87 without Yahtzee bonus and joker, which still has the upper bonus.
    assert 220 < classic_tables.expected_score() < 245.87


def test_last_open_box_chance_is_worth_five_dice_rolled_three_times(classic_tables: kniffel.Tables) -> None:
    # One die over three rolls: keep 5-6 after the first (4.25 expected for the rest), 4-6 after the second.
    per_die = (2 / 6) * 5.5 + (4 / 6) * ((3 / 6) * 5 + (3 / 6) * 3.5)
    assert classic_tables.by_level["perfect"][ONLY["chance"], 0, 0] == pytest.approx(5 * per_die)


def test_the_upper_bonus_is_added_at_the_end(kniffel_tables: kniffel.Tables) -> None:
    values = kniffel_tables.by_level["perfect"]
    assert values[ONLY["chance"], 63, 0] - values[ONLY["chance"], 62, 0] == pytest.approx(35)


def test_last_open_box_kniffel_is_worth_the_chance_of_five_of_a_kind(classic_tables: kniffel.Tables) -> None:
    # The chance of five of a kind in three rolls, chasing the most common face, is 0.0460286.
    assert classic_tables.by_level["perfect"][ONLY["kniffel"], 0, 0] == pytest.approx(50 * 0.0460286, abs=1e-5)


def _state(card: dict[str, int], dice: list[int], rolls: int, bonus: int = 0, ruleset: str = "kniffel") -> engine.State:
    state = engine.new_game(["p"], random.Random(0), ruleset=ruleset)
    return state.model_copy(
        update={"cards": {"p": card}, "bonuses": {"p": bonus}, "turns": {"p": len(card)}, "dice": dice, "rolls": rolls}
    )


def test_value_of_a_hand_checked_end_of_game_state(table_dir: Path) -> None:
    # Upper 3 of each face = 63 (+35), lower boxes as below, only the kniffel box open, five sixes on the table.
    card = {box: 3 * (i + 1) for i, box in enumerate(engine.UPPER)}
    card |= {"three_of_a_kind": 20, "four_of_a_kind": 0, "full_house": 25, "small_straight": 30}
    card |= {"large_straight": 40, "chance": 22}
    values = strategy.evaluate(_state(card, [6] * 5, 3), "p", directory=table_dir)
    assert [(v.action, v.value) for v in values] == [(engine.Score(box="kniffel"), 63 + 35 + 137 + 50)]


def test_a_kniffel_with_the_joker_goes_to_the_large_straight(table_dir: Path) -> None:
    card = {box: 0 for box in engine.BOXES if box not in ("small_straight", "large_straight", "chance")}
    card |= {"kniffel": 50, "fives": 15}
    state = _state(card, [5] * 5, 3)
    values = strategy.evaluate(state, "p", directory=table_dir)
    assert [v.action.box for v in values] == ["large_straight", "small_straight", "chance"]
    # Each joker box earns its joker points plus the 100 extra bonus now; the rest is the last two boxes' worth.
    assert values[0].value > values[1].value + 10
    assert strategy.choose(state, "p", "perfect", random.Random(0), directory=table_dir) == engine.Score(
        box="large_straight"
    )


def test_perfect_holds_towards_the_best_keep_then_rolls(table_dir: Path) -> None:
    # A fresh card, first roll 6-6-6-2-1: every sensible player keeps the three sixes.
    state = _state({}, [6, 2, 6, 1, 6], 1)
    rng = random.Random(0)
    actions = []
    while True:
        action = strategy.choose(state, "p", "perfect", rng, directory=table_dir)
        actions.append(action)
        if not isinstance(action, engine.ToggleHold):
            break
        state = engine.apply(state, "p", action, rng)
    assert actions == [
        engine.ToggleHold(index=0),
        engine.ToggleHold(index=2),
        engine.ToggleHold(index=4),
        engine.Roll(),
    ]


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_simulated_games_average_the_table_value(table_dir: Path, ruleset: str) -> None:
    # Independent check: sampled games, totals added up by the engine, against the exact expectation.
    tabs = kniffel.load(ruleset, table_dir)
    totals = kniffel.simulate(tabs, "perfect", 4000, seed=7)
    error = totals.std() / np.sqrt(len(totals))
    assert abs(totals.mean() - tabs.expected_score()) < 4 * error


def test_levels_are_ordered(kniffel_tables: kniffel.Tables) -> None:
    means = {level: kniffel.simulate(kniffel_tables, level, 1500, seed=3).mean() for level in strategy.LEVELS}
    assert means["easy"] + 5 < means["normal"] < means["perfect"] - 5


def test_engine_games_played_by_choose_score_like_the_table(table_dir: Path) -> None:
    rng = random.Random(11)
    scores = []
    for _ in range(12):
        state = engine.new_game(["p"], rng, ruleset="classic")
        while not engine.is_over(state):
            state = engine.apply(state, "p", strategy.choose(state, "p", "perfect", rng, directory=table_dir), rng)
        scores.append(engine.results(state)[0].score)
    expected = kniffel.load("classic", table_dir).expected_score()
    assert abs(np.mean(scores) - expected) < 4 * 32 / np.sqrt(len(scores))
