"""The live board's news: whole lines only, the game's own content intact, a mark where lines were left out, and
one ping on the board: its own content's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.play.service import table
from bot.play.spec import AnySpec
from bot.ui import board as board_ui
from bot.ui.render import Rendered
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.i18n.test_limits import game, played

LEFT_OUT = "…"
PING = "<@100000000000000011>, du würfelst!"
#: Long German news lines, each naming a player by a 32-character name, as a big Knister round's timeouts give
#: them: the timeouts, the round they ended, then the removals.
NAMES = [f"Friedrich-Wilhelm von Hohenzoll{index:02d}" for index in range(12)]
NEWS = [
    *(f"⏰ {name} war nicht schnell genug; der Bot hat übernommen." for name in NAMES),
    f"Runde 4/25: {NAMES[-1]} würfelt.",
    *(f"{name} hat 3-mal die Zeit überschritten und fliegt raus." for name in NAMES),
]


def test_news_goes_above_the_boards_own_content() -> None:
    assert board_ui.with_news(Rendered(content=PING), []).content == PING
    assert board_ui.with_news(Rendered(content=PING), ["Alice: 40"]).content == f"Alice: 40\n{PING}"
    assert board_ui.with_news(Rendered(), ["Alice: 40"]).content == "Alice: 40"


def test_news_that_would_overflow_keeps_its_first_whole_lines_and_says_more_was_left_out() -> None:
    assert len("\n".join([*NEWS, PING])) > board_ui.CONTENT_LIMIT
    content = board_ui.with_news(Rendered(content=PING), NEWS).content
    assert content is not None and len(content) <= board_ui.CONTENT_LIMIT
    *shown, mark, own = content.split("\n")
    assert own == PING
    assert mark == LEFT_OUT
    assert shown == NEWS[: len(shown)] and 0 < len(shown) < len(NEWS)
    # The next line would not have fitted: as many lines as fit are kept.
    assert len("\n".join([*NEWS[: len(shown) + 1], mark, own])) > board_ui.CONTENT_LIMIT


def test_news_that_fits_exactly_is_shown_whole() -> None:
    room = board_ui.CONTENT_LIMIT - len(PING) - 1
    news = ["x" * 999, "y" * (room - 1000)]
    assert board_ui.with_news(Rendered(content=PING), news).content == "\n".join([*news, PING])


def test_a_first_line_too_long_for_the_board_leaves_only_the_mark() -> None:
    content = board_ui.with_news(Rendered(content=PING), ["x" * 3000, "short"]).content
    assert content == f"{LEFT_OUT}\n{PING}"


@given(st.lists(st.integers(1, 400), min_size=1, max_size=40), st.integers(0, 1990))
def test_the_board_keeps_whole_news_lines_and_its_own_content_within_discords_limit(
    lengths: list[int], own_length: int
) -> None:
    news = [f"<@{index}> {'ä' * length}"[:length] for index, length in enumerate(lengths)]
    own = "o" * own_length
    content = board_ui.with_news(Rendered(content=own or None), news).content or ""
    assert len(content) <= board_ui.CONTENT_LIMIT
    assert content.endswith(own)
    shown = content[: len(content) - len(own)].rstrip("\n").split("\n") if content != own else []
    kept = [line for line in shown if line != LEFT_OUT]
    assert kept == news[: len(kept)]
    assert (LEFT_OUT in shown) == (len(kept) < len(news))


def test_a_retired_board_is_one_line_of_record_without_controls() -> None:
    retired = board_ui.retired("kniffel", "en-US")
    assert retired.content == "↓ Kniffel continues below." and not retired.layout and not retired.embeds
    assert board_ui.retired("kniffel", "de", ["Alice: 40"]).content == "Alice: 40"


def test_a_retired_board_keeps_whole_news_lines() -> None:
    content = board_ui.retired("knister", "de", NEWS * 2).content
    assert content is not None and len(content) <= board_ui.CONTENT_LIMIT
    *shown, mark = content.split("\n")
    assert mark == LEFT_OUT
    assert shown == (NEWS * 2)[: len(shown)]


@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_the_news_mentions_nobody_so_a_board_names_the_player_to_act_once(spec: AnySpec) -> None:
    """The game's own content pings the player to act; news saying it again showed "your turn" twice."""
    players = [str(10**17 + index) for index in range(spec.max_players)]
    for state, _mover in played(spec.kind):
        current = table(game(spec, state, players, "en"))
        news = spec.ui.announce(current)
        assert not [line for line in news if "<@" in line], news
        content = board_ui.with_news(spec.ui.render(current), news).content or ""
        assert content.count("<@") <= 1, content
