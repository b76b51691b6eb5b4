"""``python -m bot backup PATH``: a consistent copy of a running bot's SQLite database, and its refusals."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.settings import environment_names
from bot.storage import Database, DatabaseError
from bot.storage import backup as backups
from bot.storage.backup import BackedUp, back_up
from tests.reliability.test_databases import damaged, migrated
from tests.storage.test_copy import answers, fill, full_disk
from tests.test_paths import TOO_LONG, deny


def backup(
    tmp_path: Path, *arguments: str, preexec_fn: Callable[[], None] | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m bot backup`` in ``tmp_path``, as an admin runs it beside the bot: another process, no token,
    only ``env`` of dicebot's settings (``preexec_fn`` run in the child before it starts)."""
    clean = {name: value for name, value in os.environ.items() if name not in environment_names()}
    return subprocess.run(
        [sys.executable, "-m", "bot", "backup", *arguments],
        env={**clean, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=60, preexec_fn=preexec_fn,
    )  # fmt: skip


async def test_a_running_bots_database_is_backed_up_whole_where_a_file_copy_loses_it(tmp_path: Path) -> None:
    """``cp data/dicebot.sqlite3`` while the bot ran gave a file without tables: the data was in the -wal (QA)."""
    path = tmp_path / "data" / "dicebot.sqlite3"
    db = await Database.open(path)
    try:
        running = await fill(db)
        expected = await answers(db, running)
        shutil.copy(path, tmp_path / "copied.sqlite3")
        with sqlite3.connect(tmp_path / "copied.sqlite3") as copied:
            assert copied.execute("SELECT name FROM sqlite_master WHERE name = 'games'").fetchall() == []
        copied.close()

        done = backup(tmp_path, "backups/monday.sqlite3", REQUIRE_TOKEN="true")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            "dicebot: backed up data/dicebot.sqlite3 to backups/monday.sqlite3 (4 games, 4 results)"
        ]
        assert done.stderr == ""
        await db.fetch_all("SELECT COUNT(*) FROM games")  # the bot goes on as before
    finally:
        await db.close()
    target = tmp_path / "backups" / "monday.sqlite3"
    assert sorted(path.name for path in target.parent.iterdir()) == ["monday.sqlite3"]  # one file, no -wal
    restored = await Database.open(target)
    try:
        assert await answers(restored, running) == expected
    finally:
        await restored.close()


async def test_a_stopped_bots_database_is_left_as_it_was_without_side_files(tmp_path: Path) -> None:
    """The read-only copy left an empty -wal and -shm beside a stopped bot's database (QA)."""
    path = tmp_path / "data" / "dicebot.sqlite3"
    db = await Database.open(path)
    try:
        await fill(db)
    finally:
        await db.close()
    before = path.read_bytes()
    done = backup(tmp_path, "monday.sqlite3")
    assert done.returncode == 0, done.stderr
    assert sorted(file.name for file in path.parent.iterdir()) == ["dicebot.sqlite3"]
    assert path.read_bytes() == before


def test_a_database_copied_with_its_wal_alone_is_not_written(tmp_path: Path) -> None:
    """A -wal without its -shm (a database copied as two files) was checkpointed into the file by the tidy (review)."""
    live, copied = tmp_path / "live", tmp_path / "copied"
    live.mkdir()
    copied.mkdir()
    asyncio.run(migrated(live / "dicebot.sqlite3"))
    writer = sqlite3.connect(live / "dicebot.sqlite3")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    with writer:
        writer.execute("INSERT INTO bot_meta (key, value) VALUES ('kept', 'in the wal')")
    for name in ("dicebot.sqlite3", "dicebot.sqlite3-wal"):
        shutil.copy(live / name, copied / name)
    writer.close()
    before = (copied / "dicebot.sqlite3").read_bytes()
    back_up(copied / "dicebot.sqlite3", tmp_path / "b.sqlite3")
    assert (copied / "dicebot.sqlite3").read_bytes() == before
    assert (copied / "dicebot.sqlite3-wal").stat().st_size > 0
    with sqlite3.connect(tmp_path / "b.sqlite3") as backed_up:
        assert backed_up.execute("SELECT value FROM bot_meta WHERE key = 'kept'").fetchall() == [("in the wal",)]
    backed_up.close()


async def test_a_running_bots_side_files_stay_and_it_plays_on(tmp_path: Path) -> None:
    path = tmp_path / "data" / "dicebot.sqlite3"
    db = await Database.open(path)
    try:
        running = await fill(db)
        done = backup(tmp_path, "monday.sqlite3")
        assert done.returncode == 0, done.stderr
        assert (path.parent / "dicebot.sqlite3-wal").exists()
        assert (path.parent / "dicebot.sqlite3-shm").exists()
        expected = await answers(db, running)
    finally:
        await db.close()
    reopened = await Database.open(path)
    try:
        assert await answers(reopened, running) == expected
    finally:
        await reopened.close()


def dicebot_database(tmp_path: Path) -> None:
    """A closed dicebot database at the default place, ``data/dicebot.sqlite3``."""
    path = tmp_path / "data" / "dicebot.sqlite3"
    path.parent.mkdir()
    (tmp_path / "unrelated.txt").write_text("a file, not a folder\n")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE games (id INTEGER)")
        conn.execute("CREATE TABLE results (id INTEGER)")
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (19)")
    conn.close()


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "data/dicebot.sqlite3",
            "data/dicebot.sqlite3 already exists: name a new file (a backup never overwrites one)",
        ),
        ("data", "data is a folder: name the backup file in it, e.g. data/dicebot.sqlite3"),
        (
            "unrelated.txt/backup.sqlite3",
            "cannot write the backup into unrelated.txt (a file, not a folder): name a folder this user may write",
        ),
        (
            "unrelated.txt/below/backup.sqlite3",
            "cannot write the backup into unrelated.txt/below (Not a directory): name a folder this user may write",
        ),
    ],
)
def test_a_target_it_must_not_or_cannot_write_is_one_line_and_exit_2(tmp_path: Path, target: str, message: str) -> None:
    dicebot_database(tmp_path)
    before = (tmp_path / "data" / "dicebot.sqlite3").read_bytes()
    done = backup(tmp_path, target)
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (2, "", [f"dicebot: {message}"])
    assert (tmp_path / "data" / "dicebot.sqlite3").read_bytes() == before
    assert sorted(path.name for path in (tmp_path / "data").iterdir()) == ["dicebot.sqlite3"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_this_user_may_not_write_is_one_line_and_exit_2(tmp_path: Path) -> None:
    dicebot_database(tmp_path)
    (tmp_path / "locked").mkdir(mode=0o500)
    done = backup(tmp_path, "locked/backup.sqlite3")
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        ["dicebot: cannot write the backup into locked (Permission denied): name a folder this user may write"],
    )


def test_a_path_it_cannot_look_at_is_one_line_naming_the_setting_and_exit_2(tmp_path: Path) -> None:
    """``Path.is_file`` raises for a name too long, or below a folder this user may not enter: a traceback (QA)."""
    dicebot_database(tmp_path)
    source = backup(tmp_path, "b.sqlite3", DATABASE_URL=f"sqlite:///{TOO_LONG}/db.sqlite3")
    assert (source.returncode, source.stdout, source.stderr.splitlines()) == (
        2,
        "",
        [f"dicebot: cannot use the path {TOO_LONG}/db.sqlite3 (DATABASE_URL): file name too long"],
    )
    target = backup(tmp_path, f"{TOO_LONG}/b.sqlite3")
    assert (target.returncode, target.stdout, target.stderr.splitlines()) == (
        2,
        "",
        [f"dicebot: cannot use the path {TOO_LONG}/b.sqlite3 (backup target): file name too long"],
    )


def test_a_folder_this_user_may_not_enter_names_the_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dicebot_database(tmp_path)
    locked = tmp_path / "locked"
    deny(monkeypatch, locked)
    with pytest.raises(DatabaseError) as source:
        back_up(locked / "dicebot.sqlite3", tmp_path / "b.sqlite3")
    assert str(source.value) == f"cannot use the path {locked / 'dicebot.sqlite3'} (DATABASE_URL): permission denied"
    with pytest.raises(DatabaseError) as target:
        back_up(tmp_path / "data" / "dicebot.sqlite3", locked / "b.sqlite3")
    assert str(target.value) == f"cannot use the path {locked / 'b.sqlite3'} (backup target): permission denied"


async def test_a_copy_it_cannot_write_names_the_target_not_the_source(tmp_path: Path) -> None:
    """A full disk where the backup went read "cannot read the SQLite database data/dicebot.sqlite3 (DATABASE_URL):
    database or disk is full", sending the admin to a database that was fine (QA)."""
    await (await Database.open(tmp_path / "data" / "dicebot.sqlite3")).close()
    (tmp_path / "backups").mkdir()
    done = backup(tmp_path, "backups/monday.sqlite3", preexec_fn=full_disk)
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (
        2,
        "",
        [
            "dicebot: cannot write the backup backups/monday.sqlite3 in backups (disk I/O error): check the disk "
            "there (free space) or name another folder"
        ],
    )
    assert list((tmp_path / "backups").iterdir()) == []


def test_a_full_disk_where_the_copy_goes_is_not_blamed_on_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's backup reads the source and writes the copy in one call: what failed is told by SQLite's error."""

    class FullDisk(sqlite3.Connection):
        def backup(self, *arguments: Any, **options: Any) -> None:
            full = sqlite3.OperationalError("database or disk is full")
            full.sqlite_errorcode = sqlite3.SQLITE_FULL
            raise full

    connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *arguments, **options: connect(*arguments, **options, factory=FullDisk)
    )
    dicebot_database(tmp_path)
    with pytest.raises(DatabaseError) as refused:
        back_up(tmp_path / "data" / "dicebot.sqlite3", tmp_path / "b.sqlite3")
    assert str(refused.value) == (
        f"cannot write the backup {tmp_path / 'b.sqlite3'} in {tmp_path} (database or disk is full): check the disk "
        "there (free space) or name another folder"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data", "unrelated.txt"]


def test_a_file_written_at_the_target_meanwhile_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The target was checked at the start and the copy renamed onto it at the end: a file written there in between
    (another backup, an admin's) was replaced without a word."""
    source, target = tmp_path / "dicebot.sqlite3", tmp_path / "backups" / "b.sqlite3"
    asyncio.run(migrated(source))
    snapshot = backups.snapshot

    def meanwhile(*arguments: Any) -> int:
        target.write_text("another backup\n")
        return snapshot(*arguments)

    monkeypatch.setattr(backups, "snapshot", meanwhile)
    with pytest.raises(DatabaseError) as refused:
        back_up(source, target)
    assert str(refused.value) == f"{target} already exists: name a new file (a backup never overwrites one)"
    assert target.read_text() == "another backup\n"
    assert [path.name for path in target.parent.iterdir()] == ["b.sqlite3"]


def test_a_file_system_without_hard_links_still_takes_the_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, target = tmp_path / "dicebot.sqlite3", tmp_path / "backups" / "b.sqlite3"
    asyncio.run(migrated(source))

    def refused(*arguments: Any) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(os, "link", refused)
    assert back_up(source, target).target == target
    assert [path.name for path in target.parent.iterdir()] == ["b.sqlite3"]


def test_the_summary_counts_in_english() -> None:
    """It said "(1 games, 1 results)"."""
    assert BackedUp(Path("a"), Path("b"), 1, 0).summary() == "backed up a to b (1 game, 0 results)"
    assert BackedUp(Path("a"), Path("b"), 2, 1).summary() == "backed up a to b (2 games, 1 result)"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_the_backup_gets_the_mode_any_new_file_would(tmp_path: Path, umask: int, mode: int) -> None:
    """It was 0600 whatever the umask (mkstemp's): the admin's usual tools, running as another user, could not read
    it."""
    source, target = tmp_path / "dicebot.sqlite3", tmp_path / "b.sqlite3"
    asyncio.run(migrated(source))
    before = os.umask(umask)
    try:
        back_up(source, target)
    finally:
        os.umask(before)
    assert target.stat().st_mode & 0o777 == mode


def test_a_file_system_without_modes_still_gets_its_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FAT and some shares refuse chmod: the backup failed, its descriptor and a .part file left behind (review)."""
    source, target = tmp_path / "dicebot.sqlite3", tmp_path / "backups" / "b.sqlite3"
    asyncio.run(migrated(source))

    def refused(handle: int, mode: int) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(backups.os, "fchmod", refused)
    assert back_up(source, target).target == target
    assert sorted(file.name for file in target.parent.iterdir()) == ["b.sqlite3"]


def test_what_it_cannot_copy_is_one_line_and_exit_2(tmp_path: Path) -> None:
    assert backup(tmp_path, "b.sqlite3").stderr.splitlines() == [
        "dicebot: there is no SQLite database at data/dicebot.sqlite3 (DATABASE_URL): name the bot's database there"
    ]
    (tmp_path / "other.sqlite3").touch()
    assert backup(tmp_path, "b.sqlite3", DATABASE_URL="sqlite:///other.sqlite3").stderr.splitlines() == [
        "dicebot: there is no dicebot database in other.sqlite3 (DATABASE_URL): name the SQLite file the bot uses"
    ]
    with sqlite3.connect(tmp_path / "foreign.sqlite3") as conn:
        conn.execute("CREATE TABLE games (id INTEGER)")
    conn.close()
    done = backup(tmp_path, "b.sqlite3", DATABASE_URL="sqlite:///foreign.sqlite3")
    assert done.returncode == 2
    assert done.stderr.startswith("dicebot: the database foreign.sqlite3 (DATABASE_URL) is not a dicebot database")
    broken = damaged(tmp_path)
    done = backup(tmp_path, "b.sqlite3", DATABASE_URL=f"sqlite:///{broken}")
    assert done.returncode == 2
    assert done.stderr.startswith(f"dicebot: the database {broken} (DATABASE_URL) is damaged (")
    done = backup(tmp_path, "b.sqlite3", DATABASE_URL="postgresql://dice:s3cret@db/dicebot")
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        [
            "dicebot: DATABASE_URL names a PostgreSQL database, which this command does not copy: back it up with "
            "pg_dump (see Backups in the README)"
        ],
    )
    assert not (tmp_path / "b.sqlite3").exists()
