"""Counters of any name and value: /stats totals and "games with the counter" match a plain-Python reference.

Storage knows no game and no counter name, so the property is stated over arbitrary names and values: whatever
games store, ``user_stats`` reports per game and counter the sum and how many results had it, also after some
of the games are deleted again (the delete trigger takes their counters out).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.storage import CounterTotal, Database, GamesRepository, StatsRepository
from tests.results import store_finished_game

KINDS = ("alpha", "beta")
NAMES = st.sampled_from(("a", "bb", "c_c", "déjà", "x" * 40))
VALUES = st.one_of(st.integers(-1000, 1000), st.floats(-1000, 1000, allow_nan=False).map(lambda v: round(v, 2)))
GAMES = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.sampled_from((None, 7, 8)),
        # user -> (score, counters)
        st.dictionaries(
            st.integers(1, 4), st.tuples(st.integers(0, 50), st.dictionaries(NAMES, VALUES, max_size=3)), min_size=1
        ),
        st.booleans(),  # deleted again afterwards
    ),
    min_size=1,
    max_size=12,
)

Played = list[tuple[str, int | None, dict[int, tuple[int, dict[str, int | float]]], bool]]


def reference(played: Played, user: int) -> dict[str, dict[str, tuple[float, int]]]:
    """Per kind the user played (games kept), per counter: (sum, results that had it)."""
    found: dict[str, dict[str, list[float]]] = {}
    for kind, _, players, deleted in played:
        if deleted or user not in players:
            continue
        counters = found.setdefault(kind, defaultdict(list))
        for name, value in players[user][1].items():
            counters[name].append(value)
    return {kind: {name: (sum(values), len(values)) for name, values in c.items()} for kind, c in found.items()}


async def scenario(played: Played) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "db.sqlite3")
        try:
            games, stats = GamesRepository(db), StatsRepository(db)
            ids = []
            for number, (kind, guild, players, _) in enumerate(played):
                ids.append(
                    await store_finished_game(
                        games,
                        {user: score for user, (score, _) in players.items()},
                        kind=kind,
                        variant="standard",
                        guild_id=guild,
                        channel_id=100 + number,
                        finished_at=1000.0 + number,
                        counters={user: counters for user, (_, counters) in players.items()},
                    )
                )
            for game_id, (_, _, _, deleted) in zip(ids, played, strict=True):
                if deleted:
                    await games.delete(game_id)
            for user in range(1, 5):
                found = {entry.kind: entry.counters for entry in await stats.user_stats(user, KINDS)}
                expected = reference(played, user)
                assert set(found) == set(expected)
                for kind, counters in expected.items():
                    assert set(found[kind]) == set(counters)
                    for name, (total, games_with) in counters.items():
                        assert found[kind][name].games == games_with
                        assert found[kind][name].total == pytest.approx(total, abs=1e-6)
                        assert isinstance(found[kind][name], CounterTotal)
        finally:
            await db.close()


@settings(max_examples=30, deadline=None)
@given(GAMES)
def test_counter_totals_match_a_reference_for_any_names_and_values(played: Played) -> None:
    asyncio.run(scenario(played))
