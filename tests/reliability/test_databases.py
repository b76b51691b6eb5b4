"""Defects 3 and 8: a database the bot cannot use stops ``python -m bot`` with one line and exit code 2."""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.storage import Database, DatabaseError
from fakediscord import FakeDiscord
from tests.e2e.test_entrypoint import TOKEN, bot_env, stopped
from tests.test_paths import TOO_LONG, deny

pytestmark = pytest.mark.timeout(120)


def folder(tmp_path: Path) -> Path:
    return tmp_path


def empty_file(tmp_path: Path) -> Path:
    path = tmp_path / "dicebot.sqlite3"
    path.touch()
    return path


def damaged(tmp_path: Path) -> Path:
    """A database whose interior b-tree page was overwritten (a torn write, a bad sector)."""
    path = tmp_path / "dicebot.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)")
        conn.executemany("INSERT INTO t (text) VALUES (?)", [("x" * 200,) for _ in range(400)])
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[5 * page + 100 : 5 * page + 900] = b"\x5a" * 800
    path.write_bytes(bytes(data))
    return path


def another_programs(tmp_path: Path) -> Path:
    """A file of another program's that happens to have a table of dicebot's name: it was switched to WAL for good
    before the bot failed on a table it lacked (QA)."""
    path = tmp_path / "dicebot.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
        conn.execute("CREATE TABLE players (id INTEGER PRIMARY KEY)")
    conn.close()
    return path


def table_dropped(tmp_path: Path) -> Path:
    """Dicebot's database with a table an admin dropped by hand: it was refused as another program's."""
    path = tmp_path / "dicebot.sqlite3"
    with ThreadPoolExecutor(1) as thread:  # the tests' own event loop is running
        thread.submit(asyncio.run, migrated(path)).result()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE game_moves")
    conn.close()
    return path


async def migrated(path: Path) -> None:
    await (await Database.open(path)).close()


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "folder": (folder, "is a folder"),
    "empty file": (empty_file, "is empty (0 bytes)"),
    "damaged": (damaged, "is damaged"),
    "another program's": (another_programs, "is not a dicebot database: it has tables games, players but no schema_"),
    "a table dropped": (table_dropped, "is a damaged dicebot database: it lacks table game_moves, which dicebot's "),
}


@pytest.mark.parametrize("case", CASES)
async def test_open_refuses_an_unusable_database(tmp_path: Path, case: str) -> None:
    make, message = CASES[case]
    path = make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(DatabaseError, match=re.escape(message)):
        await Database.open(path)
    assert (path.read_bytes() if path.is_file() else None) == before


async def test_open_names_the_setting_of_a_path_it_cannot_look_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = tmp_path / TOO_LONG / "dicebot.sqlite3"
    with pytest.raises(DatabaseError) as refused:
        await Database.open(long)
    assert str(refused.value) == f"cannot use the path {long} (DATABASE_URL): file name too long"
    deny(monkeypatch, tmp_path / "locked")
    locked = tmp_path / "locked" / "dicebot.sqlite3"
    with pytest.raises(DatabaseError) as refused:
        await Database.open(locked)
    assert str(refused.value) == f"cannot use the path {locked} (DATABASE_URL): permission denied"


async def test_a_database_path_it_cannot_look_at_is_not_blamed_on_discord(tmp_path: Path) -> None:
    """The OSError left the start as "cannot reach Discord (File name too long ...); check the network" (QA)."""
    database = tmp_path / TOO_LONG / "dicebot.sqlite3"
    async with FakeDiscord(token=TOKEN) as server:
        code, text = await stopped(bot_env(server, database, DATA_DIR=str(tmp_path / "data")), tmp_path)
    lines = [line for line in text.splitlines() if line.startswith("dicebot:")]
    assert (code, lines) == (2, [f"dicebot: cannot use the path {database} (DATABASE_URL): file name too long"])
    assert "Traceback" not in text


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a read-only file")
async def test_open_refuses_a_read_only_database(tmp_path: Path) -> None:
    path = tmp_path / "dicebot.sqlite3"
    await (await Database.open(path)).close()
    path.chmod(0o444)
    with pytest.raises(DatabaseError, match="readonly"):
        await Database.open(path)


@pytest.mark.parametrize("case", CASES)
async def test_the_bot_stops_with_one_line_and_exit_code_2(tmp_path: Path, case: str) -> None:
    make, message = CASES[case]
    database = make(tmp_path)
    async with FakeDiscord(token=TOKEN) as server:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=bot_env(server, database), cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    text = stderr.decode()
    lines = [line for line in text.splitlines() if line.startswith("dicebot:")]
    assert process.returncode == 2, text
    assert len(lines) == 1 and message in lines[0]
    assert "Traceback" not in text and "Event loop is closed" not in text
