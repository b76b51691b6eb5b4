"""Rendering helpers every game uses: colours, dice faces, mentions, monospace tables."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from itertools import zip_longest

import discord

DIE_FACES = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}
COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_PLAYING = discord.Colour.green()
COLOUR_OVER = discord.Colour.gold()
#: An open box, row or cell, the same in every game's card: Kniffel's "–" read like dice poker's "—", a row passed (QA).
EMPTY = "·"
COLOUR_ABANDONED = discord.Colour.dark_grey()


def faces(dice: Sequence[int]) -> str:
    """Dice as Unicode die faces, e.g. ``⚀ ⚃ ⚅``."""
    return " ".join(DIE_FACES[die] for die in dice)


def unbroken(text: str) -> str:
    """``text`` with no-break spaces, so that a phone wraps it as one word: a hint's "→ 222.1 expected", a group of
    dice in a line of words (QA: "take ⚀ ⚅ ⚅" / "⚅ and stop" read as two groups)."""
    return text.replace(" ", "\N{NO-BREAK SPACE}")


def mention(player: str | int) -> str:
    return f"<@{player}>"


def monospace_table(
    rows: Sequence[Sequence[str]], align_right_from: int = 1, align_left_from: int | None = None
) -> str:
    """Rows of cells as an aligned code block (embeds have no tables; code blocks keep columns straight).

    Columns from ``align_right_from`` on are aligned right (numbers), and from ``align_left_from`` on left again
    (a word after the numbers, such as a leaver's mark).

    Remembered by its cells: a board shows the same standings click after click (Tutto's scoreboard, the five-dice
    totals change only when someone banks or scores), and a scorecard the same rows until its player scores: a 17-row
    card took about 130 µs of CPU to align, 2–4 µs to find again (docs/benchmarks.md).
    """
    return _aligned(tuple(map(tuple, rows)), align_right_from, align_left_from)


@lru_cache(maxsize=2048)
def _aligned(rows: tuple[tuple[str, ...], ...], align_right_from: int, align_left_from: int | None) -> str:
    rows = tuple(tuple(map(in_code_block, row)) for row in rows)
    widths = [max(map(display_width, column)) for column in zip_longest(*rows, fillvalue="")]
    lines = []
    for row in rows:
        parts = []
        for i, cell in enumerate(row):
            padding = " " * (widths[i] - display_width(cell))
            right = i >= align_right_from and (align_left_from is None or i < align_left_from)
            parts.append(padding + cell if right else cell + padding)
        lines.append(" ".join(parts).rstrip())
    return "```\n" + "\n".join(lines) + "\n```"


#: The variation selector that asks for a character's emoji presentation (``❤️``): drawn two columns wide.
EMOJI_PRESENTATION = "\ufe0f"
ZERO_WIDTH_JOINER = "\u200d"


def display_width(text: str) -> int:
    """How many columns ``text`` takes in a code block, where ``len`` is wrong for names with emoji or CJK letters.

    East Asian Wide and Fullwidth characters (``unicodedata.east_asian_width`` W or F; most emoji, such as the
    computers' 🤖) take two columns, marks that join the character before (combining marks, variation selectors)
    none, a character asking for its emoji presentation (U+FE0F after it) two, and a character a zero-width joiner
    joins to the one before none (an emoji sequence such as 👩‍💻 is drawn as one).
    """
    if text.isascii():
        return len(text)
    return _wide_width(text)


@lru_cache(maxsize=4096)
def _wide_width(text: str) -> int:
    """:func:`display_width` of a text beyond ASCII (a label with an umlaut, a name with emoji), remembered: a
    cell's characters looked up one by one took five times as long as aligning an ASCII card."""
    width = last = 0  # ``last``: the columns of the character the next marks belong to
    joined = False  # after a zero-width joiner: the next emoji is drawn into the one before (👩‍💻)
    for char in text:
        if char == EMOJI_PRESENTATION and last == 1:
            width, last = width + 1, 2
        elif char == ZERO_WIDTH_JOINER:
            joined = True
        elif not (unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf")):
            if not joined:
                last = 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
                width += last
            joined = False
    return width


def cut_to_width(text: str, columns: int) -> str:
    """The longest start of ``text`` that takes at most ``columns`` columns of a code block (:func:`display_width`).

    A name cut by characters took twice its columns when it was emoji or CJK letters, and pushed a table past a
    phone's line. The cut falls only before a character that starts a new glyph, never between a letter and its
    marks or inside an emoji sequence.
    """
    if display_width(text) <= columns:
        return text
    cut = 0
    for end in range(1, len(text)):
        if display_width(text[:end]) > columns:
            break
        if starts_glyph(text, end):
            cut = end
    return text[:cut]


def starts_glyph(text: str, index: int) -> bool:
    """Whether ``text[index]`` draws a glyph of its own (not a mark, a presentation selector or a joined emoji)."""
    char = text[index]
    if text[index - 1] == ZERO_WIDTH_JOINER or char in (EMOJI_PRESENTATION, ZERO_WIDTH_JOINER):
        return False
    return not (unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"))


#: Monospace characters a code block shows per line on a 375 px phone without wrapping: the embed leaves about
#: 290 px of code block and a code font of 12-13 px draws 7.2-7.8 px a character (34-38 columns); 32 keeps a margin.
PHONE_COLUMNS = 32
#: The mark of a header cut short (one column in Discord's code font): "Norma" read as a name, "Norm…" does not.
CUT = "…"


def in_code_block(text: str) -> str:
    """``text`` as a cell of a code block: a backtick (a player's name may hold three) would end the block."""
    return text.replace("`", "'")


#: The characters that change the direction of the text after them: embeddings and overrides (U+202A to U+202E),
#: isolates (U+2066 to U+2069) and the marks (U+200E, U+200F, U+061C), which sway the punctuation beside them.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
ISOLATES = frozenset("\u2066\u2067\u2068")
FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


def isolated(name: str) -> str:
    """``name`` unable to turn the text after it around: one holding a direction control or a right-to-left letter
    is put between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, which ends every embedding and override begun
    inside (QA: a name starting with RIGHT-TO-LEFT OVERRIDE reversed the rest of "Rolling order: …") and keeps a
    Hebrew or Arabic name one unit in the line's direction (else "שלום: 25" shows the score on the name's left, and
    a line beginning with the name is taken for a right-to-left one). A stray POP DIRECTIONAL ISOLATE in the name
    would end that isolate early, so it is dropped, and an isolate the name leaves open is closed. Any other name is
    returned as it is, byte for byte (the boards measure names for a phone's width).

    Applied after a name is cut: a cut could take the closing character with it."""
    if name.isascii() or not _turns_text(name):
        return name
    kept, open_isolates = [], 0
    for char in name:
        if char in ISOLATES:
            open_isolates += 1
        elif char == POP_DIRECTIONAL_ISOLATE:
            if not open_isolates:
                continue
            open_isolates -= 1
        kept.append(char)
    return FIRST_STRONG_ISOLATE + "".join(kept) + POP_DIRECTIONAL_ISOLATE * (open_isolates + 1)


def _turns_text(name: str) -> bool:
    """Whether ``name`` holds a direction control or a right-to-left letter (Hebrew, Arabic, Syriac, Thaana…)."""
    return not BIDI_CONTROLS.isdisjoint(name) or any(unicodedata.bidirectional(char) in ("R", "AL") for char in name)


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters with an ellipsis, for Discord's field limits."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten_words(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters with an ellipsis after its last whole word that fits, for a label.

    A label cut mid-word ("Full house, F…") shows a fragment that reads as something else. Words end at ASCII
    spaces only: a no-break space binds a number's groups ("1 234" in Polish) or a figure to its unit. A text
    with no word ending in reach is cut where the limit falls.
    """
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit)  # a space right at the cut (limit - 1) means the text up to it is whole words
    words = text[:space].rstrip(" ") if space > 0 else ""
    return (words or text[: limit - 1]) + "…"
