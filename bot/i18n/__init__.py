"""Every user-facing string, looked up by message id in one catalogue per language.

Catalogues live in ``bot/i18n/<language>/*.toml`` (one file per area, merged); nested tables give dotted keys,
so ``[error] not_your_turn = "..."`` is ``error.not_your_turn``. Missing translations fall back to English,
and a key missing from English too is shown as the key itself so a gap is visible, never a crash.
"""

from __future__ import annotations

import logging
import tomllib
from functools import cache
from importlib import resources
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger(__name__)

FALLBACK = "en"


def language_of(locale: str | discord.Locale | None) -> str:
    """Map a Discord locale (``en-US``, ``de``, ``pt-BR``) to a catalogue language code."""
    text = str(locale.value if isinstance(locale, discord.Locale) else locale or FALLBACK)
    return text.split("-")[0].lower()


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


@cache
def catalogue(language: str) -> dict[str, str]:
    """All messages of one language, merged from its files; empty for a language we do not ship."""
    folder = resources.files("bot.i18n") / language
    if not folder.is_dir():
        return {}
    merged: dict[str, str] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".toml"):
            for key, text in _flatten(tomllib.loads(entry.read_text(encoding="utf-8"))).items():
                if key in merged:
                    raise ValueError(f"message id {key!r} is defined twice in the {language} catalogue")
                merged[key] = text
    return merged


def has(key: str) -> bool:
    """Whether the English catalogue defines ``key`` (used for optional messages such as per-card rules)."""
    return key in catalogue(FALLBACK)


def t(key: str, locale: str | discord.Locale | None = None, /, **params: Any) -> str:
    """The message ``key`` in ``locale`` with ``{placeholders}`` filled from ``params``."""
    text = catalogue(language_of(locale)).get(key) or catalogue(FALLBACK).get(key)
    if text is None:
        log.warning("missing message id %s", key)
        return key
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        log.warning("message id %s does not fit its parameters %s", key, sorted(params))
        return text


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
        return catalogue(language).get(key)
