"""The rendering helpers every game shares: the texts of a board, remembered by ``bot.i18n.t``."""

from __future__ import annotations

from bot.i18n import _fill, language_of, languages, t
from bot.ui.common import card_tables, monospace_table


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
