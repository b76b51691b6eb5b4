"""Rendering helpers every game uses: colours, dice faces, mentions, monospace tables."""

from __future__ import annotations

from collections.abc import Sequence

import discord

DIE_FACES = {1: "⚀", 2: "⚁", 3: "⚂", 4: "⚃", 5: "⚄", 6: "⚅"}
COLOUR_LOBBY = discord.Colour.blurple()
COLOUR_PLAYING = discord.Colour.green()
COLOUR_OVER = discord.Colour.gold()
COLOUR_ABANDONED = discord.Colour.dark_grey()


def faces(dice: Sequence[int]) -> str:
    """Dice as Unicode die faces, e.g. ``⚀ ⚃ ⚅``."""
    return " ".join(DIE_FACES[die] for die in dice)


def mention(player: str | int) -> str:
    return f"<@{player}>"


def monospace_table(rows: Sequence[Sequence[object]], align_right_from: int = 1) -> str:
    """Rows of cells as an aligned code block (embeds have no tables; code blocks keep columns straight)."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells if i < len(row)) for i in range(max(len(row) for row in cells))]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(widths[i]) if i >= align_right_from else cell.ljust(widths[i]) for i, cell in enumerate(row)
        ]
        lines.append(" ".join(parts).rstrip())
    return "```\n" + "\n".join(lines) + "\n```"


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters with an ellipsis, for Discord's field limits."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
