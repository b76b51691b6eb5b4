"""The private review's embed: its summary, the list of decisions and the costliest decisions below."""

from __future__ import annotations

import random

from bot.engine import kniffel
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
