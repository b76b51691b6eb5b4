"""The translator's check: what a language lacks or gets wrong compared with English.

Run ``python -m bot.i18n.check [language ...]`` (every shipped language by default). It lists keys English has
and the language lacks, keys the language has and English does not, messages whose ``{placeholders}`` differ,
plural messages without exactly the language's CLDR categories, and a missing or differently sectioned
players' rules text. Exit code 0 when nothing is wrong, 1 when something is, 2 for an unknown language.
"""

from __future__ import annotations

import re
import string
import sys
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path

from babel import Locale

from bot.i18n import FALLBACK, Message, catalogue, languages

#: The English rules: moving to ``bot/i18n/en/rules.md``; ``docs/rules.md`` until then.
DOCS_RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def placeholders(message: Message) -> set[str]:
    """The ``{names}`` a message uses; for a plural message, those of all its forms together."""
    texts = message.values() if isinstance(message, Mapping) else [message]
    return {field for text in texts for _, field, _, _ in string.Formatter().parse(text) if field}


def plural_categories(language: str) -> set[str]:
    """The CLDR plural categories a language's plural messages must give (``other`` always)."""
    return {*Locale.parse(language.replace("-", "_")).plural_form.tags, "other"}


def rules_text(language: str) -> str | None:
    """The players' rules of a language as shipped, or None when there are none."""
    found = resources.files("bot.i18n") / language / "rules.md"
    if found.is_file():
        return found.read_text(encoding="utf-8")
    if language == FALLBACK and DOCS_RULES.is_file():
        return DOCS_RULES.read_text(encoding="utf-8")
    return None


def rules_sections(text: str) -> list[str]:
    """The ``## `` headings of a rules text, in order: one per game."""
    return re.findall(r"^## (.+?)\s*$", text, flags=re.MULTILINE)


def message_problems(language: str) -> list[str]:
    """Keys missing or extra, placeholders that differ, plural forms that do not fit the language."""
    return compare(catalogue(FALLBACK), catalogue(language), language)


def compare(english: Mapping[str, Message], other: Mapping[str, Message], language: str) -> list[str]:
    """What ``other`` (a catalogue in ``language``) lacks or gets wrong compared with ``english``."""
    problems = [f"missing: {key}" for key in sorted(set(english) - set(other))]
    problems += [f"not in English: {key}" for key in sorted(set(other) - set(english))]
    wanted = plural_categories(language)
    for key in sorted(set(english) & set(other)):
        source, text = english[key], other[key]
        if isinstance(source, Mapping) != isinstance(text, Mapping):
            kind = "a plural table" if isinstance(source, Mapping) else "plain text"
            problems.append(f"{key}: must be {kind} as in English")
        elif isinstance(text, Mapping) and set(text) != wanted:
            problems.append(f"{key}: plural forms {sorted(text)}, {language} needs {sorted(wanted)}")
        theirs, ours = sorted(placeholders(source)), sorted(placeholders(text))
        if theirs != ours:
            problems.append(f"{key}: placeholders {ours}, English has {theirs}")
        forms = list(text.values()) if isinstance(text, Mapping) else [text]
        if any(not form.strip() for form in forms):
            problems.append(f"{key}: empty text")
    return problems


def rules_problems(language: str) -> list[str]:
    """A missing rules text, or one whose game sections differ from English's (same games, same order).

    A section is found by the game's name, so each heading must be the language's ``game.<kind>`` text.
    """
    english, text = rules_text(FALLBACK), rules_text(language)
    if text is None:
        return [f"missing: bot/i18n/{language}/rules.md"]
    if english is None:
        return []
    games = {message: key for key, message in catalogue(FALLBACK).items() if key.startswith("game.")}
    wanted = [str(catalogue(language).get(games.get(heading, ""), heading)) for heading in rules_sections(english)]
    found = rules_sections(text)
    if found != wanted:
        return [f"rules.md has the sections {found}, wanted {wanted} (English's games, named as game.<kind>)"]
    return []


def problems(language: str) -> list[str]:
    """Everything a translator still has to do for ``language``."""
    return [*message_problems(language), *rules_problems(language)]


def main(argv: Sequence[str] | None = None) -> int:
    chosen = list(sys.argv[1:] if argv is None else argv) or [name for name in languages() if name != FALLBACK]
    unknown = [name for name in chosen if name not in languages()]
    if unknown:
        print(f"unknown language {unknown[0]!r}: make the folder bot/i18n/{unknown[0]}/ first", file=sys.stderr)
        return 2
    failed = False
    for language in chosen:
        found = problems(language)
        failed = failed or bool(found)
        print(f"{language}: {'complete' if not found else f'{len(found)} problem(s)'}")
        for problem in found:
            print(f"  {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
