"""The rendering helpers every game shares: the texts of a board, remembered by ``bot.i18n.t``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.i18n import _fill, language_of, languages, t
from bot.ui.common import card_tables, monospace_table
from bot.ui.render import Layout

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
    label = "Full House " * 10  # 110 characters: the first 100 end in the "F" of the tenth "Full"
    assert option_label(label) == ("Full House " * 9).rstrip() + "…"
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
