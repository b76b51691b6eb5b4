"""Every user-facing string, looked up by message id in one catalogue per language.

Catalogues live in ``bot/i18n/<language>/*.toml`` (one folder per language, one file per area, merged; a key
defined twice is refused). Nested tables give dotted keys, so ``[error] not_your_turn = "..."`` is
``error.not_your_turn``. A message that depends on a number is a table of CLDR plural categories,
``removed = { one = "...", few = "...", many = "...", other = "..." }``, chosen by the ``count`` parameter
through Babel, so Polish (one/few/many) and Hungarian need no hand-written rules. Integer parameters are shown
with the language's digit grouping (6,000 / 6.000 / 6 000). Missing translations fall back to English, and a key
missing from English too is shown as the key itself so a gap is visible, never a crash.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import discord
from babel import Locale
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent
from discord import app_commands

log = logging.getLogger(__name__)

FALLBACK = "en"
#: The sign of every negative number the bot writes (``number``), in every language.
MINUS = "\u2212"
#: The CLDR plural categories; a table whose keys are only these (and include ``other``) is one plural message.
PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})

#: A catalogue entry: plain text, or the text per plural category.
Message = str | Mapping[str, str]


def is_plural(message: object) -> bool:
    """Whether a catalogue value is a plural table rather than a section of further keys."""
    return isinstance(message, Mapping) and "other" in message and set(message) <= PLURAL_CATEGORIES


@cache
def languages() -> tuple[str, ...]:
    """The languages we ship: every folder of ``bot/i18n`` that holds a catalogue, English first."""
    root = resources.files("bot.i18n")
    found = sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and any(item.name.endswith(".toml") for item in entry.iterdir())
    )
    return (FALLBACK, *(name for name in found if name != FALLBACK))


@lru_cache(maxsize=256)
def language_of(locale: str | discord.Locale | None) -> str:
    """The catalogue for a Discord locale: its own folder (``de``, ``pt-BR``) if we ship one, else English.

    Regional variants never borrow another region's catalogue: ``pt-BR`` is English until a ``pt-BR`` folder
    exists, even if a ``pt`` one did. English covers ``en-US`` and ``en-GB``. Remembered per locale: rendering a
    board asks it for every text on it.
    """
    text = str(locale.value if isinstance(locale, discord.Locale) else locale or FALLBACK)
    by_lower = {name.lower(): name for name in languages()}
    return by_lower.get(text.lower(), FALLBACK)


def game_locale(
    chosen: str | None, guild_locale: str | discord.Locale | None, user_locale: str | discord.Locale | None
) -> str:
    """The language of a new game's public messages, kept for the whole game.

    The server's ``/settings language`` choice, else the server's preferred locale (Community servers set it),
    else the locale of the user who opened the game (outside a server). A stored choice no catalogue ships (written
    by a forged command before it was refused) counts as none.
    """
    if chosen in languages():
        return str(chosen)
    found = guild_locale if guild_locale is not None else user_locale
    return str(found.value if isinstance(found, discord.Locale) else found or FALLBACK)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Message]:
    flat: dict[str, Message] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if is_plural(value):
            flat[name] = {category: str(text) for category, text in value.items()}
        elif isinstance(value, Mapping):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


def load(folder: Traversable) -> dict[str, Message]:
    """The messages of one language folder, merged from its ``*.toml`` files; a key defined twice is refused."""
    merged: dict[str, Message] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".toml"):
            for key, text in _flatten(tomllib.loads(entry.read_text(encoding="utf-8"))).items():
                if key in merged:
                    raise ValueError(f"message id {key!r} is defined twice in {folder.name}/ ({entry.name})")
                merged[key] = text
    return merged


@cache
def catalogue(language: str) -> dict[str, Message]:
    """All messages of one language; empty for a language we do not ship."""
    folder = resources.files("bot.i18n") / language
    return load(folder) if folder.is_dir() else {}


@cache
def _babel_locale(language: str) -> Locale:
    return Locale.parse(language.replace("-", "_"))


def plural_category(count: float, locale: str | discord.Locale | None) -> str:
    """The CLDR plural category (``one``, ``few``, ``many``, ``other``...) of ``count`` in the locale's language."""
    return _plural(count, language_of(locale))


@lru_cache(maxsize=1024, typed=True)
def _plural(count: float, language: str) -> str:
    """Babel's plural rule, remembered per count and language: it evaluates the CLDR rule's operands in Python,
    about 15 µs a call, for every message with a count (roll counts, dice in hand) on every board. ``typed``,
    since CLDR tells ``1`` from ``1.0``."""
    return str(_babel_locale(language).plural_form(abs(count)))


def number(
    value: float, locale: str | discord.Locale | None, *, signed: bool = False, decimals: int = 0, exact: bool = False
) -> str:
    """``value`` written the language's way: grouping (6,000 / 6.000 / 6 000) and decimal sign.

    ``decimals`` is the most fraction digits shown, trailing zeros dropped unless ``exact``; ``signed`` adds ``+``
    to positives. A negative takes the minus sign U+2212 in every language, as the catalogues' own texts do
    ("−3", a review's "−1.5"): CLDR's sign for English, German, Hungarian and Polish, which Babel writes, is
    the hyphen-minus, and a board and /stats wrote the same settlement both ways. Zero, and a value that rounds
    to it, has no sign: "+0" or "−0.0" would say something it is not.
    """
    return _formatted(value, language_of(locale), signed, decimals, exact)


@lru_cache(maxsize=4096, typed=True)
def _formatted(value: float, language: str, signed: bool, decimals: int, exact: bool) -> str:
    """Babel's formatting, remembered: a board shows dozens of numbers (scores, totals) and Babel parses the pattern
    and rounds through ``Decimal`` each time (a third of rendering a Kniffel board, docs/benchmarks.md)."""
    fraction = "." + ("0" if exact else "#") * decimals if decimals else ""
    digits = f"#,##0{fraction}"
    if round(value, decimals) == 0:
        value, signed = 0, False
    pattern = f"{'+' if signed else ''}{digits};{MINUS}{digits}"
    return format_decimal(value, format=pattern, locale=_babel_locale(language))


def percent(value: float, locale: str | discord.Locale | None) -> str:
    """A share (0.5) as a whole percentage the language's way (50 % / 50%)."""
    return format_percent(value, locale=_babel_locale(language_of(locale)))


def alternatives(prefix: str, choices: Iterable[str], locale: str | discord.Locale | None) -> str:
    """What an option may be, as a refusal names it: each choice's catalogue name under ``prefix``, between
    slashes ("Leicht / Normal / Perfekt")."""
    return " / ".join(t(f"{prefix}.{choice}", locale) for choice in choices)


def listing(items: Iterable[str], locale: str | discord.Locale | None) -> str:
    """Names joined into a sentence the language's way: "Bob and Alice", "Bob, Alice und Carol", "Bob i Alice".

    Commas alone ("Bob, Alice buy the next round") read as an unfinished sentence; CLDR knows each language's
    "and" and whether a comma comes before it (English's serial comma, none in German, Hungarian or Polish).
    For names in a sentence only: a table's column or a label's sequence keeps its own separators.
    """
    return _listed(tuple(items), language_of(locale))


@lru_cache(maxsize=1024)
def _listed(items: tuple[str, ...], language: str) -> str:
    """Babel's list pattern, remembered: a finished board names its winners on every render."""
    return format_list(list(items), locale=_babel_locale(language))


def has(key: str) -> bool:
    """Whether the English catalogue defines ``key`` (used for optional messages such as per-card rules)."""
    return key in catalogue(FALLBACK)


def _shown(value: Any, language: str) -> Any:
    """A parameter as the message shows it: integers (not booleans) written the language's way."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _formatted(value, language, False, 0, False)
    return value


class _Unfit(Exception):
    """A message shown with a gap (its key, or its unfilled text) and the warnings that say why.

    Raised rather than returned so that :func:`_remembered` never keeps it: ``lru_cache`` does not remember an
    exception, so every render of a missing or misfitting message logs its warning again (the rendering tests
    assert that none is logged while they render).
    """

    def __init__(self, shown: str, warnings: list[tuple[Any, ...]]) -> None:
        super().__init__(shown)
        self.shown = shown
        self.warnings = warnings


def _fill(key: str, language: str, params: Mapping[str, Any]) -> str:
    """The message ``key`` in ``language`` filled from ``params``, or :class:`_Unfit`."""
    message = catalogue(language).get(key) or catalogue(FALLBACK).get(key)
    if message is None:
        raise _Unfit(key, [("missing message id %s", key)])
    warnings: list[tuple[Any, ...]] = []
    if not isinstance(message, str):
        count = params.get("count")
        if not isinstance(count, int | float):
            warnings.append(("plural message id %s needs a numeric count", key))
            count = 0
        message = message.get(_plural(count, language)) or message["other"]
    try:
        shown = message.format(**{name: _shown(value, language) for name, value in params.items()})
    except (KeyError, IndexError, ValueError):
        warnings.append(("message id %s does not fit its parameters %s", key, sorted(params)))
        shown = message
    if warnings:
        raise _Unfit(shown, warnings)
    return shown


@lru_cache(maxsize=8192, typed=True)
def _remembered(key: str, language: str, /, **params: Any) -> str:
    """:func:`_fill`, remembered per key, language and parameters (``typed``: ``True`` is not ``1``)."""
    return _fill(key, language, params)


def t(key: str, locale: str | discord.Locale | None = None, /, **params: Any) -> str:
    """The message ``key`` in ``locale`` with ``{placeholders}`` filled from ``params``.

    A plural message picks its form by ``params["count"]``; integers are formatted for the language.
    Every text of every board comes through here, and a board asks for the same texts on every click (its title,
    turn line, buttons, the points at risk), so a filled message is remembered: looking it up, choosing the plural
    and formatting it again was about a quarter of rendering a Tutto board (docs/benchmarks.md). Parameters that
    cannot be hashed (a list) are filled without remembering; a message that is missing or does not fit its
    parameters is never remembered, so it logs its warning on every call.
    """
    language = language_of(locale)
    try:
        try:
            return _remembered(key, language, **params)
        except TypeError:  # an unhashable parameter; a TypeError of the format itself is raised again below
            return _fill(key, language, params)
    except _Unfit as unfit:
        for warning in unfit.warnings:
            log.warning(*warning)
        return unfit.shown


def localized(default: str, string: app_commands.locale_str | None, locale: str | discord.Locale | None) -> str:
    """A command's name or description as a user in ``locale`` sees it (for texts that list commands, like /help)."""
    key = string.extras.get("key") if string is not None else None
    message = catalogue(language_of(locale)).get(key) if key else None
    return message if isinstance(message, str) else default


class CatalogueTranslator(app_commands.Translator):
    """Localizes command names, descriptions and choices from the same catalogues.

    Commands declare ``locale_str("english text", key="...")``; Discord gets a localization for every
    shipped language that translates that key. English is the default text itself.
    """

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
    ) -> str | None:
        key = string.extras.get("key")
        language = language_of(locale)
        if key is None or language == FALLBACK:
            return None
        text = catalogue(language).get(key)
        return text if isinstance(text, str) else None
