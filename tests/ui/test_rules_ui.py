"""``/rules`` reads the players' rules from package data: a section per game, English when not translated."""

from __future__ import annotations

import random
import re

import discord
import pytest

from bot.engine import knister, tutto
from bot.i18n import t
from bot.ui import knister as knister_ui
from bot.ui import rules
from bot.ui.common import PHONE_COLUMNS, display_width
from bot.ui.render import SeatView, Table
from bot.ui.tutto import card_name

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


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_every_table_fits_a_phone(language: str) -> None:
    """QA: on a phone the Kniffel and dice poker tables (up to 48 columns in Hungarian and Polish) wrapped in the
    embed's code block, each row over two or three lines."""
    wide = []
    for game, body in rules.sections(language).items():
        code = re.findall(r"```\n(.*?)\n```", body, flags=re.DOTALL)
        assert code, game
        wide += [(game, line) for block in code for line in block.splitlines() if display_width(line) > PHONE_COLUMNS]
    assert wide == []


def test_a_language_without_rules_reads_the_english_file() -> None:
    assert rules._rules_file("xx").read_text(encoding="utf-8") == rules._rules_file("en").read_text(encoding="utf-8")
    assert rules.render("tutto", "xx").description == rules.render("tutto", "en-US").description


def test_a_section_missing_from_a_translation_is_shown_in_english(monkeypatch: pytest.MonkeyPatch) -> None:
    english = rules.sections("en")
    monkeypatch.setattr(rules, "sections", lambda language: english if language == "en" else {"Tutto": "übersetzt"})
    assert rules.render("tutto", "de").description == "übersetzt"
    assert rules.render("knister", "de").description == rules.render("knister", "en-US").description


#: A card in Tutto's list: "- **Bonus** 200, 300, 400, 500, 600 (5 each): …", "- **Stop** (10): …".
CARD_LINE = re.compile(r"- \*\*(.+?)\*\*[\d, ]* \([^)]*\d[^)]*\):")


def bold(text: str) -> list[str]:
    return re.findall(r"\*\*(.+?)\*\*", text)


def bullets(language: str, game: str) -> list[str]:
    """The list items of a game's section (how to play it here; Tutto's cards)."""
    return [line for line in rules.sections(language)[game].splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_knister_s_rules_name_the_round_message_s_buttons_as_they_read(language: str) -> None:
    """QA: the rules said "press **Place**" where the button reads "Place 7", and before the roll "My grid"."""
    state = knister.new_game(["1", "2"], random.Random(1))
    labels: set[str] = set()
    for shown in (state, state.model_copy(update={"dice": [3, 4]})):
        table = Table((SeatView("1", "Ann"), SeatView("2", "Bo")), 1, 1, language, shown)
        view = knister_ui.UI.render(table).layout.view()
        labels |= {item.label for item in view.children if isinstance(item, discord.ui.Button) and item.label}
    named = {name for line in bullets(language, "Knister") for name in bold(line)}
    assert t("knister.my_grid", language) in named and t("knister.place", language, number=7) in named
    assert named <= labels, named - labels


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_tutto_s_rules_name_each_card_as_the_board_does(language: str) -> None:
    """The list of cards named ×2 "x2" in English, where the board reads "🃏 ×2"."""
    shown = [card_name(card, language).lower() for card in set(tutto.DECK)]
    cards = [match[1] for line in bullets(language, "Tutto") if (match := CARD_LINE.match(line))]
    assert len(cards) == len({tutto.card_kind(card) for card in tutto.DECK}), cards
    assert all(any(card.lower() in name for name in shown) for card in cards), (cards, shown)
