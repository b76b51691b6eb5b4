"""Names in the boards' code blocks: cut with an ellipsis, told apart when they read alike after the cut.

QA (a phone, German Kniffel and Hungarian Tutto): the running totals showed "Anna Maria Kow", "Maximilian-Ale"
and "🐉🔥 Drache 🔥" (its last 🐉 dropped) with nothing to say they were cut, and two names starting alike could not
be told apart; the final tables already cut with "…" and numbered such names.
"""

from __future__ import annotations

import random
import re

import pytest

from bot.engine import dicepoker, kniffel, knister, tutto
from bot.ui.common import PHONE_COLUMNS, display_width
from bot.ui.render import Rendered, SeatView, Table
from bot.ui.tables import name_cells
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO

IDS = ["101", "102", "103", "104"]
#: The QA names: two that start alike, one of emoji at both ends, one far too long.
QA_NAMES = ["Anna Maria Kowalska", "Anna Maria Kowalczyk", "🐉🔥 Drache 🔥🐉", "Maximilian-Alexander von Hohenzollern"]


def code_lines(rendered: Rendered) -> list[str]:
    lines = []
    for embed in rendered.embeds:
        for text in [embed.description or "", *(field.value or "" for field in embed.fields)]:
            for block in re.findall(r"```\n?(.*?)```", text, flags=re.DOTALL):
                lines += block.splitlines()
    return lines


def running(kind: str, ended: bool = False) -> Rendered:
    rng = random.Random(7)
    state: object
    if kind == "kniffel":
        state, ui = kniffel.new_game(IDS, rng), KNIFFEL.ui
    elif kind == "dicepoker":
        state, ui = dicepoker.new_game(IDS, rng), DICEPOKER.ui
    else:
        state, ui = tutto.new_game(IDS, rng), TUTTO.ui
    seats = tuple(SeatView(player, name) for player, name in zip(IDS, QA_NAMES, strict=True))
    return ui.render(Table(seats, 1, 1, "de", state, ended=ended))


def shown_names(lines: list[str]) -> list[str]:
    """The names of a totals table's lines: what stands before the first figure (Tutto's ▶ marker taken off)."""
    return [re.split(r" +\d", line.lstrip("▶ "), maxsplit=1)[0] for line in lines]


@pytest.mark.parametrize("kind", ["kniffel", "dicepoker", "tutto"])
@pytest.mark.parametrize("ended", [False, True])
def test_running_totals_cut_names_with_an_ellipsis_and_tell_alike_ones_apart(kind: str, ended: bool) -> None:
    lines = code_lines(running(kind, ended))
    names = shown_names(lines)
    assert len(names) == len(QA_NAMES)
    assert len(set(names)) == len(names), names  # the two Annas read as two players
    for name in names:
        whole = name in QA_NAMES
        assert whole or re.search(r"…\d?$", name), name  # a cut name says so
    assert "🐉🔥 Drache…" in names or "🐉🔥 Drache 🔥🐉" in names, names
    assert all(display_width(line) <= PHONE_COLUMNS for line in lines), lines


def cells(names: list[str], columns: int) -> list[str]:
    """:func:`name_cells` of ``names`` in seat order, as a list."""
    return list(name_cells({str(seat): name for seat, name in enumerate(names)}, columns).values())


def test_name_cells_cut_by_columns_and_number_names_alike_after_the_cut() -> None:
    assert cells(["Alice", "🐉🔥 Drache 🔥🐉"], 14) == ["Alice", "🐉🔥 Drache…"]
    assert cells(["Anna Maria Kowalska", "Anna Maria Kowalczyk", "Bob"], 12) == [
        "Anna Maria…1",
        "Anna Maria…2",
        "Bob",
    ]
    assert cells(["🤖 Normal 2", "🤖 Normal"], 8) == ["🤖 Nor…2", "🤖 Norm…"]
    assert all(display_width(cell) <= 12 for cell in cells(["漢字" * 10, "漢字" * 9], 12))


def test_a_number_given_to_names_alike_is_no_other_players_name() -> None:
    """Review: "Bob", "Bob" and "Bob1" were "Bob1", "Bob2" and "Bob1"."""
    assert cells(["Bob", "Bob", "Bob1"], 10) == ["Bob2", "Bob3", "Bob1"]
    assert cells(["Bob1", "Bob", "Bob"], 10) == ["Bob1", "Bob2", "Bob3"]


def test_final_grids_name_players_alike_after_the_cut_apart() -> None:
    """Knister's final grids are headed by their players' names cut to a grid's 17 columns: two names starting
    alike both read "Maximilian-Alexa…"."""
    players = IDS[:3]
    state = knister.new_game(players, random.Random(3))
    state.grids = {player: [[7] * knister.SIZE for _ in range(knister.SIZE)] for player in players}
    state.over, state.round = True, knister.ROUNDS
    names = ["Maximilian-Alexander von Hohenzollern", "Maximilian-Alexander von Habsburg", "Bob"]
    seats = tuple(SeatView(player, name) for player, name in zip(players, names, strict=True))
    embed = KNISTER.ui.render(Table(seats, 1, 1, "de", state)).embeds[0]
    owners = [(field.value or "").strip("`\n").splitlines()[0] for field in embed.fields]
    assert sorted(owners) == ["Bob", "Maximilian-Alex…1", "Maximilian-Alex…2"]


def two_bobs(kind: str) -> tuple[kniffel.State | tutto.State, dict[str, str]]:
    """A game of two Bobs and Carol, in that seat order, and their names by player; the second Bob alone has points."""
    state: kniffel.State | tutto.State
    if kind == "kniffel":
        state = kniffel.new_game(IDS[:3], random.Random(7))
        state.cards[state.players[1]] = {"ones": 3}
    else:
        state = tutto.new_game(IDS[:3], random.Random(7))
        state.scores[state.players[1]] = 300
    return state, dict(zip(state.players, ["Bob", "Bob", "Carol"], strict=True))


def totals_by_name(kind: str, state: object, names: dict[str, str]) -> dict[str, str]:
    """The running totals' names and their points, as shown."""
    seats = tuple(SeatView(player, name) for player, name in names.items())
    ui = KNIFFEL.ui if kind == "kniffel" else TUTTO.ui
    lines = code_lines(ui.render(Table(seats, 1, 1, "en", state)))
    shown = zip(lines, shown_names(lines), strict=True)
    return {name: line.lstrip("▶ ").removeprefix(name).split()[0] for line, name in shown}


@pytest.mark.parametrize("kind", ["kniffel", "tutto"])
def test_names_alike_keep_their_numbers_when_the_first_leaves(kind: str) -> None:
    """Review: the running totals numbered the names in the order they showed them, those who left last, so when
    the first Bob left "Bob1" and "Bob2" changed places: the Bob with points became "Bob1"."""
    state, names = two_bobs(kind)
    before = totals_by_name(kind, state, names)
    state.left.append(state.players[0])
    assert totals_by_name(kind, state, names) == before
    assert before["Bob1"] == "0"


def test_the_final_cards_number_names_alike_as_the_running_totals_did() -> None:
    """Review: the final cards stand by rank, and the second Bob, who won, was headed "Bob1"."""
    state, names = two_bobs("kniffel")
    assert totals_by_name("kniffel", state, names) == {"Bob1": "0", "Bob2": "3", "Carol": "0"}
    assert isinstance(state, kniffel.State)
    state.over = True
    seats = tuple(SeatView(player, name) for player, name in names.items())
    embed = KNIFFEL.ui.render(Table(seats, 1, 1, "en", state)).embeds[0]
    header = (embed.fields[0].value or "").strip("`\n").splitlines()[0]
    assert re.split(" {2,}", header.strip()) == ["Bob2", "Bob1", "Carol"]
