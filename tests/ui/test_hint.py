"""The Hint answer's wording: keeps as dice, boxes by name, Tutto selections, Knister cells, rolling now."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bot.engine import dicepoker, kniffel, knister, tutto
from bot.play.review import Decision
from bot.strategy import Keep
from bot.strategy.tutto import Plan
from bot.ui import hint
from bot.ui import review as review_ui


@dataclass(frozen=True)
class Value:
    action: Any
    value: float


def read(text: str) -> str:
    """The text as a player reads it: the no-break spaces that keep a phone from wrapping inside a group of dice or
    between an arrow and its value (``test_a_phone_wraps_neither_a_group_of_dice_nor_an_arrow_and_its_value``)
    read as spaces."""
    return text.replace("\N{NO-BREAK SPACE}", " ")


def rolled(*dice: int) -> kniffel.State:
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    return state.model_copy(update={"dice": list(dice), "rolls": 1, "held": [False] * 5})


def test_the_best_three_with_values_then_the_current_roll() -> None:
    state = rolled(5, 5, 5, 2, 3)
    values = [
        Value(Keep((5, 5, 5)), 241.26),
        Value(kniffel.Score(box="fives"), 230.0),
        Value(Keep((5, 5)), 229.0),
        Value(Keep(()), 220.0),
    ]
    text = read(hint.render("kniffel", state, values, Value(kniffel.Roll(), 220.04), "en-US", player="a"))
    assert text.splitlines() == [
        "💡 Best moves (expected final score):",
        "**keep ⚄ ⚄ ⚄ and roll** → 241.3 expected",
        "**score Fives (15 points)** → 230.0 expected",
        "**keep ⚄ ⚄ and roll** → 229.0 expected",
        "If you roll now (roll all five dice): 220.0 expected",
    ]


def test_the_roll_as_held_now_is_not_repeated_when_it_is_among_the_best() -> None:
    state = rolled(1, 1, 2, 2, 3)
    values = [Value(Keep((2, 2)), 250.6), Value(Keep((3,)), 249.6), Value(Keep(()), 249.5)]
    text = read(hint.render("kniffel", state, values, Value(kniffel.Roll(), 249.5), "en-US", player="a"))
    assert text.splitlines()[1:] == [
        "**keep ⚁ ⚁ and roll** → 250.6 expected",
        "**keep ⚂ and roll** → 249.6 expected",
        "**roll all five dice** → 249.5 expected",
    ]


def test_toggles_that_lead_to_the_same_keep_are_listed_once_and_translated() -> None:
    state = rolled(5, 5, 1, 2, 3)
    values = [
        Value(kniffel.ToggleHold(index=0), 230.0),
        Value(kniffel.ToggleHold(index=1), 230.0),
        Value(kniffel.Score(box="chance"), 220.0),
    ]
    assert read(hint.render("kniffel", state, values, None, "de", player="a")).splitlines()[1:] == [
        "**⚄ behalten und würfeln** → 230,0 erwartet",
        "**Chance eintragen (16 Punkte)** → 220,0 erwartet",
    ]


def test_tutto_plans_in_words_with_whole_points_and_no_unit_on_every_line() -> None:
    """The title names the unit once; a phone's line holds the plan and its value."""
    state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(
        update={"phase": "select", "card": "bonus_300", "roll": [1, 1, 2, 2, 2, 6], "selected": [0]}
    )
    values = [Value(Plan((1, 1, 2, 2, 2), "stop"), 400.0), Value(Plan((1,), "roll_on"), 371.6)]
    assert read(
        hint.render("tutto", state, values, Value(Plan((1,), "roll_on"), 371.6), "en-US", player="a")
    ).splitlines()[1:] == [
        "**take ⚀ ⚀ ⚁ ⚁ ⚁ and stop** → 400",
        "**take ⚀ and roll on** → 372",
    ]
    assert read(hint.render("tutto", state, values[:1], values[1], "de", player="a")).splitlines()[1:] == [
        "**⚀ ⚀ ⚁ ⚁ ⚁ nehmen, dann Stopp** → 400",
        "Mit den jetzt gewählten Würfeln (⚀ nehmen und weiterwürfeln): 372",
    ]


def test_tutto_actions_and_knister_cells_in_words() -> None:
    tutto_state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(update={"phase": "tutto"})
    assert read(hint.describe("tutto", tutto_state, tutto.Stop(), "en-US")) == "Stop"
    knister_state = knister.new_game(["a"], random.Random(1))
    assert read(hint.describe("knister", knister_state, knister.Place(cell=7), "en-US")) == "row 2, column 3"


def test_before_the_first_roll_the_hint_says_what_the_game_is_worth() -> None:
    """Rolling is the only move: a list of one "roll → 254.6" told nothing, the expected final score does."""
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    values = [Value(kniffel.Roll(), 254.59)]
    assert read(
        hint.render("kniffel", state, values, Value(kniffel.Roll(), 254.59), "en-US", player="a")
    ).splitlines() == [
        "💡 Expected final score with best play: **254.6**",
        "Your only move now: **Roll**",  # as the button reads
    ]
    assert read(hint.render("kniffel", state, values, values[0], "de", player="a")).splitlines() == [
        "💡 Erwartetes Endergebnis bei bestem Spiel: **254,6**",
        "Dein einziger Zug jetzt: **Würfeln**",
    ]


def test_a_tutto_turn_before_the_draw_is_worth_its_expected_points() -> None:
    state = tutto.new_game(["a", "b"], random.Random(1))
    text = read(hint.render("tutto", state, [Value(tutto.Draw(), 412.04)], None, "en-US", player="a"))
    assert text.splitlines() == [
        "💡 Expected points this turn with best play: **412**",  # Tutto in whole points, as its other hints
        "Your only move now: **Draw & roll**",
    ]


def test_a_knister_hint_marks_its_cells_on_a_map_of_the_players_grid() -> None:
    """The grid's buttons carry no row or column numbers: the listed cells are lettered on a copy of the grid."""
    state = knister.new_game(["a", "b"], random.Random(1))
    grid = [[None] * knister.SIZE for _ in range(knister.SIZE)]
    grid[0][0], grid[1][2], grid[4][4] = 5, 12, 7
    state = state.model_copy(update={"grids": {"a": grid, "b": [[None] * knister.SIZE] * knister.SIZE}})
    values = [
        Value(knister.Place(cell=1), 71.34),
        Value(knister.Place(cell=24 - 1), 70.9),
        Value(knister.Place(cell=6), 70.0),
    ]
    assert read(hint.render("knister", state, values, None, "en-US", player="a")).splitlines() == [
        "💡 Best moves (expected final score):",
        "`A` **row 1, column 2** → 71.3 expected",
        "`B` **row 5, column 4** → 70.9 expected",
        "`C` **row 2, column 2** → 70.0 expected",
        "```",
        " 5  A  ·  ·  ·",
        " ·  C 12  ·  ·",
        " ·  ·  ·  ·  ·",
        " ·  ·  ·  ·  ·",
        " ·  ·  ·  B  7",
        "```",
    ]


def test_a_hint_with_one_move_does_not_present_it_as_a_choice() -> None:
    """QA: the last empty Knister cell was listed under "Best moves" (Polish "Najlepsze ruchy"), then under
    "Best move": with one move there is nothing to choose, so the hint says what the game is worth and names it."""
    state = knister.new_game(["a"], random.Random(1))
    values = [Value(knister.Place(cell=24), 61.0)]
    assert read(hint.render("knister", state, values, None, "en-US", player="a")).splitlines() == [
        "💡 Expected final score with best play: **61.0**",
        "Your only move now: **row 5, column 5**",
    ]
    assert read(hint.render("knister", state, values, None, "pl", player="a")).splitlines()[1] == (
        "Jedyny możliwy ruch: **wiersz 5, kolumna 5**"
    )
    last_box = rolled(6, 6, 6, 2, 3).model_copy(update={"rolls": 3})
    score = Value(kniffel.Score(box="chance"), 212.04)
    assert read(hint.render("kniffel", last_box, [score], None, "en-US", player="a")).splitlines() == [
        "💡 Expected final score with best play: **212.0**",
        "Your only move now: **score Chance (23 points)**",
    ]


def test_a_plan_that_takes_every_die_in_hand_is_named_a_tutto_not_a_roll() -> None:
    """QA: a review read "⚀ ⚄ nehmen und weiterwürfeln" for the pick that made a Tutto under Plus/Minus and ended
    the turn; nothing was rolled."""
    state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(update={"aside": [1, 5, 5, 5]})  # 2 in hand
    assert read(hint.describe("tutto", state, Plan((1, 5), "roll_on"), "en-US")) == "take ⚀ ⚄: Tutto!"
    assert read(hint.describe("tutto", state, Plan((1, 5), "roll_on"), "de")) == "⚀ ⚄ nehmen: Tutto!"
    assert read(hint.describe("tutto", state, Plan((1,), "roll_on"), "en-US")) == "take ⚀ and roll on"


def test_a_box_is_named_with_the_points_the_dice_score_there_in_every_language() -> None:
    """QA: a forced zero read "score Large straight ✓", as if a straight had been scored; the hint's
    "score Fours → 222.1 expected" left the points to be counted. The points come from the engine."""
    state = rolled(1, 1, 4, 4, 4)
    large, fours, ones = (kniffel.Score(box=box) for box in ("large_straight", "fours", "ones"))
    assert [read(hint.describe("kniffel", state, action, "en-US")) for action in (large, fours)] == [
        "score Large straight (0 points)",
        "score Fours (12 points)",
    ]
    assert read(hint.describe("kniffel", state, ones, "en-US")) == "score Ones (2 points)"
    assert read(hint.describe("kniffel", rolled(1, 2, 2, 4, 4), ones, "en-US")) == "score Ones (1 point)"
    assert read(hint.describe("kniffel", state, fours, "de")) == "Vierer eintragen (12 Punkte)"
    assert read(hint.describe("kniffel", rolled(1, 2, 2, 4, 4), ones, "de")) == "Einser eintragen (1 Punkt)"
    assert read(hint.describe("kniffel", state, large, "hu")) == "beírás: Nagy sor (0 pont)"
    assert read(hint.describe("kniffel", state, large, "pl")).endswith("(0 punktów)")
    assert read(hint.describe("kniffel", state, ones, "pl")).endswith("(2 punkty)")
    assert read(hint.describe("kniffel", rolled(1, 2, 2, 4, 4), ones, "pl")).endswith("(1 punkt)")


def test_an_extra_kniffel_names_its_bonus_and_the_joker_box() -> None:
    state = rolled(3, 3, 3, 3, 3).model_copy(update={"cards": {"a": {"kniffel": 50}}})
    assert read(hint.describe("kniffel", state, kniffel.Score(box="threes"), "en-US")) == (
        "score Threes (15 points, +100 bonus)"
    )


def test_dice_poker_rows_score_as_the_engine_counts_them_doubled_on_the_first_roll() -> None:
    """A lower row written with the first roll counts double, the poker bonus on top: the engine's own sums, the
    doubling named as the board's options name it."""
    state = dicepoker.new_game(["a", "b"], random.Random(1))
    player = state.current_player
    lower = {row: 0 for row in dicepoker.UPPER}
    state = state.model_copy(
        update={
            "dice": [2, 3, 4, 5, 6],
            "rolls": 1,
            "turns": {**state.turns, player: 6},
            "cards": {**state.cards, player: lower},
        }
    )
    assert read(hint.describe("dicepoker", state, dicepoker.Score(row="large_straight"), "en-US")) == (
        "score Large straight (40 points, ×2 first roll)"
    )
    later = state.model_copy(update={"rolls": 2})
    assert read(hint.describe("dicepoker", later, dicepoker.Score(row="large_straight"), "en-US")) == (
        "score Large straight (20 points)"
    )
    upper = dicepoker.new_game(["a", "b"], random.Random(1)).model_copy(update={"dice": [2, 3, 4, 5, 6], "rolls": 1})
    assert read(hint.describe("dicepoker", upper, dicepoker.Score(row="twos"), "en-US")) == "score Twos (−4 points)"


def bonus_tutto(secured_aside: list[int], roll: list[int]) -> tutto.State:
    """Bonus 200 with ``secured_aside`` set aside under it and ``roll`` on the table, every die selected."""
    return tutto.new_game(["a", "b"], random.Random(1)).model_copy(
        update={
            "phase": "select",
            "card": "bonus_200",
            "current": "a",
            "aside": secured_aside,
            "card_points": 300,
            "roll": roll,
            "selected": list(range(len(roll))),
        }
    )


def test_a_tutto_plan_names_the_buttons_it_takes_and_what_follows_the_tutto() -> None:
    """QA: "take ⚄ and stop → best: take ⚄: Tutto": both make the Tutto and bank its bonus; the better plan
    draws again, which the plan never said. It now reads as the buttons: Tutto!, then Continue."""
    state = bonus_tutto([1, 1, 5, 5], [1, 5])
    on = Plan((1, 5), "roll_on", then="continue")
    assert read(hint.describe("tutto", state, on, "en-US")) == "take ⚀ ⚄: Tutto!, then Continue"
    assert read(hint.describe("tutto", state, on, "de")) == "⚀ ⚄ nehmen: Tutto!, dann Weiter"
    assert read(hint.describe("tutto", state, on, "hu")) == "tedd félre: ⚀ ⚄ — Tutto!, aztán Tovább"
    assert read(hint.describe("tutto", state, on, "pl")) == "weź ⚀ ⚄: Tutto!, potem Dalej"
    banked = Plan((1, 5), "roll_on", then="stop")  # Tutto!, then Stop banks what Stop banks at once
    assert read(hint.describe("tutto", state, banked, "en-US")) == "take ⚀ ⚄ and stop"
    assert read(hint.describe("tutto", state, Plan((1, 5), "roll_on"), "en-US")) == "take ⚀ ⚄: Tutto!"


def test_a_tutto_hint_names_the_buttons_as_the_games_board_reads_them() -> None:
    """The reader's sentence, the board's buttons: an en-US player in a German game is told to press "Weiter",
    the button the board shows, not "Continue"."""
    state = bonus_tutto([1, 1, 5, 5], [1, 5])
    on = Plan((1, 5), "roll_on", then="continue")
    assert read(hint.describe("tutto", state, on, "en-US", "de")) == "take ⚀ ⚄: Tutto!, then Weiter"
    assert read(hint.describe("tutto", state, tutto.Stop(), "en-US", "hu")) == "Megállok"


def test_a_phone_wraps_neither_a_group_of_dice_nor_an_arrow_and_its_value() -> None:
    """QA: a phone broke "take ⚀ ⚅ ⚅ ⚅" after the second die (the last read as the next line's), left "→" at a
    line's end with the value below, and put a review's ✓ alone on a line."""
    state = rolled(5, 5, 5, 2, 3)
    values = [Value(Keep((5, 5, 5)), 241.26), Value(Keep(()), 230.0)]
    text = hint.render("kniffel", state, values, None, "en-US", player="a")
    assert (
        "**keep ⚄\N{NO-BREAK SPACE}⚄\N{NO-BREAK SPACE}⚄ and roll** →\N{NO-BREAK SPACE}241.3\N{NO-BREAK SPACE}expected"
        in text
    )
    tutto_state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(
        update={"phase": "select", "card": "bonus_300", "roll": [1, 5, 2, 2, 3, 4], "selected": []}
    )
    assert hint.describe("tutto", tutto_state, Plan((1, 5), "stop"), "pl") == "weź ⚀\N{NO-BREAK SPACE}⚄, potem Stop"
    best = kniffel.Score(box="ones")
    decision = Decision(3, 1, rolled(1, 2, 2, 4, 4), best, 200.0, best, 200.0, "player")
    nb = "\N{NO-BREAK SPACE}"
    assert review_ui.line("kniffel", decision, "en-US") == (
        f"`Turn{nb}1{nb}·{nb}roll{nb}1/3` ⚀{nb}⚁{nb}⚁{nb}⚃{nb}⚃ · score Ones (1 point){nb}✓"
    )
