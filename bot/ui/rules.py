"""The players' rules (docs/rules.md), one section per game, shaped for an embed."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import discord

from bot.i18n import language_of, t
from bot.ui.common import COLOUR_LOBBY, monospace_table

DOCS = Path(__file__).resolve().parents[2] / "docs"
EMBED_DESCRIPTION_LIMIT = 4096


def _rules_file(language: str) -> Path:
    translated = DOCS / f"rules.{language}.md"
    return translated if translated.exists() else DOCS / "rules.md"


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
    title = t(f"game.{kind}", locale)
    body = sections(language_of(locale)).get(title) or sections(language_of(locale)).get(t(f"game.{kind}", "en"), "")
    if len(body) > EMBED_DESCRIPTION_LIMIT:
        body = body[: EMBED_DESCRIPTION_LIMIT - 1] + "…"
    return discord.Embed(title=t("rules.title", locale, game=title), description=body, colour=COLOUR_LOBBY)
