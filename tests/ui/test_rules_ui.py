"""``/rules`` reads the players' rules from package data: a section per game, English when not translated."""

from __future__ import annotations

import pytest

from bot.ui import rules

GAMES = {"kniffel": "Full house", "dicepoker": "First-roll doubling", "knister": "diagonal", "tutto": "Cloverleaf"}


@pytest.mark.parametrize(("kind", "fragment"), sorted(GAMES.items()))
def test_every_game_has_its_section(kind: str, fragment: str) -> None:
    embed = rules.render(kind, "en-US")
    assert embed.title is not None and embed.title.endswith("rules")
    assert embed.description is not None
    assert fragment.lower() in embed.description.lower()
    assert len(embed.description) <= rules.EMBED_DESCRIPTION_LIMIT


def test_tables_become_aligned_code_blocks() -> None:
    body = rules.sections("en")["Kniffel"]
    assert "```" in body
    assert "|---" not in body


def test_a_language_without_rules_reads_the_english_file() -> None:
    assert rules._rules_file("xx").read_text(encoding="utf-8") == rules._rules_file("en").read_text(encoding="utf-8")
    assert rules.render("tutto", "xx").description == rules.render("tutto", "en-US").description


def test_a_section_missing_from_a_translation_is_shown_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    english = rules.sections("en")
    monkeypatch.setattr(rules, "sections", lambda language: english if language == "en" else {"Tutto": "übersetzt"})
    assert rules.render("tutto", "de").description == "übersetzt"
    assert rules.render("knister", "de").description == rules.render("knister", "en-US").description
