"""Boards of games that ended early, and leavers in the final standings, in every game and language.

A game abandoned (``/<game> end``, everybody gone, its channel gone) keeps its board without controls: it reads as
over (no turn prompt, no ping, the grey of a closed lobby) and says once that it does not count. A player who left or
was removed ranks after everyone who stayed (docs/RULES.md, section 6): no medal, and a mark saying why.
"""

from __future__ import annotations

import random
from dataclasses import replace

import discord
import pytest

from bot.i18n import languages, t
from bot.play import board
from bot.play.service import GameService
from bot.play.spec import AnySpec
from bot.play.transitions import Game
from bot.ui.common import PHONE_COLUMNS
from bot.ui.render import Rendered, SeatView, Table
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.discord_limits import assert_fits
from tests.ui.test_phone import VARIANTS, code_lines, played, record

SPECS = (KNIFFEL, DICEPOKER, KNISTER, TUTTO)
CASES = [(spec, variant) for spec in SPECS for variant in VARIANTS[spec.kind]]
NEWS = "The game was ended by Alice."


def service_for(spec: AnySpec) -> GameService:
    service = GameService.__new__(GameService)  # only its pure rendering is used
    service.specs = {spec.kind: spec}
    return service


def everything(rendered: Rendered) -> str:
    embeds = [embed.to_dict() for embed in rendered.embeds]
    parts = [rendered.content or ""]
    for embed in embeds:
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts += [f"{field['name']}\n{field['value']}" for field in embed.get("fields", [])]
    return "\n".join(parts)


def assert_reads_as_over(rendered: Rendered, spec: AnySpec, language: str, news: str | None) -> None:
    assert not rendered.layout
    assert rendered.content == news
    (embed,) = rendered.embeds
    assert embed.title == t("play.ended_title", language, game=t(f"game.{spec.kind}", language))
    assert embed.colour == discord.Colour.dark_grey()
    assert everything(rendered).count(t("play.ended_note", language)) == 1
    assert "<@" not in everything(rendered)
    assert_fits(rendered)
    assert all(len(line) <= PHONE_COLUMNS for line in code_lines(rendered))


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_an_abandoned_board_reads_as_over_at_any_point_of_the_game(spec: AnySpec, variant: str, language: str) -> None:
    """From the first position to the last (everybody gone at the end: the engine says the game is over)."""
    ids = [str(10**17 + index) for index in range(spec.max_players)]
    states = played(spec.kind, spec.max_players, variant, spec.max_players)
    abandoned = replace(record(spec, ids, language, "abandoned", variant), options={board.NEWS: [NEWS]})
    for state, _ in (states[0], states[len(states) // 2], states[-1]):
        assert_reads_as_over(service_for(spec).render(spec, Game(abandoned, state)), spec, language, NEWS)


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_board_abandoned_without_news_still_reads_as_over(spec: AnySpec, variant: str) -> None:
    """A game whose channel is gone gets no notice; a board shown again later still says the game is over."""
    ids = [str(10**17 + index) for index in range(2)]
    state, _ = played(spec.kind, 2, variant, 2)[1]
    abandoned = record(spec, ids, "en-US", "abandoned", variant)
    assert_reads_as_over(service_for(spec).render(spec, Game(abandoned, state)), spec, "en-US", None)


def test_an_abandoned_game_s_private_grid_reads_as_over() -> None:
    ids = [str(10**17 + index) for index in range(2)]
    state, player = played("knister", 2, "standard", 2)[3]
    abandoned = record(KNISTER, ids, "de", "abandoned", "standard")
    grid = service_for(KNISTER)._render_private(Game(abandoned, state), "grid", player, "de")
    assert not grid.layout and grid.content is None
    assert grid.embeds[0].title == t("play.ended_title", "de", game="Knister")
    assert everything(grid).count(t("play.ended_note", "de")) == 1


ALICE, BOB, CAROL = "101", "102", "103"


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_game_everybody_left_announces_no_winner(spec: AnySpec, variant: str) -> None:
    """The engine ends a game nobody is left in ("🏆 Winner: !" was its line); the plumbing abandons it."""
    engine = spec.engine
    state = engine.new_game([ALICE, BOB], random.Random(3), **spec.engine_options({}, variant))
    state = engine.leave(engine.leave(state, ALICE), BOB)
    assert engine.is_over(state)
    seats = (SeatView(ALICE, "Alice", status="left"), SeatView(BOB, "Bob", status="left"))
    assert spec.ui.announce(Table(seats, 1, 1, "en-US", state, ended=True)) == []


def finished_without(spec: AnySpec, variant: str, leaver: str, status: str) -> Table:
    """A three-player game that ``leaver`` left at once (``status``: left or removed), played to its end."""
    rng = random.Random(5)
    engine = spec.engine
    players = [ALICE, BOB, CAROL]
    state = engine.leave(engine.new_game(players, rng, **spec.engine_options({"target": 1000}, variant)), leaver)
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
    names = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
    seats = tuple(SeatView(p, names[p], status=status if p == leaver else "active") for p in players)
    return Table(seats, 1, 1, "en-US", state)


@pytest.mark.parametrize("status", ["left", "removed"])
@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_leaver_gets_no_medal_and_a_mark_on_the_final_standings(spec: AnySpec, variant: str, status: str) -> None:
    table = finished_without(spec, variant, BOB, status)
    rendered = spec.ui.render(table)
    # The standings' lines (the lines with " — " in them).
    description = (rendered.embeds[0].description or "").replace("\N{NO-BREAK SPACE}", " ")
    standings = [line for line in description.split("\n") if " — " in line]
    (line,) = [line for line in standings if "Bob" in line]
    assert line.startswith("3. " + t(f"play.standing_{status}", "en-US", name="Bob") + " — ")
    stayed = [line for line in standings if "Alice" in line or "Carol" in line]
    assert len(stayed) == 2 and all(line[0] in "🥇🥈" for line in stayed)
    assert "🥉" not in everything(rendered)
    assert_fits(rendered)


SCORED = [(spec, variant) for spec, variant in CASES if spec is not KNISTER]  # Knister's boards show no scores


def left_at_once(spec: AnySpec, variant: str, statuses: dict[str, str], ended: bool, language: str = "en-US") -> Table:
    """A game of Alice, Bob and Carol whose players in ``statuses`` left (or were removed) before a move."""
    engine = spec.engine
    state = engine.new_game([ALICE, BOB, CAROL], random.Random(5), **spec.engine_options({}, variant))
    for player in statuses:
        state = engine.leave(state, player)
    names = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol"}
    seats = tuple(SeatView(p, names[p], status=statuses.get(p, "active")) for p in (ALICE, BOB, CAROL))
    return Table(seats, 1, 1, language, state, ended=ended)


@pytest.mark.parametrize("ended", [False, True], ids=["running", "ended"])
@pytest.mark.parametrize("status", ["left", "removed"])
@pytest.mark.parametrize(("spec", "variant"), SCORED, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_leaver_stays_on_the_board_s_scores_marked_after_those_still_playing(
    spec: AnySpec, variant: str, status: str, ended: bool
) -> None:
    """A card stays when its player leaves (README): the running and the ended board keep their score."""
    table = left_at_once(spec, variant, {ALICE: status}, ended)
    lines = list(code_lines(spec.ui.render(table)))  # the board's one code block: its scores
    names = [next(name for name in ("Alice", "Bob", "Carol") if name in line) for line in lines]
    assert names == ["Bob", "Carol", "Alice"]
    assert lines[-1].endswith(t(f"play.mark_{status}", "en-US"))
    assert not any(t(f"play.mark_{status}", "en-US") in line for line in lines[:-1])


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), SCORED, ids=lambda v: getattr(v, "kind", str(v)))
def test_leavers_marks_fit_a_phone_beside_long_names(spec: AnySpec, variant: str, language: str) -> None:
    """The widest names, a leave and a removal, in every language: the scores still fit a phone's code block."""
    ids = [str(10**17 + index) for index in range(3)]
    seats = tuple(
        SeatView(player, f"{'W' * 30}{index:02d}", status=status)
        for index, (player, status) in enumerate(zip(ids, ["left", "removed", "active"], strict=True))
    )
    lines = []
    states = played(spec.kind, 3, variant, 3)
    for state, _ in states[: len(states) // 2 : 40]:
        state = spec.engine.leave(spec.engine.leave(state, ids[0]), ids[1])
        for ended in (False, True):
            lines += code_lines(spec.ui.render(Table(seats, 1, 1, language, state, ended=ended)))
    assert any(t("play.mark_removed", language) in line for line in lines)
    assert [line for line in lines if len(line) > PHONE_COLUMNS] == []
