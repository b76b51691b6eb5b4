"""The lock beside a SQLite database (``bot/datalock.py``): one process handling every game, or shard processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.datalock import InUse, hold, lock_file


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
