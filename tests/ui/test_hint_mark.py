"""A player who used a hint is marked 💡 on the final board of every game: in the standings, in the game-over news,
with a legend saying what the mark means; a player who did not is never marked (README, "Hint").

The table comes from a stored game as the service builds it (``service.table``), so the option the Hint button
writes (``hinted``) is what marks a seat.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

import pytest

from bot.i18n import languages, t
from bot.play.service import GameService, table
from bot.play.spec import AnySpec
from bot.play.transitions import HINTED, Game
from bot.storage import GameRecord, Seat
from bot.ui.common import PHONE_COLUMNS
from bot.ui.render import Rendered
from bot.ui.standings import HINT_MARK
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.discord_limits import assert_fits
from tests.ui.test_phone import VARIANTS, code_lines

SPECS = (KNIFFEL, DICEPOKER, KNISTER, TUTTO)
CASES = [(spec, variant) for spec in SPECS for variant in VARIANTS[spec.kind]]
ALICE, BOB = "101", "102"
NAMES = {ALICE: "Alice", BOB: "Bob"}


def finished(spec: AnySpec, variant: str, players: list[str], hinted: list[str], language: str = "en-US") -> Game:
    """A game of ``players`` played to its end by timeout moves, stored with ``hinted`` as the Hint button notes."""
    seats = [Seat(player, NAMES[player]) for player in players]
    return played_out(spec, variant, seats, language, {HINTED: hinted})


def played_out(spec: AnySpec, variant: str, seats: list[Seat], language: str, options: dict[str, Any]) -> Game:
    """A game of ``seats`` played to its end by timeout moves and stored finished with ``options``."""
    rng = random.Random(7)
    engine = spec.engine
    players = [seat.player for seat in seats]
    state = engine.new_game(players, rng, **spec.engine_options({"target": 1000}, variant))
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
    now = time.time()
    record = GameRecord(
        id=4242, kind=spec.kind, variant=variant, guild_id=1, channel_id=2, host=players[0], status="finished",
        version=99, created_at=now, updated_at=now, locale=language, options=options, seats=tuple(seats),
    )  # fmt: skip
    return Game(record, state)


def final_board(spec: AnySpec, game: Game) -> Rendered:
    service = GameService.__new__(GameService)  # only its pure render is used
    service.specs = {spec.kind: spec}
    return service.render(spec, game)


def standings(rendered: Rendered) -> list[str]:
    """The final standings' lines (those with " — " in them) under the embed's title, their no-break spaces (which
    keep a score with its name on a phone) read as spaces."""
    description = (rendered.embeds[0].description or "").replace("\N{NO-BREAK SPACE}", " ")
    return [line for line in description.split("\n") if " — " in line]


@pytest.mark.parametrize("hinted", [ALICE, BOB])
@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_the_player_who_used_a_hint_is_marked_in_the_final_standings(spec: AnySpec, variant: str, hinted: str) -> None:
    game = finished(spec, variant, [ALICE, BOB], hinted=[hinted])
    rendered = final_board(spec, game)
    for player, name in NAMES.items():
        (line,) = [line for line in standings(rendered) if name in line]
        assert (f"{name} {HINT_MARK} — " in line) == (player == hinted), line
        assert line.count(HINT_MARK) == (player == hinted), line
    assert rendered.embeds[0].footer.text == t("play.hinted_legend", "en-US")
    # The game-over news names the winners: a winner who used a hint is marked there too.
    (over,) = [line for line in spec.ui.announce(table(game)) if line.startswith("🏆")]
    winners = [result.player for result in spec.engine.results(game.state) if result.won]
    assert over.count(HINT_MARK) == (hinted in winners), over
    assert all(f"{NAMES[player]} {HINT_MARK}" in over for player in winners if player == hinted), over
    assert_fits(rendered)


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_game_played_alone_with_a_hint_is_marked_on_its_board_and_in_its_news(spec: AnySpec, variant: str) -> None:
    game = finished(spec, variant, [ALICE], hinted=[ALICE])
    board = final_board(spec, game)
    if spec.kind == "knister":  # alone, the grid under the marked name is the board (the news has the score)
        assert board.embeds[0].fields[0].name == f"Alice {HINT_MARK}"
    else:
        (line,) = standings(board)
        assert f"Alice {HINT_MARK} — " in line
    (over,) = [line for line in spec.ui.announce(table(game)) if line.startswith("🏁")]
    assert over.startswith(f"🏁 Alice {HINT_MARK} ")


@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_a_game_without_hints_shows_no_mark_and_no_legend(spec: AnySpec, variant: str) -> None:
    for players in ([ALICE, BOB], [ALICE]):
        game = finished(spec, variant, players, hinted=[])
        rendered = final_board(spec, game)
        texts = [*standings(rendered), *spec.ui.announce(table(game))]
        assert not any(HINT_MARK in text for text in texts)
        assert rendered.embeds[0].footer.text is None


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_marks_leave_the_final_code_blocks_as_a_phone_shows_them(spec: AnySpec, variant: str, language: str) -> None:
    """The mark is in the standings' text, never in the cards' and grids' code blocks: those stay as without it."""
    game = finished(spec, variant, [ALICE, BOB], hinted=[ALICE, BOB], language=language)
    marked = final_board(spec, game)
    plain = final_board(spec, replace(game, record=replace(game.record, options={})))
    assert list(code_lines(marked)) == list(code_lines(plain))
    assert all(len(line) <= PHONE_COLUMNS for line in code_lines(marked))
    assert_fits(marked)
