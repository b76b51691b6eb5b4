"""A 375 px phone: every row of buttons fits one line and the final scorecards one code block's width.

The width model is the playground's phone layout (``fakediscord/web/style.css`` under 700 px, which follows
Discord's own): 52 px of avatar gutter and 10 px of margin leave a row **313 px**; a button is 10 px of padding on
each side, its emoji (18 px and a 6 px gap) and its text at 14 px; buttons are 8 px apart. Text is estimated at
**7.5 px a character** (measured in Chromium with the system font: 5.7-7.1 px for the labels in use, 13 px only
for a run of capital Ws) and 12.5 px for a die face (measured 12.2). Five dice buttons ``⚁ 2`` take 5 x 45 + 32 =
257 px. Games are played with seeded random legal moves, so holds, stops and late turns are all seen.
"""

from __future__ import annotations

import random
import re
import time
import unicodedata
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any

import pytest

from bot.engine import tutto
from bot.i18n import languages, t
from bot.play.service import GameService, lobby, table
from bot.play.spec import AnySpec
from bot.play.transitions import Game
from bot.storage import GameRecord, Seat
from bot.ui import lobby as lobby_ui
from bot.ui.common import PHONE_COLUMNS, display_width, unbroken
from bot.ui.render import Rendered, SeatView, Table
from bot.ui.standings import ranked
from bot.ui.tables import card_tables
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.ui.test_tables import headers as card_headers
from tests.ui.test_tables import parted

#: The room of one action row on a 375 px phone, and the model's sizes (px).
ROW = 313
PADDING = 2 * 10
GAP = 8
EMOJI = 18 + 6
CHAR = 7.5
DIE = 12.5
#: Random legal play is long-winded: a seeded Tutto game of ten players to 2,000 takes 7,384 moves.
MAX_STEPS = 10000
#: The fields of an engine state that no message shows: the stamp of a board is the stored game's version.
UNSHOWN = frozenset({"move", "events"})
SPECS: dict[str, AnySpec] = {spec.kind: spec for spec in (KNIFFEL, DICEPOKER, KNISTER, TUTTO)}
VARIANTS = {
    "kniffel": ("kniffel", "classic"),
    "dicepoker": ("russian",),
    "knister": ("standard",),
    "tutto": ("standard",),
}


@cache
def text_px(text: str) -> float:
    """The estimated width of a label's text, measured once per distinct text (the same labels recur on every
    board)."""
    width = 0.0
    for char in text:
        if "\u2680" <= char <= "\u2685":
            width += DIE
        elif unicodedata.east_asian_width(char) == "W" or unicodedata.category(char) == "So":
            width += 20  # an emoji or symbol drawn as one
        elif unicodedata.combining(char) or char in "\ufe0f\u200d":
            continue
        else:
            width += CHAR
    return width


def button_px(component: dict[str, Any]) -> float:
    label = component.get("label") or ""
    emoji = EMOJI if component.get("emoji") else 0
    return PADDING + emoji + text_px(label) - (6 if emoji and not label else 0)


def row_px(row: dict[str, Any]) -> float:
    buttons = [c for c in row["components"] if c["type"] == 2]
    return sum(button_px(b) for b in buttons) + GAP * max(len(buttons) - 1, 0)


def too_wide(rendered: Rendered) -> list[str]:
    """The rows of a message wider than a phone's, described for the failure message."""
    wide = []
    for row in rendered.layout.components():  # what is sent: tests/ui/test_payloads.py
        if row_px(row) > ROW:
            labels = [f"{(c.get('emoji') or {}).get('name', '')}{c.get('label') or ''}" for c in row["components"]]
            wide.append(f"{row_px(row):.0f}px: {labels}")
    return wide


def code_lines(rendered: Rendered) -> Iterator[str]:
    """Every line inside a code block of the message's embeds."""
    for embed in rendered.embeds:
        texts = [embed.description or "", *(field.value or "" for field in embed.fields)]
        for text in texts:
            for block in re.findall(r"```\n?(.*?)```", text, flags=re.DOTALL):
                yield from block.splitlines()


def record(spec: AnySpec, players: list[str], language: str, status: str, variant: str) -> GameRecord:
    seats = tuple(Seat(player, f"{'W' * 30}{index:02d}") for index, player in enumerate(players))
    now = time.time()
    return GameRecord(
        id=987654321, kind=spec.kind, variant=variant, guild_id=1, channel_id=2, host=players[0], status=status,
        version=123456, created_at=now, updated_at=now, locale=language, options={"timeout": 60, "hints": True},
        seats=seats,
    )  # fmt: skip


@cache
def played(kind: str, players: int, variant: str, seed: int) -> tuple[tuple[Any, str], ...]:
    """Every position of one game played with seeded random legal moves, each with the player who acted last.

    The same for every language, so each worker plays it once and the languages only render it (the random play
    was a seventh of each case's CPU). A position the game comes back to (a die selected and released again) is
    listed once: it differs from the first time only in the move counter and the events, which no board shows
    (``test_a_board_shows_neither_the_move_counter_nor_the_events``), and random play comes back a lot (Tutto, ten
    players: 7,384 states, 2,286 positions).
    """
    spec = SPECS[kind]
    ids = [str(10**17 + index) for index in range(players)]
    rng = random.Random(seed)
    engine = spec.engine
    state = engine.new_game(ids, rng, **spec.engine_options({"target": 2000}, variant))
    player = ids[0]
    states = []
    seen: set[tuple[str, str]] = set()
    for _ in range(MAX_STEPS):
        position = (state.model_dump_json(exclude=UNSHOWN), player)
        if position not in seen:
            seen.add(position)
            states.append((state, player))
        if engine.is_over(state):
            return tuple(states)
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
    raise AssertionError("the game did not end")


def renders(spec: AnySpec, language: str, players: int, variant: str, seed: int) -> tuple[Rendered, ...]:
    """Every message of one game played with random legal moves: lobby, each state, private views, the end."""
    return rendered_game(spec.kind, language, players, variant, seed)


@lru_cache(maxsize=2)
def rendered_game(kind: str, language: str, players: int, variant: str, seed: int) -> tuple[Rendered, ...]:
    """:func:`renders`, kept for the next test of the same case on this worker.

    ``tests/ui/test_payloads.py`` checks the JSON of the very messages this module measures: the scheduler
    (``shared_group`` in ``tests/conftest.py``) runs the two tests of a case on one worker, one after the other, so
    the second reads the first's renders instead of rendering every state again (40 % of its CPU). Two cases
    only: a case's renders are thousands of messages.
    """
    spec = SPECS[kind]
    service = GameService.__new__(GameService)  # only its pure render (the Hint button) is used
    service.specs = {spec.kind: spec}
    ids = [str(10**17 + index) for index in range(players)]
    messages = [lobby_ui.render(lobby(spec, record(spec, ids, language, "lobby", variant)))]
    running = record(spec, ids, language, "running", variant)
    for state, player in played(spec.kind, players, variant, seed):
        game = Game(running, state)
        messages.append(service.render(spec, game))
        messages.extend(view.render(table(game, language), player) for view in spec.private_views.values())
    return tuple(messages)


CASES = [
    (spec, variant, players)
    for spec in (KNIFFEL, DICEPOKER, KNISTER, TUTTO)
    for variant in VARIANTS[spec.kind]
    for players in sorted({1, 2, spec.max_players})
]


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant", "players"), CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_every_button_row_and_code_block_fits_a_phone(spec: AnySpec, variant: str, players: int, language: str) -> None:
    wide: dict[str, None] = {}
    for rendered in renders(spec, language, players, variant, seed=players):
        wide.update(dict.fromkeys(too_wide(rendered)))
        wide.update(dict.fromkeys(f"code: {line!r}" for line in code_lines(rendered) if len(line) > PHONE_COLUMNS))
    assert not wide, "\n".join(wide)


def shown(rendered: Rendered) -> tuple[Any, ...]:
    """Everything a message shows: its text, its embeds and its components."""
    return rendered.content, [embed.to_dict() for embed in rendered.embeds], rendered.layout.components()


@pytest.mark.parametrize(
    ("spec", "variant"),
    [(spec, variant) for spec in SPECS.values() for variant in VARIANTS[spec.kind]],
    ids=lambda v: getattr(v, "kind", str(v)),
)
def test_a_board_shows_neither_the_move_counter_nor_the_events(spec: AnySpec, variant: str) -> None:
    """What lets :func:`played` list a position the game comes back to once: the same position with another move
    count and no events renders the same board and private views."""
    service = GameService.__new__(GameService)
    service.specs = {spec.kind: spec}
    ids = [str(10**17 + index) for index in range(2)]
    running = record(spec, ids, "en", "running", variant)
    rng = random.Random(7)
    engine = spec.engine
    state = engine.new_game(ids, rng, **spec.engine_options({"target": 2000}, variant))
    evented = 0
    for _ in range(300):
        if engine.is_over(state):
            break
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
        evented += bool(state.events)
        game = Game(running, state)
        again = Game(running, state.model_copy(update={"move": state.move + 7, "events": []}))
        assert shown(service.render(spec, game)) == shown(service.render(spec, again))
        for view in spec.private_views.values():
            assert shown(view.render(table(game), player)) == shown(view.render(table(again), player))
    assert evented >= 10


def test_the_model_measures_five_dice_and_a_long_label() -> None:
    dice = {"type": 1, "components": [{"type": 2, "label": "⚁ 2"}] * 5}
    assert row_px(dice) == 5 * (20 + 12.5 + 7.5 + 7.5) + 4 * 8
    assert row_px(dice) <= ROW
    long = {"type": 1, "components": [{"type": 2, "label": "x" * 40}]}
    assert row_px(long) > ROW


@pytest.mark.parametrize("language", languages())
def test_take_all_fits_beside_three_selected_dice(language: str) -> None:
    """Tutto's Take all follows the second row of six dice: its widest case, three selected dice before it, fits
    (random play rarely shows it)."""
    ids = [str(10**17 + index) for index in range(2)]
    seats = tuple(SeatView(player, "W" * 30) for player in ids)
    state = tutto.State(
        players=ids, scores=dict.fromkeys(ids, 0), tuttos=dict.fromkeys(ids, 0), current=ids[0], deck=[],
        card="bonus_600", phase="select", roll=[1, 2, 3, 1, 5, 1], selected=[3, 4, 5],
    )  # fmt: skip
    row = TUTTO.ui.render(Table(seats, 987654321, 123456, language, state)).layout.components()[1]
    assert [component.get("label") for component in row["components"]] == ["1", "5", "1", t("tutto.take_all", language)]
    assert row_px(row) <= ROW


@pytest.mark.parametrize("language", languages())
def test_roll_on_and_stop_fit_with_five_digits_at_stake(language: str) -> None:
    """Roll on beside Stop with a five-digit bank (Tuttos in a row under Double): the widest action row, which
    random play hardly reaches."""
    ids = [str(10**17 + index) for index in range(2)]
    state = tutto.State(
        players=ids, scores=dict.fromkeys(ids, 0), tuttos=dict.fromkeys(ids, 0), current=ids[0], deck=[],
        card="double", phase="select", roll=[1, 2, 3], selected=[0], secured=18250, card_points=300,
    )  # fmt: skip
    row = TUTTO.ui.render(Table(tuple(SeatView(p, "W") for p in ids), 1, 1, language, state)).layout.components()[-1]
    assert len(row["components"]) == 2
    assert row_px(row) <= ROW, [component.get("label") for component in row["components"]]


# -- scorecards: one table with a column per player, never wider than a phone's code block --------------------

NAMES = ["Alice", "Bob", "Bobby", "Dominika Wiśniewska", "Éva", "Bob", "🎲 Zoe", "W" * 32]


def final_table(spec: AnySpec, variant: str, players: int, language: str, names: list[str] = NAMES) -> Rendered:
    """The final board of a game played with seeded random legal moves (played once for every language)."""
    ids = [str(10**17 + index) for index in range(players)]
    state, _ = played(spec.kind, players, variant, players)[-1]
    seats = tuple(SeatView(player, names[index]) for index, player in enumerate(ids))
    rendered: Rendered = spec.ui.render(Table(seats, 1, 1, language, state))
    return rendered


SCORECARD_CASES = [(KNIFFEL, "kniffel"), (KNIFFEL, "classic"), (DICEPOKER, "russian")]


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), SCORECARD_CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_final_scorecards_of_three_or_more_are_one_table_a_phone_shows(
    spec: AnySpec, variant: str, language: str
) -> None:
    for players in range(3, spec.max_players + 1):
        embed = final_table(spec, variant, players, language).embeds[0]
        blocks = [field.value or "" for field in embed.fields]
        assert all(not field.inline for field in embed.fields)
        for block in blocks:
            lines = block.strip("`\n").splitlines()
            assert max(len(line) for line in lines) <= PHONE_COLUMNS, block
            assert len({len(line.split()) for line in lines[1:]}) <= 2  # every row has a cell per player
        headers = card_headers(blocks)
        assert len(headers) == players  # every player has a column, once
        assert len(set(headers)) == players
        assert parted(blocks) == headers  # two spaces at least between two headers: none reads as one


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(("spec", "variant"), SCORECARD_CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_final_table_headers_keep_a_computers_number(spec: AnySpec, variant: str, language: str) -> None:
    """QA: German dice poker's final table headed the column of "🤖 Normal 2" "Normal2". A header is the name
    (without the emoji) with its space, or cut with an ellipsis before the number; and "Norma…2 Normal" read as
    one name: two spaces at least part two headers."""
    for players in range(3, spec.max_players + 1):
        names = computers(language, players)
        embed = final_table(spec, variant, players, language, names).embeds[0]
        blocks = [field.value or "" for field in embed.fields]
        found = card_headers(blocks)
        assert len(set(found)) == players
        assert parted(blocks) == found
        state, _ = played(spec.kind, players, variant, players)[-1]
        seated = dict(zip([str(10**17 + index) for index in range(players)], names, strict=True))
        standings = ranked(spec.engine.results(state), state.players)
        for name, header in zip([seated[result.player] for result in standings], found, strict=True):
            words = name.removeprefix("🤖 ").split()
            cut = f"…{words[-1]}" if words[-1].isdigit() else "…"
            assert header == " ".join(words) or header.endswith(cut), (name, header)


@pytest.mark.parametrize(("spec", "variant"), SCORECARD_CASES, ids=lambda v: getattr(v, "kind", str(v)))
def test_two_players_keep_a_card_each(spec: AnySpec, variant: str) -> None:
    embed = final_table(spec, variant, 2, "en-US").embeds[0]
    assert sorted(field.name for field in embed.fields) == sorted(NAMES[:2])


def test_card_tables_split_players_into_blocks_that_fit() -> None:
    labels = ["Ones", "Total"]
    columns = [(name, ["3", "1,575"]) for name in ["Alice", "Alice-B", "🎲 Bob", "Carol", "Dan", "Eve"]]
    blocks = card_tables(labels, columns, width=PHONE_COLUMNS)
    # Six columns of five-digit values and two spaces between headers take two blocks of three, then as even
    # as the longest header's column: 8, for "Alice-B" and its second space.
    assert [block.splitlines()[1] for block in blocks] == [
        "         Alice  Alice-B      Bob",
        "         Carol      Dan      Eve",
    ]
    assert all(len(line) <= PHONE_COLUMNS for block in blocks for line in block.splitlines())
    assert blocks[0].splitlines()[3] == "Total    1,575    1,575    1,575"


WIDE_NAMES = ["🎲" * 20, "漢字" * 10, "Ａｌｉｃｅ" * 4]


@pytest.mark.parametrize(("spec", "variant"), [(TUTTO, "standard"), (KNIFFEL, "kniffel"), (DICEPOKER, "russian")])
def test_names_of_wide_characters_are_cut_to_columns_so_standings_fit_a_phone(spec: AnySpec, variant: str) -> None:
    """Emoji and CJK letters take two columns each: a name cut to a count of characters took twice the columns."""
    ids = [str(10**17 + index) for index in range(len(WIDE_NAMES))]
    seats = tuple(SeatView(player, name) for player, name in zip(ids, WIDE_NAMES, strict=True))
    lines = []
    for state, _ in played(spec.kind, len(ids), variant, 3)[::25]:
        for ended in (False, True):  # a game that ended early shows every total
            lines += code_lines(spec.ui.render(Table(seats, 1, 1, "en-US", state, ended=ended)))
    assert any("🎲" in line for line in lines)
    assert [line for line in lines if display_width(line) > PHONE_COLUMNS] == []


# -- final standings: a line that wraps never leaves a figure apart from its label ---------------------------------

#: The text of an embed on the phone: the row less the embed's 4 px border and 10 px padding on each side; inline
#: fields share it in columns of at least 120 px, 8 px apart (``.embed-row.inline``): two columns.
EMBED_TEXT = ROW - 4 - 2 * 10
INLINE_FIELD = (EMBED_TEXT - 8) / 2
#: Embed text is 14 px; measured in Chromium with the system font (a–z on average, bold at weight 600).
PROSE_CHAR = 7.9
PROSE_BOLD = 8.9
PROSE_SPACE = 4.5
PROSE_EMOJI = 17.5
PROSE_BAR = 10.8  # ▰ and ▱ of Tutto's progress bar
PROSE_DASH = 14.0  # —
#: A figure at the start of a wrapped line: a number torn from its label ("Tutta:" / "0", "— 75" / "75").
FIGURE = re.compile(r"^[(+−-]?\d")


def prose_px(text: str, bold: bool) -> float:
    """The estimated width of text in an embed (a field's name is bold)."""
    width = 0.0
    for char in text:
        if char in "▰▱":
            width += PROSE_BAR
        elif char == "—":
            width += PROSE_DASH
        elif unicodedata.east_asian_width(char) == "W" or unicodedata.category(char) == "So":
            width += PROSE_EMOJI
        elif unicodedata.combining(char) or char in "\ufe0f\u200d":
            continue
        elif char in " \u00a0":
            width += PROSE_SPACE
        else:
            width += PROSE_BOLD if bold else PROSE_CHAR
    return width


def wrapped(line: str, width: float, bold: bool = False) -> list[str]:
    """``line`` (markdown) as a browser wraps it in ``width`` px: only at ASCII spaces (a no-break space binds), a
    word wider than the line alone on its own lines. Bold runs (``**``) are measured bold."""
    words, lines, current, used = [], [], "", 0.0
    strong = bold
    for word in line.split(" "):
        px = 0.0
        for index, part in enumerate(word.split("**")):
            if index:
                strong = not strong if not bold else strong
            px += prose_px(part, strong)
        words.append((word.replace("**", ""), px))
    for word, px in words:
        needed = px if not current else used + PROSE_SPACE + px
        if current and needed > width:
            lines.append(current)
            current, used = word, px
        else:
            current, used = (f"{current} {word}" if current else word), needed
    lines.append(current)
    return lines


def torn_figures(rendered: Rendered) -> list[str]:
    """The lines of the message's embeds that a phone wraps just before a figure, and the inline field names it
    wraps at all (their grids below then start lower than the ones beside them)."""
    torn = []
    for embed in rendered.embeds:
        for line in (embed.description or "").splitlines():
            pieces = wrapped(line, EMBED_TEXT)
            if any(FIGURE.match(piece) for piece in pieces[1:]):
                torn.append(" / ".join(pieces))
        for field in embed.fields:
            name = field.name or ""
            pieces = wrapped(name, INLINE_FIELD if field.inline else EMBED_TEXT, bold=True)
            if (field.inline and len(pieces) > 1) or any(FIGURE.match(piece) for piece in pieces[1:]):
                torn.append(f"field: {' / '.join(pieces)}")
    return torn


def computer(level: str, language: str) -> str:
    return t("computer.name", language, level=t(f"computer.level.{level}", language))


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize(
    ("spec", "variant"),
    [(spec, variant) for spec in SPECS.values() for variant in VARIANTS[spec.kind]],
    ids=lambda v: getattr(v, "kind", str(v)),
)
def test_final_standings_never_tear_a_figure_from_its_label_on_a_phone(
    spec: AnySpec, variant: str, language: str
) -> None:
    """QA: Polish Tutto's "· Tutta: 0" wrapped with the "0" alone on the next line, and Hungarian Knister's
    "🥇 🤖 Közepes — 75" above a grid took two lines, so that grid began lower than the one beside it."""
    names = ["Bob", "Alice", computer("easy", language), computer("perfect", language), computer("normal", language)]
    names += ["Dominika Wiśniewska", "W" * 32]
    torn: dict[str, None] = {}
    for players in sorted({2, 3, 4, len(names)}):
        if players > spec.max_players:
            continue
        ids = [str(10**17 + index) for index in range(players)]
        state, _ = played(spec.kind, players, variant, players)[-1]
        seats = tuple(SeatView(player, name) for player, name in zip(ids, names, strict=False))
        torn.update(dict.fromkeys(torn_figures(spec.ui.render(Table(seats, 1, 1, language, state)))))
    assert not torn, "\n".join(torn)


def test_the_wrap_model_tears_what_qa_saw() -> None:
    """The model wraps the lines of the QA screenshots as their phone did (390 px wide, ours 375), at some width
    near a phone's: where a line breaks depends on the font, which a figure bound to its label never minds."""
    widths = range(EMBED_TEXT - 30, EMBED_TEXT + 31)
    line = "🥉 🤖 Łatwy — **150** ▰▱▱▱▱▱▱▱▱▱ · Tutta: 0"
    assert any(wrapped(line, width)[-1] == "0" for width in widths)
    bound = "🥉 🤖 Łatwy\u00a0—\u00a0**150** ▰▱▱▱▱▱▱▱▱▱ ·\u00a0Tutta:\u00a00"
    assert not any(FIGURE.match(piece) for width in widths for piece in wrapped(bound, width)[1:])
    assert len(wrapped("🥇 🤖 Közepes — 75", INLINE_FIELD, bold=True)) == 2
    assert len(wrapped("🥈 Alice — 21", INLINE_FIELD, bold=True)) == 1


def computers(language: str, count: int) -> list[str]:
    """``count`` computers' names as a game seats them: "🤖 Easy", "🤖 Normal", "🤖 Perfect", "🤖 Easy 2", …"""
    names = []
    for index in range(count):
        name = computer(("easy", "normal", "perfect")[index % 3], language)
        names.append(name if index < 3 else f"{name} {index // 3 + 1}")
    return names


@pytest.mark.parametrize("language", languages())
def test_tutto_final_lines_take_one_line_of_a_phone(language: str) -> None:
    """QA: Polish "🥇 🤖 Łatwy — 2 050 ▰▰▰… · Tutta: 0" took two lines on a phone, so the bars below it did not
    line up. Every line fits with the computers' names, up to ten players, five-digit scores and ten Tuttos or
    more. The Tuttos name only those who scored any, each "name: count" unbroken; none when nobody did (QA: every
    player's "…: 0" took three phone lines, "🤖 Easy / 2: 0" split)."""
    for players in (2, 3, 6, 10):
        ids = [str(10**17 + index) for index in range(players)]
        final, _ = played("tutto", players, "standard", players)[-1]
        huge = final.model_copy(
            update={
                "target": 20000,
                "scores": {p: 10000 + 10 * score for p, score in final.scores.items()},
                "tuttos": {p: 10 + tuttos for p, tuttos in final.tuttos.items()},
            }
        )
        seats = tuple(SeatView(p, name) for p, name in zip(ids, computers(language, players), strict=True))
        nobody = final.model_copy(update={"tuttos": dict.fromkeys(final.tuttos, 0)})
        for state in (final, huge, nobody):
            embed = TUTTO.ui.render(Table(seats, 1, 1, language, state)).embeds[0]
            lines = (embed.description or "").splitlines()
            assert len(lines) == players
            assert [" / ".join(wrapped(line, EMBED_TEXT)) for line in lines if len(wrapped(line, EMBED_TEXT)) > 1] == []
            board = "\n".join([*lines, *(f"{field.name}\n{field.value}" for field in embed.fields)])
            for player, name in zip(ids, computers(language, players), strict=True):
                said = unbroken(t("tutto.tuttos_of", language, name=name, count=state.tuttos[player]))
                assert (said in board) == (state.tuttos[player] > 0), (said, board)
            tuttos = [field for field in embed.fields if field.name == t("tutto.tuttos", language)]
            assert len(tuttos) == any(state.tuttos.values())
            for said in (tuttos[0].value or "").split(" · ") if tuttos else []:
                assert len(wrapped(said, EMBED_TEXT)) == 1 and " " not in said, said
