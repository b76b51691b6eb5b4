"""Display names on both backends: a value a backend cannot hold is refused as :class:`StorageUnavailable`, never
as an unexpected error."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.storage import Database, GamesRepository, Seat, StorageUnavailable
from tests.results import store_finished_game


@pytest.mark.parametrize("name", ["lone \udc00", "nul \x00"])
async def test_a_name_a_backend_cannot_hold_is_refused_as_unavailable_and_changes_nothing(
    db: Database, name: str
) -> None:
    """The player reads "could not save" (SQLite keeps a NUL, PostgreSQL refuses it; neither can encode a lone
    surrogate)."""
    games = GamesRepository(db)
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=10, host=Seat.user(1, "Ann"), locale="en-US",
        options={}, deadline_at=None,
    )  # fmt: skip
    joined = replace(lobby, seats=(*lobby.seats, Seat.user(2, name)))
    storable = db.dialect == "sqlite" and "\x00" in name
    if storable:
        await games.save(joined, before=lobby)
        return
    with pytest.raises(StorageUnavailable):
        await games.save(joined, before=lobby)
    assert await games.get(lobby.id) == lobby
    with pytest.raises(StorageUnavailable):
        await db.fetch_all("SELECT COUNT(*) FROM game_seats WHERE display_name = ?", (name,))
    # The refusal left the connections usable.
    await store_finished_game(
        games, {1: 3}, kind="kniffel", variant="kniffel", guild_id=1, channel_id=11, finished_at=1.0
    )
