"""The lock beside a SQLite database (``bot/datalock.py``): one process handling every game, or shard processes."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from bot import datalock
from bot.__main__ import lock_database
from bot.datalock import InUse, hold, hold_count, hold_shards, lock_file
from bot.settings import Settings
from bot.storage import Database, DatabaseError


def test_an_exclusive_holder_refuses_every_other_until_released(tmp_path: Path) -> None:
    database = tmp_path / "data" / "dicebot.sqlite3"
    held = hold(database, "in use")
    assert held is not None
    assert lock_file(database) == tmp_path / "data" / "dicebot.sqlite3.lock"
    for shared in (False, True):
        with pytest.raises(InUse, match=r"^in use$"):
            hold(database, "in use", shared=shared)
    held.release()
    again = hold(database, "in use")
    assert again is not None
    again.release()


def test_shard_processes_share_it_and_a_process_of_every_game_is_refused_beside_them(tmp_path: Path) -> None:
    database = tmp_path / "dicebot.sqlite3"
    first, second = hold(database, "x", shared=True), hold(database, "x", shared=True)
    assert first is not None and second is not None
    with pytest.raises(InUse):
        hold(database, "x")
    first.release()
    second.release()


def test_a_folder_that_cannot_take_the_lock_is_left_to_the_database_to_name(tmp_path: Path) -> None:
    (tmp_path / "file").touch()
    assert hold(tmp_path / "file" / "dicebot.sqlite3", "x") is None


@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_path_through_a_symbolic_link_finds_the_same_lock(tmp_path: Path, link: str) -> None:
    """The lock was named after the path as given: a second bot started through a link ran beside the first (QA)."""
    database = tmp_path / "real" / "dicebot.sqlite3"
    database.parent.mkdir()
    database.touch()
    if link == "file":
        (tmp_path / "linked.sqlite3").symlink_to(database)
        other = tmp_path / "linked.sqlite3"
    else:
        (tmp_path / "linked").symlink_to(tmp_path / "real")
        other = tmp_path / "linked" / "dicebot.sqlite3"
    held = hold(database, "x")
    assert held is not None
    with pytest.raises(InUse):
        hold(other, "x")
    held.release()
    assert lock_file(other) == lock_file(database) == database.with_name("dicebot.sqlite3.lock")


@pytest.mark.parametrize("refusal", [errno.EACCES, errno.EROFS])
def test_a_lock_file_this_user_may_not_write_still_locks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: int
) -> None:
    """Another user's lock file (root writes it anyway, so the refusal is simulated): the bot ran unlocked (QA)."""
    database = tmp_path / "dicebot.sqlite3"
    lock_file(database).touch()
    real_open = os.open

    def refused_for_writing(path: Any, flags: int, *args: Any) -> int:
        if flags & os.O_RDWR:
            raise OSError(refusal, os.strerror(refusal), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(datalock.os, "open", refused_for_writing)
    held = hold(database, "x")
    assert held is not None
    with pytest.raises(InUse):
        hold(database, "x")
    held.release()


def test_a_loop_of_symbolic_links_is_left_to_the_database_to_name(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert hold(tmp_path / "a", "x") is None


async def test_a_link_to_a_missing_folder_is_left_to_the_database_to_refuse(tmp_path: Path) -> None:
    """The lock created the folder a link led to (an unmounted volume), and the bot started a new, empty database
    there as if every game were lost (review)."""
    (tmp_path / "data").symlink_to(tmp_path / "volume" / "dicebot")
    database = tmp_path / "data" / "dicebot.sqlite3"
    assert hold(database, "x") is None
    with pytest.raises(DatabaseError, match="volume/dicebot, which does not exist: create or mount it"):
        await Database.open(database)
    assert not (tmp_path / "volume").exists()


def test_two_processes_given_the_same_shard_are_refused_and_nothing_stays_held(tmp_path: Path) -> None:
    """Both ran shard 0 of one file, each with its own copy of its games (QA)."""
    database = tmp_path / "dicebot.sqlite3"
    first = hold_shards(database, [1, 2], lambda shard: f"shard {shard}")
    with pytest.raises(InUse, match=r"^shard 2$"):
        hold_shards(database, [2, 0], lambda shard: f"shard {shard}")
    others = hold_shards(database, [0, 3], lambda shard: f"shard {shard}")  # 0 was given back by the refusal
    first.release()
    again = hold_shards(database, [1, 2], lambda shard: f"shard {shard}")
    again.release()
    others.release()


def sharded(tmp_path: Path, shard_ids: str | None, count: int = 4) -> Settings:
    database = f"sqlite:///{tmp_path / 'dicebot.sqlite3'}"
    if shard_ids is None:
        return Settings(discord_token="x", database_url=database, _env_file=None)
    return Settings(
        discord_token="x", database_url=database, shard_count=str(count), shard_ids=shard_ids, _env_file=None
    )


def test_a_bots_lock_covers_the_database_and_each_of_its_shards(tmp_path: Path) -> None:
    first = lock_database(sharded(tmp_path, "0,1"))
    assert first is not None
    with pytest.raises(InUse, match=r"another dicebot process runs shard 1 on the database .* give each process other"):
        lock_database(sharded(tmp_path, "1,2"))
    with pytest.raises(InUse, match="another dicebot process uses the database"):
        lock_database(sharded(tmp_path, None))
    second = lock_database(sharded(tmp_path, "2,3"))  # nothing of the refused one stayed held
    assert second is not None
    first.release()
    second.release()
    every = lock_database(sharded(tmp_path, None))
    assert every is not None
    every.release()


def test_shard_processes_with_another_shard_count_are_refused(tmp_path: Path) -> None:
    """With SHARD_COUNT 2 in one process and 3 in another, both ran the servers their counts gave both (review)."""
    first = lock_database(sharded(tmp_path, "0", count=2))
    assert first is not None
    with pytest.raises(InUse, match=r"runs with SHARD_COUNT=2 on the database .*, this one with 3; give every process"):
        lock_database(sharded(tmp_path, "2", count=3))
    second = lock_database(sharded(tmp_path, "1", count=2))  # nothing of the refused one stayed held
    assert second is not None
    first.release()
    with pytest.raises(InUse, match=r"SHARD_COUNT=2"):
        lock_database(sharded(tmp_path, "0", count=3))  # shard 1 still runs with 2
    second.release()
    third = lock_database(sharded(tmp_path, "0", count=3))  # every process of count 2 gone
    assert third is not None
    third.release()


def test_a_count_is_looked_for_by_the_lock_files_real_names(tmp_path: Path) -> None:
    """Counts are read off the folder's file names; a database named like a glob pattern must not hide them."""
    database = tmp_path / "dice[1].sqlite3"
    link = tmp_path / "link.sqlite3"
    link.symlink_to(database)
    held = hold_count(database, 10, str)
    with pytest.raises(InUse, match=r"^10$"):
        hold_count(link, 2, str)
    same = hold_count(database, 10, str)
    held.release()
    same.release()
    hold_count(database, 2, str).release()
