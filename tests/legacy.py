"""Finished games written straight into an older schema (migrations 0001–0003), as the bot of that time stored them.

Migration tests build a database at an old version and upgrade it; today's repositories speak only today's
schema (seats moved to ``game_seats`` in 0007), so the old rows are written here with the SQL of that time.
"""

from __future__ import annotations

from bot.engine.core import competition_ranks
from bot.storage import Database

_COUNTERS = ("kniffels", "upper_bonus", "tuttos", "settlement")


async def store_legacy_game(
    db: Database,
    scores: dict[int, int],
    *,
    kind: str,
    variant: str,
    guild_id: int | None,
    channel_id: int,
    finished_at: float,
    names: dict[int, str] | None = None,
    counters: dict[int, dict[str, float | None]] | None = None,
) -> int:
    """A finished game with its results rows in a schema-0001-to-0003 database; returns its id."""
    names, counters = names or {}, counters or {}
    users = list(scores)
    async with db.transaction() as conn:
        cursor = await conn.execute(
            "INSERT INTO games (kind, variant, guild_id, channel_id, host_id, status, created_at, updated_at, "
            "finished_at) VALUES (?, ?, ?, ?, ?, 'finished', ?, ?, ?)",
            (kind, variant, guild_id, channel_id, users[0], finished_at, finished_at, finished_at),
        )
        game_id = cursor.lastrowid
        assert game_id is not None
        ranks = competition_ranks(list(scores.values()))
        await conn.executemany(
            "INSERT INTO results (game_id, kind, variant, guild_id, channel_id, user_id, display_name, score, rank, "
            "won, finished_at, kniffels, upper_bonus, tuttos, settlement) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    *(game_id, kind, variant, guild_id, channel_id, user, names.get(user, f"user{user}")),
                    *(score, rank, rank == 1, finished_at),
                    *(counters.get(user, {}).get(name) for name in _COUNTERS),
                )
                for (user, score), rank in zip(scores.items(), ranks, strict=True)
            ],
        )
    return game_id
