"""Discord's shard formula and a process's share of the shards: pure, checked over many ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.sharding import ShardScope, parse_shard_ids, shard_of

GUILD_IDS = st.one_of(st.none(), st.integers(min_value=0, max_value=(1 << 63) - 1))
COUNTS = st.integers(min_value=1, max_value=128)


@given(GUILD_IDS, COUNTS)
def test_exactly_one_single_shard_process_owns_every_guild(guild_id: int | None, count: int) -> None:
    owners = [shard for shard in range(count) if ShardScope.of(count, [shard]).owns(guild_id)]
    assert owners == [shard_of(guild_id, count)]


@given(st.integers(min_value=0, max_value=(1 << 63) - 1), COUNTS)
def test_the_shard_comes_from_the_timestamp_bits(guild_id: int, count: int) -> None:
    assert shard_of(guild_id, count) == (guild_id >> 22) % count
    assert shard_of(guild_id | 0x3FFFFF, count) == shard_of(guild_id & ~0x3FFFFF, count)


@given(st.sets(st.integers(min_value=0, max_value=500), min_size=1))
def test_shard_ids_read_back_as_written(ids: set[int]) -> None:
    assert parse_shard_ids(", ".join(str(shard) for shard in ids)) == tuple(sorted(ids))


def test_direct_messages_belong_to_shard_0() -> None:
    assert shard_of(None, 7) == 0
    assert ShardScope.of(2, [0]).owns(None) and not ShardScope.of(2, [1]).owns(None)


@pytest.mark.parametrize(
    ("count", "ids", "message"),
    [
        (0, [0], "at least 1"),
        (2, [], "at least one shard"),
        (2, [2], r"\[2\] are outside 0..1"),
        (3, [1, 1], "listed twice"),
    ],
)
def test_a_scope_outside_the_count_is_refused(count: int, ids: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ShardScope.of(count, ids)


@pytest.mark.parametrize("text", ["", "a", "0,,1", "1;2", "-1", "0,0", "1.5"])
def test_malformed_shard_ids_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"comma-separated|negative|twice"):
        parse_shard_ids(text)


def test_a_scope_with_every_shard_needs_no_filter() -> None:
    assert ShardScope.of(3, [2, 0, 1]).everything
    assert not ShardScope.of(3, [0, 2]).everything
    with pytest.raises(ValueError, match="at least 1"):
        shard_of(5, 0)
