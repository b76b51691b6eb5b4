"""Kniffel and dice poker messages stay within Discord's limits at full tables, mid-game and at the end."""

from __future__ import annotations

import random
from types import ModuleType

import discord
import pytest

from bot.engine import dicepoker, fivedice, kniffel
from bot.engine.core import Event
from bot.i18n import languages, listing, t
from bot.ui.dicepoker import UI as DICEPOKER_UI
from bot.ui.dicepoker import bonus_status, signed
from bot.ui.fivedice import ScorecardUI
from bot.ui.kniffel import UI as KNIFFEL_UI
from bot.ui.kniffel import option_label
from bot.ui.render import SeatView, Table
from bot.ui.standings import ranked
from tests.discord_limits import assert_fits
from tests.ui.test_phone import EMBED_TEXT, wrapped
from tests.ui.test_tables import headers as card_headers

LONG_NAME = "W" * 32


def table_for(state: object, players: list[str], kind: str) -> Table:
    seats = tuple(SeatView(player, f"{LONG_NAME[:-2]}{index:02d}") for index, player in enumerate(players))
    return Table(seats, 987654321, 123456, "en-US", state)


def play(engine: ModuleType, ui: ScorecardUI, kind: str, players: int, **options: str) -> None:
    ids = [str(10**17 + index) for index in range(players)]
    rng = random.Random(7)
    state = engine.new_game(ids, rng, **options)
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
        assert_fits(ui.render(table_for(state, ids, kind)))
    final = ui.render(table_for(state, ids, kind))
    assert_fits(final)
    assert final.layout.view().to_components() == []
    assert len(final.embeds[0].fields) == (
        players if players <= 2 else len(ui.card_tables(table_for(state, ids, kind)))
    )
    for player in ids:
        assert_fits(ui.render_card(table_for(state, ids, kind), player))


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_kniffel_eight_players(ruleset: str) -> None:
    play(kniffel, KNIFFEL_UI, "kniffel", 8, ruleset=ruleset)


def test_dicepoker_six_players() -> None:
    play(dicepoker, DICEPOKER_UI, "dicepoker", 6)


def test_signed_numbers() -> None:
    from fractions import Fraction

    assert signed(12) == "+12"
    assert signed(-2) == "−2"
    assert signed(0) == "0"
    assert signed(Fraction(50, 3)) == "+16.67"
    assert signed(Fraction(-1, 2)) == "−0.5"


def test_bonus_status() -> None:
    assert bonus_status({}) == "possible"
    assert bonus_status(dict.fromkeys(dicepoker.UPPER, 0)) == "made"
    assert bonus_status({"ones": -3, "twos": -6, "threes": -9, "fours": -12, "fives": -15}) == "lost"
    assert bonus_status({"ones": -3, "twos": -6, "threes": -9, "fours": -12, "fives": -15, "sixes": -18}) == "lost"


def test_select_offers_only_allowed_boxes_with_points() -> None:
    rng = random.Random(3)
    state = kniffel.new_game(["1"], rng)
    state = kniffel.apply(state, "1", kniffel.Roll(), rng)
    rendered = KNIFFEL_UI.render(table_for(state, ["1"], "kniffel"))
    select = next(item for item in rendered.layout.view().children if isinstance(item, discord.ui.Select))
    expected = kniffel.score_options(state.dice, {}, "kniffel")
    assert [option.value for option in select.options] == list(expected)
    assert all(option.label.endswith(f"— {expected[option.value]}") for option in select.options)


def engine_choices(state: kniffel.State, locale: str) -> list[tuple[str, str, str | None]]:
    card = state.cards[state.current_player]
    options = kniffel.score_options(state.dice, card, state.ruleset)
    bonus = kniffel.extra_bonus(state.dice, card, state.ruleset)
    return [(option_label(box, points, bonus, locale), box, None) for box, points in options.items()]


@pytest.mark.parametrize("ruleset", ["kniffel", "classic"])
def test_remembered_score_options_are_the_engines_for_any_order_of_the_dice(ruleset: str) -> None:
    ids = ["1", "2"]
    rng = random.Random(5)
    state = kniffel.new_game(ids, rng, ruleset)
    # Fives of a kind on cards with the kniffel box filled: the joker's forced choices.
    jokers = [[face] * 5 for face in range(1, 7)]
    while not kniffel.is_over(state):
        player = kniffel.to_act(state)[0]
        if state.rolls == 0:
            state = kniffel.apply(state, player, kniffel.Roll(), rng)
        for dice in (state.dice, state.dice[::-1], jokers[rng.randrange(6)]):
            shown = state.model_copy(update={"dice": list(dice)})
            for locale in ("en-US", "de"):
                table = table_for(shown, ids, "kniffel").in_locale(locale)
                assert KNIFFEL_UI.choices(table) == engine_choices(shown, locale)
        state = kniffel.apply(state, player, kniffel.timeout_action(state, player), rng)


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_roll_button_counts_the_roll_it_makes_and_no_further(engine: ModuleType, ui: ScorecardUI, locale: str) -> None:
    """ "Roll (2/3)" names the roll a press makes; after the last one the disabled button is plain "Roll", not 4/3."""
    rng = random.Random(5)
    state = engine.new_game(["1"], rng)
    labels = []
    for _ in range(engine.ROLLS):
        state = engine.apply(state, "1", engine.Roll(), rng)
        table = Table((SeatView("1", "Alice"),), 1, 1, locale, state)
        button = next(
            item
            for item in ui.render(table).layout.view().children
            if isinstance(item, discord.ui.Button) and ":roll:" in (item.custom_id or "")
        )
        labels.append((button.label, button.disabled))
    assert labels == [
        (t("dice.reroll", locale, roll=2), False),
        (t("dice.reroll", locale, roll=3), False),
        (t("dice.roll", locale), True),
    ]


def roll_line(ui: ScorecardUI, state: object, locale: str) -> str:
    """The line under the dice of a person's turn (the one that says what to do with them)."""
    description = ui.render(Table((SeatView("1", "Alice"),), 1, 1, locale, state)).embeds[0].description or ""
    return description.splitlines()[3]


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_after_the_last_roll_the_board_says_to_score_not_to_hold(
    engine: ModuleType, ui: ScorecardUI, locale: str
) -> None:
    """QA: after roll 3/3 the board still said "tap dice to hold them" while every die button was disabled."""
    rng = random.Random(5)
    state = engine.new_game(["1"], rng)
    lines = []
    for _ in range(engine.ROLLS):
        state = engine.apply(state, "1", engine.Roll(), rng)
        lines.append(roll_line(ui, state, locale))
    assert lines == [
        t("dice.roll_count", locale, roll=1, rolls=3),
        t("dice.roll_count", locale, roll=2, rolls=3),
        t("dice.roll_last", locale, roll=3, rolls=3),
    ]


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
def test_after_the_last_roll_dice_poker_says_to_pass_when_no_row_fits(locale: str) -> None:
    """Dice poker's last step may be a pass: its select then offers nothing but Pass, and the line says so."""
    state = dicepoker.new_game(["1"], random.Random(1))
    card = {row: 0 for row in dicepoker.ROWS if row != "poker"}
    state = state.model_copy(update={"cards": {"1": card}, "turns": {"1": 14}, "dice": [1, 2, 3, 4, 6], "rolls": 3})
    assert DICEPOKER_UI.choices(Table((SeatView("1", "Alice"),), 1, 1, locale, state))[0][1] == "pass"
    assert roll_line(DICEPOKER_UI, state, locale) == t("dicepoker.roll_last_pass", locale, roll=3, rolls=3)
    assert roll_line(DICEPOKER_UI, state.model_copy(update={"rolls": 2}), locale) == t(
        "dice.roll_count", locale, roll=2, rolls=3
    )


def finished_table(engine: ModuleType, players: list[str], seed: int) -> Table:
    """A game played to its end by the engine's timeout moves, seated as P1, P2, …"""
    rng = random.Random(seed)
    state = engine.new_game(players, rng)
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
    return Table(tuple(SeatView(player, f"P{player}") for player in players), 1, 2, "en-US", state)


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
def test_a_game_played_alone_ends_with_the_score_not_a_winner(engine: ModuleType, ui: ScorecardUI) -> None:
    """A game alone is never a win (docs/RULES.md): its news says the player finished, with the score."""
    alone = finished_table(engine, ["1"], 3)
    assert ui.announce(alone)[-1] == f"🏁 P1 finished with {ui.total(alone, '1')} points."
    two = finished_table(engine, ["1", "2"], 3)
    winners = [result.player for result in engine.results(two.state) if result.won]
    expected = t("dice.winners", "en-US", names=listing((f"P{p}" for p in winners), "en-US"), count=len(winners))
    assert ui.announce(two)[-1] == expected


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
def test_a_game_played_alone_gives_no_medal_on_the_final_board(engine: ModuleType, ui: ScorecardUI) -> None:
    """No gold for a game alone (it is no win): its one line is marked as finished; two players keep their medals."""
    alone = ui.render(finished_table(engine, ["1"], 5)).embeds[0].description or ""
    assert alone.startswith("🏁 P1\N{NO-BREAK SPACE}—\N{NO-BREAK SPACE}") and "🥇" not in alone
    assert "🥇" in (ui.render(finished_table(engine, ["1", "2"], 5)).embeds[0].description or "")


def test_a_computers_turn_names_it_as_playing_and_tells_nobody_to_roll() -> None:
    state = kniffel.new_game(["cpu-normal-1", "1"], random.Random(1), ruleset="kniffel")
    state = state.model_copy(update={"current": state.players.index("cpu-normal-1")})
    seats = (SeatView("cpu-normal-1", "🤖 Normal", kind="computer"), SeatView("1", "Alice"))
    rendered = KNIFFEL_UI.render(Table(game_id=1, stamp=1, state=state, seats=seats, locale="en-US"))
    assert rendered.content == "**🤖 Normal** is playing…"
    assert t("dice.press_roll", "en-US") not in (rendered.embeds[0].description or "")
    state = kniffel.apply(state, "cpu-normal-1", kniffel.Roll(), random.Random(2))
    rendered = KNIFFEL_UI.render(Table(game_id=1, stamp=2, state=state, seats=seats, locale="en-US"))
    description = rendered.embeds[0].description or ""
    assert "Roll 1/3" in description and "tap dice" not in description  # QA: the computer was told how to hold


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
def test_a_computers_roll_is_told_with_the_dice_it_kept_and_a_persons_is_not(
    engine: ModuleType, ui: ScorecardUI
) -> None:
    """QA: while a computer rolled, the news above its board still told the move before its turn."""
    seats = (SeatView("cpu-normal-1", "🤖 Normal", kind="computer"), SeatView("1", "Alice"))
    state = engine.new_game(["cpu-normal-1", "1"], random.Random(1))
    state = state.model_copy(update={"current": state.players.index("cpu-normal-1")})
    state = engine.apply(state, "cpu-normal-1", fivedice.Roll(), random.Random(2))
    first = ui.announce(Table(seats, 1, 1, "en-US", state))
    # Each group of dice one word on a phone (no-break spaces; QA: a group broke across two lines).
    group = "\N{NO-BREAK SPACE}".join("⚀⚁⚂⚃⚄⚅"[die - 1] for die in state.dice)
    assert first == [f"🎲 🤖 Normal rolled {group}."]
    held = engine.apply(state, "cpu-normal-1", fivedice.ToggleHold(index=0), random.Random(3))
    again = engine.apply(held, "cpu-normal-1", fivedice.Roll(), random.Random(4))
    kept = "⚀⚁⚂⚃⚄⚅"[again.dice[0] - 1]
    rolled = "\N{NO-BREAK SPACE}".join("⚀⚁⚂⚃⚄⚅"[die - 1] for die in again.dice[1:])
    assert ui.announce(Table(seats, 1, 2, "en-US", again)) == [f"🎲 🤖 Normal kept {kept} and rolled {rolled}."]
    person = state.model_copy(update={"current": state.players.index("1"), "rolls": 0})
    person = engine.apply(person, "1", fivedice.Roll(), random.Random(5))
    assert ui.announce(Table(seats, 1, 3, "en-US", person)) == []


@pytest.mark.parametrize(("engine", "ui"), [(kniffel, KNIFFEL_UI), (dicepoker, DICEPOKER_UI)])
@pytest.mark.parametrize("players", [2, 4])
def test_final_cards_follow_the_ranking_not_the_seats(engine: ModuleType, ui: ScorecardUI, players: int) -> None:
    """QA: dice poker's final board showed Bob's card first, under "🥇 Carol" and "🥈 Bob". The cards beside each
    other read in the order of the medal lines above them: the winner first, ties in the standings' order."""
    ids = [str(index) for index in range(1, players + 1)]
    upset = False
    for seed in range(8):
        finished = finished_table(engine, ids, seed)
        state = finished.state
        names = [f"P{result.player}" for result in ranked(engine.results(state), state.players)]
        upset |= names[0] != f"P{state.players[0]}"
        embed = ui.render(finished).embeds[0]
        lines = (embed.description or "").splitlines()[:players]  # dice poker's legend of the brackets follows
        assert [line.split(" ", 1)[1].split("\N{NO-BREAK SPACE}")[0] for line in lines] == names
        if players == 2:
            assert [field.name for field in embed.fields] == names
        else:
            assert card_headers([field.value or "" for field in embed.fields]) == names
    assert upset  # a game won from a later seat was seen


@pytest.mark.parametrize("locale", languages())
def test_dice_poker_final_standings_say_what_the_brackets_are_in_one_phone_line(locale: str) -> None:
    """QA: "🥇 🤖 Normal — 216 (+105.33)" left it to the rules that the brackets are the total less the table
    average (the settlement). A line under the standings says so, with that average, and fits one phone line."""
    table = finished_table(dicepoker, ["1", "2", "3"], 5)
    cards = {"1": {"chance": 216}, "2": {"chance": 85}, "3": {"chance": 31}}
    table = Table(table.seats, 1, 2, locale, table.state.model_copy(update={"cards": cards}))

    lines = (DICEPOKER_UI.render(table).embeds[0].description or "").splitlines()

    point = "." if locale == "en" else ","
    assert lines[0].endswith(f"**216**\N{NO-BREAK SPACE}(+105{point}33)")
    assert lines[-1] == t("dicepoker.settlement_legend", locale, average=f"110{point}67")
    assert "110" in lines[-1] and len(wrapped(lines[-1], EMBED_TEXT)) == 1
    assert len(lines) == 4


def test_dice_poker_alone_has_no_settlement_to_explain() -> None:
    """Alone at the table the settlement is always 0: neither "(0)" nor its legend."""
    lines = (DICEPOKER_UI.render(finished_table(dicepoker, ["1"], 5)).embeds[0].description or "").splitlines()
    assert len(lines) == 1 and "(" not in lines[0]


@pytest.mark.parametrize(
    ("engine", "ui", "kind"), [(kniffel, KNIFFEL_UI, "kniffel"), (dicepoker, DICEPOKER_UI, "dicepoker")]
)
def test_an_open_box_is_marked_alike_in_every_game(engine: ModuleType, ui: ScorecardUI, kind: str) -> None:
    """Kniffel marked an open box "–", which read like dice poker's "—" for a row passed (QA): both say "·"."""
    state = engine.new_game(["1"], random.Random(3))
    rows = dict(ui.card_rows(table_for(state, ["1"], kind), "1"))
    first = t(f"{kind}.short.{engine.UPPER[0]}", "en-US")
    assert rows[first] == "·"


def test_the_remembered_totals_follow_a_score_a_name_a_leaver_and_the_language() -> None:
    """The totals' block is remembered by the names, totals, marks and language: a change of any must show on the
    next board, and a hold (none of them changed) shows the same block."""
    rng = random.Random(3)
    state = kniffel.new_game(["101", "102"], rng)  # the roll-off seats 101 second
    state = kniffel.apply(state.model_copy(update={"players": ["101", "102"]}), "101", fivedice.Roll(), rng)
    seats = (SeatView("101", "Anna"), SeatView("102", "Bert"))

    def totals(table_state: kniffel.State, locale: str = "en-US", shown: tuple[SeatView, ...] = seats) -> list[str]:
        return KNIFFEL_UI.totals(Table(shown, 1, 2, locale, table_state)).splitlines()[1:-1]

    assert totals(state) == ["Anna 0", "Bert 0"]
    assert totals(kniffel.apply(state, "101", fivedice.ToggleHold(index=0), rng)) == ["Anna 0", "Bert 0"]
    scored = kniffel.apply(state, "101", kniffel.Score(box="chance"), rng)
    assert totals(scored) == [f"Anna {sum(state.dice):>2}", "Bert  0"]
    assert totals(state, shown=(SeatView("101", "Clara"), seats[1])) == ["Clara 0", "Bert  0"]
    mark = t("play.mark_left", "en-US")
    assert totals(state.model_copy(update={"left": ["101"]})) == ["Bert 0", f"Anna 0 {mark}"]
    rich = state.model_copy(update={"bonuses": {"101": 1200, "102": 0}})
    assert totals(rich) == ["Anna 1,200", "Bert     0"]
    assert totals(rich, "de") == ["Anna 1.200", "Bert     0"]


def test_a_roll_offs_dice_and_sum_are_one_word_per_player() -> None:
    """QA: on a phone "Bob ⚀ / ⚀ ⚂ ⚀ ⚃ (10)" broke one player's dice across two lines."""
    seats = (SeatView("1", "Alice"), SeatView("2", "Bob"))
    state = kniffel.new_game(["1", "2"], random.Random(1))
    event = Event(key="kniffel.rolloff", params={"round": 1, "rolls": {"1": [1, 1, 3, 1, 4], "2": [6, 6, 6, 6, 5]}})
    line = KNIFFEL_UI.event_line(event, Table(seats, 1, 1, "en-US", state))
    nbsp = "\N{NO-BREAK SPACE}"
    assert line == f"🎲 Roll-off 1: Alice {nbsp.join('⚀⚀⚂⚀⚃')}{nbsp}(10), Bob {nbsp.join('⚅⚅⚅⚅⚄')}{nbsp}(29)"
