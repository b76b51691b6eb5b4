"""Adding a game is what docs/architecture.md says: an engine, a UI, a cog with its spec, its catalogue, and one
registration line. The test game in ``tests/play/highroll`` is registered like a real one and played end to end."""

from __future__ import annotations

import pytest

from bot import registry
from bot.i18n import catalogue
from tests.e2e.conftest import Harness

HIGHROLL = "tests.play.highroll.cog"
CATALOGUE = {
    "game.highroll": "High roll",
    "help.about.highroll": "one die each, the highest wins",
    "highroll.turn": "{player}, roll!",
    "highroll.roll": "Roll",
    "highroll.rolled": "{name} rolled {face}.",
}


@pytest.fixture
async def with_highroll(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> Harness:
    for key, text in CATALOGUE.items():
        monkeypatch.setitem(catalogue("en"), key, text)
    harness.games = (*registry.GAMES, HIGHROLL)
    await harness.start_bot()
    return harness


def test_the_registry_derives_the_extensions_and_specs() -> None:
    games = (*registry.GAMES, HIGHROLL)
    assert registry.extensions(games) == ("cogs.help", *games, "cogs.leaderboard", "cogs.settings")
    assert list(registry.load_specs(games)) == ["kniffel", "dicepoker", "knister", "tutto", "highroll"]


async def test_a_registered_game_is_played_listed_in_help_and_ranked(with_highroll: Harness) -> None:
    h = with_highroll
    synced = h.server.find_requests("PUT", r"/commands$")[-1].json
    leaderboard = next(command for command in synced if command["name"] == "leaderboard")
    game_option = next(option for option in leaderboard["options"] if option["name"] == "game")
    assert [choice["value"] for choice in game_option["choices"]] == [*registry.load_specs(), "highroll"]

    help_text = (await (await h.command(h.alice, "help")).message()).text
    assert "High roll" in help_text and "one die each" in help_text

    message = await h.start_game("highroll", [h.alice, h.bob])
    h.rng.script(5, 2)
    await h.click(h.alice, message, "Roll")
    await h.wait_post("Alice rolled 5.")
    await h.click(h.bob, message, "Roll")
    await h.wait_post("Bob rolled 2.")
    record = await h.record()
    assert record is not None and record.status == "finished"
    stored = await h.bot.results.for_game(record.id)
    assert [(row.user_id, row.score, row.won) for row in stored] == [(h.alice.id, 5, True), (h.bob.id, 2, False)]

    board = (await (await h.command(h.alice, "leaderboard", game="highroll")).message()).text
    assert f"🥇 <@{h.alice.id}>\u00a0—\u00a0**1**" in board  # no-break spaces keep the figures together
