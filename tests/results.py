"""Finished games with stored results, written through the repositories as the game service does at a game's end."""

from __future__ import annotations

from dataclasses import replace

from bot.engine.core import competition_ranks
from bot.storage import GamesRepository, ResultRow, Seat


async def store_finished_game(
    games: GamesRepository,
    scores: dict[int, int],
    *,
    kind: str,
    variant: str,
    guild_id: int | None,
    channel_id: int,
    finished_at: float,
    names: dict[int, str] | None = None,
    counters: dict[int, dict[str, int | float]] | None = None,
) -> int:
    """A game of ``scores`` (user id → score; ranks and wins follow from them) saved as finished; its id.

    ``counters`` holds each user's counters as the game reports them; a counter left out is one the game's rules
    do not have.
    """
    names = names or {}
    users = list(scores)
    record = await games.create(
        kind=kind,
        variant=variant,
        guild_id=guild_id,
        channel_id=channel_id,
        host=Seat.user(users[0], names.get(users[0], f"user{users[0]}")),
        locale="en-US",
        options={},
        deadline_at=None,
    )
    rows = [
        ResultRow(
            game_id=record.id,
            kind=kind,
            variant=variant,
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=user,
            display_name=names.get(user, f"user{user}"),
            score=score,
            rank=rank,
            won=rank == 1,
            finished_at=finished_at,
            counters=(counters or {}).get(user, {}),
        )
        for (user, score), rank in zip(scores.items(), competition_ranks(list(scores.values())), strict=True)
    ]
    await games.save(replace(record, status="finished", finished_at=finished_at), rows)
    return record.id
