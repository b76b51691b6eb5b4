"""What is at a path an admin named: a path the system will not look at is an error naming the setting, never a
traceback (``bot/paths.py``)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from bot.folders import data_dir_unusable
from bot.paths import Unexaminable, broken_link, kind

#: A folder name longer than any file system takes (255 bytes): looking at a path through it fails with
#: "file name too long", for root too, where a folder root may not enter cannot be made with chmod.
TOO_LONG = "x" * 300


def deny(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make every path below ``folder`` fail as under a folder this user may not enter (root enters them all)."""
    stat = Path.stat

    def denied(path: Path, **options: Any) -> os.stat_result:
        if folder in path.parents:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return stat(path, **options)

    monkeypatch.setattr(Path, "stat", denied)


def test_what_is_there_is_told_as_pathlib_tells_it(tmp_path: Path) -> None:
    (tmp_path / "file").touch()
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert kind(tmp_path, "S") == "folder"
    assert kind(tmp_path / "file", "S") == "file"
    assert kind(tmp_path / "pipe", "S") == "other"
    assert kind(tmp_path / "missing", "S") == "missing"
    assert kind(tmp_path / "file" / "below", "S") == "missing"
    assert kind(tmp_path / "loop", "S") == "missing"


def test_a_path_it_cannot_look_at_names_the_setting_and_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Path.is_file`` raised these on Python 3.11, and every command ended with a traceback (QA)."""
    long = tmp_path / TOO_LONG / "db.sqlite3"
    with pytest.raises(Unexaminable) as refused:
        kind(long, "DATABASE_URL")
    assert str(refused.value) == f"cannot use the path {long} (DATABASE_URL): file name too long"
    deny(monkeypatch, tmp_path / "locked")
    with pytest.raises(Unexaminable) as denied:
        kind(tmp_path / "locked" / "db.sqlite3", "--from")
    assert str(denied.value) == f"cannot use the path {tmp_path / 'locked' / 'db.sqlite3'} (--from): permission denied"
    assert denied.value.reason == "permission denied"


def test_a_folder_behind_a_broken_link_names_the_link_and_where_it_leads(tmp_path: Path) -> None:
    """``mkdir`` said only "File exists" for a DATA_DIR linked to an unmounted volume (review)."""
    (tmp_path / "data").symlink_to(tmp_path / "volume")
    expected = (
        f"{tmp_path / 'data'} is a symbolic link to {tmp_path / 'volume'}, which does not exist: create or mount it"
    )
    assert broken_link(tmp_path / "data" / "games") == expected
    assert data_dir_unusable(tmp_path / "data" / "games", "the bot's") == (
        f"cannot keep the bot's files in {tmp_path / 'data' / 'games'} ({expected}); set DATA_DIR to a folder this "
        "user may write"
    )
    assert broken_link(tmp_path) is None
    assert not (tmp_path / "volume").exists()


def test_a_data_dir_that_is_a_file_says_so(tmp_path: Path) -> None:
    """It said "(File exists)" (QA)."""
    (tmp_path / "file").touch()
    assert data_dir_unusable(tmp_path / "file", "the playground's") == (
        f"cannot keep the playground's files in {tmp_path / 'file'} (a file, not a folder); set DATA_DIR to a folder "
        "this user may write"
    )
