"""The rendering helpers every game shares: the texts of a board, remembered by ``bot.i18n.t``."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.i18n import _fill, language_of, languages, t
from bot.ui.common import cut_to_width, display_width, monospace_table
from bot.ui.render import Layout
from bot.ui.tables import card_tables

#: Discord's limit on a select option's label (``tests/discord_limits.py`` checks every payload against it).
LABEL_LIMIT = 100


def test_remembered_texts_are_the_catalogues() -> None:
    for locale in (*languages(), "en-US", "xx"):
        for key, params in (
            ("dice.scorecard", {}),
            ("dice.title", {"game": "Kniffel", "turn": 3, "turns": 13}),
            ("dice.content", {"player": "<@1>"}),
            ("dice.title", {"game": "Kniffel", "turn": 1000, "turns": 13000}),
        ):
            filled = _fill(key, language_of(locale), params)
            assert t(key, locale, **params) == filled
            assert t(key, locale, **params) == filled


def test_a_flag_is_not_remembered_as_the_number() -> None:
    assert t("dice.title", "de", game="x", turn=1000, turns=1) == _fill(
        "dice.title", "de", {"game": "x", "turn": 1000, "turns": 1}
    )
    assert t("dice.title", "en", game="x", turn=1, turns=1) == "x — turn 1/1"
    assert t("dice.title", "en", game="x", turn=True, turns=1) == "x — turn True/1"


def test_a_table_aligns_ragged_rows_whether_its_rows_are_lists_or_tuples() -> None:
    rows = [["Alice", "1,200", "▰▱"], ("Bob", "15"), ["Dominika", "3", "▰▰▰", "x"]]
    expected = "```\nAlice    1,200  ▰▱\nBob         15\nDominika     3 ▰▰▰ x\n```"
    assert monospace_table(rows) == expected
    assert monospace_table([tuple(row) for row in rows]) == expected
    assert monospace_table(rows, align_right_from=4) == "```\nAlice    1,200 ▰▱\nBob      15\nDominika 3     ▰▰▰ x\n```"


def test_a_word_after_the_numbers_is_aligned_left_again() -> None:
    """A leaver's mark after their total reads "0 (left)", not "0    (left)" under a longer "(removed)"."""
    rows = [("Carol", "12"), ("Alice", "3", "(left)"), ("Bob", "150", "(removed)")]
    table = monospace_table(rows, align_left_from=2)
    assert table == "```\nCarol  12\nAlice   3 (left)\nBob   150 (removed)\n```"


def test_wide_characters_take_two_columns() -> None:
    assert [display_width(text) for text in ("Alice", "🤖 Normal", "Zed 🎲", "漢字", "❤️", "👩\u200d💻", "e\u0301")] == [
        5,
        9,
        6,
        4,
        2,
        2,
        1,
    ]
    assert monospace_table([("🤖 Normal", "750"), ("Alice", "0")]) == "```\n🤖 Normal 750\nAlice       0\n```"


#: Names of characters that take one or two columns of their own (no marks, which join the character before).
NAMES = st.text(
    st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp", "Mn", "Me", "Cf"), exclude_characters="`▰▱"),
    max_size=12,
)


def columns(text: str) -> int:
    """The columns of such a name, counted apart from the code under test: East Asian Wide and Fullwidth take 2."""
    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


@given(st.lists(st.tuples(NAMES, st.integers(0, 99_999), st.integers(0, 10)), min_size=1, max_size=8))
def test_numbers_and_bars_start_at_one_column_whatever_the_names(rows: list[tuple[str, int, int]]) -> None:
    """Names with emoji, wide letters or combining marks: every score and bar starts where the others do."""
    cells = [(name, str(score), "▰" * filled + "▱" * (10 - filled)) for name, score, filled in rows]
    lines = monospace_table(cells).removeprefix("```\n").removesuffix("\n```").split("\n")
    assert len(lines) == len(cells)
    name_column = max(columns(name) for name, _, _ in cells)
    number_column = max(len(score) for _, score, _ in cells)
    for line, (name, score, bar) in zip(lines, cells, strict=True):
        assert line.startswith(name) and line.endswith(f"{score} {bar}")
        number_end = columns(line) - len(bar) - 1
        assert number_end == name_column + 1 + number_column  # right-aligned scores end together ...
        assert number_end - len(score) >= name_column + 1  # ... and never reach into the names' column


def test_a_name_with_backticks_stays_inside_its_code_block() -> None:
    """A display name holding ``` ended the block early: the rest of the table showed as text."""
    rows = [("x```y", "0"), ("Bob", "12")]
    table = monospace_table(rows)
    assert table.count("```") == 2 and table.startswith("```\n") and table.endswith("\n```")
    assert "x'''y" in table
    blocks = card_tables(["ones", "total"], [("ab```", ["1", "3"]), ("Bob", ["2", "4"])])
    assert all(block.count("```") == 2 for block in blocks)
    assert "ab'''" in blocks[0]


def option_label(label: str) -> str:
    """The label ``Layout.select`` sends for an option given ``label``."""
    (row,) = Layout().select(0, "Pick", "g:1:pick::0", [(label, "v", None)]).components()
    return str(row["components"][0]["options"][0]["label"])


def test_a_long_option_label_is_cut_after_its_last_whole_word() -> None:
    label = "Full house " * 10  # 110 characters: the first 100 end in the "F" of the tenth "Full"
    assert option_label(label) == ("Full house " * 9).rstrip() + "…"
    assert option_label("x" * 120) == "x" * 99 + "…"  # no space in reach: cut where it must be
    assert option_label("Chance") == "Chance"


#: Labels around the limit from letters, an emoji, ASCII spaces (which may be few or none) and a no-break space,
#: which binds "1 234" in Polish numbers: never a place to cut.
LABELS = st.sampled_from(["a é🎲\u00a0", "aé🎲\u00a0", " a", "a" * 30 + " "]).flatmap(
    lambda characters: st.text(st.sampled_from(characters), min_size=LABEL_LIMIT - 5, max_size=3 * LABEL_LIMIT)
)


@given(LABELS)
def test_an_option_label_fits_and_ends_at_a_word_when_it_can(label: str) -> None:
    shown = option_label(label)
    assert len(shown) <= LABEL_LIMIT
    if len(label) <= LABEL_LIMIT:
        assert shown == label
        return
    stem, ellipsis = shown[:-1], shown[-1]
    assert ellipsis == "…" and label.startswith(stem)
    word_ends = [i for i in range(1, LABEL_LIMIT) if label[i] == " " and label[i - 1] != " "]
    if word_ends:
        assert len(stem) == max(word_ends), "the last whole word that fits, without the spaces after it"
    else:
        assert stem == label[: LABEL_LIMIT - 1]


@given(st.text(max_size=24), st.integers(0, 16))
def test_a_name_is_cut_to_columns_at_a_glyph_boundary(name: str, width: int) -> None:
    cut = cut_to_width(name, width)
    assert name.startswith(cut)
    assert display_width(cut) <= width
    assert cut == name or display_width(name) > width


def test_a_cut_never_splits_a_letter_from_its_mark_or_an_emoji_sequence() -> None:
    assert cut_to_width("🎲🎲🎲", 5) == "🎲🎲"
    assert cut_to_width("漢字漢字", 3) == "漢"
    assert cut_to_width("Ze\u0301bra", 2) == "Ze\u0301"
    assert cut_to_width("ab👩\u200d💻cd", 3) == "ab"
    assert cut_to_width("ab👩\u200d💻cd", 4) == "ab👩\u200d💻"
    assert cut_to_width("a❤\ufe0fb", 2) == "a"
    assert cut_to_width("Alice", 12) == "Alice"
