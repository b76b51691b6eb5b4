"""The players' rules (``bot/i18n/<language>/rules.md``), one section per game, shaped for an embed.

The rules are package data read through ``importlib.resources``, so ``/rules`` works from an installed wheel as
well as from a checkout.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import discord

from bot.i18n import FALLBACK, language_of, t
from bot.ui.common import COLOUR_LOBBY, monospace_table

EMBED_DESCRIPTION_LIMIT = 4096
RULES_FILE = "rules.md"


def _rules_file(language: str) -> Traversable:
    """The rules in ``language``, or the English ones when that language has none."""
    translated = resources.files("bot.i18n") / language / RULES_FILE
    return translated if translated.is_file() else resources.files("bot.i18n") / FALLBACK / RULES_FILE


@cache
def sections(language: str) -> dict[str, str]:
    """``## Heading`` → body, for the rules in ``language`` (English when not translated)."""
    text = _rules_file(language).read_text(encoding="utf-8")
    found: dict[str, str] = {}
    for block in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = block.partition("\n")
        found[heading.strip()] = _tables_to_code(body.strip())
    return found


def _tables_to_code(markdown: str) -> str:
    """Embeds do not render Markdown tables, so turn each into an aligned monospace block."""
    out: list[str] = []
    table: list[list[str]] = []
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip().replace("`", "").replace("**", "") for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= set("-: ") for cell in cells):
                table.append(cells)
            continue
        if table:
            out.append(monospace_table(table, align_right_from=len(table[0])))
            table = []
        out.append(line)
    return "\n".join(out).strip()


def render(kind: str, locale: str) -> discord.Embed:
    """The rules of game ``kind`` in the player's language; a section that language lacks is shown in English."""
    title = t(f"game.{kind}", locale)
    english = t(f"game.{kind}", FALLBACK)
    translated = sections(language_of(locale))
    body = translated.get(title) or translated.get(english) or sections(FALLBACK).get(english, "")
    if len(body) > EMBED_DESCRIPTION_LIMIT:
        body = body[: EMBED_DESCRIPTION_LIMIT - 1] + "…"
    return discord.Embed(title=t("rules.title", locale, game=title), description=body, colour=COLOUR_LOBBY)
