"""The final cards' tables (``bot.ui.tables.card_tables``): a column per player, every header whole or marked as
cut, parted from the next by two spaces, and every line within a phone's width."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.ui.common import CUT, PHONE_COLUMNS, display_width
from bot.ui.tables import card_tables


def cells(line: str) -> list[str]:
    """``line`` of a code block by its columns (:func:`display_width`): a wide character fills two, the second
    empty; a character that takes none (a mark, a joined emoji, a direction isolate) joins the column before."""
    columns: list[str] = []
    pending = ""  # characters of no width before the first column
    for end in range(1, len(line) + 1):
        added = display_width(line[:end]) - display_width(line[: end - 1])
        char = line[end - 1]
        if added == 0 and columns:
            columns[-1] += char
        elif added == 0:
            pending += char
        else:
            columns += [pending + char, *[""] * (added - 1)]
            pending = ""
    return columns


def headers(blocks: list[str]) -> list[str]:
    """The player columns' headers of card tables, left to right, block after block.

    Read by the columns' right edges, where every row's value ends (values are aligned right and never empty): a
    header may hold a space ("Normal 2"). Measured in columns, so a header of emoji ends where its values do."""
    found = []
    for block in blocks:
        header, *rows = (cells(line) for line in block.strip("`\n").splitlines())
        width = max(map(len, [header, *rows]))
        rows = [row + [" "] * (width - len(row)) for row in rows]
        first = next(column for column, cell in enumerate(header) if cell != " ")
        ends = [
            end
            for end in range(first, width)
            if all(row[end] != " " and (end + 1 == width or row[end + 1] == " ") for row in rows)
        ]
        starts = [first, *(end + 1 for end in ends[:-1])]
        found += ["".join(header[start : end + 1]).strip() for start, end in zip(starts, ends, strict=True)]
    return found


def parted(blocks: list[str]) -> list[str]:
    """The headers of card tables as a reader parts them: at two spaces or more (a name's words are one apart)."""
    return [part for block in blocks for part in re.split(" {2,}", block.strip("`\n").splitlines()[0].strip())]


def fits(blocks: list[str], width: int = PHONE_COLUMNS) -> bool:
    return all(display_width(line) <= width for block in blocks for line in block.splitlines())


LABELS = ["Ones", "Sm. str.", "Total"]


def test_card_table_columns_widen_to_whole_names_when_a_phone_line_has_room() -> None:
    """Three players leave a column 7 wide: "Normal" was cut to "Norma", which reads as somebody's name."""
    names = ["🤖 Normal", "Alice", "🤖 Leicht"]
    blocks = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in names])
    assert headers(blocks) == ["Normal", "Alice", "Leicht"]
    assert all(len(line) <= PHONE_COLUMNS for block in blocks for line in block.splitlines())


def test_a_cut_name_ends_in_an_ellipsis() -> None:
    names = ["Alice", "🤖 Doskonały", "Bob", "Carol"]
    blocks = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in names])
    assert headers(blocks) == ["Alice", "Dosko…", "Bob", "Carol"]
    assert all(len(line) <= PHONE_COLUMNS for block in blocks for line in block.splitlines())


def test_names_alike_after_the_cut_are_numbered_and_stay_marked_as_cut() -> None:
    """Columns a column apart cut "Alexandrina" and "Alexandrine" to "Alexa…" and "Alex…": either could be either."""
    names = ["Bob", "Alexandrina", "Bob", "Alexandrine"]
    blocks = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in names])
    assert headers(blocks) == ["Bob1", "Ale…1", "Bob2", "Ale…2"]
    unequal = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in ["Alice", *names[1:]]])
    assert headers(unequal) == ["Alice", "Alex…1", "Bob", "Ale…2"]
    assert all(len(line) <= PHONE_COLUMNS for block in blocks for line in block.splitlines())


def test_a_header_keeps_the_space_before_a_number_and_a_cut_keeps_the_number() -> None:
    """QA: German dice poker's final table headed the column of "🤖 Normal 2" "Normal2": the space was dropped.
    A header keeps a name's spaces when it fits, and a cut name ending in a number (the second computer of a
    level) keeps the number after the ellipsis, so it cannot be taken for another "Normal"."""
    names = ["🤖 Normal 2", "🤖 Normal", "Alice"]
    values = ["3", "12", "240"]
    wide = card_tables(["Ones", "Total"], [(name, values) for name in names], width=40)
    assert headers(wide) == ["Normal 2", "Normal", "Alice"]
    assert wide[0].splitlines()[1] == "     Normal 2  Normal   Alice"
    cut = card_tables(LABELS, [(name, values) for name in ["Alice", "Bob", *names[:2]]])
    assert headers(cut) == ["Alice", "Bob", "Nor…2", "Normal"]
    assert fits(cut)


def test_a_header_holding_a_space_is_parted_from_the_one_before_by_two() -> None:
    """With one space between them, "Alice" and "Bo Li" in columns of five read as three headers."""
    blocks = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in ["Alice", "Bo Li", "Carol", "Dan"]])
    assert headers(blocks) == ["Alice", "Bo Li", "Carol", "Dan"]
    assert blocks[0].splitlines()[1] == "        Alice  Bo Li  Carol  Dan"


def test_two_headers_are_never_one_space_apart() -> None:
    """QA: "Norma…2 Normal" and "Nor…2 Norm… Alice Nor…3" read as fewer players than there are: one space is how
    a name's own words are parted. A header after another has two spaces at least before it, and the room that
    costs is found by measuring each column for its own header and values, not cutting more names."""
    values = ["3", "12", "240"]
    for names in (["🤖 Normal 2", "🤖 Normal", "Alice"], ["🤖 Normal", "🤖 Normal 2", "Alice"]):
        three = card_tables(LABELS, [(name, values) for name in names])
        assert parted(three) == headers(three) == [name.removeprefix("🤖 ") for name in names]
        assert len(three) == 1 and fits(three)
    assert three[0].splitlines()[1:3] == ["         Normal  Normal 2  Alice", "Ones          3         3      3"]
    four = card_tables(LABELS, [(name, values) for name in ["🤖 Normal 2", "🤖 Normal", "Alice", "🤖 Normal 3"]])
    assert parted(four) == headers(four) == ["Normal 2", "Normal", "Alice", "Normal 3"]
    assert len(four) == 2 and fits(four)  # one block would leave "Nor…" or "Ali…": no one's name


def test_a_long_first_header_reaches_into_the_labels_corner() -> None:
    """The first column of a block has nothing on its left in the header line but the labels' empty corner: a
    long name there is shown whole, right-aligned with its values, instead of cut or pushed to a second block."""
    blocks = card_tables(LABELS, [(name, ["3", "12", "240"]) for name in ["🤖 Doskonały", "Alice", "Bob", "Carol"]])
    assert blocks[0].splitlines()[1:3] == ["    Doskonały  Alice  Bob  Carol", "Ones        3      3    3      3"]
    assert parted(blocks) == headers(blocks) and fits(blocks)


#: Names that run together easily: short words, digits, a computer's emoji and spaces.
SPACED_NAMES = st.lists(st.sampled_from(["Al", "Bo", "Normal", " ", "2", "🤖", "é", "Ł"]), max_size=8).map("".join)


@given(
    st.lists(st.tuples(SPACED_NAMES, st.integers(0, 9_999)), min_size=1, max_size=10),
    st.sampled_from([["Ones", "Total"], LABELS, ["Kl. Straße", "Gesamt"]]),
)
def test_card_tables_part_every_header_and_fit_a_phone(players: list[tuple[str, int]], labels: list[str]) -> None:
    blocks = card_tables(labels, [(name, [str(score)] * len(labels)) for name, score in players])
    assert fits(blocks)
    assert parted(blocks) == headers(blocks)
    assert len(headers(blocks)) == len(players)


def test_the_same_name_whole_in_one_column_and_cut_in_another_is_numbered() -> None:
    """Review: columns have widths of their own (the first reaches into the labels' corner), so one "Christopher"
    fitted whole beside a cut "Chris…", and the two read as two players; numbered, they read as one name twice."""
    values = ["3", "12", "240"]
    blocks = card_tables(LABELS, [(name, values) for name in ["Christopher", "Alice", "Christopher", "Bob"]])
    assert headers(blocks) == ["Christopher1", "Alice", "Chri…2", "Bob"]
    blocks = card_tables(LABELS, [(name, values) for name in ["Alexandra Maria", "Alexandra Maria", "Bob"]])
    assert headers(blocks) == ["Alexandra Maria1", "Alexand…2", "Bob"]
    assert fits(blocks)


#: Names that read alike once cut or numbered: long ones sharing a start, the same name twice, one ending in the
#: number another would be given.
ALIKE_NAMES = st.one_of(
    st.sampled_from(["Christopher", "Christophe", "Alexandra Maria", "Alexandrina", "Bob", "Bob1", "Bob2", "Bo"]),
    st.sampled_from(["🤖 Normal", "🤖 Normal 2", "Normal2", "Chris…", "Chri…2"]),
    SPACED_NAMES,
)


@given(
    st.lists(st.tuples(ALIKE_NAMES, st.integers(0, 9_999)), min_size=1, max_size=8),
    st.sampled_from([["Ones", "Total"], LABELS, ["Kl. Straße", "Gesamt"]]),
)
def test_no_two_headers_of_card_tables_read_the_same(players: list[tuple[str, int]], labels: list[str]) -> None:
    blocks = card_tables(labels, [(name, [str(score)] * len(labels)) for name, score in players])
    shown = headers(blocks)
    assert len(set(shown)) == len(shown) == len(players)
    assert fits(blocks)
    assert parted(blocks) == shown


def test_final_headers_keep_wide_letters_and_a_name_of_emoji_only() -> None:
    """QA: "李小龍" and "🐉🐉" were headed "?1" and "?2": wide letters and a name of emoji alone were dropped. They
    are kept, two columns each, and the values stay right-aligned under them; emoji beside letters still go (each
    costs two or three of a phone's 32 columns), so "🤖 Easy" beside a person named Easy is told apart by a number."""
    names = ["李小龍", "🐉🐉", "🤖 Easy", "Easy", "🎲🔥 Zoë 🐉"]
    blocks = card_tables(["Ones", "Total"], [(name, ["3", "240"]) for name in names])
    assert headers(blocks) == parted(blocks) == ["李小龍", "🐉🐉", "Easy1", "Easy2", "Zoë"]
    assert fits(blocks)


def test_a_right_to_left_header_cannot_turn_its_line_around() -> None:
    """QA: a Hebrew name turned its header line around: it is isolated, as the running tables' names are."""
    blocks = card_tables(["Ones", "Total"], [(name, ["3", "240"]) for name in ["דוד כהן", "Alice"]])
    assert headers(blocks) == ["\u2068דוד כהן\u2069", "Alice"]
    assert fits(blocks)


#: Names of emoji, CJK and fullwidth letters, Latin ones with marks and a right-to-left one, spaced and alike.
WIDE_NAMES = st.lists(
    st.sampled_from(["李小龍", "🐉", "🤖", "🎲🔥", "Ａｌｉ", "👩\u200d💻", "Zoë", "e\u0301", "דוד", "Easy", " ", "2"]),
    max_size=6,
).map("".join)


@given(
    st.lists(st.tuples(WIDE_NAMES, st.integers(0, 9_999)), min_size=1, max_size=8),
    st.sampled_from([["Ones", "Total"], LABELS, ["Kl. Straße", "Gesamt"]]),
)
def test_card_tables_of_wide_names_fit_a_phone_and_align_every_header(
    players: list[tuple[str, int]], labels: list[str]
) -> None:
    blocks = card_tables(labels, [(name, [str(score)] * len(labels)) for name, score in players])
    assert fits(blocks)
    shown = headers(blocks)
    assert parted(blocks) == shown  # each header ends where its values do, two spaces from the one before
    assert len(set(shown)) == len(shown) == len(players)
    for (name, _), header in zip(players, shown, strict=True):
        lettered = "".join(char for char in name if unicodedata.category(char) != "So" and char != "\u200d")
        written = " ".join(lettered.split()) or " ".join(name.split()) or "?"
        plain = header.removeprefix("\u2068").removesuffix("\u2069")
        assert plain == written or CUT in plain or plain.startswith(written), (name, header)
