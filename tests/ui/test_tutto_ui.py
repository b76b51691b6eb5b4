"""Rendering tests for Tutto on engine states: Discord's limits, which buttons each card offers, live selection
texts, the final standings and the channel announcements."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

import discord
import pytest

from bot.engine import tutto as tu
from bot.engine.core import Event
from bot.i18n import has, t
from bot.ui.render import Click, Rendered, SeatView, Table, parse_custom_id
from bot.ui.tutto import UI, progress_bar
from cogs.tutto import SPEC, to_action
from tests.discord_limits import assert_fits
from tests.scripted import act, take, tutto_table

GAME_ID = 777
STAMP = 31
LOCALE = "en-US"
ALICE, BOB, CAROL = "101", "102", "103"
NAMES = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}


def game(deck: Sequence[str], scores: dict[str, int] | None = None, *, target: int = tu.DEFAULT_TARGET) -> tu.State:
    """A game whose next cards are ``deck``, with the first player (Alice against Bob by default) to draw."""
    return tutto_table(deck, scores or {ALICE: 0, BOB: 0}, target=target)


def rolled(card: str, *faces: int, scores: dict[str, int] | None = None) -> tu.State:
    """``card`` drawn and six dice rolled showing ``faces``."""
    return act(act(game([card], scores), tu.Draw()), tu.Roll(), *faces)


def table(state: tu.State, names: dict[str, str] | None = None) -> Table:
    seats = tuple(SeatView(p, (names or NAMES).get(p, f"Player {p}")) for p in state.players)
    return Table(seats, GAME_ID, STAMP, LOCALE, state)


def render(state: tu.State, names: dict[str, str] | None = None) -> Rendered:
    return UI.render(table(state, names))


def buttons(rendered: Rendered) -> dict[str, discord.ui.Button]:
    """The buttons by the action of their custom id (dice as ``die3``, set-aside dice as ``aside1``)."""
    found = {}
    for item in rendered.layout.view().children:
        assert isinstance(item, discord.ui.Button)
        click = parse_custom_id(item.custom_id)
        assert click is not None
        found[click.action + click.arg] = item
    return found


def description(rendered: Rendered) -> str:
    return rendered.embeds[0].description or ""


def enabled(rendered: Rendered) -> set[str]:
    """The keys of :func:`buttons` that are enabled, read from the components as sent (no discord.py objects)."""
    keys = set()
    for row in rendered.layout.components():
        for component in row["components"]:
            click = parse_custom_id(component["custom_id"])
            assert click is not None
            if not component["disabled"]:
                keys.add(click.action + click.arg)
    return keys


def assert_within_limits(rendered: Rendered) -> None:
    """Discord's limits (``tests/discord_limits.py``), and every control a labelled button of this game and stamp.

    The components are read as sent, ``Layout.components()`` (byte for byte discord.py's view:
    ``tests/ui/test_payloads.py``); building the view for every state was half of the random games' CPU.
    """
    assert_fits(rendered)
    for row in rendered.layout.components():
        for component in row["components"]:
            assert component["type"] == discord.ComponentType.button.value
            assert component.get("label")
            click = parse_custom_id(component["custom_id"])
            assert click is not None
            assert (click.game_id, click.stamp) == (GAME_ID, STAMP)


@pytest.fixture(autouse=True)
def no_missing_messages(caplog: pytest.LogCaptureFixture):
    """Every text the renderer asks for exists in the catalogue and fits its parameters."""
    with caplog.at_level(logging.WARNING, logger="bot.i18n"):
        yield
    assert not caplog.records, [record.getMessage() for record in caplog.records]


# --------------------------------------------------------------------------------------------------
# The turn message


def test_a_computers_turn_names_it_as_playing_and_tells_nobody_what_to_press() -> None:
    """QA: "🤖 Normal, your turn." and "Press Roll to throw 6 dice." addressed the onlookers as if they were it."""
    state = game(["bonus_300"])
    seats = (SeatView(ALICE, "🤖 Normal", kind="computer"), SeatView(BOB, "Bob"))
    rendered = UI.render(Table(game_id=1, stamp=1, state=state, seats=seats, locale=LOCALE))
    assert rendered.content == "**🤖 Normal** is playing…"
    assert "Press" not in description(rendered)
    rolled_state = act(act(state, tu.Draw()), tu.Roll(), 1, 2, 3, 4, 6, 6)
    rendered = UI.render(Table(game_id=1, stamp=1, state=rolled_state, seats=seats, locale=LOCALE))
    assert t("tutto.reason.empty", LOCALE) not in description(rendered)


def test_draw_phase_offers_only_draw_and_shows_the_scoreboard() -> None:
    state = game(["bonus_300"], {ALICE: 2400, BOB: 600})
    rendered = render(state)
    assert_within_limits(rendered)
    assert list(buttons(rendered)) == ["draw"]
    # one tap draws the card and rolls the six dice (tutto.forced_step): the button and the board say so
    assert buttons(rendered)["draw"].label == "Draw & roll"
    assert "Press **Draw & roll** to start your turn." in description(rendered)
    assert f"<@{ALICE}>" in (rendered.content or "")
    board = rendered.embeds[0].fields[0].value
    assert "▶ Alice" in board
    assert "2,400 ▰▰▰▰▱▱▱▱▱▱" in board
    assert "600 ▰▱▱▱▱▱▱▱▱▱" in board
    assert "6,000" in (rendered.embeds[0].title or "")


def test_drawn_card_is_named_with_its_rule_and_roll_is_offered() -> None:
    state = act(game(["bonus_600"]), tu.Draw())
    rendered = render(state)
    assert list(buttons(rendered)) == ["roll"]
    text = description(rendered)
    assert "Bonus 600" in text
    assert t("tutto.rule.bonus", LOCALE, bonus=600) in text
    assert t("tutto.press_roll", LOCALE, count=6) in text


def test_six_dice_take_two_rows_of_three_and_nothing_can_be_done_before_a_pick() -> None:
    state = rolled("bonus_600", 1, 2, 3, 4, 5, 6)
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    dice = [found[f"die{i}"] for i in range(6)]
    assert [button.row for button in dice] == [0, 0, 0, 1, 1, 1]
    assert [button.label for button in dice] == ["⚀ 1", "⚁ 2", "⚂ 3", "⚃ 4", "⚄ 5", "⚅ 6"]
    assert all(len(button.label or "") <= 4 for button in dice)
    assert found["roll_on"].disabled
    assert found["stop"].disabled
    assert t("tutto.reason.empty", LOCALE) in description(rendered)


def test_the_selection_is_valued_live_and_stop_shows_what_it_banks() -> None:
    # The worked example of docs/RULES.md: Bonus 600, keep the 1 from 1-2-3-4-5-6.
    state = take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1)
    rendered = render(state)
    found = buttons(rendered)
    assert found["die0"].style is discord.ButtonStyle.primary
    assert found["die1"].style is discord.ButtonStyle.secondary
    assert not found["roll_on"].disabled
    assert found["roll_on"].label == t("tutto.roll_on_count", LOCALE, count=5)
    assert not found["stop"].disabled
    assert found["stop"].label == t("tutto.stop_bank", LOCALE, points=100)
    assert "**+100**" in description(rendered)


def test_take_all_follows_the_six_dice_and_selects_every_scoring_die() -> None:
    state = rolled("bonus_600", 4, 1, 4, 5, 4, 3)
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    assert found["select_scoring"].label == "Take all"
    assert found["select_scoring"].row == 1
    second_row = rendered.layout.components()[1]["components"]
    assert [item["custom_id"] for item in second_row][-1] == found["select_scoring"].custom_id
    assert "select_scoring" in enabled(rendered)
    state = act(state, to_action(Click(GAME_ID, "select_scoring", "", STAMP)))
    rendered = render(state)
    assert enabled(rendered) == {*(f"die{i}" for i in range(6)), "roll_on", "stop"}
    assert buttons(rendered)["select_scoring"].row == 1  # greyed, not gone: Roll on stays where it was
    assert t("tutto.selected", LOCALE, dice="⚃ ⚀ ⚃ ⚄ ⚃", points=550) in description(rendered)


def test_take_all_has_a_row_of_its_own_under_fewer_dice() -> None:
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 6, 6), 1), tu.RollOn(), 5, 2, 2, 2, 6)
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    assert [found[f"die{i}"].row for i in range(5)] == [0] * 5
    assert found["select_scoring"].row == 1
    assert not found["select_scoring"].disabled
    assert found["aside0"].row == 2


@pytest.mark.parametrize(
    "state",
    [
        game(["bonus_600"]),
        act(game(["bonus_600"]), tu.Draw()),
        rolled("bonus_600", 1, 2, 3, 4, 6, 6),  # one scoring die: Take all would be the same one tap
        act(rolled("street", 1, 2, 3, 4, 5, 5), tu.SelectScoring()).model_copy(update={"phase": "tutto"}),
    ],
    ids=["draw", "roll", "one scoring die", "after a tutto"],
)
def test_no_take_all_where_it_would_not_save_a_tap(state: tu.State) -> None:
    assert "select_scoring" not in buttons(render(state))


def test_take_all_under_street_takes_one_die_of_each_new_face() -> None:
    state = rolled("street", 1, 2, 2, 4, 6, 6)
    state = act(state, to_action(Click(GAME_ID, "select_scoring", "", STAMP)))
    rendered = render(state)
    assert buttons(rendered)["select_scoring"].disabled
    assert t("tutto.selected_street", LOCALE, dice="⚀ ⚁ ⚃ ⚅") in description(rendered)


def test_set_aside_dice_are_greyed_on_their_own_row() -> None:
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1), tu.RollOn(), 2, 2, 2, 3, 6)
    state = take(state, 2, 2, 2)
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    assert [found[f"die{i}"].row for i in range(5)] == [0] * 5
    assert found["aside0"].row == 2
    assert found["aside0"].disabled
    assert found["aside0"].label == "⚀ 1"
    assert "die5" not in found
    assert found["stop"].label == t("tutto.stop_bank", LOCALE, points=300)
    text = description(rendered)
    assert t("tutto.aside", LOCALE, dice="⚀", points=100) in text
    assert t("tutto.at_risk", LOCALE, points=100) in text


def test_a_selection_completing_the_dice_says_tutto_and_previews_the_bonus() -> None:
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1), tu.RollOn(), 2, 2, 2, 3, 6)
    state = act(take(state, 2, 2, 2), tu.RollOn(), 1, 5)
    state = take(state, 1, 5)
    found = buttons(render(state))
    assert found["roll_on"].label == t("tutto.set_aside_tutto", LOCALE)
    assert found["stop"].label == t("tutto.stop_bank", LOCALE, points=1050)
    assert "Tutto!" in description(render(state))


def test_after_a_tutto_continue_or_stop_banking_the_secured_points() -> None:
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1), tu.RollOn(), 2, 2, 2, 3, 6)
    state = act(take(state, 2, 2, 2), tu.RollOn(), 1, 5)
    state = act(take(state, 1, 5), tu.RollOn())
    assert state.phase == "tutto"
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    assert set(found) == {"stop", "continue"}
    assert found["stop"].label == t("tutto.stop_bank", LOCALE, points=1050)
    assert tu.bank_preview(state) == 1050
    assert t("tutto.at_risk", LOCALE, points=1050) in description(rendered)


@pytest.mark.parametrize(
    ("card", "faces", "pick"),
    [
        ("fireworks", (1, 2, 3, 4, 6, 6), (1,)),
        ("plus_minus", (1, 2, 3, 4, 6, 6), (1,)),
        ("street", (1, 2, 3, 4, 6, 6), (1, 2)),
        ("street", (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6)),  # even the completing pick: Stop comes after the Tutto
        ("cloverleaf", (1, 2, 3, 4, 6, 6), (1,)),
    ],
)
def test_no_stop_under_cards_that_forbid_it(card: str, faces: tuple[int, ...], pick: tuple[int, ...]) -> None:
    state = take(rolled(card, *faces), *pick)
    rendered = render(state)
    assert_within_limits(rendered)
    found = buttons(rendered)
    assert "stop" not in found
    assert not found["roll_on"].disabled


@pytest.mark.parametrize("card", ["double", "bonus_200"])
def test_stop_offered_under_cards_that_allow_it(card: str) -> None:
    state = take(rolled(card, 1, 2, 3, 4, 6, 6), 1)
    assert not buttons(render(state))["stop"].disabled


def stored_selection(state: tu.State, *faces: int) -> tu.State:
    """The roll's dice showing ``faces`` selected, as :func:`take` would, but also dice the engine now refuses to
    select (a Street die of a face collected or picked already), as in a game stored before it refused them."""
    selected: list[int] = []
    for face in faces:
        selected.append(next(i for i, f in enumerate(state.roll) if f == face and i not in selected))
    return tu.State.model_validate({**state.model_dump(), "selected": sorted(selected)})


@pytest.mark.parametrize(
    ("card", "faces", "pick", "before", "reason"),
    [
        ("bonus_300", (1, 2, 3, 4, 6, 6), (2,), (), "not_scoring"),
        ("street", (1, 1, 3, 4, 6, 6), (1, 1), (), "street_one_per_face"),
        ("street", (1, 1, 3, 4, 6, 6), (1,), ((1, 2, 3, 4, 6), (1,)), "street_face_taken"),
        ("double", (2, 2, 2, 1, 3, 4), (2, 2, 2), ((2, 5, 6), (2,)), "triple_across_rolls"),
    ],
)
def test_an_invalid_selection_disables_the_actions_and_says_why(
    card: str,
    faces: tuple[int, ...],
    pick: tuple[int, ...],
    before: tuple[tuple[int, ...], tuple[int, ...]],
    reason: str,
) -> None:
    state = rolled(card, *faces)
    if before:
        state = act(take(state, *pick), tu.RollOn(), *before[0])
        pick = before[1]
    state = stored_selection(state, *pick)
    assert tu.check_selection(state).reason == reason
    rendered = render(state)
    found = buttons(rendered)
    assert found["roll_on"].disabled
    assert "stop" not in found or found["stop"].disabled
    assert t(f"tutto.reason.{reason}", LOCALE) in description(rendered)


def test_under_fireworks_the_board_counts_the_dice_left_to_take_and_warns_only_of_a_wrong_one() -> None:
    """QA: a right pick so far read as a warning ("⚠️ Fireworks: take every scoring die"), and one die of the
    triple the card demands as "only 1s, 5s and triples score"."""
    state = rolled("fireworks", 6, 5, 6, 4, 6, 2)  # the card demands the three 6s and the 5

    def line(rendered: Rendered) -> str:
        return next(text for text in description(rendered).splitlines() if "🎆" in text or "⚠️" in text)

    assert line(render(state)) == t("tutto.fireworks_left", LOCALE, count=4)
    picked = take(state, 6)
    assert line(render(picked)) == t("tutto.fireworks_left", LOCALE, count=3)
    assert "⚠️" not in description(render(picked))
    found = buttons(render(picked))
    assert "roll_on" not in found and found["select_scoring"].label == "Take all & roll"  # the last tap rolls on
    wrong = stored_selection(state, 4)
    assert line(render(wrong)) == t("tutto.invalid", LOCALE, reason=t("tutto.reason.not_scoring", LOCALE))


def test_a_computers_tutto_tells_nobody_to_stop_or_continue() -> None:
    state = take(rolled("bonus_300", 1, 1, 1, 5, 5, 1), 1, 1, 1, 5, 5, 1)
    seats = (SeatView(ALICE, "🤖 Normal", kind="computer"), SeatView(BOB, "Bob"))
    tutto_now = act(state, tu.RollOn())
    assert tutto_now.phase == "tutto"
    rendered = UI.render(Table(game_id=1, stamp=1, state=tutto_now, seats=seats, locale=LOCALE))
    assert "**Stop**" not in description(rendered)


def test_street_disables_the_dice_the_engine_refuses() -> None:
    """A die of a face collected, or a second die of a face picked this roll, cannot be set aside: greyed out."""
    state = act(take(rolled("street", 1, 2, 3, 3, 4, 4), 1), tu.RollOn(), 1, 5, 5, 6, 2)
    assert enabled(render(state)) == {"die1", "die2", "die3", "die4", "select_scoring"}
    state = take(state, 5)
    rendered = render(state)
    assert enabled(rendered) == {"die1", "die3", "die4", "select_scoring", "roll_on"}
    assert buttons(rendered)["die0"].label == "⚀ 1"
    assert t("tutto.rule.street", LOCALE, bonus=2000) in description(rendered)


def test_street_shows_the_faces_collected_so_far() -> None:
    state = act(take(rolled("street", 2, 3, 3, 3, 5, 5), 2, 3, 5), tu.RollOn(), 1, 2, 3)
    text = description(render(state))
    assert t("tutto.street_aside", LOCALE, faces="▫️ ⚁ ⚂ ▫️ ⚄ ▫️") in text


def test_points_at_risk_split_into_secured_and_this_card() -> None:
    state = act(take(rolled("bonus_200", 1, 1, 1, 5, 5, 5), 1, 1, 1, 5, 5, 5), tu.RollOn())
    state = tu.State.model_validate({**state.model_dump(), "deck": ["double"]})
    state = act(act(state, tu.Continue()), tu.Roll(), 1, 2, 3, 4, 6, 6)
    state = act(take(state, 1), tu.RollOn(), 2, 3, 4, 6, 5)
    text = description(render(state))
    assert t("tutto.at_risk_parts", LOCALE, points=1800, secured=1700, card=100) in text


def test_fireworks_points_are_shown_as_kept_not_at_risk() -> None:
    state = act(take(rolled("fireworks", 1, 2, 3, 4, 6, 6), 1), tu.RollOn(), 5, 2, 3, 4, 6)
    text = description(render(state))
    assert t("tutto.kept_fireworks", LOCALE, points=100) in text
    assert t("tutto.at_risk", LOCALE, points=100) not in text


def test_same_state_same_payload() -> None:
    state = take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1, 5)
    first, second = render(state), render(state)
    assert [e.to_dict() for e in first.embeds] == [e.to_dict() for e in second.embeds]
    assert first.layout.view().to_components() == second.layout.view().to_components()


@pytest.mark.parametrize("seed", range(12))
def test_random_games_always_render_within_limits(seed: int) -> None:
    """Play seeded games, half cautious (the timeout's moves), half random legal moves, rendering every state."""
    rng = random.Random(seed)
    players = [str(100 + i) for i in range(1 + seed % 4)]
    state = tu.new_game(players, rng, target=3000)
    names = {p: f"Player with a long name {p}" for p in players}
    for _ in range(2000):
        rendered = render(state, names)
        assert_within_limits(rendered)
        if tu.is_over(state):
            break
        options = tu.legal_actions(state, state.current)
        for action in options:
            to_action_click = _click_for(action)
            assert to_action(to_action_click) == action
        assert enabled(rendered) <= {_key(action) for action in options}
        dice = {_key(action) for action in options if isinstance(action, tu.ToggleSelect)}
        assert {key for key in enabled(rendered) if key.startswith("die")} == dice
        action = rng.choice(options) if rng.random() < 0.5 else tu.timeout_action(state, state.current)
        state = tu.apply(state, state.current, action, rng)
        UI.announce(table(state, names))
    assert tu.is_over(state)


def _key(action: tu.AnyAction) -> str:
    return f"die{action.index}" if isinstance(action, tu.ToggleSelect) else action.kind


def _click_for(action: tu.AnyAction) -> Click:
    if isinstance(action, tu.ToggleSelect):
        return Click(GAME_ID, "die", str(action.index), STAMP)
    return Click(GAME_ID, action.kind, "", STAMP)


# --------------------------------------------------------------------------------------------------
# The end


def test_final_embed_for_ten_players_stays_within_limits() -> None:
    players = [str(200 + i) for i in range(10)]
    scores = {p: 600 * i for i, p in enumerate(players)}
    state = game(["bonus_600"], scores, target=6000)
    state = tu.State.model_validate({**state.model_dump(), "current": players[-1]})
    names = {p: "W" * 32 for p in players}
    state = act(state, tu.Draw())
    state = act(state, tu.Roll(), 1, 1, 1, 5, 5, 5)
    state = act(take(state, 1, 1, 1, 5, 5, 5), tu.RollOn())
    state = act(state, tu.Stop())
    assert tu.is_over(state)
    rendered = render(state, names)
    assert_within_limits(rendered)
    assert not rendered.layout
    text = description(rendered)
    assert text.startswith("🥇")
    assert text.count("\n") >= 9
    assert "▰▰▰▰▰" in text


def final_board(state: tu.State) -> str:
    """The final board as a player sees it: the game-over news above the final embed."""
    return "\n".join([*announce(state), description(render(state))])


def test_the_final_board_says_the_winner_and_who_buys_the_round_once() -> None:
    """The news says them (as Kniffel's does); the embed holds the standings only, not the same lines again."""
    state = game(["bonus_200"], {ALICE: 5500, BOB: 100}, target=6000)
    state = act(take(act(act(state, tu.Draw()), tu.Roll(), 1, 1, 1, 2, 3, 4), 1, 1, 1), tu.Stop())
    board = final_board(state)
    assert board.count(t("tutto.winners", LOCALE, names="Alice", count=1)) == 1
    assert board.count(t("tutto.buys_round", LOCALE, names="Bob")) == 1


def test_the_final_board_names_the_cloverleaf_winner_once() -> None:
    state = rolled("cloverleaf", 1, 1, 1, 5, 5, 5, scores={ALICE: 0, BOB: 3000, CAROL: 200})
    state = act(take(state, 1, 1, 1, 5, 5, 5), tu.RollOn())
    state = act(state, tu.Roll(), 1, 1, 1, 1, 1, 1)
    state = act(take(state, 1, 1, 1, 1, 1, 1), tu.RollOn())
    assert state.winner == ALICE
    assert description(render(state)).startswith("🥇 Alice")
    board = final_board(state)
    assert board.count("Alice wins the game") + board.count("Alice won with the Cloverleaf") == 1
    assert board.count(t("tutto.winners", LOCALE, names="Alice", count=1)) == 1
    # The winner holds the fewest points but won: the fewest of the others' buy (docs/RULES.md).
    assert board.count(t("tutto.buys_round", LOCALE, names="Carol")) == 1


def test_a_solo_game_names_nobody_to_buy_the_round() -> None:
    state = game(["bonus_200"], {ALICE: 900}, target=1000)
    state = act(take(act(act(state, tu.Draw()), tu.Roll(), 1, 2, 3, 4, 6, 6), 1), tu.Stop())
    assert tu.is_over(state)
    assert "next round" not in final_board(state)
    # A game alone is never a win (docs/RULES.md): it finished, with the score.
    assert announce(state)[-1] == t("tutto.solo_over", LOCALE, name="Alice", count=1000)
    assert announce(state)[-1].startswith("🏁 Alice finished with 1,000 points")


@pytest.mark.parametrize(
    ("locale", "line"),
    [
        ("en-US", "🍺 Bob and Carol buy the next round."),
        ("de", "🍺 Bob und Carol geben die nächste Runde aus."),
        ("hu", "🍺 Bob és Carol fizetik a következő kört."),
        ("pl", "🍺 Bob i Carol stawiają następną kolejkę."),
    ],
)
def test_tied_last_places_buy_the_round_together(locale: str, line: str) -> None:
    """The buyers are one sentence's subject, joined by the language's "and", not by a comma alone."""
    state = game(["bonus_200"], {ALICE: 900, BOB: 100, CAROL: 100}, target=1000)
    state = act(take(act(act(state, tu.Draw()), tu.Roll(), 1, 2, 3, 4, 6, 6), 1), tu.Stop())
    seats = tuple(SeatView(player, NAMES[player]) for player in state.players)
    assert UI.announce(Table(seats, GAME_ID, STAMP, locale, state))[-1].endswith(line)


# --------------------------------------------------------------------------------------------------
# Announcements


def announce(state: tu.State) -> list[str]:
    return UI.announce(table(state))


def test_a_roll_on_its_own_is_told_and_toggles_are_not() -> None:
    """A computer's Roll step after its card (QA: the news still told the move before its turn)."""
    state = rolled("bonus_600", 1, 2, 3, 4, 5, 6)
    assert announce(state) == ["🎲 Alice rolled ⚀ ⚁ ⚂ ⚃ ⚄ ⚅."]
    assert announce(take(state, 1)) == []


def test_a_roll_on_tells_the_dice_set_aside_and_the_new_roll() -> None:
    """The news before it described the roll it replaced, which the board no longer shows."""
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1, 5), tu.RollOn(), 2, 2, 2, 6)
    assert announce(state) == ["🎲 Alice set aside ⚀ ⚄ and rolled ⚁ ⚁ ⚁ ⚅."]
    # in the order the board lists them, not the order they were tapped (QA: "set aside ⚄ ⚀ ⚄")
    state = act(take(rolled("bonus_600", 5, 2, 3, 4, 1, 6), 5, 1), tu.RollOn(), 2, 2, 2, 6)
    assert announce(state) == ["🎲 Alice set aside ⚀ ⚄ and rolled ⚁ ⚁ ⚁ ⚅."]


def test_a_roll_on_is_not_told_once_the_click_replaced_its_dice() -> None:
    """A timeout plays the whole turn in one go: only the card drawn and how the turn ended are told."""
    drawn = act(game(["bonus_300"]), tu.Draw())
    first = act(drawn, tu.Roll(), 1, 2, 3, 4, 6, 6)
    on = act(take(first, 1), tu.RollOn(), 5, 2, 3, 4, 6)
    banked = act(take(on, 5), tu.Stop())
    story = [*drawn.events, *first.events, *on.events, *banked.events]
    lines = announce(banked.model_copy(update={"events": story}))
    assert lines == [
        "🃏 Alice drew **Bonus 300** and rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅.",
        t("tutto.banked", LOCALE, name="Alice", points=150, score=150),
    ]
    again = act(take(on, 5), tu.RollOn(), 1, 2, 3, 4)
    both = again.model_copy(update={"events": [*on.events, *again.events]})
    assert announce(both) == ["🎲 Alice set aside ⚄ and rolled ⚀ ⚁ ⚂ ⚃."]  # the second roll is the one shown


def test_a_card_drawn_and_rolled_in_one_click_is_told_in_one_line() -> None:
    drawn = act(game(["bonus_300"]), tu.Draw())
    assert announce(drawn) == ["🃏 Alice drew **Bonus 300**."]  # a computer draws on its own step
    both = drawn.model_copy(update={"events": drawn.events + act(drawn, tu.Roll(), 1, 2, 3, 4, 6, 6).events})
    assert announce(both) == ["🃏 Alice drew **Bonus 300** and rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅."]
    null = drawn.model_copy(update={"events": drawn.events + act(drawn, tu.Roll(), 2, 2, 3, 3, 4, 6).events})
    assert announce(null) == [
        "🃏 Alice drew **Bonus 300** and rolled ⚁ ⚁ ⚂ ⚂ ⚃ ⚅.",
        t("tutto.null_nothing", LOCALE, name="Alice"),
    ]


def test_stop_card_and_null_say_what_was_lost() -> None:
    assert announce(act(game(["stop"]), tu.Draw())) == [t("tutto.stop_card", LOCALE, name="Alice")]
    state = act(take(rolled("bonus_600", 1, 2, 3, 4, 5, 6), 1, 5), tu.RollOn(), 2, 2, 3, 4)
    assert announce(state)[0] == "💥 Alice rolled ⚁ ⚁ ⚂ ⚃: Null — the turn's 150 points are lost."  # the dice: the
    # turn ends at once, so the board never shows the roll that ended it
    nothing = act(act(game(["bonus_300"]), tu.Draw()), tu.Roll(), 2, 2, 3, 3, 4, 6)  # a computer's own Roll step
    assert announce(nothing) == ["💥 Alice rolled ⚁ ⚁ ⚂ ⚂ ⚃ ⚅: Null — the turn ends with nothing."]
    assert "1,050" in t("tutto.null", LOCALE, name="Alice", lost=1050)


def test_tutto_payouts_are_announced_in_plain_words() -> None:
    bonus = act(take(rolled("bonus_600", 1, 1, 1, 5, 5, 5), 1, 1, 1, 5, 5, 5), tu.RollOn())
    assert announce(bonus) == [t("tutto.bonus", LOCALE, name="Alice", bonus=600, points=2100)]
    assert "Tutto! +600 bonus" in announce(bonus)[0]
    double = act(take(rolled("double", 1, 1, 1, 5, 5, 5), 1, 1, 1, 5, 5, 5), tu.RollOn())
    assert "×2: 3,000" in announce(double)[0]
    banked = act(double, tu.Stop())
    assert announce(banked)[0] == t("tutto.banked", LOCALE, name="Alice", points=3000, score=3000)


def test_plus_minus_names_the_leader_who_loses() -> None:
    state = rolled("plus_minus", 1, 1, 1, 5, 5, 5, scores={ALICE: 0, BOB: 3000, CAROL: 200})
    lines = announce(act(take(state, 1, 1, 1, 5, 5, 5), tu.RollOn()))
    assert lines[0] == "➕➖ Plus/Minus: Alice +1,000, Bob −1,000"
    assert lines[1] == t("tutto.banked", LOCALE, name="Alice", points=1000, score=1000)


def test_plus_minus_against_nobody_ahead_names_no_loser() -> None:
    state = rolled("plus_minus", 1, 1, 1, 5, 5, 5, scores={ALICE: 0, BOB: 0})
    lines = announce(act(take(state, 1, 1, 1, 5, 5, 5), tu.RollOn()))
    assert lines[0] == "➕➖ Plus/Minus: Alice +1,000"


def test_street_fireworks_and_cloverleaf_lines() -> None:
    street = act(take(rolled("street", 1, 2, 3, 4, 5, 6), 1, 2, 3, 4, 5, 6), tu.RollOn())
    assert "Street complete: +2,000" in announce(street)[0]
    fireworks = act(take(rolled("fireworks", 1, 2, 3, 4, 6, 6), 1), tu.RollOn(), 2, 3, 4, 6, 6)
    assert announce(fireworks)[:2] == [
        "🎆 Alice rolled ⚁ ⚂ ⚃ ⚅ ⚅: the Fireworks end at a null; the points are kept.",
        t("tutto.banked", LOCALE, name="Alice", points=100, score=100),
    ]
    clover = act(take(rolled("cloverleaf", 1, 1, 1, 5, 5, 5), 1, 1, 1, 5, 5, 5), tu.RollOn())
    assert announce(clover) == [t("tutto.cloverleaf", LOCALE, name="Alice")]
    won = act(take(act(clover, tu.Roll(), 1, 1, 1, 1, 1, 1), 1, 1, 1, 1, 1, 1), tu.RollOn())
    assert announce(won)[0] == "🍀 Cloverleaf: two Tuttos — Alice wins the game!"


def test_game_over_names_the_winner_and_the_round_buyer() -> None:
    state = game(["bonus_200"], {ALICE: 5500, BOB: 100}, target=6000)
    state = act(take(act(act(state, tu.Draw()), tu.Roll(), 1, 1, 1, 2, 3, 4), 1, 1, 1), tu.Stop())
    lines = announce(state)
    assert lines[-1] == "\n".join(
        [t("tutto.winners", LOCALE, names="Alice", count=1), t("tutto.buys_round", LOCALE, names="Bob")]
    )


def test_order_and_reshuffle_lines() -> None:
    events = [
        Event(key="game.order", params={"order": [BOB, ALICE]}),
        Event(key="tutto.reshuffled"),
        Event(key="tutto.rolled", params={"player": ALICE, "dice": [1]}),
    ]
    state = game([]).model_copy(update={"events": events})
    assert announce(state) == [t("tutto.order", LOCALE, players="Bob, Alice"), t("tutto.reshuffled", LOCALE)]


# --------------------------------------------------------------------------------------------------
# The spec: clicks, turn key, catalogue


def test_clicks_map_to_engine_actions() -> None:
    assert to_action(Click(1, "draw", "", 0)) == tu.Draw()
    assert to_action(Click(1, "die", "4", 0)) == tu.ToggleSelect(index=4)
    assert to_action(Click(1, "continue", "", 0)) == tu.Continue()
    assert to_action(Click(1, "select_scoring", "", 0)) == tu.SelectScoring()
    with pytest.raises(KeyError):
        to_action(Click(1, "aside", "0", 0))
    with pytest.raises(ValueError, match="index"):
        to_action(Click(1, "die", "9", 0))


def test_turn_key_changes_when_a_solo_turn_passes_and_only_then() -> None:
    state = game(["bonus_600", "stop"], {ALICE: 0})
    start = SPEC.turn_key(state)
    state = act(state, tu.Draw())
    assert SPEC.turn_key(state) == start
    state = act(take(act(state, tu.Roll(), 1, 2, 3, 4, 6, 6), 1), tu.Stop())
    assert state.current == ALICE
    assert SPEC.turn_key(state) != start


def test_engine_options_carry_the_target() -> None:
    assert SPEC.engine_options({"timeout": 5, "target": 2000}, "standard") == {"target": 2000}
    assert SPEC.engine_options({}, "standard") == {"target": tu.DEFAULT_TARGET}
    assert (SPEC.min_players, SPEC.max_players, tuple(SPEC.counters)) == (1, 10, ("tuttos",))


def test_every_card_and_reason_has_its_text() -> None:
    for card in set(tu.DECK):
        assert has(tu.card_rule(card)[0])
        assert has(f"tutto.card.{tu.card_kind(card)}")
    for reason in ("empty", "not_scoring", "triple_across_rolls", "fireworks_take_all"):
        assert has(f"tutto.reason.{reason}")
    for reason in ("street_face_taken", "street_one_per_face"):
        assert has(f"tutto.reason.{reason}")


@pytest.mark.parametrize(("score", "bar"), [(0, "▱" * 10), (599, "▱" * 10), (600, "▰" + "▱" * 9), (9000, "▰" * 10)])
def test_progress_bar(score: int, bar: str) -> None:
    assert progress_bar(score, 6000) == bar
