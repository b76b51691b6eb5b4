"""Tutto's single-turn solver: hand-checked chances, the value recursion, decisions and the race."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bot import strategy
from bot.engine import tutto as engine
from bot.strategy import tutto
from tests.scripted import act, take, tutto_table


def test_chances_checked_by_hand() -> None:
    assert tutto.clear_chance(1) == pytest.approx(2 / 6)  # a 1 or a 5
    assert tutto.street_chance(1) == pytest.approx(1 / 6)
    # Two faces missing, two dice: both at once (2/36), or one of them (18/36) and then the last (1/6).
    assert tutto.street_chance(2) == pytest.approx(2 / 36 + 18 / 36 / 6)


def test_fireworks_haul_with_one_die() -> None:
    haul = tutto.fireworks_haul()
    # A 1 or a 5 clears the last die and starts over with six; anything else banks.
    assert haul[1] == pytest.approx((100 + haul[6]) / 6 + (50 + haul[6]) / 6)


def test_one_die_left_under_a_bonus_card() -> None:
    solution = tutto.solve_turn()
    row = tutto.BONUS_CARDS.index("bonus_300")
    for i in (0, 5, 40):
        tutto_with_1, tutto_with_5 = solution.after[i + 2 + 6], solution.after[i + 1 + 6]
        assert solution.values[row, i, 1] == pytest.approx((tutto_with_1 + tutto_with_5) / 6)


def test_expected_points_per_turn_is_the_mean_over_the_first_card() -> None:
    per_turn = tutto.expected_per_turn()
    overall = per_turn.pop("overall")
    assert overall == pytest.approx(sum(tutto.CARD_CHANCE[card] * value for card, value in per_turn.items()))
    assert per_turn["stop"] == 0
    assert 300 < overall < 400


def _selecting(aside: list[int], roll: list[int], mine: int = 0) -> engine.State:
    state = tutto_table(["bonus_200"], {"alice": mine, "bob": 0})
    return state.model_copy(
        update={
            "card": "bonus_200",
            "phase": "select",
            "aside": aside,
            "roll": roll,
            "card_points": engine.score_selection(aside) if aside else 0,
            "deck": [],
        }
    )


def _finish_selection(state: engine.State) -> engine.AnyAction:
    """Play the perfect player's toggles and return the action that ends the selection."""
    rng = random.Random(0)
    while isinstance(action := strategy.choose(state, "alice", "perfect", rng), engine.ToggleSelect):
        state = engine.apply(state, "alice", action, rng)
    return action


def test_far_from_the_target_a_safe_250_is_banked() -> None:
    # 1-5-5 aside (200), the roll 5-3-4: take the 5 and stop rather than roll two dice for more.
    assert _finish_selection(_selecting([1, 5, 5], [5, 3, 4])) == engine.Stop()


def test_near_the_target_the_race_rolls_on_for_the_win() -> None:
    # At 5,600 of 6,000 banking 250 does not win; rolling on might, and a win is worth more than points.
    assert _finish_selection(_selecting([1, 5, 5], [5, 3, 4], mine=5600)) == engine.RollOn()


def test_easy_banks_whenever_it_may() -> None:
    state = _selecting([], [1, 2, 3, 4, 6, 6])
    rng = random.Random(0)
    while isinstance(action := strategy.choose(state, "alice", "easy", rng), engine.ToggleSelect):
        state = engine.apply(state, "alice", action, rng)
    assert (state.selection, action) == ([1], engine.Stop())


def test_played_turns_bank_about_the_expected_points() -> None:
    banked = tutto.play_turns("perfect", 300, seed=2)
    error = np.std(banked) / np.sqrt(len(banked))
    assert abs(np.mean(banked) - tutto.expected_per_turn()["overall"]) < 4 * error


def test_stopping_with_a_tutto_banks_it_and_gives_up_drawing_again() -> None:
    """Stop on a Tutto selection banks at once (the engine gives no Continue then); Roll on leads to the choice."""
    state = tutto_table(["bonus_300"], {"alice": 0, "bob": 0})
    state = act(act(state, engine.Draw()), engine.Roll(), 2, 2, 2, 3, 3, 1)
    state = act(take(state, 2, 2, 2, 1), engine.RollOn(), 5, 5)  # 300 aside; 5-5 makes a Tutto: 400 + 300
    (tutto_selection,) = [s for s in tutto.selections(state) if s.tutto]

    on, stop = tutto.selection_values(tutto.solve_turn(), state, tutto_selection)

    assert stop == 700
    assert on == pytest.approx(float(tutto.solve_turn().after[700 // tutto.STEP])) and on > stop


@pytest.mark.parametrize(("mine", "target"), [(600, 1000), (0, 6000), (990, 1000)])
def test_the_values_shown_end_at_the_target_exactly(mine: int, target: int) -> None:
    """The solve shown to players stops at the target; the full table with the same capped points agrees."""
    payoff = tutto.points_payoff(tutto_table([], {"alice": mine, "bob": 0}, target=target), "alice")
    reach = max(tutto.STEP, target - mine)
    assert len(payoff.utility) - 1 == -(-reach // tutto.STEP) and payoff.utility[-1] == reach
    full = tutto.solve_turn(
        tutto.Payoff(tuple(float(min(tutto.STEP * i, reach)) for i in range(tutto.TOP + 1)), cloverleaf=reach)
    )
    short = tutto.solve_turn(payoff)
    size = len(payoff.utility)
    np.testing.assert_allclose(short.values, full.values[:, :size], rtol=0, atol=1e-9)
    np.testing.assert_allclose(short.carry, full.carry[:size], rtol=0, atol=1e-9)
    np.testing.assert_allclose(short.after, full.after[:size], rtol=0, atol=1e-9)
