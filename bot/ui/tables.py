"""Players side by side in code blocks: the final cards' tables and the running tables' columns of names.

A phone shows :data:`~bot.ui.common.PHONE_COLUMNS` columns of a code block: each name is cut to its column with an
ellipsis, names alike after that are numbered once by seat, and two headers stand two spaces apart at least.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

from bot.ui.common import (
    CUT,
    EMOJI_PRESENTATION,
    PHONE_COLUMNS,
    ZERO_WIDTH_JOINER,
    cut_to_width,
    display_width,
    in_code_block,
    isolated,
    starts_glyph,
)

#: The least a header of a card table shows of a name (all of a shorter one), its ellipsis included: "Norm…", in
#: letters (``_shortest``): "🤖 Norm…" takes eight columns, as "🤖 N…" tells nobody apart.
NAME_COLUMN = 5


def name_cells(names: Mapping[str, str], columns: int) -> dict[str, str]:
    """Display names for a code block's column of names, each in ``columns`` columns: cut with an ellipsis and
    numbered when alike after that, as the final tables' headers are (:func:`_headers`), then :func:`isolated`.

    ``names`` are the players' names by player id in seat order, which numbers them: a board shows its players in
    an order of its own (those who left last, the final ones by rank), and "Bob1" and "Bob2" changed places with it
    (review). QA: the running totals cut "Anna Maria Kowalska" to "Anna Maria Kow" and "🐉🔥 Drache 🔥🐉" to
    "🐉🔥 Drache 🔥", neither saying it was cut, and two names starting alike read as one player."""
    return dict(_name_cells(tuple(names.items()), columns))


@lru_cache(maxsize=4096)
def _name_cells(names: tuple[tuple[str, str], ...], columns: int) -> tuple[tuple[str, str], ...]:
    """:func:`name_cells`, remembered: a game's names stay the same from click to click, and laying them out (cut by
    display width, alike ones numbered) was 3 % of a click's CPU (docs/benchmarks.md)."""
    cells = _headers([in_code_block(name) for _, name in names], [columns] * len(names))
    return tuple((player, isolated(cell)) for (player, _), cell in zip(names, cells, strict=True))


def card_tables(
    labels: Sequence[str],
    columns: Sequence[tuple[str, Sequence[str]]],
    width: int = PHONE_COLUMNS,
    seats: Sequence[int] | None = None,
) -> list[str]:
    """Cards side by side: one code block per group of players, a row per box, a column per player.

    ``columns`` are (player name, values in the order of ``labels``). Names are shown as written, their words one
    space apart, measured by :func:`display_width` (emoji and CJK letters two columns) and :func:`isolated`; one
    too long for its column is cut with an ellipsis, and names alike after that are numbered in the order of
    ``seats`` (each column's seat; the columns' order without it), so a player keeps the number the running board
    gave him when the final cards stand by rank. Every header is right-aligned with its values. What reads best
    on a phone, in this order:

    * **Two spaces at least between two headers.** A name's own words are one space apart, so one space between
      two headers reads as one name (QA: "Norma…2 Normal"; "Bob Carol" and "Norm… Alice" read so as well). A header
      after another leaves the first column of its own blank; the first of a block has the labels' empty corner
      on its left and may reach into it, as a right-aligned text runs into the empty cell on its left.
    * **No line wider than a phone's** (``width``), so a block never wraps: as few blocks as fit every player
      with each header showing at least :data:`NAME_COLUMN` letters of the name (all of a shorter one), the
      players shared out evenly between them. A phone scrolls down with ease, but a header of two or three letters
      names nobody: "Alice", "Bobby", "Carol" and "Dunja" beside labels 8 wide take two blocks, not one of stubs.
    * **As few names cut as possible**: a column is as wide as its values and its whole header need; where a
      block's line is too short for them all, the names that cost the least room stay whole and the others share
      what is left, the shortest first.
    * **Even columns**: room a line has left widens the narrowest columns first, up to the widest column's need,
      so the numbers stand evenly spaced and the blocks alike.
    """
    label_width = max(map(display_width, labels))
    names = [_header_name(name) for name, _ in columns]
    wholes = [display_width(name) + (len(str(names.count(name))) if names.count(name) > 1 else 0) for name in names]
    values = [max(map(display_width, column)) for _, column in columns]
    shortest = [min(whole, _shortest(name)) for whole, name in zip(wholes, names, strict=True)]
    blocks = _blocks(shortest, values, width, label_width)
    widths = _widths(blocks, wholes, shortest, values, width, label_width)
    starts = {block.start for block in blocks}
    order = sorted(range(len(columns)), key=lambda i: i if seats is None else seats[i])
    cut = _headers(names, [column + _beside(i in starts, label_width) for i, column in enumerate(widths)], order)
    headers = [isolated(header) for header in cut]
    tables = []
    for block in blocks:
        first, *others = block
        corner = label_width + 1 + widths[first]  # the first header may reach into the labels' empty corner
        lines = [_right(headers[first], corner) + "".join(" " + _right(headers[i], widths[i]) for i in others)]
        for row, label in enumerate(labels):
            cells = "".join(" " + _right(columns[i][1][row], widths[i]) for i in block)
            lines.append(label + " " * (label_width - display_width(label)) + cells)
        tables.append("```\n" + "\n".join(line.rstrip() for line in lines) + "\n```")
    return tables


def _right(text: str, width: int) -> str:
    """``text`` aligned right in ``width`` columns of a code block, measured by :func:`display_width` (an f-string
    pads by characters: a header of emoji would stand a column left of its values for each)."""
    return " " * (width - display_width(text)) + text


def _beside(first: bool, label_width: int) -> int:
    """The columns a header may take besides its own column's width (after the space every column starts with):
    the first of a block the labels' empty corner, any other one less, for the second space before it."""
    return label_width + 1 if first else -1


def _column(header: int, values: int, first: bool, label_width: int) -> int:
    """The width of a player's column for a header ``header`` columns long over values ``values`` long."""
    return max(values, header - _beside(first, label_width))


def _shortest(name: str) -> int:
    """The columns of the least a header shows of ``name``: its start up to :data:`NAME_COLUMN` letters or digits
    but one, and the ellipsis. Emoji, spaces and signs before them come on top: "🤖 N…" names no computer, and
    "🤖 Kö…2" was both "🤖 Könnyű 2" and "🤖 Közepes 2"."""
    letters = 0
    for end in range(1, len(name)):
        starts = end == 1 or starts_glyph(name, end - 1)
        letters += starts and unicodedata.category(name[end - 1])[0] in "LN"
        if letters == NAME_COLUMN - 1 and starts_glyph(name, end):
            return display_width(name[:end]) + len(CUT)
    return display_width(name) + len(CUT)


def _blocks(shortest: Sequence[int], values: Sequence[int], width: int, label_width: int) -> list[range]:
    """The players of each block: the fewest blocks whose every line fits ``width`` with each header showing at
    least its ``shortest`` columns (:func:`_shortest`, or all of a shorter name), the players shared out evenly;
    one player a block when nothing fits (a label as wide as a phone's line)."""
    count = len(shortest)
    for blocks in range(1, count + 1):
        per_block = -(-count // blocks)
        split = [range(start, min(start + per_block, count)) for start in range(0, count, per_block)]
        least = [_least(block, shortest, values, label_width) for block in split]
        if all(label_width + sum(widths) + len(widths) <= width for widths in least):
            return split
    return [range(index, index + 1) for index in range(count)]


def _least(block: range, shortest: Sequence[int], values: Sequence[int], label_width: int) -> list[int]:
    """The narrowest widths of ``block``'s columns: each header its ``shortest`` columns."""
    return [_column(shortest[i], values[i], i == block.start, label_width) for i in block]


def _widths(
    blocks: Sequence[range],
    wholes: Sequence[int],
    shortest: Sequence[int],
    values: Sequence[int],
    width: int,
    label_width: int,
) -> list[int]:
    """Every column's width, block after block, in lines ``width`` long: as many headers whole as fit (the
    cheapest first), the rest of the line to the cut ones and then to the narrowest columns (see
    :func:`card_tables`)."""
    needs = [[_column(wholes[i], values[i], i == block.start, label_width) for i in block] for block in blocks]
    widest = max(max(need) for need in needs)
    widths: list[int] = []
    for block, need in zip(blocks, needs, strict=True):
        block_widths = _least(block, shortest, values, label_width)
        spare = width - label_width - len(block) - sum(block_widths)
        for i in sorted(range(len(block)), key=lambda i: need[i] - block_widths[i]):
            if need[i] - block_widths[i] <= spare:
                spare -= need[i] - block_widths[i]
                block_widths[i] = need[i]
        cut = [need[i] - 1 if block_widths[i] < need[i] else block_widths[i] for i in range(len(block))]
        spare = _widen(block_widths, cut, spare)
        _widen(block_widths, [max(widest, column) for column in block_widths], spare)
        widths += block_widths
    return widths


def _widen(widths: list[int], limits: Sequence[int], spare: int) -> int:
    """Give ``spare`` columns to ``widths``, one at a time to the narrowest below its limit; what is left over."""
    while spare > 0:
        below = [i for i, width in enumerate(widths) if width < limits[i]]
        if not below:
            break
        widths[min(below, key=lambda i: widths[i])] += 1
        spare -= 1
    return spare


def _header_name(name: str) -> str:
    """A name as a header shows it: its letters and digits, emoji left out when letters remain (each costs a phone's
    table two or three of its 32 columns: "🤖 Easy", "🤖 Normal" and "🤖 Perfect" beside Alice took two blocks), as
    written otherwise (QA: "李小龍" and "🐉🐉" were headed "?1" and "?2"); its words one space apart (QA: "🤖 Normal
    2" was headed "Normal2"), never empty."""
    lettered = " ".join(in_code_block(_without_symbols(name)).split())
    return lettered or " ".join(in_code_block(name).split()) or "?"


def _without_symbols(name: str) -> str:
    """``name`` without its emoji and other symbols (with the joiners and presentation selectors that build them)."""
    return "".join(
        char
        for char in name
        if unicodedata.category(char) != "So"
        and char not in (ZERO_WIDTH_JOINER, EMOJI_PRESENTATION)
        and not "\U0001f3fb" <= char <= "\U0001f3ff"  # skin tones
    )


def _cut_header(name: str, width: int, suffix: str = "") -> str:
    """``name`` and then ``suffix`` (the number telling names alike apart) in ``width`` columns of a code block
    (:func:`display_width`), cut with an ellipsis when too long. A last word of digits stays after the ellipsis
    ("Norma…2"): the second computer of a level cut to "Norma…" read as the first."""
    if display_width(name + suffix) <= width:
        return name + suffix
    head, _, number = name.rpartition(" ")
    if head and number.isdigit() and not suffix and len(number) + len(CUT) < width:
        name, suffix = head, number
    return cut_to_width(name, width - len(CUT) - len(suffix)).rstrip() + CUT + suffix


def _headers(names: Sequence[str], widths: Sequence[int], order: Sequence[int] | None = None) -> list[str]:
    """Each name in its ``widths`` columns: cut with an ellipsis when too long, numbered when it could be taken for
    another (:func:`_alike`; :func:`_reads_as`, a name whole in one column and cut in a narrower one): two Bobs are
    "Bob1" and "Bob2", "Alexandrina" and "Alexandrine" cut to "Alexa…" and "Alex…" in columns of unequal width are
    "Alex…1" and "Ale…2". A number is the next one whose header no other column shows: "Bob", "Bob" and "Bob1" are
    "Bob2", "Bob3" and "Bob1". Numbers are given in ``order`` (indexes of ``names``; theirs if none)."""
    cut = [_cut_header(name, width) for name, width in zip(names, widths, strict=True)]
    groups = list(range(len(cut)))  # each header's group: the first header of those it could be taken for
    for i in range(len(cut)):
        for j in range(i):
            if (
                _alike(cut[i], cut[j])
                or _reads_as(names[i], widths[j], cut[j])
                or _reads_as(names[j], widths[i], cut[i])
            ):
                old, new = max(groups[i], groups[j]), min(groups[i], groups[j])
                groups = [new if group == old else group for group in groups]
    taken = {header for header, group in zip(cut, groups, strict=True) if groups.count(group) == 1}
    counters: dict[int, int] = {}
    numbered = list(cut)
    for i in range(len(names)) if order is None else order:
        if groups.count(groups[i]) > 1:
            numbered[i] = _cut_header(
                names[i], widths[i], str(_next_free(counters, groups[i], names[i], widths[i], taken))
            )
            taken.add(numbered[i])
    return numbered


def _reads_as(name: str, width: int, header: str) -> bool:
    """Whether ``name`` in ``width`` columns would be headed ``header``: the same name, or one shown whole beside
    its start cut in a narrower column ("Alexandra Maria" beside "Alexandr…")."""
    return _cut_header(name, width) == header


def _next_free(counters: dict[int, int], group: int, name: str, width: int, taken: set[str]) -> int:
    """The next number of ``group`` whose header for ``name`` no other column shows, counted in ``counters``."""
    number = counters.get(group, 0) + 1
    while _cut_header(name, width, str(number)) in taken:
        number += 1
    counters[group] = number
    return number


def _alike(header: str, other: str) -> bool:
    """Whether two headers could name the same player: the same, or both cut with what one shows before the
    ellipsis the start of what the other shows ("Alex…" could be the "Alexa…" beside it)."""
    if header == other:
        return True
    start, cut, end = header.partition(CUT)
    other_start, other_cut, other_end = other.partition(CUT)
    return (
        bool(cut and other_cut)
        and end == other_end
        and (start.startswith(other_start) or other_start.startswith(start))
    )
