"""``t`` remembers the texts it filled, but never a gap: a missing or misfitting message warns on every call."""

from __future__ import annotations

import logging

import pytest

from bot.i18n import t


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    found = [record.getMessage() for record in caplog.records if record.name == "bot.i18n"]
    caplog.clear()
    return found


def test_a_missing_message_shows_its_key_and_warns_every_time(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.i18n"):
        for _ in range(3):
            assert t("no.such.message", "de", count=2) == "no.such.message"
            assert warnings(caplog) == ["missing message id no.such.message"]


def test_a_message_missing_its_parameters_warns_every_time(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.i18n"):
        for _ in range(3):
            assert t("lobby.players", "en", count=2) == "Players ({count}/{max})"
            assert warnings(caplog) == ["message id lobby.players does not fit its parameters ['count']"]


def test_a_plural_without_a_count_warns_every_time(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.i18n"):
        for _ in range(3):
            assert t("lobby.full", "en", count="2") == "This game is full (2 players)."
            assert warnings(caplog) == ["plural message id lobby.full needs a numeric count"]


def test_remembered_texts_follow_their_parameters(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.i18n"):
        assert t("lobby.full", "en", count=1) == "This game is full (1 player)."
        assert t("lobby.full", "en", count=6000) == "This game is full (6,000 players)."
        assert t("lobby.full", "en", count=1) == "This game is full (1 player)."
        assert t("lobby.full", "en", count=6000.0) == "This game is full (6000.0 players)."  # 6000.0 == 6000
        assert t("lobby.full", "de", count=6000) == "Das Spiel ist voll (6.000 Spieler)."
        assert warnings(caplog) == []


def test_a_parameter_that_cannot_be_remembered_is_filled_all_the_same() -> None:
    assert t("lobby.players", "en", count=[1], max={"x": 1}) == "Players ([1]/{'x': 1})"
    assert t("lobby.players", "en", count=[1], max={"x": 1}) == "Players ([1]/{'x': 1})"
