"""The private review's embed: its summary, the list of decisions and the costliest decisions below."""

from __future__ import annotations

import random

import pytest

from bot.engine import dicepoker, kniffel
from bot.i18n import t
from bot.play.review import Decision, Review
from bot.ui import review as review_ui


def test_the_costliest_decisions_follow_their_heading_without_an_empty_line() -> None:
    """QA: "The most costly decisions" was a field of its own, whose required value showed as an empty line above
    the decisions; the heading now closes the description and each decision's field follows it."""
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    state = state.model_copy(update={"dice": [1, 2, 2, 4, 4], "rolls": 1, "held": [False] * 5})
    chance, ones = kniffel.Score(box="chance"), kniffel.Score(box="ones")
    review = Review("kniffel", "kniffel", "a", (Decision(3, state, chance, 190.0, ones, 200.0, "player"),))

    embed = review_ui.render(review, 7, 1_800_000_000.0, "en-US").embeds[0]

    assert (embed.description or "").endswith("\n\n**The most costly decisions**")
    assert [field.name.split(" · ")[0] for field in embed.fields] == ["#3"]
    assert all((field.value or "").strip("\u200b \n") for field in embed.fields)


def poker_turn(dice: list[int], rolls: int) -> dicepoker.State:
    """A two-player dice poker game in its lower part (turn 7), ``dice`` on the table after roll ``rolls``."""
    state = dicepoker.new_game(["a", "b"], random.Random(1))
    player = state.current_player
    return state.model_copy(
        update={
            "dice": dice,
            "rolls": rolls,
            "turns": {**state.turns, player: 6},
            "cards": {**state.cards, player: dict.fromkeys(dicepoker.UPPER, 0)},
        }
    )


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_a_dice_poker_score_doubled_on_the_first_roll_says_so_with_the_points_written(locale: str) -> None:
    """QA: "score Pair (24 points)" for ⚅ ⚅ on the first roll, where the board's news said doubled: the review
    marks it, with the points the engine wrote (a later roll's pair of sixes is 12, unmarked)."""
    pair = dicepoker.Score(row="pair")
    first = poker_turn([6, 6, 1, 2, 4], 1)
    later = first.model_copy(update={"rolls": 2})
    decisions = (Decision(1, first, pair, 200.0, pair, 200.0, "player"), Decision(2, later, pair, 0, pair, 0, "player"))
    review = Review("dicepoker", "russian", first.current_player, decisions)

    lines = (review_ui.render(review, 7, 1_800_000_000.0, locale).embeds[0].description or "").splitlines()

    assert dicepoker.row_points(first, "pair") == 24 and dicepoker.row_points(later, "pair") == 12
    row = t("dicepoker.row.pair", locale)
    marked = t("hint.score_doubled", locale, box=row, points=t("hint.box_points", locale, count=24))
    plain = t("hint.score", locale, box=row, points=t("hint.box_points", locale, count=12))
    assert [line for line in lines if marked in line.replace("\N{NO-BREAK SPACE}", " ")]
    assert [line for line in lines if plain in line.replace("\N{NO-BREAK SPACE}", " ")]
    assert "×2" in marked
