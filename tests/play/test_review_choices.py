"""The ``game`` option of ``/<game> review`` suggests the caller's last finished games, in their language."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.play.reviewing import Reviews
from bot.storage import FinishedGame, StorageUnavailable
from cogs.kniffel import SPEC, KniffelCog


class FakeReviews:
    def __init__(self, games: list[FinishedGame]) -> None:
        self.games = games
        self.asked: list[tuple[str, str]] = []

    async def menu(self, player: str, spec: Any) -> list[FinishedGame]:
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


async def test_a_game_number_from_1000_up_is_written_and_found_as_typed() -> None:
    """A game number is no quantity: grouped ("#1,234", "#1.234", "#1 234") typing 1234 found nothing."""
    reviews = FakeReviews(
        [FinishedGame(1234, "kniffel", "kniffel", 0.0, 3), FinishedGame(99, "kniffel", "kniffel", 0.0, 3)]
    )
    cog = object.__new__(KniffelCog)
    cog.bot = SimpleNamespace(service=SimpleNamespace(reviews=reviews))  # type: ignore[assignment]
    for locale in ("en-US", "de", "hu", "pl"):
        interaction: Any = SimpleNamespace(user=SimpleNamespace(id=101), locale=locale)
        found = await KniffelCog.review_games(cog, interaction, "1234")
        assert [(c.name.split(" ")[0], c.value) for c in found] == [("#1234", 1234)], locale


class UnreachableHistory:
    async def finished_games(self, player: str, kinds: list[str], limit: int) -> list[FinishedGame]:
        raise StorageUnavailable("the database server is gone")


async def test_the_suggestions_are_empty_while_the_database_is_out_of_reach() -> None:
    """Raising there shows the player "loading options failed"; the command itself then says try again."""
    reviews = Reviews(games=None, history=UnreachableHistory(), specs={}, brain=None)  # type: ignore[arg-type]
    assert await reviews.menu("101", SPEC) == []
