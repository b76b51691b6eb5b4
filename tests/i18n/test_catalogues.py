"""Every shipped language is complete: same keys, same placeholders, the right plural forms, a rules text."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from pathlib import Path

import pytest

from bot import registry
from bot.i18n import FALLBACK, catalogue, check, languages, load, t
from bot.i18n.check import compare, main, placeholders, problems, rules_sections, rules_text

TRANSLATIONS = [language for language in languages() if language != FALLBACK]
#: Counts that reach every CLDR category of our languages (Polish few 2–4/22, many 5/12, other 1.5).
COUNTS = (0, 1, 2, 3, 5, 12, 22, 1000, 1.5)


def test_we_ship_german_hungarian_and_polish() -> None:
    assert languages() == ("en", "de", "hu", "pl")


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_language_is_complete(language: str) -> None:
    assert problems(language) == []


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_rules_text_has_one_section_per_game_in_the_english_order(language: str) -> None:
    english, text = rules_text(FALLBACK), rules_text(language)
    assert english is not None and text is not None
    sections = rules_sections(text)
    assert len(sections) == len(rules_sections(english)) == 4
    assert sections == [t(f"game.{kind}", language) for kind in registry.load_specs()]


#: How the rules texts once spoke of the project and its sources, which players neither know nor need.
BEHIND_THE_SCENES = re.compile(
    r"project|source rulebook|Projekt|Vorlage|projekt|szabálykönyv|Oryginalne zasady|Decyzja projektu", re.IGNORECASE
)


@pytest.mark.parametrize("language", languages())
def test_rules_text_speaks_of_the_game_not_of_the_project(language: str) -> None:
    """QA: /tutto rules said "Project decision: …" and dice poker's "The source rulebook says 10, which breaks its own
    formula": a player reads house rules, not the project's notes."""
    text = rules_text(language)
    assert text is not None
    assert BEHIND_THE_SCENES.findall(text) == []


def sample(field: str) -> object:
    return 3 if field in {"count", "points", "value", "rank", "min", "max", "games"} else f"<{field}>"


@pytest.mark.parametrize("language", languages())
def test_every_message_renders_with_sample_parameters(language: str) -> None:
    for key, source in catalogue(FALLBACK).items():
        params = {field: sample(field) for field in placeholders(source)}
        counts = COUNTS if isinstance(source, Mapping) else (None,)
        for count in counts:
            if count is not None:
                params["count"] = count
            text = t(key, language, **params)
            assert text != key, key
            leftovers = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
            assert leftovers == [], f"{language} {key} leaves {leftovers}"
            assert text.strip()


def letters(text: str) -> int:
    return sum(char.isalpha() for char in re.sub(r"\{[^}]*\}", "", text))


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_translations_are_not_left_in_english(language: str) -> None:
    """Real sentences must differ from English (names such as "Kniffel" or "Full house" may stay the same)."""
    english, other = catalogue(FALLBACK), catalogue(language)
    same = [key for key, text in english.items() if isinstance(text, str) and letters(text) > 15 and other[key] == text]
    assert same == []


def test_the_check_names_each_kind_of_problem() -> None:
    english = {"a": "Hello {name}", "b": {"one": "1 game", "other": "{count} games"}, "c": "Bye"}
    polish = {"a": "Cześć {user}", "b": {"one": "1 gra", "other": "{count} gry"}, "d": "Extra"}
    found = compare(english, polish, "pl")
    assert "missing: c" in found
    assert "not in English: d" in found
    assert "a: placeholders ['user'], English has ['name']" in found
    assert "b: plural forms ['one', 'other'], pl needs ['few', 'many', 'one', 'other']" in found


def test_the_check_wants_a_plural_table_where_english_has_one() -> None:
    found = compare({"b": {"one": "1 game", "other": "{count} games"}}, {"b": "{count} Spiele"}, "de")
    assert found == ["b: must be a plural table as in English"]


def test_a_key_defined_twice_in_one_language_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('[lobby]\njoin = "Join"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('lobby.join = "Join again"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"lobby\.join"):
        load(tmp_path)


def test_plural_tables_load_as_one_message(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('[x]\ngames = { one = "1 gra", few = "{count} gry" , other = "-" }\n')
    assert load(tmp_path) == {"x.games": {"one": "1 gra", "few": "{count} gry", "other": "-"}}


def test_check_command_reports_complete_languages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{language}: complete" for language in TRANSLATIONS]


def test_check_command_refuses_an_unknown_language_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["xx"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "xx" in err


def test_the_check_wants_the_english_games_in_order_under_their_translated_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = {"en": "# Rules\n## Kniffel\nx\n## Dice poker\ny\n", "de": "# Regeln\n## Kniffel\nx\n## Dice poker\ny\n"}
    monkeypatch.setattr(check, "rules_text", texts.get)
    assert check.rules_problems("de") == [
        "rules.md has the sections ['Kniffel', 'Dice poker'], wanted ['Kniffel', 'Würfelpoker'] "
        "(English's games, named as game.<kind>)"
    ]
    assert check.rules_problems("hu") == ["missing: bot/i18n/hu/rules.md"]


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("key", ["lobby.description", "lobby.rematch_invite", "help.description"])
def test_a_text_that_names_a_lobby_button_names_it_as_labelled(language: str, key: str) -> None:
    labels = {t("lobby.join", language), t("lobby.start", language)}
    text = t(key, language, min=1, max=8, players="<@1>")
    assert set(re.findall(r"\*\*(.+?)\*\*", text)) <= labels


#: Names that keep their capital anywhere in an English box name: the game's own box.
PROPER = {"Kniffel"}


@pytest.mark.parametrize("section", ["kniffel.box.", "dicepoker.row."])
def test_english_box_names_are_in_sentence_case(section: str) -> None:
    """ "Full House" stood beside "Small straight" and "Three of a kind" in the same select."""
    names = [text for key, text in catalogue(FALLBACK).items() if key.startswith(section)]
    assert names
    capitalised = [name for name in names if any(word[0].isupper() for word in name.split()[1:] if word not in PROPER)]
    assert capitalised == []


#: Texts that tell a player to tap a die or a cell, shown on boards beside the 💡 hint button.
TAP_INSTRUCTIONS = ("dice.roll_count", "knister.grid_place", "tutto.reason.empty")


@pytest.mark.parametrize("language", languages())
def test_a_tap_instruction_never_reads_as_the_hint_button(language: str) -> None:
    """QA: German "Tipp die Würfel an" beside the "💡 Tipp" button read as if the hint were meant."""
    hint = t("hint.button", language).removeprefix("💡").strip().lower()
    texts = [t(key, language, roll=1, rolls=3, number=7) for key in TAP_INSTRUCTIONS]
    rules = (rules_text(language) or "").lower()
    assert [text for text in texts if hint in text.lower()] == []
    # the players' rules name the button "💡 <hint>", never a tap by the same word
    assert rules.count(hint) == rules.count(f"💡 {hint}")
