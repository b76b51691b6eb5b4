"""The repository's shard filter is Discord's formula in SQL: the processes' shares of the games partition them."""

from __future__ import annotations

import random
from pathlib import Path

from bot.sharding import ShardScope, shard_of
from bot.storage import Database, GamesRepository, Seat

NOW = 1_800_000_000.0


async def test_every_due_game_belongs_to_exactly_the_process_of_its_shard(tmp_path: Path) -> None:
    rng = random.Random(19)
    guild_ids: list[int | None] = [None, 0, 1, (1 << 22) - 1, 1 << 22, (1 << 63) - 1]
    guild_ids += [rng.randrange(1 << 63) for _ in range(120)]
    guild_ids += [rng.randrange(1 << 38, 1 << 41) << 22 for _ in range(40)]  # realistic snowflakes
    db = await Database.open(tmp_path / "games.sqlite3")
    try:
        games = GamesRepository(db)
        owner: dict[int, int | None] = {}
        for channel, guild_id in enumerate(guild_ids):
            record = await games.create(
                kind="kniffel", variant="kniffel", guild_id=guild_id, channel_id=channel, host=Seat.user(1, "A"),
                locale="en-US", options={}, deadline_at=NOW - channel,
            )  # fmt: skip
            owner[record.id] = guild_id
        everything = set(await games.due(NOW))
        assert everything == set(owner)
        for count in (1, 2, 3, 5, 8, 16, 1000):
            seen: set[int] = set()
            for shard in range(count) if count < 20 else (0, 1, 999):
                mine = set(await GamesRepository(db, ShardScope.of(count, [shard])).due(NOW))
                assert mine == {game for game, guild in owner.items() if shard_of(guild, count) == shard}
                assert not mine & seen
                seen |= mine
            if count < 20:
                assert seen == everything
        pair = set(await GamesRepository(db, ShardScope.of(4, [1, 3])).due(NOW))
        assert pair == {game for game, guild in owner.items() if shard_of(guild, 4) in (1, 3)}
    finally:
        await db.close()
