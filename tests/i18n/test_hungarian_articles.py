"""Hungarian's article before a number depends on how the number is read: "a 2", but "az 1", "az 5", "az 50".

A catalogue text cannot know which number it will get, so no Hungarian text puts an article right before a
placeholder that may be a number; a game's name (all start with a consonant) may take one.
"""

from __future__ import annotations

import re

import pytest

from bot.i18n import catalogue, t

#: Placeholders that never hold a number, and whose values all start with a consonant.
NAMED = {"game"}
ARTICLE_BEFORE_PLACEHOLDER = re.compile(r"(?i)(?<![\w])az? [*_`]*\{(\w+)")


def texts(message: object) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [str(message)]


def test_no_hungarian_article_stands_before_a_number_placeholder() -> None:
    found = [
        (key, name)
        for key, message in catalogue("hu").items()
        for text in texts(message)
        for name in ARTICLE_BEFORE_PLACEHOLDER.findall(text)
        if name not in NAMED
    ]
    assert found == []


@pytest.mark.parametrize("number", range(2, 13))
def test_the_knister_grid_names_the_number_without_an_article(number: int) -> None:
    text = t("knister.grid_place", "hu", number=number)
    assert f"**{number}**" in text
    assert not re.search(rf"(?i)(?<![\w])az? \**{number}\b", text)
