"""Rendering tests for Knister on engine states: Discord's component and embed limits, disabled cells, stamps."""

from __future__ import annotations

import random
import re

import discord
import pytest

from bot.engine import knister as kn
from bot.engine.core import Event
from bot.i18n import t
from bot.ui.knister import UI
from bot.ui.render import Rendered, SeatView, Table, parse_custom_id
from cogs.knister import SPEC
from tests.discord_limits import assert_fits

GAME_ID = 4242
LOCALE = "en-US"
ALICE, BOB = "101", "102"


def table(state: kn.State, names: dict[str, str] | None = None, game_id: int = GAME_ID) -> Table:
    seats = tuple(SeatView(p, (names or {}).get(p, f"Player {p}")) for p in state.players)
    return Table(seats, game_id, 17, LOCALE, state)


def play(state: kn.State, rng: random.Random, rounds: int) -> kn.State:
    """Play ``rounds`` complete rounds, everybody placing in their first empty cell."""
    for _ in range(rounds):
        state = kn.apply(state, state.roller, kn.Roll(), rng)
        for player in kn.to_act(state):
            state = kn.apply(state, player, kn.legal_actions(state, player)[0], rng)
    return state


def assert_within_limits(rendered: Rendered) -> None:
    """Discord's limits (``tests/discord_limits.py``), and every control a button of this game."""
    assert_fits(rendered)
    for item in rendered.layout.view().children:
        assert isinstance(item, discord.ui.Button)
        assert item.custom_id is not None and parse_custom_id(item.custom_id) is not None


def buttons(rendered: Rendered) -> list[discord.ui.Button]:
    return [item for item in rendered.layout.view().children if isinstance(item, discord.ui.Button)]


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)


def test_round_message_before_the_roll_offers_roll_and_grid(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    rendered = UI.render(table(state))
    assert_within_limits(rendered)
    roll, grid = buttons(rendered)
    assert parse_custom_id(roll.custom_id).action == "roll"
    assert not roll.disabled
    assert parse_custom_id(grid.custom_id).action == "grid"
    assert f"<@{state.roller}>" in rendered.content
    assert "round 1/25" in rendered.embeds[0].title


def test_round_message_after_the_roll_ticks_who_placed(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    state = kn.apply(state, ALICE, kn.Place(cell=0), rng)
    rendered = UI.render(table(state, {ALICE: "Alice", BOB: "Bob"}))
    assert_within_limits(rendered)
    roll, place = buttons(rendered)
    assert roll.disabled
    assert place.label == f"Place {state.number}"
    placed = rendered.embeds[0].fields[0].value
    assert "✅ Alice" in placed
    assert "⏳ Bob" in placed
    assert str(state.number) in rendered.embeds[0].description
    assert "1/2" in rendered.content


def test_round_message_fits_twelve_players_with_long_names(rng: random.Random) -> None:
    players = [str(1000 + i) for i in range(12)]
    state = kn.new_game(players, rng)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    for player in players[:5]:
        state = kn.apply(state, player, kn.Place(cell=0), rng)
    rendered = UI.render(table(state, {p: "W" * 40 for p in players}))
    assert_within_limits(rendered)
    lines = rendered.embeds[0].fields[0].value.splitlines()
    assert len(lines) == 12
    assert sum(line.startswith("✅") for line in lines) == 5
    assert all(len(line) < 40 for line in lines)


def test_private_grid_is_five_by_five_and_stamped_with_the_round(rng: random.Random) -> None:
    state = play(kn.new_game([ALICE, BOB], rng), rng, 3)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    rendered = UI.render_grid(table(state), ALICE)
    assert_within_limits(rendered)
    cells = buttons(rendered)
    assert len(cells) == kn.CELLS
    assert [cell.row for cell in cells] == [i // kn.SIZE for i in range(kn.CELLS)]
    for index, cell in enumerate(cells):
        click = parse_custom_id(cell.custom_id)
        assert (click.action, click.arg, click.stamp) == ("place", str(index), state.round)
        assert SPEC.stamp_of(click, table(state).stamp, state) == state.round
        number = state.grids[ALICE][index // kn.SIZE][index % kn.SIZE]
        if number is None:
            assert not cell.disabled
            assert cell.label == "·"
        else:
            assert cell.disabled
            assert cell.label == str(number)
    assert sum(cell.disabled for cell in cells) == 3


def test_round_stamp_ignores_other_placements_but_not_a_new_round(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    before = UI.render_grid(table(state), ALICE)
    after_bob = kn.apply(state, BOB, kn.Place(cell=0), rng)
    click = parse_custom_id(buttons(before)[3].custom_id)
    version = table(after_bob).stamp
    assert click.stamp == SPEC.stamp_of(click, version, after_bob)
    next_round = kn.apply(after_bob, ALICE, kn.Place(cell=0), rng)
    assert click.stamp != SPEC.stamp_of(click, table(next_round).stamp, next_round)
    roll = parse_custom_id(buttons(UI.render(table(state)))[0].custom_id)
    assert SPEC.stamp_of(roll, version, after_bob) == version


def test_private_grid_after_placing_is_locked_and_names_the_missing(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    state = kn.apply(state, ALICE, kn.Place(cell=12), rng)
    rendered = UI.render_grid(table(state, {BOB: "Bob"}), ALICE)
    assert all(cell.disabled for cell in buttons(rendered))
    assert buttons(rendered)[12].label == str(state.number)
    description = rendered.embeds[0].description
    assert f"placed **{state.number}**" in description
    assert "Bob" in description


def test_private_grid_before_the_roll_is_locked(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    other = BOB if state.roller == ALICE else ALICE
    assert all(cell.disabled for cell in buttons(UI.render_grid(table(state), other)))
    assert "Roll" in UI.render_grid(table(state), state.roller).embeds[0].description


def test_private_grid_shows_line_scores_so_far() -> None:
    rng = random.Random(1)
    state = play(kn.new_game([ALICE], rng), rng, 10)
    rendered = UI.render_grid(table(state), ALICE)
    scores = kn.line_scores(state.grids[ALICE], partial=True)
    field = rendered.embeds[0].fields[0]
    assert field.name == "Line scores so far"
    assert f"Total {scores.total}" in " ".join(field.value.split())


def test_cell_buttons_fit_with_the_longest_game_id(rng: random.Random) -> None:
    state = kn.apply(kn.new_game([ALICE], rng), ALICE, kn.Roll(), rng)
    huge = table(state, game_id=2**63 - 1)
    assert_within_limits(UI.render_grid(huge, ALICE))
    assert_within_limits(UI.render(huge))


def worst_case_final() -> tuple[kn.State, dict[str, str]]:
    """12 players with 32-character names and the widest grid block: every line scores two digits (164 in all).

    Numbers always take two characters, so the block's size depends only on the scores' digits.
    """
    players = [str(1000 + i) for i in range(12)]
    state = kn.new_game(players, random.Random(3))
    rows = [[8 + (column + row) % 5 for column in range(kn.SIZE)] for row in range(kn.SIZE)]
    state.grids = {p: [list(row) for row in rows] for p in players}
    state.over = True
    state.round = kn.ROUNDS
    names = {p: "W" * 32 for p in players}
    return state, names


def test_final_embed_fits_for_twelve_players() -> None:
    state, names = worst_case_final()
    rendered = UI.render(table(state, names))
    assert_within_limits(rendered)
    assert not rendered.layout
    embed = rendered.embeds[0]
    assert len(embed.fields) == 12
    assert all(field.inline for field in embed.fields)
    assert embed.fields[0].name == "🥇"
    assert len(embed) < 3500  # room to spare for longer translations
    lines = embed.fields[0].value.strip("`\n").splitlines()
    assert lines[0] == "W" * 15 + "…1"  # the name above the grid, cut to its width and numbered: all read alike
    assert max(len(line) for line in lines) <= 17


def test_final_grids_are_titled_by_medal_and_named_in_their_block() -> None:
    """QA: "🥇 🤖 Közepes — 75" over a grid took two lines on a phone, so that grid began lower than the one
    beside it. The medal (or rank) titles a grid, as on the standings above, and the name heads its block."""
    state, _ = worst_case_final()
    state.grids[state.players[1]][0][0] = 2
    names = {player: f"P{index}" for index, player in enumerate(state.players)}
    names[state.players[0]] = "🤖 Közepes"
    embed = UI.render(table(state, names)).embeds[0]
    assert [field.name for field in embed.fields[:2]] == ["🥇", "🥇"]
    assert embed.fields[0].value.startswith("```\n🤖 Közepes\n 8  9 10 11 12|12\n")
    assert embed.fields[-1].name == "12." and embed.fields[-1].value.startswith("```\nP1\n")


def test_final_grid_shows_line_scores_and_total() -> None:
    rows = [[7, 4, 8, 9, 11], [3, 7, 3, 7, 7], [5, 5, 10, 5, 5], [8, 9, 3, 6, 9], [8, 11, 8, 8, 7]]
    state = kn.new_game([ALICE], random.Random(0))
    state.grids[ALICE] = rows
    state.over = True
    rendered = UI.render(table(state, {ALICE: "Alice"}))
    embed = rendered.embeds[0]
    block = embed.fields[0].value
    assert embed.fields[0].name == "Alice"
    assert " 7  4  8  9 11| 0" in block
    assert " 8 11  8  8  7| 3" in block
    assert " 1  0  3  8  1" in block
    assert "↘3 ↙8 ×2" in block


def test_a_game_played_alone_says_its_score_and_rating_once_in_the_news() -> None:
    """QA: the final board said the score three times (news, standings, the grid's title) and the rating twice."""
    state = kn.new_game([ALICE], random.Random(0))
    state.grids[ALICE] = [[7, 4, 8, 9, 11], [3, 7, 3, 7, 7], [5, 5, 10, 5, 5], [8, 9, 3, 6, 9], [8, 11, 8, 8, 7]]
    state.over = True
    state.events = [Event(key="game.over", params={"winners": []})]
    solo = table(state, {ALICE: "Alice"})
    (news,) = UI.announce(solo)
    assert news == "🏁 Alice finished with 53 points. Rating: good!"
    embed = UI.render(solo).embeds[0]
    shown = "\n".join([embed.title or "", embed.description or "", *(f"{f.name}\n{f.value}" for f in embed.fields)])
    assert "53" not in shown and "Rating" not in shown and "Alice" in shown


def test_ties_share_the_rank() -> None:
    state, names = worst_case_final()
    state.grids[state.players[0]][0][0] = 2  # breaks a straight: 164 - 12 - 12 - 2 x 12
    rendered = UI.render(table(state, names))
    description = rendered.embeds[0].description.splitlines()
    assert sum(line.startswith("🥇") for line in description) == 11
    assert description[-1].startswith("12.")


@pytest.mark.parametrize(("total", "text"), [(49, "No rating"), (50, "good"), (80, "very good"), (100, "amazing")])
def test_solo_rating(total: int, text: str) -> None:
    assert text in UI._rating(total, LOCALE)


def test_announcements_multiplayer(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    names = {ALICE: "Alice", BOB: "Bob"}
    start = UI.announce(table(state, names))
    assert start[0].startswith("Rolling order:")
    assert f"Round 1/25: {names[state.roller]} rolls." in start
    rolled = kn.apply(state, state.roller, kn.Roll(), rng)
    (line,) = UI.announce(table(rolled, names))
    assert line.startswith(f"🎲 {names[state.roller]}'s roll:")
    assert f"= {rolled.number} — everybody place it!" in line
    placed = kn.apply(rolled, ALICE, kn.Place(cell=0), rng)
    assert UI.announce(table(placed, names)) == []
    next_round = kn.apply(placed, BOB, kn.Place(cell=0), rng)
    assert UI.announce(table(next_round, names)) == [f"Round 2/25: {names[next_round.roller]} rolls."]


def test_a_new_rounds_roller_removed_by_the_same_timeout_is_not_announced(rng: random.Random) -> None:
    """One timeout places for everybody (the round ends: its event names the next roller) and then removes the
    players out of time, that roller among them (the engine names another): only the roller who will roll is told."""
    carol = "103"
    names = {ALICE: "Alice", BOB: "Bob", carol: "Carol"}
    state = kn.new_game([ALICE, BOB, carol], rng)
    state = kn.apply(state, state.roller, kn.Roll(), rng)
    for player in kn.to_act(state):
        state = kn.apply(state, player, kn.legal_actions(state, player)[0], rng)
    removed = kn.leave(state, state.roller)
    removed.events = [*state.events, *removed.events]  # what the one timeout's outcome carries
    assert removed.roller != state.roller
    assert UI.announce(table(removed, names)) == [f"Round 2/25: {names[removed.roller]} rolls."]


def test_announcements_solo_only_at_the_end() -> None:
    rng = random.Random(5)
    state = kn.new_game([ALICE], rng)
    assert UI.announce(table(state)) == []
    state = play(state, rng, kn.ROUNDS - 1)
    state = kn.apply(state, ALICE, kn.Roll(), rng)
    assert UI.announce(table(state)) == []
    state = kn.apply(state, ALICE, kn.legal_actions(state, ALICE)[0], rng)
    (line,) = UI.announce(table(state, {ALICE: "Alice"}))
    assert line.startswith(f"🏁 Alice finished with {kn.results(state)[0].score} points.")


def test_game_over_announces_the_winners() -> None:
    rng = random.Random(9)
    state = play(kn.new_game([ALICE, BOB], rng), rng, kn.ROUNDS)
    assert state.over
    lines = UI.announce(table(state, {ALICE: "Alice", BOB: "Bob"}))
    assert lines[-1].startswith("🏆 ")
    rendered = UI.render(table(state))
    assert_within_limits(rendered)
    assert not rendered.layout
    over = UI.render_grid(table(state), BOB)
    assert all(cell.disabled for cell in buttons(over))
    assert over.embeds[0].fields[0].name == "Line scores"


def test_turn_key_changes_on_the_roll_and_each_round(rng: random.Random) -> None:
    state = kn.new_game([ALICE, BOB], rng)
    rolled = kn.apply(state, state.roller, kn.Roll(), rng)
    one = kn.apply(rolled, ALICE, kn.Place(cell=0), rng)
    two = kn.apply(one, BOB, kn.Place(cell=0), rng)
    assert SPEC.turn_key(state) != SPEC.turn_key(rolled)
    assert SPEC.turn_key(rolled) == SPEC.turn_key(one)
    assert SPEC.turn_key(one) != SPEC.turn_key(two)


def test_clicks_map_to_actions() -> None:
    roll = parse_custom_id(f"g:{GAME_ID}:roll::3")
    place = parse_custom_id(f"g:{GAME_ID}:place:24:3")
    assert SPEC.to_action(roll) == kn.Roll()
    assert SPEC.to_action(place) == kn.Place(cell=24)
    with pytest.raises(ValueError, match="less than 25"):
        SPEC.to_action(parse_custom_id(f"g:{GAME_ID}:place:25:3"))
    with pytest.raises(KeyError):
        SPEC.to_action(parse_custom_id(f"g:{GAME_ID}:hold:1:3"))


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_the_round_text_names_the_place_button_as_it_reads(language: str) -> None:
    """The round text quotes the button under it word for word (Hungarian said "Beírás" beside "8 beírása")."""
    label = t("knister.place", language, number=8)
    assert f"**{label}**" in t("knister.place_prompt", language, number=8)


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_the_grid_before_the_roll_names_buttons_the_round_message_shows(language: str) -> None:
    """QA: the grid waiting for the roll said "press **Place** on the round message", whose button then read
    "My grid": every button a grid names is one the round message has at that moment, word for word."""
    state = kn.new_game([ALICE, BOB], random.Random(7))
    localized = Table(table(state).seats, GAME_ID, 17, language, state)
    labels = {button.label for button in buttons(UI.render(localized))}
    for player in (ALICE, BOB):
        status = UI.render_grid(localized, player).embeds[0].description or ""
        named = set(re.findall(r"\*\*(.+?)\*\*", status))
        assert named and named <= labels, (status, labels)


def test_who_has_placed_is_listed_in_the_order_of_play() -> None:
    """QA: "Beírták (0/3)" listed Alice, Közepes, Bob (join order) right under "Dobási sorrend: Bob, Alice,
    🤖 Közepes". The list follows the rolling order from this round's roller, and so do the grid's waiting names."""
    carol = "103"
    state = kn.new_game([ALICE, carol, BOB], random.Random(0))
    state = state.model_copy(update={"roller": BOB})
    names = {ALICE: "Alice", BOB: "Bob", carol: "Carol"}
    before = UI.render(table(state, names)).embeds[0].fields[0].value
    assert [line.split()[1] for line in before.splitlines()] == ["Bob", "Alice", "Carol"]
    rolled = kn.apply(state, BOB, kn.Roll(), random.Random(1))
    rolled = kn.apply(rolled, carol, kn.legal_actions(rolled, carol)[0], random.Random(1))
    after = UI.render(table(rolled, names)).embeds[0].fields[0].value
    assert [line.split()[1] for line in after.splitlines()] == ["Bob", "Alice", "Carol"]
    assert UI.render_grid(table(rolled, names), carol).embeds[0].description == t(
        "knister.grid_placed", LOCALE, number=rolled.number, names="Bob and Alice"
    )
