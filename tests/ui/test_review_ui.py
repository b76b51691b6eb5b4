"""The private review's embed: its summary, the list of decisions and the costliest decisions below."""

from __future__ import annotations

import random

import pytest

from bot.engine import dicepoker, kniffel, knister, tutto
from bot.i18n import t
from bot.play.review import Decision, Review
from bot.strategy import Keep
from bot.strategy.tutto import Plan
from bot.ui import review as review_ui


def test_the_costliest_decisions_follow_their_heading_without_an_empty_line() -> None:
    """QA: "The most costly decisions" was a field of its own, whose required value showed as an empty line above
    the decisions; the heading now closes the description and each decision's field follows it."""
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    state = state.model_copy(update={"dice": [1, 2, 2, 4, 4], "rolls": 1, "held": [False] * 5})
    chance, ones = kniffel.Score(box="chance"), kniffel.Score(box="ones")
    review = Review("kniffel", "kniffel", "a", (Decision(3, 1, state, chance, 190.0, ones, 200.0, "player"),))

    embed = review_ui.render(review, 7, 1_800_000_000.0, "en-US").embeds[0]

    assert (embed.description or "").endswith("\n\n**The most costly decisions**")
    assert [read(field.name or "").split(" · ⚀")[0] for field in embed.fields] == ["Turn 1 · roll 1/3"]
    assert all((field.value or "").strip("\u200b \n") for field in embed.fields)


def test_a_review_names_a_button_as_the_games_board_read_it() -> None:
    """A Tutto decision is a button pressed on the board: named in the game's language, the line in the reader's."""
    state = tutto.new_game(["a"], random.Random(1)).model_copy(update={"phase": "tutto", "card": "bonus_300"})
    review = Review(
        "tutto", "standard", "a", (Decision(1, 1, state, tutto.Stop(), 300.0, tutto.Continue(), 320.0, "player"),)
    )

    embed = review_ui.render(review, 7, 1_800_000_000.0, "en-US", "pl").embeds[0]

    assert [field.value for field in embed.fields] == ["Chosen: Stop\nBest: Dalej"]


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
    decisions = (
        Decision(1, 7, first, pair, 200.0, pair, 200.0, "player"),
        Decision(2, 7, later, pair, 0, pair, 0, "player"),
    )
    review = Review("dicepoker", "russian", first.current_player, decisions)

    lines = (review_ui.render(review, 7, 1_800_000_000.0, locale).embeds[0].description or "").splitlines()

    assert dicepoker.row_points(first, "pair") == 24 and dicepoker.row_points(later, "pair") == 12
    row = t("dicepoker.row.pair", locale)
    marked = t("hint.score_doubled", locale, box=row, points=t("hint.box_points", locale, count=24))
    plain = t("hint.score", locale, box=row, points=t("hint.box_points", locale, count=12))
    assert [line for line in lines if marked in line.replace("\N{NO-BREAK SPACE}", " ")]
    assert [line for line in lines if plain in line.replace("\N{NO-BREAK SPACE}", " ")]
    assert "×2" in marked


def kniffel_at(turn: int, roll: int, dice: list[int]) -> kniffel.State:
    """A solo Kniffel game in ``turn`` (1..13), ``dice`` on the table after roll ``roll``."""
    state = kniffel.new_game(["a"], random.Random(1), ruleset="kniffel")
    return state.model_copy(update={"dice": dice, "rolls": roll, "turns": {"a": turn - 1}})


def read(text: str) -> str:
    return text.replace("\N{NO-BREAK SPACE}", " ")


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_each_decision_says_its_turn_and_roll_and_the_costliest_are_not_listed_twice(locale: str) -> None:
    """QA: "Decisions: 14" for 13 turns, lines "#1 …", "#7 …" that did not say whether rolls were left, and the
    list repeated the costliest decisions shown below it. Each line now says the turn and the roll its dice came
    from; the costliest are in their fields only, the count still counts every decision."""
    reroll = Decision(1, 1, kniffel_at(1, 1, [5, 5, 2, 3, 3]), Keep(()), 240.0, Keep(()), 240.0, "player")
    chance = kniffel.Score(box="chance")
    scored = Decision(2, 1, kniffel_at(1, 2, [6, 6, 5, 4, 6]), chance, 238.0, chance, 238.0, "player")
    sixes, keep = kniffel.Score(box="sixes"), Keep((6, 6, 6, 6))
    costly = Decision(3, 7, kniffel_at(7, 2, [3, 6, 6, 6, 6]), sixes, 200.0, keep, 219.1, "player")
    review = Review("kniffel", "kniffel", "a", (reroll, scored, costly))

    embed = review_ui.render(review, 7, 1_800_000_000.0, locale).embeds[0]

    def at(turn: int, roll: int) -> str:
        return t("review.at_turn_roll", locale, turn=turn, roll=roll, rolls=3)

    lines = read(embed.description or "").splitlines()
    # The average is rounded as the total (one decimal): "19.1 · 6.37" read as two kinds of figure (QA).
    assert t("review.summary", locale, count=3, total="19{0}1", average="6{0}4").format(
        "." if locale == "en-US" else ","
    ) in [read(line) for line in lines]
    listed = [line for line in lines if line.startswith("`")]
    assert [line.split("`")[1] for line in listed] == [at(1, 1), at(1, 2), at(7, 2)]
    assert listed[-1] == t("review.line_below", locale, at=at(7, 2))  # in its place, pointing down: not repeated
    assert [read(field.name or "").split(" · −")[0] for field in embed.fields] == [f"{at(7, 2)} · ⚂ ⚅ ⚅ ⚅ ⚅"]
    assert at(1, 2) != at(2, 1)


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_the_list_reads_turn_by_turn_with_the_costliest_pointed_to_in_their_place(locale: str) -> None:
    """QA: the list went from turn 7 to 9 to 12, as the costliest decisions (turns 8, 10 and 11) were left out for
    their fields below: a reader thought turns were missing. Each is now a short pointer line in its place, the
    decision itself still shown once, in its field; a list cut to fit keeps the pointers."""
    chance = kniffel.Score(box="chance")

    def turn(number: int, lost: float) -> Decision:
        state = kniffel_at(number, 3, [1, 2, 3, 4, 6])
        return Decision(number, number, state, chance, 200.0 - lost, chance if not lost else Keep(()), 200.0, "player")

    decisions = tuple(turn(number, {8: 20.1, 10: 41.8, 11: 20.6}.get(number, 0.0)) for number in range(7, 13))
    review = Review("kniffel", "kniffel", "a", decisions)

    embed = review_ui.render(review, 7, 1_800_000_000.0, locale).embeds[0]

    lines = [line for line in read(embed.description or "").splitlines() if line.startswith("`")]
    at = [t("review.at_turn_roll", locale, turn=number, roll=3, rolls=3) for number in range(7, 13)]
    assert [line.split("`")[1] for line in lines] == at
    below = {number: t("review.line_below", locale, at=at[number - 7]) for number in (8, 10, 11)}
    assert [line for line in lines if line in below.values()] == list(below.values())
    assert len(embed.fields) == 3
    cut = [read(line) for line in review_ui.fit("kniffel", decisions, locale, limit=200, below=set(below))]
    assert [line for line in cut if line in below.values()] == list(below.values())
    assert cut[-1] == t("review.not_listed_best", locale, count=3)


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
@pytest.mark.parametrize("kind", ["kniffel", "tutto"])
def test_the_values_legend_shows_only_with_a_value(kind: str, locale: str) -> None:
    """QA: with every decision the best one, the review still explained "Values: …" but showed none."""
    legend = t("review.values_tutto" if kind == "tutto" else "review.values_final", locale)
    state: object = kniffel_at(1, 3, [1, 2, 3, 4, 6])
    good, bad = kniffel.Score(box="chance"), Keep(())
    if kind == "tutto":
        state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(
            update={"phase": "select", "card": "bonus_300", "current": "a", "roll": [1, 1, 5, 2, 3, 4]}
        )
        good, bad = Plan((1, 1, 5), "roll_on"), Plan((5,), "stop")
    best = Decision(1, 1, state, good, 200.0, good, 200.0, "player")
    lost = Decision(2, 2, state, bad, 190.0, good, 200.0, "player")

    def description(*decisions: Decision) -> str:
        review = Review(kind, "standard", "a", decisions)
        return review_ui.render(review, 7, 1_800_000_000.0, locale).embeds[0].description or ""

    perfect = description(best)
    assert legend not in perfect and t("review.perfect", locale) in perfect
    assert legend in description(best, lost)


def test_knister_names_the_round_and_tutto_the_turn() -> None:
    """Knister decides once a round, Tutto as often as its turn lasts: the round, and the person's turn."""
    grid = knister.new_game(["a"], random.Random(1)).model_copy(update={"round": 4, "dice": [3, 4]})
    place = knister.Place(cell=0)
    assert read(review_ui.line("knister", Decision(1, 4, grid, place, 5, place, 5, "player"), "en-US")).startswith(
        "`Round 4` ⚂ ⚃ (7) · "
    )
    state = tutto.new_game(["a", "b"], random.Random(1)).model_copy(
        update={"phase": "select", "card": "bonus_300", "current": "a", "roll": [1, 1, 5, 2, 3, 4], "selected": [2]}
    )
    plan = Plan((5,), "stop")
    assert read(review_ui.line("tutto", Decision(1, 3, state, plan, 350, plan, 350, "player"), "hu")).startswith(
        "`3. kör` 300 bónusz: "
    )
