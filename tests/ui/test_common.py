"""The rendering helpers every game shares."""

from __future__ import annotations

from bot.i18n import languages, t
from bot.ui.common import text


def test_remembered_texts_are_the_catalogues() -> None:
    for locale in (*languages(), "en-US", "xx"):
        for key, params in (
            ("dice.scorecard", {}),
            ("dice.title", {"game": "Kniffel", "turn": 3, "turns": 13}),
            ("dice.content", {"player": "<@1>"}),
            ("dice.title", {"game": "Kniffel", "turn": 1000, "turns": 13000}),
        ):
            assert text(key, locale, **params) == t(key, locale, **params)
            assert text(key, locale, **params) == t(key, locale, **params)


def test_a_flag_is_not_remembered_as_the_number() -> None:
    assert text("dice.title", "de", game="x", turn=1000, turns=1) == t("dice.title", "de", game="x", turn=1000, turns=1)
    assert text("dice.title", "en", game="x", turn=1, turns=1) == "x — turn 1/1"
    assert text("dice.title", "en", game="x", turn=True, turns=1) == "x — turn True/1"
