"""Which process owns which game: Discord's shard of a guild, and the set of shards one process connects.

Discord routes every event and interaction of a guild to shard ``(guild_id >> 22) % shard_count`` and direct
messages to shard 0. A game lives in one channel, so the process holding that shard gets every click of it; the
same rule decides who fires the game's deadlines, computer moves and start-up repairs. Pure: no discord, no SQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The most shards a bot may be split into. Discord names no maximum; it wants one shard per 2,500 servers at
#: most, so 65,535 shards serve some 160 million servers, and a count past 64 bits could not even be sent.
MAX_SHARDS = 65_535
#: A snowflake's low 22 bits are worker, process and increment; the shard is taken from the timestamp above them.
SNOWFLAKE_SHIFT = 22


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord sends ``guild_id``'s events to; direct messages (no guild) go to shard 0."""
    if shard_count < 1:
        raise ValueError(f"shard_count must be at least 1, not {shard_count}")
    if guild_id is None:
        return 0
    return (guild_id >> SNOWFLAKE_SHIFT) % shard_count


@dataclass(frozen=True)
class ShardScope:
    """The shards one process connects, out of ``count``: it handles exactly the games of their guilds."""

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"the shard count must be at least 1, not {self.count}")
        if not self.ids:
            raise ValueError("a process must connect at least one shard")
        outside = [shard for shard in self.ids if not 0 <= shard < self.count]
        if outside:
            raise ValueError(f"shard ids {outside} are outside 0..{self.count - 1}")
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("a shard id is listed twice")

    @classmethod
    def of(cls, count: int, ids: Iterable[int]) -> ShardScope:
        return cls(count, tuple(sorted(ids)))

    @property
    def everything(self) -> bool:
        """True when this process connects every shard, so it owns every game (no filter needed)."""
        return len(self.ids) == self.count

    def owns(self, guild_id: int | None) -> bool:
        """Whether the game of ``guild_id`` (None: a direct message) is this process's to handle."""
        return shard_of(guild_id, self.count) in self.ids


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """``"0,1"`` (spaces allowed) as sorted shard ids; ``ValueError`` naming what is wrong."""
    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        raise ValueError("use comma-separated numbers such as 0,1")
    try:
        ids = [int(part) for part in parts]
    except ValueError:
        raise ValueError("use comma-separated numbers such as 0,1") from None
    if any(shard < 0 for shard in ids):
        raise ValueError("shard ids are never negative")
    if len(set(ids)) != len(ids):
        raise ValueError("a shard id is listed twice")
    return tuple(sorted(ids))
