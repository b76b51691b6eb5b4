"""Every message id the code asks for exists in the English catalogue, and dynamic families are complete."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot import registry
from bot.engine import dicepoker, kniffel, tutto
from bot.i18n import Message, catalogue

ROOT = Path(__file__).resolve().parents[1]
#: A literal key asked of ``t``.
LITERAL_KEY = re.compile(r"""\bt\(\s*["']([a-z0-9_]+(?:\.[a-z0-9_]+)+)["']""")


def literal_keys() -> set[tuple[str, str]]:
    found = set()
    for path in [*ROOT.joinpath("bot").rglob("*.py"), *ROOT.joinpath("cogs").rglob("*.py")]:
        for key in LITERAL_KEY.findall(path.read_text(encoding="utf-8")):
            found.add((key, str(path.relative_to(ROOT))))
    return found


def test_the_scan_finds_keys() -> None:
    assert len(literal_keys()) > 50


@pytest.mark.parametrize(("key", "where"), sorted(literal_keys()))
def test_literal_key_exists(key: str, where: str) -> None:
    assert key in catalogue("en"), f"{where} uses {key!r}, missing from bot/i18n/en/*.toml"


@pytest.mark.parametrize(
    ("prefix", "ids"),
    [
        ("kniffel.box", kniffel.BOXES),
        ("kniffel.short", kniffel.BOXES),
        ("dicepoker.row", dicepoker.ROWS),
        ("dicepoker.short", dicepoker.ROWS),
        ("game", tuple(registry.load_specs())),
        ("help.about", tuple(registry.load_specs())),
        ("variant", (*kniffel.RULESETS, "russian", "standard")),
    ],
)
def test_dynamic_key_families_are_complete(prefix: str, ids: tuple[str, ...]) -> None:
    missing = [name for name in ids if f"{prefix}.{name}" not in catalogue("en")]
    assert missing == []


def test_every_tutto_card_has_a_rule_reminder() -> None:
    missing = [card for card in set(tutto.DECK) if tutto.card_rule(card)[0] not in catalogue("en")]
    assert missing == []


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
def test_ranges_of_numbers_take_an_en_dash(language: str) -> None:
    """QA: "(1-60, default 5)" beside "(1,000–20,000, default 6,000)" in the same command's options."""
    texts = [text for message in catalogue(language).values() for text in _texts(message)]
    assert [text for text in texts if re.search(r"\d-\d", text)] == []


def _texts(message: Message) -> list[str]:
    return [message] if isinstance(message, str) else list(message.values())
