"""Every localized command, option and choice obeys Discord's rules, so a sync is never rejected.

discord.py does not check localizations; Discord refuses the whole sync for one bad name. The payloads here are
the ones ``tree.sync`` sends, built offline with our translator from the real cogs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot import registry
from bot.i18n import FALLBACK, CatalogueTranslator, catalogue, languages, number
from bot.play.spec import AnySpec
from bot.play.transitions import most_opponents

DESCRIPTION_LIMIT = 100
NAME_LIMIT = 32
TRANSLATED = [language for language in languages() if language != FALLBACK]
#: Languages are offered under their own names (Deutsch, Magyar...) in every locale, on purpose.
ENDONYMS = {str(catalogue(language)["language.name"]) for language in languages()}


def valid_name(name: str) -> bool:
    """Discord's ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, lowercase where a letter has a lowercase."""
    allowed = all(unicodedata.category(char)[0] in "LN" or char in "-_'" for char in name)
    return allowed and 1 <= len(name) <= NAME_LIMIT and name == name.lower()


async def payloads() -> list[dict[str, Any]]:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    bot.service = SimpleNamespace(specs=registry.load_specs())  # type: ignore[attr-defined]
    bot.db = None  # type: ignore[attr-defined]
    for extension in registry.extensions():
        await bot.load_extension(extension)
    translator = CatalogueTranslator()
    return [await command.get_translated_payload(bot.tree, translator) for command in bot.tree.get_commands()]


def walk(payload: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every command, subcommand and option payload, with a readable path."""
    here = f"{path} {payload['name']}".strip()
    yield here, payload
    for option in payload.get("options", []):
        yield from walk(option, here)


def localized(payload: dict[str, Any], field: str) -> dict[str, str]:
    return {"": payload[field], **(payload.get(f"{field}_localizations") or {})}


async def test_every_name_and_description_fits_discord_in_every_locale() -> None:
    bad = []
    for top in await payloads():
        for path, item in walk(top):
            for locale, name in localized(item, "name").items():
                if not valid_name(name):
                    bad.append(f"{path} name[{locale}] {name!r}")
            if "description" in item:
                for locale, text in localized(item, "description").items():
                    if not 1 <= len(text) <= DESCRIPTION_LIMIT:
                        bad.append(f"{path} description[{locale}] has {len(text)} characters")
            for choice in item.get("choices", []):
                for locale, text in localized(choice, "name").items():
                    if not 1 <= len(text) <= DESCRIPTION_LIMIT:
                        bad.append(f"{path} choice[{locale}] {text!r}")
    assert bad == []


async def test_every_command_option_and_choice_is_localized_in_every_language() -> None:
    untranslated = []
    for top in await payloads():
        for path, item in walk(top):
            fields = ["name", "description"] if "description" in item else ["name"]
            for field in fields:
                have = item.get(f"{field}_localizations") or {}
                untranslated += [f"{path} {field} {lang}" for lang in TRANSLATED if lang not in have]
            for choice in item.get("choices", []):
                if choice["name"] in ENDONYMS:
                    continue
                have = choice.get("name_localizations") or {}
                untranslated += [f"{path} choice {choice['value']} {lang}" for lang in TRANSLATED if lang not in have]
    assert untranslated == []


@pytest.mark.parametrize("language", TRANSLATED)
async def test_names_stay_unique_among_siblings_after_translation(language: str) -> None:
    """Two subcommands or options translated to the same word would make Discord refuse the sync."""
    clashes = []
    tops = await payloads()
    for level in [tops, *[item.get("options", []) for top in tops for _, item in walk(top)]]:
        names = [(item.get("name_localizations") or {}).get(language, item["name"]) for item in level]
        clashes += sorted({name for name in names if names.count(name) > 1})
    assert clashes == []


async def test_english_catalogue_matches_the_default_texts_in_the_code() -> None:
    """The code's default text is what English users see; the English catalogue is what translators read."""
    english = catalogue(FALLBACK)
    seen: dict[str, str] = {}
    keyless: list[str] = []

    class Recorder(app_commands.Translator):
        async def translate(
            self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
        ) -> str | None:
            if "key" in string.extras:
                seen[string.extras["key"]] = string.message
            elif string.message not in ENDONYMS:
                keyless.append(string.message)
            return None

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    bot.service = SimpleNamespace(specs=registry.load_specs())  # type: ignore[attr-defined]
    bot.db = None  # type: ignore[attr-defined]
    for extension in registry.extensions():
        await bot.load_extension(extension)
    for command in bot.tree.get_commands():
        await command.get_translated_payload(bot.tree, Recorder())
    assert len(seen) > 40
    assert keyless == []
    differing = {key: text for key, text in seen.items() if english.get(key) != text}
    # Choice names may be shown capitalised in the catalogue (they are labels, not command names).
    assert {key: text for key, text in differing.items() if str(english.get(key, "")).lower() != text.lower()} == {}


def accepted_ranges(spec: AnySpec) -> dict[str, tuple[int, int]]:
    """What the game accepts for each integer option of ``/<game> start``, by the option's command name."""
    timeout = spec.option_fields.get("timeout", "timeout")
    low, high = spec.timeout_minutes[1:]
    return {timeout: (low, high), "opponents": (0, most_opponents(spec)), **spec.option_ranges}


async def test_every_start_option_declares_and_describes_the_range_its_game_accepts() -> None:
    """QA: /würfelpoker start promised "gegner (0–7)" and let Discord send 7, which the game refused as "0–5":
    Discord's min/max and every language's description say what the game takes."""
    specs = registry.load_specs()
    wrong = []
    for top in await payloads():
        if top["name"] not in specs:
            continue
        ranges = accepted_ranges(specs[top["name"]])
        start = next(option for option in top["options"] if option["name"] == "start")
        integer = discord.AppCommandOptionType.integer.value
        integers = [option for option in start["options"] if option["type"] == integer]
        assert sorted(option["name"] for option in integers) == sorted(ranges), top["name"]
        for option in integers:
            low, high = ranges[option["name"]]
            path = f"{top['name']} start {option['name']}"
            if (option.get("min_value"), option.get("max_value")) != (low, high):
                wrong.append(f"{path} declares {option.get('min_value')}–{option.get('max_value')}, takes {low}–{high}")
            for locale, text in localized(option, "description").items():
                said = f"{number(low, locale or FALLBACK)}–{number(high, locale or FALLBACK)}"
                if said not in text:
                    wrong.append(f"{path} description[{locale}] {text!r} does not say {said!r}")
    assert wrong == []


#: A slash command a text names: ``/statistik``, not the ``/`` of "Roll 3/3" or a placeholder like ``/<game>``.
NAMED_COMMAND = re.compile(r"(?<![\w/])/([^\W\d][\w-]*)")


async def test_a_text_names_each_command_as_its_language_lists_it() -> None:
    """QA: German texts named ``/stats`` and ``/leaderboard``, which a German player's command list shows as
    ``/statistik`` and ``/bestenliste``: every command a message names is one of its language's top-level commands."""
    commands_of = {language: set() for language in languages()}
    for payload in await payloads():
        for locale, name in localized(payload, "name").items():
            commands_of[locale.split("-")[0] or FALLBACK].add(name)
    unknown = [
        f"{language} {key}: /{name}"
        for language in languages()
        for key, text in catalogue(language).items()
        for name in NAMED_COMMAND.findall(str(text))
        if name not in commands_of[language]
    ]
    assert unknown == []
