"""Writing finished games the way dicebot did before migration 0004, for the tests of the migrations.

Before 0004 a result kept its game counters in columns of ``results`` named after them. The repositories now
write counters as rows of ``result_counters``, which an old schema does not have, so the migration tests write
old databases with this plain SQL instead: the game row, its seats and its results, as ``GamesRepository.save``
wrote them at a game's end then.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.engine.core import competition_ranks
from bot.storage import Database
from bot.storage.backend import Returned

#: The counter columns of ``results`` in schemas 1 to 3.
LEGACY_COUNTERS = ("kniffels", "upper_bonus", "tuttos", "settlement")


async def store_legacy_game(
    db: Database,
    scores: Mapping[int, int],
    *,
    kind: str,
    variant: str,
    guild_id: int | None,
    channel_id: int,
    finished_at: float,
    names: Mapping[int, str] | None = None,
    counters: Mapping[int, Mapping[str, int | float]] | None = None,
) -> int:
    """A finished game of ``scores`` (user id → score) with counters in the old columns (absent = NULL); its id."""
    names, counters = names or {}, counters or {}
    users = list(scores)
    ranks = competition_ranks(list(scores.values()))
    async with db.transaction() as tx:
        inserted = tx.execute(
            "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, status, created_at, updated_at, "
            "finished_at, version) VALUES (?, ?, ?, ?, ?, 'finished', ?, ?, ?, 1) RETURNING id",
            (kind, variant, guild_id, channel_id, users[0], finished_at - 600, finished_at, finished_at),
        )
        game_id = Returned(inserted)
        tx.executemany(
            "INSERT INTO game_players (game_id, user_id, seat, display_name) VALUES (?, ?, ?, ?)",
            [(game_id, user, seat, names.get(user, f"user{user}")) for seat, user in enumerate(users)],
        )
        columns = ", ".join(LEGACY_COUNTERS)
        tx.executemany(
            "INSERT INTO results (game_id, kind, variant, guild_id, channel_id, user_id, display_name, score, rank, "
            f"won, finished_at, {columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    game_id,
                    kind,
                    variant,
                    guild_id,
                    channel_id,
                    user,
                    names.get(user, f"user{user}"),
                    score,
                    rank,
                    int(rank == 1),
                    finished_at,
                    *(counters.get(user, {}).get(name) for name in LEGACY_COUNTERS),
                )
                for user, score, rank in zip(users, scores.values(), ranks, strict=True)
            ],
        )
    return int(inserted.value())
