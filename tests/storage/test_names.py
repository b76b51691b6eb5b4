"""Display names on both backends: any name Discord hands over is stored and read back as ``actor_of`` made it,
and a value a backend cannot hold is refused as :class:`StorageUnavailable`, never as an unexpected error."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.play.discord_io import actor_of
from bot.storage import Database, GamesRepository, ResultRow, ResultsRepository, Seat, StorageUnavailable
from tests.results import store_finished_game

USER = 4242
#: Any string: every code point, surrogates (alone or in pairs) included, with the troublesome ones drawn often
#: enough to appear in every run. Built from characters: ``st.text`` leaves surrogates out.
ANY_NAME = st.lists(
    st.one_of(
        st.characters(exclude_categories=()), st.integers(0xD800, 0xDFFF).map(chr), st.sampled_from("\x00\x1f\t ")
    )
).map("".join)


def user(name: str) -> Any:
    """What ``actor_of`` reads of a Discord user."""
    return SimpleNamespace(id=USER, display_name=name)


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("Alice", "Alice"),
        ("A\x00li\x1fce\n", "Alice"),
        ("lone \ud800 half", "lone \ufffd half"),
        ("pair \ud83c\udfb2 joined", "pair 🎲 joined"),
        ("déjà 🎲 — ok\x7f", "déjà 🎲 — ok\x7f"),
        ("\x00\x01", str(USER)),
        ("", str(USER)),
        (" \t ", str(USER)),
    ],
)
def test_actor_of_keeps_a_name_storable(name: str, stored: str) -> None:
    """C0 controls go, lone surrogates become U+FFFD (a split pair is joined), nothing left: the user's id."""
    assert actor_of(user(name)).name == stored


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ANY_NAME)
async def test_any_discord_name_survives_a_save_and_load(db: Database, name: str) -> None:
    actor = actor_of(user(name))
    games = GamesRepository(db)
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=10, host=actor.seat(), locale="en-US",
        options={}, deadline_at=None,
    )  # fmt: skip
    result = ResultRow(lobby.id, "kniffel", "kniffel", 1, 10, USER, actor.name, 5, 1, True, 1.0)
    await games.save(replace(lobby, status="finished", finished_at=1.0), [result], before=lobby)
    loaded = await games.get(lobby.id)
    assert loaded is not None and loaded.seats == (Seat(str(USER), actor.name),)
    assert await ResultsRepository(db).for_game(lobby.id) == [result]


@pytest.mark.parametrize("name", ["lone \udc00", "nul \x00"])
async def test_a_name_a_backend_cannot_hold_is_refused_as_unavailable_and_changes_nothing(
    db: Database, name: str
) -> None:
    """Past ``actor_of`` no such name reaches storage; if one did, the player reads "could not save" (SQLite keeps
    a NUL, PostgreSQL refuses it; neither can encode a lone surrogate)."""
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
