"""Wording QA found reading wrong, as the players read it: each line rendered from its catalogue key."""

from __future__ import annotations

import re

import pytest

from bot.engine import tutto
from bot.i18n import catalogue, languages, t


@pytest.mark.parametrize(
    ("key", "language", "params", "expected"),
    [
        # A lobby button says what it does: "Abbrechen" (a verb), not "Abbruch" (a noun). For room on a phone's
        # row "Aussteigen" became "Raus", which read brusque (QA); "Verlassen" is a pixel too wide beside
        # "Abbrechen" (tests/ui/test_phone.py), so "Abmelden", as one signs off from a game one signed up for.
        ("lobby.cancel", "de", {}, "Abbrechen"),
        ("lobby.leave", "de", {}, "Abmelden"),
        # "erwartete Punkte verloren" read as "expected: points lost"; the figure is the expected points lost.
        (
            "review.summary",
            "de",
            {"count": 70, "total": "156,5", "average": "2,2"},
            "Entscheidungen: **70** · verlorene erwartete Punkte: **156,5** · Verlust pro Entscheidung: **2,2**",
        ),
        # "Bob: 0 bei Kniffel": the box and its points as the score select offers them ("Kniffel — 0").
        ("kniffel.scored", "de", {"name": "Bob", "points": 0, "box": "Kniffel"}, "Bob: Kniffel — 0"),
        ("dicepoker.scored", "de", {"name": "Bob", "points": 3, "row": "Sechser"}, "Bob: Sechser — 3"),
        # A card is drawn ("dobiera"), not pulled along ("ciągnie").
        # The card is named after "kartę", so its name needs no accusative ("dobiera Koniczyna" read wrong).
        ("tutto.drew", "pl", {"name": "Bob", "card": "Koniczyna"}, "🃏 Bob dobiera kartę **Koniczyna**."),
        ("tutto.draw", "pl", {}, "Dobierz i rzuć"),
        # The grid's line scores are rows, columns and diagonals: lines, not rows ("sorok", "rzędy").
        ("knister.lines_so_far", "hu", {}, "Vonalak pontjai eddig"),
        ("knister.lines_final", "hu", {}, "Vonalak pontjai"),
        ("knister.lines_so_far", "pl", {}, "Punkty za linie na razie"),
        # "gier w Poker kościany": a game's name does not decline after "w"; "gry {game}" as everywhere else.
        ("stats.nothing_game", "pl", {"name": "Bob", "game": "Poker kościany"}, None),
    ],
)
def test_qa_wording(key: str, language: str, params: dict[str, object], expected: str | None) -> None:
    text = t(key, language, **params)
    if expected is None:
        assert " w Poker" not in text and "gry Poker kościany" in text, text
    else:
        assert text == expected


@pytest.mark.parametrize("language", ["pl"])
def test_polish_draws_cards_with_dobierac_everywhere(language: str) -> None:
    """The same verb for drawing a card in every Polish text: the board's lines, its button and the rules."""
    pulled = [key for key, text in catalogue(language).items() if re.search(r"ciągn|Ciągn", str(text))]
    assert pulled == []


def test_polish_tutto_names_a_triple_as_three_alike_everywhere() -> None:
    """Review: the editor's pass made not_scoring say "trzy takie same" ("trójki" read as the face 3), while
    triple_across_rolls, shown for the same selection a roll later, still said "Trójka"."""
    texts = {key: str(text) for key, text in catalogue("pl").items() if key.startswith("tutto.")}
    assert [key for key, text in texts.items() if re.search(r"[Tt]rójk", text)] == []
    assert "trzy takie same" in texts["tutto.reason.not_scoring"]
    assert texts["tutto.reason.triple_across_rolls"].startswith("Trzy takie same")


@pytest.mark.parametrize("language", languages())
def test_every_catalogue_names_every_language(language: str) -> None:
    """/settings language names a language in the reader's sentence: every catalogue has a name for each."""
    names = {code: t(f"language.names.{code}", language) for code in languages()}
    assert all(names.values()) and len(set(names.values())) == len(names)
    if language in ("hu", "pl"):  # lower case in a Hungarian or Polish sentence
        assert all(name == name.lower() for name in names.values()), names


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("key", ["leaderboard.line", "leaderboard.you", "leaderboard.asker"])
def test_a_leaderboard_line_never_wraps_inside_its_figures(key: str, language: str) -> None:
    """On a phone "· 3 games" broke so that "games" or "3 games" began the next line (as the final standings did,
    QA): everything after the name is bound by no-break spaces, the count to its word too."""
    games = t("leaderboard.games", language, count=3)
    line = t(key, language, rank=2, name="Alice", value="1,234", games=games)
    # after the name, or after "**You:** " (a break there leaves the figures whole)
    figures = re.sub(r"^.*?:\*\* ", "", line.split("Alice", 1)[-1] if "Alice" in line else line, count=1)
    assert " " not in figures, repr(line)


#: Words that address the reader as the player, in each language: a pronoun, or a verb in the second person.
ADDRESSED = {
    "en": r"\byou(r|rs)?\b",
    "de": r"\b(du|dein\w*|dich|dir|hör|nimm|sammle)\b",
    "hu": r"\w+(hatsz|hetsz|ed|od|öd)\b|\b(dobsz|gyűjtsd)\b",
    "pl": r"\b(ty|twoj\w*|możesz|rzucasz|zbierz|bierz)\b",
}


@pytest.mark.parametrize("language", ["en", "de", "hu", "pl"])
@pytest.mark.parametrize("card", sorted({tutto.card_kind(card) for card in tutto.DECK}))
def test_a_tutto_card_s_rule_speaks_to_whoever_reads_the_board(card: str, language: str) -> None:
    """QA: "🃏 Bonus 600 — stop whenever you like…" under "🤖 Easy is next": the card's reminder stands on the board
    during every player's turn, a computer's too, so it states the rule without addressing the reader."""
    key, params = tutto.card_rule(next(c for c in tutto.DECK if tutto.card_kind(c) == card))
    text = t(key, language, **params)
    assert not re.search(ADDRESSED[language], text, re.IGNORECASE), text
