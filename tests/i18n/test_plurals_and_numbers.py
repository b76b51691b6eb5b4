"""Plural forms and numbers come from CLDR (Babel); Discord locales map to the catalogue a player can read."""

from __future__ import annotations

import re

import discord
import pytest

from bot.engine import tutto
from bot.i18n import (
    CatalogueTranslator,
    catalogue,
    game_locale,
    language_of,
    listing,
    number,
    percent,
    plural_category,
    t,
)

NBSP = "\xa0"


@pytest.mark.parametrize(
    ("locale", "language"),
    [
        ("de", "de"),
        (discord.Locale.german, "de"),
        ("hu", "hu"),
        (discord.Locale.hungarian, "hu"),
        ("pl", "pl"),
        (discord.Locale.polish, "pl"),
        ("en-US", "en"),
        ("en-GB", "en"),
        (discord.Locale.brazil_portuguese, "en"),
        ("pt-BR", "en"),
        ("es-419", "en"),
        ("zh-TW", "en"),
        (None, "en"),
    ],
)
def test_discord_locales_map_to_a_shipped_catalogue(locale: str | discord.Locale | None, language: str) -> None:
    assert language_of(locale) == language


@pytest.mark.parametrize(
    ("count", "category"), [(1, "one"), (2, "few"), (4, "few"), (5, "many"), (12, "many"), (22, "few"), (0, "many")]
)
def test_polish_plural_categories_come_from_cldr(count: int, category: str) -> None:
    assert plural_category(count, "pl") == category


@pytest.mark.parametrize(
    ("count", "text"), [(1, "1 gra"), (2, "2 gry"), (5, "5 gier"), (22, "22 gry"), (25, "25 gier"), (112, "112 gier")]
)
def test_polish_games_take_the_right_form(count: int, text: str) -> None:
    assert t("leaderboard.games", "pl", count=count) == text.replace(" ", "\u00a0")


@pytest.mark.parametrize(("language", "one", "many"), [("en", "1 game", "5 games"), ("de", "1 Spiel", "5 Spiele")])
def test_one_and_other(language: str, one: str, many: str) -> None:
    shown = (t("leaderboard.games", language, count=1), t("leaderboard.games", language, count=5))
    assert shown == (one.replace(" ", "\u00a0"), many.replace(" ", "\u00a0"))


def test_hungarian_nouns_stay_singular_after_a_number() -> None:
    assert t("leaderboard.games", "hu", count=1) == "1\u00a0játék"
    assert t("leaderboard.games", "hu", count=7) == "7\u00a0játék"


@pytest.mark.parametrize(("language", "text"), [("en", "6,000"), ("de", "6.000"), ("hu", f"6{NBSP}000")])
def test_thousands_are_grouped_the_language_way(language: str, text: str) -> None:
    assert number(6000, language) == text


def test_integer_parameters_are_formatted_for_the_language() -> None:
    assert t("tutto.title", "de", game="Tutto", target=6000) == "Tutto — bis 6.000 Punkte"
    assert t("tutto.title", "en-US", game="Tutto", target=6000) == "Tutto — first to 6,000"


def test_signed_and_decimal_figures() -> None:
    assert number(16.666, "de", signed=True, decimals=2) == "+16,67"
    assert number(-0.5, "en", signed=True, decimals=2) == "−0.5"
    assert number(12, "hu", decimals=1, exact=True) == "12,0"
    assert percent(0.5, "en") == "50%"
    assert percent(0.5, "de") == f"50{NBSP}%"


@pytest.mark.parametrize(
    ("language", "text"), [("en", "−1,234.5"), ("de", "−1.234,5"), ("hu", f"−1{NBSP}234,5"), ("pl", f"−1{NBSP}234,5")]
)
def test_negatives_take_the_minus_sign_in_every_language(language: str, text: str) -> None:
    """Babel writes CLDR's hyphen-minus for these languages; the bot's texts (and dice poker's board) write U+2212."""
    assert number(-1234.5, language, decimals=1) == text
    assert number(-1234.5, language, signed=True, decimals=1) == text
    assert t("tutto.title", language, game="Tutto", target=-6000).count("−6") == 1  # integer parameters too


def test_zero_has_no_sign_even_when_rounded_to() -> None:
    assert number(0, "en", signed=True) == "0"
    assert number(-0.001, "en", signed=True, decimals=2) == "0"
    assert number(-0.04, "de", decimals=1, exact=True) == "0,0"
    assert number(-103, "en", signed=True, decimals=2) == "−103"  # a whole total shows no decimals


def test_an_unsupported_locale_reads_english_and_formats_numbers_the_english_way() -> None:
    assert t("tutto.title", "pt-BR", game="Tutto", target=6000) == "Tutto — first to 6,000"


async def test_command_localizations_come_from_the_catalogue() -> None:
    translator = CatalogueTranslator()
    name = discord.app_commands.locale_str("rules", key="cmd.rules.name")
    context = discord.app_commands.TranslationContext(discord.app_commands.TranslationContextLocation.other, None)
    assert await translator.translate(name, discord.Locale.german, context) == "regeln"
    assert await translator.translate(name, discord.Locale.polish, context) == "zasady"
    assert await translator.translate(name, discord.Locale.american_english, context) is None
    assert await translator.translate(name, discord.Locale.brazil_portuguese, context) is None


@pytest.mark.parametrize(
    ("chosen", "guild", "user", "expected"),
    [
        ("pl", "hu", "de", "pl"),
        (None, "hu", "de", "hu"),
        (None, discord.Locale.german, "pl", "de"),
        (None, None, "pl", "pl"),
        (None, None, None, "en"),
        ("xx", "hu", "de", "hu"),  # a choice no catalogue ships, stored by a forged command before it was refused
    ],
)
def test_a_games_language_is_the_servers_choice_then_its_locale_then_the_openers(
    chosen: str | None, guild: str | discord.Locale | None, user: str | None, expected: str
) -> None:
    assert game_locale(chosen, guild, user) == expected


@pytest.mark.parametrize(
    ("locale", "games", "shown"),
    [
        ("en", 1, "Upper bonus in 1 of 1 game (100%)"),
        ("en", 2, "Upper bonus in 1 of 2 games (100%)"),
        ("de", 1, "Bonus oben: 1 von 1 Spiel (100%)"),
        ("pl", 1, "Premia z góry: 1 z 1 gry (100%)"),
        ("pl", 3, "Premia z góry: 1 z 3 gier (100%)"),
        ("hu", 1, "Felső bónusz 1 játékból 1 alkalommal (100%)"),
    ],
)
def test_the_kniffel_stats_count_their_games_in_the_right_form(locale: str, games: int, shown: str) -> None:
    """The games choose the plural, not the bonuses: "1 of 1 games", "1/1 gier" were wrong."""
    assert t("stats.kniffel", locale, count=games, bonus=1, rate="100%", kniffels=0).startswith(shown)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Kniffels scored **2**"),
        ("de", "Kniffel eingetragen **2**"),
        ("hu", "Beírt kniffelek **2**"),
        ("pl", "Zapisane Kniffle **2**"),
    ],
)
def test_stats_count_the_kniffels_scored_not_every_five_of_a_kind_rolled(language: str, text: str) -> None:
    """The counter is Kniffels scored for 50 and extra-Kniffel bonuses; one put elsewhere after a 0 is not."""
    assert t("stats.kniffel_classic", language, kniffels=2) == text


LITERAL_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:[,. \xa0]\d{3})+(?![\w])|(?<![\w.,])\d{4,}(?![\w])")


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_numbers_in_catalogue_texts_are_written_as_the_boards_write_them(language: str) -> None:
    """A card rule or help line says "+2,000" / "6.000" like the board beside it, never "+2000"."""
    found = [
        (key, literal)
        for key, message in catalogue(language).items()
        for text in (message.values() if isinstance(message, dict) else [str(message)])
        for literal in LITERAL_NUMBER.findall(text)
        if literal != number(int(re.sub(r"\D", "", literal)), language)
    ]
    assert found == []


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_tutto_card_rules_write_their_points_as_the_board(language: str) -> None:
    street = t("tutto.rule.street", language, **tutto.card_rule("street")[1])
    assert number(2000, language, signed=True) in street
    plus_minus = t("tutto.rule.plus_minus", language, **tutto.card_rule("plus_minus")[1])
    assert number(1000, language) in plus_minus


@pytest.mark.parametrize(
    ("locale", "two", "three"),
    [
        ("en-US", "Bob and Alice", "Bob, Alice, and Carol"),
        ("de", "Bob und Alice", "Bob, Alice und Carol"),
        ("hu", "Bob és Alice", "Bob, Alice és Carol"),
        ("pl", "Bob i Alice", "Bob, Alice i Carol"),
        ("pt-BR", "Bob and Alice", "Bob, Alice, and Carol"),
    ],
)
def test_names_in_a_sentence_are_joined_with_the_languages_and(locale: str, two: str, three: str) -> None:
    """A list of names in a sentence ends with "and" as the language writes it, never with a comma alone."""
    assert listing(["Bob"], locale) == "Bob"
    assert listing(["Bob", "Alice"], locale) == two
    assert listing(iter(["Bob", "Alice", "Carol"]), locale) == three
