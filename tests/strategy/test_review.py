"""Regret of each decision in a post-game review (``bot.play.review``), checked against the strategy's own values."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import strategy
from bot.engine import dicepoker, kniffel, knister
from bot.engine import tutto as tutto_engine
from bot.engine.fivedice import Roll, ToggleHold
from bot.i18n import t
from bot.play import computer
from bot.play.review import Review, complete, review
from bot.play.transitions import played
from bot.strategy import tutto as tutto_strategy
from bot.strategy.tutto import Plan
from bot.ui import review as review_ui
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.scripted import act, scripted_dice, take, tutto_table

ME = "1"


def review_lines(result: Review, locale: str = "en-US") -> list[str]:
    """The lines of ``result``'s review as ``locale`` reads it (game 7, ended at a fixed time), up to the list's
    last: the heading of the costliest decisions' fields, which closes the description, is left out."""
    description = review_ui.render(result, 7, 1_800_000_000.0, locale).embeds[0].description or ""
    description = description.removesuffix(f"\n\n**{t('review.worst', locale)}**")
    return description.replace("\N{NO-BREAK SPACE}", " ").splitlines()  # as read: the no-break spaces as spaces


def read_line(result: Review, locale: str = "en-US") -> str:
    """The line of ``result``'s last decision as ``locale`` reads it, wherever the review shows it (a costly one
    is in its field below the list, not in the list)."""
    return review_ui.line(result.kind, result.decisions[-1], locale).replace("\N{NO-BREAK SPACE}", " ")


def value(values: list[strategy.ActionValue], action: object) -> float:
    return next(entry.value for entry in values if entry.action == action)


def rolled(ruleset: str, *faces: int) -> kniffel.State:
    """A solo Kniffel game of ``ruleset`` after the first roll showed ``faces``."""
    state = kniffel.new_game([ME], scripted_dice(), ruleset=ruleset)  # type: ignore[arg-type]
    return kniffel.apply(state, ME, Roll(), scripted_dice(*faces))


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_writing_five_sixes_as_chance_loses_the_kniffel_value(ruleset: str, table_dir: Path) -> None:
    start = kniffel.new_game([ME], scripted_dice(), ruleset=ruleset)  # type: ignore[arg-type]
    state = rolled(ruleset, 6, 6, 6, 6, 6)
    chance = kniffel.Score(box="chance")
    moves = [played(ME, "player", Roll(), start), played(ME, "player", chance, state)]

    result = review(KNIFFEL, ruleset, ME, moves, table_dir)

    values = strategy.evaluate(state, ME, directory=table_dir)
    best = kniffel.Score(box="kniffel")
    assert [d.chosen for d in result.decisions] == [chance]  # the first roll of a turn is no decision
    decision = result.decisions[0]
    assert decision.best == best
    assert decision.regret == pytest.approx(value(values, best) - value(values, chance))
    assert decision.regret > 20
    assert result.total == pytest.approx(decision.regret) and result.average == pytest.approx(decision.regret)
    assert result.worst == (decision,)


def test_a_reroll_is_valued_as_the_keep_held_when_rolling(table_dir: Path) -> None:
    state = rolled("classic", 1, 2, 3, 4, 6)
    moves = []
    for index in range(4):  # hold 1 2 3 4: toggles only prepare the reroll
        moves.append(played(ME, "player", ToggleHold(index=index), state))
        state = kniffel.apply(state, ME, ToggleHold(index=index), scripted_dice())
    moves.append(played(ME, "player", Roll(), state))

    result = review(KNIFFEL, "classic", ME, moves, table_dir)

    assert len(result.decisions) == 1
    decision = result.decisions[0]
    assert decision.chosen == strategy.Keep((1, 2, 3, 4))
    rolling = value(strategy.evaluate(state, ME, directory=table_dir), Roll())
    assert decision.chosen_value == pytest.approx(rolling)
    values, _ = computer.hint_values(state, ME, table_dir)
    assert decision.best_value == pytest.approx(values[0].value) and decision.regret >= 0


def test_a_german_reroll_line_keeps_the_roll_apart_from_the_dice_kept(table_dir: Path) -> None:
    """German names the dice first ("⚂ ⚂ behalten und würfeln"): right after the roll it read as nine dice."""
    state = rolled("classic", 3, 3, 2, 3, 3)
    for index in (0, 1, 3, 4):
        state = kniffel.apply(state, ME, ToggleHold(index=index), scripted_dice())
    result = review(KNIFFEL, "classic", ME, [played(ME, "player", Roll(), state)], table_dir)

    assert read_line(result, "de").startswith("`Zug 1 · Wurf 1/3` ⚂ ⚂ ⚁ ⚂ ⚂ · ⚂ ⚂ ⚂ ⚂ behalten und würfeln")


def test_each_decision_knows_the_turn_and_the_roll_it_was_made_on(table_dir: Path) -> None:
    """QA: "Decisions: 14" for 13 turns read as a miscount; a reroll is a decision of its own, and each now says
    its turn and the roll its dice came from (the person's own turns: another player's between count not)."""
    state = kniffel.new_game([ME, "2"], random.Random(1), ruleset="classic")
    me = state.current_player
    other = next(player for player in state.players if player != me)
    script = [
        (me, Roll(), (2, 3, 5, 6, 6)),
        (me, Roll(), (1, 1, 4, 6, 6)),
        (me, kniffel.Score(box="chance"), ()),
        (other, Roll(), (1, 2, 3, 4, 5)),
        (other, kniffel.Score(box="chance"), ()),
        (me, Roll(), (4, 4, 4, 4, 2)),
        (me, kniffel.Score(box="fours"), ()),
    ]
    moves = []
    for player, action, faces in script:
        moves.append(played(player, "player", action, state))
        state = kniffel.apply(state, player, action, scripted_dice(*faces))

    result = review(KNIFFEL, "classic", me, moves, table_dir)

    assert [(d.turn, d.state.rolls) for d in result.decisions] == [(1, 1), (1, 2), (2, 1)]
    assert [line.split("`")[1] for line in map(review_ui.line, ["kniffel"] * 3, result.decisions, ["en"] * 3)] == [
        "Turn\N{NO-BREAK SPACE}1\N{NO-BREAK SPACE}·\N{NO-BREAK SPACE}roll\N{NO-BREAK SPACE}1/3",
        "Turn\N{NO-BREAK SPACE}1\N{NO-BREAK SPACE}·\N{NO-BREAK SPACE}roll\N{NO-BREAK SPACE}2/3",
        "Turn\N{NO-BREAK SPACE}2\N{NO-BREAK SPACE}·\N{NO-BREAK SPACE}roll\N{NO-BREAK SPACE}1/3",
    ]


def test_computer_moves_are_left_out_and_timed_out_moves_are_listed_but_not_counted(table_dir: Path) -> None:
    state = rolled("classic", 6, 6, 6, 6, 6)
    chance = kniffel.Score(box="chance")
    moves = [
        played("cpu-easy-1", "computer", chance, state),
        played(ME, "timeout", chance, state),
        played(ME, "player", kniffel.Score(box="kniffel"), state),
    ]

    result = review(KNIFFEL, "classic", ME, moves, table_dir)

    assert [d.source for d in result.decisions] == ["timeout", "player"]
    assert result.decisions[0].regret > 0 and not result.decisions[0].counted
    assert result.total == 0 and result.average == 0 and result.worst == ()


def test_dice_poker_rows_and_passing(table_dir: Path) -> None:
    state = dicepoker.new_game([ME, "2"], scripted_dice())
    state = dicepoker.apply(state, state.current_player, Roll(), scripted_dice(1, 2, 3, 4, 5))
    player = state.current_player
    values = strategy.evaluate(state, player, directory=table_dir)
    worst = min(values, key=lambda entry: entry.value)

    result = review(DICEPOKER, "russian", player, [played(player, "player", worst.action, state)], table_dir)

    decision = result.decisions[0]
    best, _ = computer.hint_values(state, player, table_dir)
    assert decision.regret == pytest.approx(best[0].value - worst.value) and decision.regret > 0


def test_knister_placements(table_dir: Path) -> None:
    state = knister.new_game([ME], scripted_dice())
    state = knister.apply(state, ME, knister.Roll(), scripted_dice(6, 6))
    values = strategy.evaluate(state, ME, directory=table_dir)
    chosen = values[-1].action
    moves = [played(ME, "player", chosen, state)]

    result = review(KNISTER, "standard", ME, moves, table_dir)

    decision = result.decisions[0]
    assert decision.chosen == chosen and decision.best == values[0].action
    assert decision.regret == pytest.approx(values[0].value - values[-1].value)


def test_tutto_a_selection_and_what_follows_it_are_one_plan(table_dir: Path) -> None:
    state = tutto_table(["bonus_300"])
    state = act(state, tutto_engine.Draw())
    state = act(state, tutto_engine.Roll(), 1, 1, 5, 2, 3, 4)
    state = take(state, 5)  # a lone 5 and stop: banks 350 at once
    moves = [played("alice", "player", tutto_engine.Stop(), state)]

    result = review(TUTTO, "standard", "alice", moves, table_dir)

    decision = result.decisions[0]
    plans = {entry.action: entry.value for entry in tutto_strategy.plan_values(state, "alice")}
    best = max(plans, key=lambda plan: plans[plan])
    assert decision.chosen == Plan((5,), "stop")
    assert decision.chosen_value == pytest.approx(plans[Plan((5,), "stop")])
    assert decision.best == best and decision.regret == pytest.approx(plans[best] - plans[Plan((5,), "stop")])
    assert decision.regret > 0  # taking the two 1s is worth more


def test_tutto_take_all_is_no_decision_of_its_own_the_plan_after_it_is(table_dir: Path) -> None:
    state = tutto_table(["bonus_300"])
    state = act(state, tutto_engine.Draw())
    state = act(state, tutto_engine.Roll(), 1, 1, 5, 2, 3, 4)
    taken = act(state, tutto_engine.SelectScoring())
    moves = [
        played("alice", "player", tutto_engine.SelectScoring(), state),
        played("alice", "player", tutto_engine.RollOn(), taken),
    ]

    result = review(TUTTO, "standard", "alice", moves, table_dir)

    assert [decision.chosen for decision in result.decisions] == [Plan((1, 1, 5), "roll_on")]


def test_tutto_rolling_on_under_fireworks_is_no_decision(table_dir: Path) -> None:
    """The card demands every scoring die and forbids stopping: one plan, nothing chosen (the bot rolls it on)."""
    state = act(act(tutto_table(["fireworks"]), tutto_engine.Draw()), tutto_engine.Roll(), 1, 1, 5, 2, 3, 4)
    taken = act(state, tutto_engine.SelectScoring())
    moves = [
        played("alice", "player", tutto_engine.SelectScoring(), state),
        played("alice", "player", tutto_engine.RollOn(), taken),
    ]

    assert review(TUTTO, "standard", "alice", moves, table_dir).decisions == ()


def test_a_timed_out_fireworks_turn_is_listed_though_the_card_left_no_choice(table_dir: Path) -> None:
    """QA: the bot played Alice's Fireworks turn after a timeout and her review showed nothing of it, "Decisions:
    0 · average loss 0.00" over an empty box. What was played for her is listed with ⏱; nothing counts."""
    state = act(act(tutto_table(["fireworks"]), tutto_engine.Draw()), tutto_engine.Roll(), 1, 1, 5, 2, 3, 4)
    taken = act(state, tutto_engine.SelectScoring())
    moves = [
        played("alice", "timeout", tutto_engine.SelectScoring(), state),
        played("alice", "timeout", tutto_engine.RollOn(), taken),
    ]

    result = review(TUTTO, "standard", "alice", moves, table_dir)

    assert [(d.chosen, d.source, d.regret) for d in result.decisions] == [(Plan((1, 1, 5), "roll_on"), "timeout", 0)]
    assert result.counted == () and result.worst == ()
    assert review_lines(result)[1:] == [
        "No decisions of your own to judge in this game.",
        "⏱ played for you after a timeout, not counted: 1",
        "",
        "⏱ `Turn 1` Fireworks: ⚀ ⚀ ⚄ ⚁ ⚂ ⚃ · take ⚀ ⚀ ⚄ and roll on ✓",
    ]


def test_timed_out_tutto_turns_that_held_no_decision_are_listed_and_counted_as_timeouts(table_dir: Path) -> None:
    """QA: a Stop card or a null on the first roll, played by the bot after Alice's timeout, left her review at
    "No decisions of your own to judge", as if she had played them. Each such turn is listed with ⏱ and counted."""
    start = tutto_table(["stop", "stop", "bonus_300"])
    bobs = act(start, tutto_engine.Draw())
    alices = act(bobs, tutto_engine.Draw())
    drawn = act(alices, tutto_engine.Draw())
    moves = [
        played("alice", "timeout", tutto_engine.Draw(), start),
        played("bob", "player", tutto_engine.Draw(), bobs),
        played("alice", "timeout", tutto_engine.Draw(), alices),
        played("alice", "timeout", tutto_engine.Roll(), drawn),
    ]

    result = review(TUTTO, "standard", "alice", moves, table_dir)

    assert [(d.chosen, d.source, d.regret) for d in result.decisions] == [
        (tutto_engine.Draw(), "timeout", 0),
        (tutto_engine.Roll(), "timeout", 0),
    ]
    assert result.counted == () and result.worst == ()
    assert review_lines(result)[1:] == [
        "No decisions of your own to judge in this game.",
        "⏱ played for you after a timeout, not counted: 2",
        "",
        "⏱ `Turn 1` 🛑 Stop drawn — turn over",
        "⏱ `Turn 2` Bonus 300 · 💥 Null — turn over",
    ]


@pytest.mark.parametrize("locale", ["de", "hu", "pl"])
def test_a_timed_out_turn_without_a_decision_reads_in_every_language(locale: str, table_dir: Path) -> None:
    drawn = act(tutto_table(["bonus_300"]), tutto_engine.Draw())

    result = review(TUTTO, "standard", "alice", [played("alice", "timeout", tutto_engine.Roll(), drawn)], table_dir)

    lines = review_lines(result, locale)
    mark = t("review.timeout_mark", locale)
    assert t("review.timeouts", locale, count=1, mark=mark) in lines
    card = t("tutto.card.bonus", locale, bonus=300)
    at = t("review.at_turn", locale, turn=1)
    assert lines[-1] == f"{mark} " + t("review.timeout_null", locale, at=at, card=card)


@pytest.mark.parametrize("kind", ["dicepoker", "knister"])
def test_dice_poker_and_knister_list_a_timed_out_move_as_kniffel_does(kind: str, table_dir: Path) -> None:
    """What the bot played for the person: listed with ⏱, counted apart, and no figures that read as perfect."""
    if kind == "dicepoker":
        state = dicepoker.new_game([ME, "2"], scripted_dice())
        state = dicepoker.apply(state, state.current_player, Roll(), scripted_dice(1, 2, 3, 4, 5))
        spec, variant, player, at = DICEPOKER, "russian", state.current_player, "Turn 1 · roll 1/3"
    else:
        state = knister.apply(knister.new_game([ME], scripted_dice()), ME, knister.Roll(), scripted_dice(6, 6))
        spec, variant, player, at = KNISTER, "standard", ME, "Round 1"
    chosen = strategy.evaluate(state, player, directory=table_dir)[-1].action

    result = review(spec, variant, player, [played(player, "timeout", chosen, state)], table_dir)

    assert [(d.chosen, d.source) for d in result.decisions] == [(chosen, "timeout")] and result.counted == ()
    lines = review_lines(result)
    assert lines[1] == "No decisions of your own to judge in this game."
    assert "⏱ played for you after a timeout, not counted: 1" in lines and lines[-1].startswith(f"⏱ `{at}` ")


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_a_review_with_nothing_to_judge_says_so_and_shows_no_empty_box(locale: str) -> None:
    """No decisions at all (a Stop card, a bust, Fireworks played by oneself): neither figures that read as perfect
    play nor an empty list below them."""
    empty = Review("tutto", "standard", "alice", ())

    description = review_ui.render(empty, 7, 1_800_000_000.0, locale).embeds[0].description or ""

    assert description.splitlines() == [
        t("review.played", locale, channel="<#7>", when="<t:1800000000:f>"),
        t("review.no_decisions", locale),
    ]


def test_a_long_review_fits_discords_limits_and_keeps_the_costliest(table_dir: Path) -> None:
    state = rolled("classic", 6, 6, 6, 6, 6)
    moves = [played(ME, "player", kniffel.Score(box=box), state) for box in kniffel.BOXES for _ in range(20)]

    result = review(KNIFFEL, "classic", ME, moves, table_dir)
    rendered = review_ui.render(result, 7, 1_800_000_000.0, "en-US")

    embed = rendered.embeds[0]
    assert len(embed.description or "") <= 4096 and len(embed) <= 6000 and len(embed.fields) <= 25
    assert "Not listed" in (embed.description or "")
    costliest = max(d.regret for d in result.decisions)
    assert f"−{costliest:.1f}" in embed.fields[0].name  # the three costliest have a field each, with the dice
    assert "⚅ ⚅ ⚅ ⚅ ⚅" in embed.fields[0].name.replace("\N{NO-BREAK SPACE}", " ")  # one group on a phone


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 100_000), ruleset=st.sampled_from(["classic", "kniffel", "dicepoker"]))
def test_a_game_played_by_the_perfect_level_reviews_at_no_loss(seed: int, ruleset: str, table_dir: Path) -> None:
    """The review's best action is the one the exact tables play: perfect play loses nothing, easy play loses."""
    engine, spec, options = (
        (dicepoker, DICEPOKER, {}) if ruleset == "dicepoker" else (kniffel, KNIFFEL, {"ruleset": ruleset})
    )
    for level in ("perfect", "easy"):
        dice, decisions = random.Random(seed), random.Random(seed + 1)
        state = engine.new_game([ME], dice, **options)
        moves = []
        while not engine.is_over(state):
            action = strategy.choose(state, ME, level, decisions, directory=table_dir)  # type: ignore[arg-type]
            moves.append(played(ME, "player", action, state))
            state = engine.apply(state, ME, action, dice)
        result = review(spec, options.get("ruleset", "russian"), ME, moves, table_dir)
        assert all(d.regret >= 0 and d.chosen_value <= d.best_value + 1e-9 for d in result.decisions)
        if level == "perfect":
            assert result.total == pytest.approx(0, abs=1e-6), [d for d in result.decisions if d.regret]
        else:
            assert result.total > 0


def test_a_history_is_complete_from_the_new_game_even_after_a_player_left_before_the_first_move() -> None:
    """A leave changes the state without a stored move: a review after one was refused as a cut history."""
    players = [ME, "2", "3"]
    state = kniffel.new_game(players, random.Random(1))
    first = state.current_player
    leaver = next(player for player in players if player != first)
    after_leave = kniffel.leave(state, leaver)
    assert after_leave.move == 1
    rolled_once = kniffel.apply(after_leave, first, Roll(), random.Random(2))
    history = [played(first, "player", Roll(), after_leave), played(first, "player", Roll(), rolled_once)]
    assert complete(KNIFFEL, history)
    assert complete(KNIFFEL, [played(first, "player", Roll(), state)])
    assert not complete(KNIFFEL, history[1:]), "a history that starts after a stored move was cut"
    assert not complete(KNIFFEL, [])


def test_tutto_a_stop_that_reaches_the_target_wins_and_loses_nothing(table_dir: Path) -> None:
    """Rolling on is worth a few points more per turn, but stopping at the target ends the game: nothing is better."""
    state = tutto_table(["bonus_600"], {"alice": 600, "bob": 800}, target=1000)  # the playground game: −9.0
    state = act(state, tutto_engine.Draw())
    state = act(state, tutto_engine.Roll(), 4, 4, 4, 2, 4, 4)
    state = take(state, 4, 4, 4)  # 400 set aside: stopping banks exactly the 1,000 of the target
    moves = [played("alice", "player", tutto_engine.Stop(), state)]

    decision = review(TUTTO, "standard", "alice", moves, table_dir).decisions[0]

    assert decision.chosen == decision.best and decision.regret == 0
    assert decision.chosen_value == pytest.approx(400)
    values = tutto_strategy.evaluate(state, "alice")  # the hint's values on Roll on and Stop agree
    assert value(values, tutto_engine.Stop()) == 400 > value(values, tutto_engine.RollOn())


def test_tutto_decisions_name_the_card_they_were_made_under() -> None:
    """Under Street "take ⚀ → best: take ⚀ ⚁ ⚃ ⚅" only reads right with the card beside it."""
    state = tutto_table(["street", "double"])
    street = act(act(state, tutto_engine.Draw()), tutto_engine.Roll(), 1, 2, 4, 6, 6, 1)
    assert review_ui.dice_of("tutto", street, "en-US") == "Street: " + "\N{NO-BREAK SPACE}".join("⚀⚁⚃⚅⚅⚀")
    after_a_tutto = street.model_copy(update={"phase": "tutto", "card": "double"})
    assert review_ui.dice_of("tutto", after_a_tutto, "de") == "×2"  # Stop or Continue: no dice to show


def test_tutto_stopping_with_a_tutto_where_drawing_again_is_better_names_the_buttons_of_the_better_plan(
    table_dir: Path,
) -> None:
    """QA: "take ⚄ and stop → best: take ⚄: Tutto": both make the Tutto and bank its bonus; what was better is
    to draw again after it, and the review now says so as the buttons read (Tutto!, then Continue)."""
    state = act(act(tutto_table(["bonus_200"]), tutto_engine.Draw()), tutto_engine.Roll(), 1, 1, 5, 5, 2, 3)
    state = act(take(state, 1, 1, 5, 5), tutto_engine.RollOn(), 1, 5)
    state = take(state, 1, 5)  # a Tutto: 450 and the bonus's 200 secured, Continue worth more than Stop
    plans = {entry.action: entry.value for entry in tutto_strategy.plan_values(state, "alice")}
    loss = plans[Plan((1, 5), "roll_on")] - plans[Plan((1, 5), "stop")]
    assert loss > 0

    result = review(TUTTO, "standard", "alice", [played("alice", "player", tutto_engine.Stop(), state)], table_dir)

    assert read_line(result) == (
        f"`Turn 1` Bonus 200: ⚀ ⚄ · take ⚀ ⚄ and stop → best: take ⚀ ⚄: Tutto!, then Continue · **−{loss:.1f}**"
    )
    assert read_line(result, "de").endswith(
        f"besser: ⚀ ⚄ nehmen: Tutto!, dann Weiter · **−{loss:.1f}**".replace(".", ",")
    )


def test_a_kniffel_review_names_the_points_each_box_scored(table_dir: Path) -> None:
    """QA: a forced zero read "score Large straight ✓", which looked like a straight scored."""
    state = rolled("classic", 6, 6, 6, 6, 6)
    result = review(KNIFFEL, "classic", ME, [played(ME, "player", kniffel.Score(box="chance"), state)], table_dir)
    assert read_line(result).startswith(
        "`Turn 1 · roll 1/3` ⚅ ⚅ ⚅ ⚅ ⚅ · score Chance (30 points) → best: score Kniffel (50 points) · **−"
    )
