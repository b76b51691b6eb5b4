"""The ``game`` option of ``/<game> review`` suggests the caller's last finished games, in their language."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.storage import FinishedGame
from cogs.kniffel import SPEC, KniffelCog


class FakeReviews:
    def __init__(self, games: list[FinishedGame]) -> None:
        self.games = games
        self.asked: list[tuple[str, str]] = []

    async def choices(self, player: str, spec: Any, limit: int = 25) -> list[FinishedGame]:
        self.asked.append((player, spec.kind))
        return self.games


async def test_the_choices_are_the_callers_finished_games_with_their_end_time() -> None:
    reviews = FakeReviews(
        [FinishedGame(12, "kniffel", "classic", 1_800_000_000.0, 40), FinishedGame(7, "kniffel", "kniffel", 0.0, 3)]
    )
    cog = object.__new__(KniffelCog)
    cog.bot = SimpleNamespace(service=SimpleNamespace(reviews=reviews))  # type: ignore[assignment]
    interaction: Any = SimpleNamespace(user=SimpleNamespace(id=101), locale="de")

    everything = await KniffelCog.review_games(cog, interaction, "")
    assert [(c.name, c.value) for c in everything] == [
        ("#12 · 2027-01-15 08:00 UTC", 12),
        ("#7 · 1970-01-01 00:00 UTC", 7),
    ]
    assert reviews.asked == [("101", SPEC.kind)]
    assert [c.value for c in await KniffelCog.review_games(cog, interaction, "12")] == [12]
