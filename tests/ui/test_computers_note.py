"""Games with a computer count in /stats, not on /leaderboard (docs/architecture.md, "Results of a game with a
computer"), and the player is told so where they look for them.

QA: three people and a computer finished Kniffel, and ``/leaderboard game:kniffel metric:best`` said nobody was on
the board yet, with nothing anywhere saying why.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.i18n import languages, t
from bot.play.spec import AnySpec
from bot.rankings import LeaderboardPage
from bot.storage import Seat
from bot.ui.leaderboard import BoardRequest, render_board
from tests.ui.test_hint_mark import CASES, final_board, played_out

PEOPLE = [Seat("101", "Alice"), Seat("102", "Bob")]
COMPUTER = Seat("cpu-normal-1", "🤖 Normal", kind="computer")


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_the_final_board_of_a_game_with_a_computer_says_it_counts_in_stats_only(
    spec: AnySpec, variant: str, language: str
) -> None:
    note = t("play.computers_unranked", language)
    for seats in ([*PEOPLE, COMPUTER], [PEOPLE[0], COMPUTER]):
        footer = final_board(spec, played_out(spec, variant, seats, language, {})).embeds[0].footer.text or ""
        assert note in footer.splitlines(), footer
    without = final_board(spec, played_out(spec, variant, PEOPLE, language, {})).embeds[0].footer.text
    assert without is None


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("metric", ["wins", "best", "average", "games"])
def test_an_empty_leaderboard_says_games_with_computers_count_in_stats_when_there_are_some(
    language: str, metric: str
) -> None:
    """Review: every empty board said so, whether or not anyone had played the game with a computer."""
    request = BoardRequest("kniffel", metric, "all", "server", 0, 101)
    empty = LeaderboardPage("kniffel", metric, "all", 1, 0, 0, (), None, 0)  # type: ignore[arg-type]
    note = t("leaderboard.computers_unranked", language)
    embed, _ = render_board(replace(empty, apart_results=True), request, language)
    assert (embed.description or "").splitlines()[-1] == note
    embed, _ = render_board(empty, request, language)
    assert note not in (embed.description or "").splitlines()


@pytest.mark.parametrize(
    ("language", "command"),
    [
        ("en", "/dicepoker start"),
        ("de", "/würfelpoker start"),
        ("hu", "/kockapóker start"),
        ("pl", "/kościany-poker start"),
    ],
)
@pytest.mark.parametrize("metric", ["wins", "games"])
def test_an_empty_boards_hint_names_the_command_as_the_readers_client_lists_it(
    language: str, command: str, metric: str
) -> None:
    """A German board said `/dicepoker start`, a command a German client does not list (QA)."""
    request = BoardRequest("dicepoker", metric, "all", "server", 0, 101)
    empty = LeaderboardPage("dicepoker", metric, "all", 1, 0, 0, (), None, 0)  # type: ignore[arg-type]
    embed, _ = render_board(empty, request, language)
    assert f"`{command}`" in (embed.description or ""), embed.description
