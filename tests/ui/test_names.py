"""Display names are shown as typed: escaped where Discord reads markdown, as they are in code blocks and labels.

A name like ``**Bo**`` or ``~~Al~~`` put into a board's text unescaped would bold or strike the text around it,
and one like ``<@id>`` would show as another person's mention and ping them. Every game is played to its end with
such a name at the table, and every board, announcement and private view is searched for the name as typed
outside code blocks.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

import pytest

from bot.engine import knister
from bot.i18n import languages
from bot.play.service import notice_line, table
from bot.play.spec import AnySpec
from bot.play.transitions import Game, Notice
from bot.rankings import Standing
from bot.storage import Seat
from bot.ui.common import isolated
from bot.ui.knister import grid_block, owners
from bot.ui.leaderboard import player_label, render_stats
from bot.ui.render import Rendered, SeatView, Table, in_markdown
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.i18n.test_limits import VARIANTS, record

#: Bold, italics, underline, strike-through, a spoiler and inline code: each would change the board around it.
MARKDOWN_NAME = "**Bo** _x_ __u__ ~~s~~ ||p|| `c`"
ESCAPED_NAME = r"\*\*Bo\*\* \_x\_ \_\_u\_\_ \~\~s\~\~ \|\|p\|\| \`c\`"
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
#: Someone else's id (the table's players are 101 and 102) in every form Discord draws as a mention or a link.
OTHER = "987654321098765432"
MENTION_NAME = f"<@{OTHER}> <@!{OTHER}> <@&{OTHER}> <#{OTHER}> </tutto start:{OTHER}> @everyone @here"
#: What Discord would draw from the name: a user, role or channel mention, a command link, @everyone or @here.
DRAWN = re.compile(rf"<(?:@[!&]?|#|/[^<>]*:){OTHER}>|@everyone|@here")
ZERO_WIDTH_SPACE = "\u200b"
#: A name that starts with RIGHT-TO-LEFT OVERRIDE: shown bare, it turns the rest of its line around.
OVERRIDE_NAME = "\u202eBob"
FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"
ISOLATED_NAME = FIRST_STRONG_ISOLATE + OVERRIDE_NAME + POP_DIRECTIONAL_ISOLATE


def prose(rendered: Rendered, code: bool = False) -> list[str]:
    """Every text of a message Discord reads as markdown, its code blocks taken out unless ``code``."""
    texts = [rendered.content or ""]
    for embed in rendered.embeds:
        texts += [embed.title or "", embed.description or ""]
        texts += [text for field in embed.fields for text in (field.name, field.value)]
    return texts if code else [CODE_BLOCK.sub("", text) for text in texts]


def shown(spec: AnySpec, language: str, name: str = MARKDOWN_NAME, code: bool = False) -> list[str]:
    """The prose (with its code blocks if ``code``) of every board, announcement and private view of a game whose
    first player is called ``name``."""
    players = ["101", "102"]
    rng = random.Random(3)
    engine = spec.engine
    state = engine.new_game(players, rng, **spec.engine_options({"target": 1000}, VARIANTS[spec.kind]))
    base = record(spec, players, language, "running")
    running = Game(replace(base, seats=(Seat("101", name), *base.seats[1:])), state)
    texts: list[str] = []

    def look(current: Table[Any]) -> None:
        texts.extend(prose(spec.ui.render(current), code))
        texts.extend(spec.ui.announce(current))
        for view in spec.private_views.values():
            for player in players:
                texts.extend(prose(view.render(current, player), code))

    look(table(running))
    while not engine.is_over(state):
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
        look(table(Game(running.record, state)))
    return texts


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_a_name_with_markdown_is_escaped_wherever_discord_reads_markdown(spec: AnySpec, language: str) -> None:
    texts = shown(spec, language)
    assert not [text for text in texts if MARKDOWN_NAME in text]
    assert any(ESCAPED_NAME in text for text in texts)


def test_a_name_is_cut_before_it_is_escaped_so_no_escape_is_split() -> None:
    seats = Table((SeatView("1", "_" * 40),), 1, 1, "en", None)
    assert seats.name("1", 32) == "\\_" * 31 + "…"
    assert seats.plain_name("1") == "_" * 40


def test_statistics_escape_the_name_they_are_about() -> None:
    for game in (None, "kniffel"):
        embed = render_stats(MARKDOWN_NAME, [], game, "de", own=False)
        for text in (embed.title or "", embed.description or ""):
            assert ESCAPED_NAME in text and MARKDOWN_NAME not in text


def test_a_computer_players_bold_name_and_the_plumbings_notices_are_escaped() -> None:
    assert SeatView("cpu-normal-1", "*Bot*", kind="computer").mention == r"**\*Bot\***"
    line = notice_line(Notice("play.timed_out", {"name": MARKDOWN_NAME}), "en", "Kniffel")
    assert ESCAPED_NAME in line and MARKDOWN_NAME not in line


@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_a_name_like_a_mention_reads_as_typed_and_is_never_drawn_as_one(spec: AnySpec) -> None:
    texts = shown(spec, "en", MENTION_NAME)
    assert not [text for text in texts if DRAWN.search(text)]
    assert any(MENTION_NAME in text.replace(ZERO_WIDTH_SPACE, "") for text in texts)


def test_a_name_is_changed_only_where_discord_would_draw_something_else() -> None:
    assert in_markdown("a <b> @ c@everyone.org <@ x") == "a <b> @ c@\u200beveryone.org <\u200b@ x"
    assert in_markdown(MENTION_NAME).replace(ZERO_WIDTH_SPACE, "") == MENTION_NAME
    assert not DRAWN.search(in_markdown(MENTION_NAME))


def test_statistics_and_the_boards_across_servers_never_draw_a_name_as_a_mention() -> None:
    embed = render_stats(MENTION_NAME, [], None, "en", own=False)
    assert embed.title and embed.description and not DRAWN.search(embed.title + embed.description)
    label = player_label(Standing(1, 5, MENTION_NAME, 1.0, 1), "global")
    assert not DRAWN.search(label) and MENTION_NAME.startswith(label.replace(ZERO_WIDTH_SPACE, "")[:-1])


@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_a_name_that_turns_text_around_is_isolated_in_text_and_code_blocks(spec: AnySpec) -> None:
    texts = shown(spec, "en", OVERRIDE_NAME, code=True)
    assert not [text for text in texts if "\u202e" in text.replace(ISOLATED_NAME, "")]
    assert any(ISOLATED_NAME in text for text in texts)


def test_a_name_keeps_its_own_isolates_and_never_closes_the_one_around_it() -> None:
    assert isolated("Bob") == "Bob" and isolated("Zoë 🎲") == "Zoë 🎲"
    assert isolated("\u2069\u202eBob") == ISOLATED_NAME  # a stray PDI would end the isolate early
    assert isolated("\u2067ab\u2069c\u2066d") == "\u2068\u2067ab\u2069c\u2066d\u2069\u2069"  # one left open
    assert isolated("a\u200fb") == "\u2068a\u200fb\u2069"


def test_a_right_to_left_name_cannot_carry_the_figures_after_it_to_its_side() -> None:
    """Review: "שלום: 25" shows the score on the name's left in a left-to-right line, and a line beginning with such a
    name is taken for a right-to-left one; isolated, the name is one unit in the line's own direction."""
    assert isolated("שלום") == "\u2068שלום\u2069"
    assert isolated("علي 2") == "\u2068علي 2\u2069"
    assert isolated("Zoë") == "Zoë"


def test_a_grid_owner_cut_to_the_grid_still_ends_its_isolate() -> None:
    grid = [[None] * knister.SIZE for _ in range(knister.SIZE)]
    (cell,) = owners({"1": OVERRIDE_NAME * 10}).values()
    owner = grid_block(grid, knister.line_scores(grid, partial=True), "en", cell).splitlines()[1]
    assert owner.startswith(FIRST_STRONG_ISOLATE + OVERRIDE_NAME) and owner.endswith("…" + POP_DIRECTIONAL_ISOLATE)


def test_statistics_and_the_boards_across_servers_isolate_a_name_that_turns_text_around() -> None:
    embed = render_stats(OVERRIDE_NAME, [], None, "en", own=False)
    assert ISOLATED_NAME in (embed.title or "") and ISOLATED_NAME in (embed.description or "")
    assert player_label(Standing(1, 5, OVERRIDE_NAME, 1.0, 1), "global") == ISOLATED_NAME
