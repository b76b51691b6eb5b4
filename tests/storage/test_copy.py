"""``python -m bot migrate-db``: a SQLite installation copied into PostgreSQL answers every query the same."""

from __future__ import annotations

import asyncio
import os
import resource
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from yarl import URL

from bot import datalock
from bot.storage import (
    Database,
    DatabaseError,
    GamesRepository,
    GuildSettingsRepository,
    HistoryRepository,
    MetaRepository,
    MoveRow,
    ResultRow,
    ResultsRepository,
    Seat,
    StatsRepository,
    copy,
)
from bot.storage.copy import migrate
from bot.storage.forgotten import FORGOTTEN_NAME
from tests.newer import newer_sqlite
from tests.postgres import fresh_schema, server_url
from tests.reliability.test_databases import damaged
from tests.results import store_finished_game
from tests.test_paths import TOO_LONG

KINDS = ("kniffel", "tutto")
#: Bytes a file may grow to in a child run with :func:`full_disk`: less than a migrated database (about 170 KiB).
FULL_AT = 64 * 1024


def full_disk() -> None:
    """In a child process: no file it writes grows past :data:`FULL_AT`, as on a full disk. Python ignores
    SIGXFSZ, so the write fails (EFBIG, SQLite's "disk I/O error") rather than the signal ending the process."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_AT, FULL_AT))


NOW = 1_800_000_000.0


async def fill(db: Database) -> int:
    """Finished games with counters in two servers, a running game with a deadline, settings; the running id."""
    games = GamesRepository(db)
    for guild, scores in ((1, {10: 250, 11: 200}), (2, {10: 180, 12: 180})):
        await store_finished_game(
            games, scores, kind="kniffel", variant="kniffel", guild_id=guild, channel_id=guild * 100,
            finished_at=NOW - guild, names={10: "Ann", 11: "Ben", 12: "Cy"},
            counters={user: {"kniffels": 1, "upper_bonus": 0} for user in scores},
        )  # fmt: skip
    await store_finished_game(
        games, {11: 5000}, kind="tutto", variant="standard", guild_id=None, channel_id=7, finished_at=NOW,
        counters={11: {"tuttos": 3, "settlement": 12.5}},
    )  # fmt: skip
    lobby = await games.create(
        kind="kniffel", variant="kniffel", guild_id=1, channel_id=300, host=Seat.user(10, "Ann"), locale="de",
        options={"timeout": 120}, deadline_at=NOW + 60, others=(Seat("cpu-easy-1", "🤖 Easy", kind="computer"),),
    )  # fmt: skip
    running = await games.save(
        replace(
            lobby, status="running", state='{"move": 3}', message_id=555, seats=(*lobby.seats, Seat.user(12, "Cy"))
        ),
        before=lobby,
    )
    await StatsRepository(db).forget(12)  # while the game runs: its seat is noted for the game's end
    await GuildSettingsRepository(db).set_language(1, "hu")
    await MetaRepository(db).set("commands", "abc")
    return running.id


async def answers(db: Database, running: int) -> tuple[object, ...]:
    stats = StatsRepository(db)
    boards = [
        await stats.leaderboard(kind, metric, period, guild, page=0, caller_id=12, now=NOW + 1)
        for kind in KINDS
        for metric in ("wins", "best", "games", "average")
        for period in ("all", "week")
        for guild in (1, None)
    ]
    return (
        await GamesRepository(db).get(running),
        [await stats.user_stats(user, KINDS) for user in (10, 11, 12)],
        boards,
        await GuildSettingsRepository(db).language(1),
        await MetaRepository(db).get("commands"),
        await GamesRepository(db).next_deadline(),
    )


@pytest.mark.parametrize("batch", [copy.BATCH, 2])
async def test_a_copy_answers_like_the_source_and_continues_its_games(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also with batches of two rows: every table is streamed, never read or written whole."""
    monkeypatch.setattr(copy, "BATCH", batch)
    path = tmp_path / "old.sqlite3"
    old = await Database.open(path)
    try:
        running = await fill(old)
        expected = await answers(old, running)
    finally:
        await old.close()
    before = path.read_bytes()
    async with fresh_schema(server_url()) as url:
        copied = await migrate(f"sqlite:///{path}", url)
        assert copied.counts["games"] == 4 and copied.counts["results"] == 4 and copied.counts["standings"] > 0
        assert copied.counts["forgotten_seats"] == 1
        new = await Database.open(url)
        try:
            assert await answers(new, running) == expected
            games = GamesRepository(new)
            # The game in progress goes on with the version check, and new ids follow the copied ones.
            record = await games.get(running)
            assert record is not None
            moved = await games.save(replace(record, state='{"move": 4}'), before=record)
            # Its end skips the result of the seat noted before the copy.
            results = [
                ResultRow(running, "kniffel", "kniffel", 1, 300, user, name, 10, rank, rank == 1, NOW)
                for user, name, rank in ((10, "Ann", 1), (12, "Cy", 2))
            ]
            await games.save(replace(moved, status="finished", finished_at=NOW), results, before=moved)
            assert [row.user_id for row in await ResultsRepository(new).for_game(running)] == [10]
            fresh = await games.create(
                kind="tutto", variant="standard", guild_id=2, channel_id=900, host=Seat.user(12, "Cy"),
                locale="en-US", options={}, deadline_at=None,
            )  # fmt: skip
            assert fresh.id > running
            assert (await StatsRepository(new).forget(10)).results == 3
        finally:
            await new.close()
    assert path.read_bytes() == before  # the source is never written


async def test_names_postgresql_cannot_hold_are_copied_without_their_control_characters(tmp_path: Path) -> None:
    """SQLite kept a NUL in a name (before ``actor_of`` cleaned names); PostgreSQL's text cannot hold one, so the
    copy stores such a name as ``actor_of`` would now (a name of control characters alone: the user's id)."""
    path = tmp_path / "old.sqlite3"
    old = await Database.open(path)
    try:
        games = GamesRepository(old)
        names = {10: "A\x00nn\n", 11: "\x00"}
        await store_finished_game(
            games, {10: 250, 11: 200}, kind="kniffel", variant="kniffel", guild_id=1, channel_id=100,
            finished_at=NOW, names=names,
        )  # fmt: skip
        lobby = await games.create(
            kind="kniffel", variant="kniffel", guild_id=1, channel_id=300, host=Seat.user(11, names[11]),
            locale="en-US", options={}, deadline_at=None,
        )  # fmt: skip
    finally:
        await old.close()
    async with fresh_schema(server_url()) as url:
        copied = await migrate(f"sqlite:///{path}", url)
        assert (copied.counts["game_seats"], copied.counts["results"]) == (2, 2)
        new = await Database.open(url)
        try:
            seats = await new.fetch_all("SELECT game_id, player, display_name FROM game_seats ORDER BY game_id, seat")
            assert [tuple(row) for row in seats] == [(1, "10", "Ann"), (lobby.id, "11", "11")]
            results = await new.fetch_all("SELECT user_id, display_name FROM results ORDER BY user_id")
            assert [tuple(row) for row in results] == [(10, "Ann"), (11, "11")]
            board = await StatsRepository(new).leaderboard(
                "kniffel", "best", "all", 1, page=0, caller_id=10, now=NOW + 1
            )
            assert [line.display_name for line in board.rows] == ["Ann", "11"]
        finally:
            await new.close()


async def test_a_forgotten_seat_stays_marked_and_a_person_named_like_one_keeps_the_history(tmp_path: Path) -> None:
    """A seat is forgotten by its mark (migration 0017), not by its name: the copy keeps the marks, so Ben, who
    calls himself "—", still has the game's history after Ann was forgotten, until he asks too."""
    path = tmp_path / "old.sqlite3"
    old = await Database.open(path)
    try:
        games = GamesRepository(old)
        lobby = await games.create(
            kind="kniffel", variant="kniffel", guild_id=1, channel_id=100, host=Seat.user(10, "Ann"),
            locale="en-US", options={}, deadline_at=None, others=(Seat.user(11, FORGOTTEN_NAME),),
        )  # fmt: skip
        moves = [MoveRow(player, "player", "{}", "{}") for player in ("10", "11")]
        await games.save(replace(lobby, status="finished", finished_at=NOW), before=lobby, moves=moves)
        await StatsRepository(old).forget(10)
    finally:
        await old.close()
    async with fresh_schema(server_url()) as url:
        await migrate(f"sqlite:///{path}", url)
        new = await Database.open(url)
        try:
            seats = await new.fetch_all("SELECT player, display_name, forgotten FROM game_seats ORDER BY seat")
            assert [tuple(row) for row in seats] == [("10", FORGOTTEN_NAME, 1), ("11", FORGOTTEN_NAME, 0)]
            history = HistoryRepository(new)
            assert len(await history.moves(lobby.id)) == 2
            await StatsRepository(new).forget(11)
            assert await history.moves(lobby.id) == []
        finally:
            await new.close()


async def filled_source(tmp_path: Path) -> Path:
    """A closed SQLite database of four games (:func:`fill`), as ``--from`` names it."""
    path = tmp_path / "old.sqlite3"
    old = await Database.open(path)
    try:
        await fill(old)
    finally:
        await old.close()
    return path


async def test_a_source_a_running_bot_holds_is_refused_and_held_while_it_is_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """migrate-db copied the file of a running bot without a word: the games it played after the copy were lost
    when the admin switched to PostgreSQL (QA). And a bot started during the copy is refused."""
    path = await filled_source(tmp_path)
    async with fresh_schema(server_url()) as url:
        bot = datalock.hold(path, "the bot")
        assert bot is not None
        try:
            with pytest.raises(DatabaseError, match=r"^a dicebot process uses .* \(--from\): stop it first"):
                await migrate(f"sqlite:///{path}", url)
        finally:
            bot.release()
        starts: list[str] = []
        real_copy = copy._copy

        async def copy_while_a_bot_starts(*args: Any) -> copy.Copied:
            try:
                datalock.hold(path, "in use")
            except datalock.InUse as refused:
                starts.append(str(refused))
            return await real_copy(*args)

        monkeypatch.setattr(copy, "_copy", copy_while_a_bot_starts)
        copied = await migrate(f"sqlite:///{path}", url)
        assert copied.counts["games"] == 4 and starts == ["in use"]
    again = datalock.hold(path, "released")
    assert again is not None
    again.release()


async def run_cli(*args: str) -> tuple[int, str, str]:
    """``python -m bot ARGS``: its exit code, standard output and standard error."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_target_that_is_not_empty_is_refused_with_one_line_and_exit_2(tmp_path: Path) -> None:
    path = await filled_source(tmp_path)
    async with fresh_schema(server_url()) as url:
        command = ("migrate-db", "--from", f"sqlite:///{path}", "--to", url)
        code, out, err = await run_cli(*command)
        assert code == 0, err
        assert "verified, rows per table: games 4, " in out
        code, out, err = await run_cli(*command)
        assert code == 2
        assert err.count("\n") == 1 and "not empty (4 rows in games)" in err


def test_the_copys_lines_count_in_english() -> None:
    """ "1 games" read as a miscount (QA)."""
    assert copy.Copied({"games": 1, "results": 0}, "postgresql://db/d").summary() == (
        "copied into postgresql://db/d and verified, rows per table: games 1, results 0"
    )


async def test_a_target_that_does_not_exist_names_to_not_database_url(tmp_path: Path) -> None:
    """migrate-db reads no DATABASE_URL: naming it sent admins to the wrong setting."""
    path = tmp_path / "old.sqlite3"
    await (await Database.open(path)).close()
    target = str(URL(server_url()).with_path("/dicebot_no_such_database"))
    with pytest.raises(DatabaseError) as refused:
        await migrate(f"sqlite:///{path}", target)
    assert "(--to)" in str(refused.value) and "DATABASE_URL" not in str(refused.value)


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ((), "there is no dicebot database in {path} (--from): name the SQLite file the bot's DATABASE_URL names"),
        (("CREATE TABLE notes (text TEXT)",), "the database {path} (--from) is not a dicebot database: it has table "),
        (("CREATE TABLE games (id INTEGER)",), "the database {path} (--from) is not a dicebot database: it has table "),
    ],
)
async def test_a_source_without_dicebots_tables_is_refused_before_the_target_is_touched(
    tmp_path: Path, tables: tuple[str, ...], message: str
) -> None:
    """It reported copying 0 games as a success, and the target held dicebot's tables afterwards (QA)."""
    path = tmp_path / "empty.sqlite3"
    with sqlite3.connect(path) as conn:
        for statement in tables:
            conn.execute(statement)
    conn.close()
    async with fresh_schema(server_url()) as url:
        with pytest.raises(DatabaseError) as refused:
            await migrate(f"sqlite:///{path}", url)
        assert str(refused.value).startswith(message.format(path=path))
        target = await asyncpg.connect(url)
        try:
            assert await target.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()") == []
        finally:
            await target.close()


def newer_schema(tmp_path: Path) -> Path:
    """A database a newer dicebot wrote: its schema version is beyond this dicebot's migrations."""
    return newer_sqlite(tmp_path / "old.sqlite3", 99999)


@pytest.mark.parametrize(("make", "message"), [(newer_schema, "newer than this dicebot"), (damaged, "is damaged")])
async def test_a_source_it_cannot_use_names_from_and_the_admins_path(
    tmp_path: Path, make: Callable[[Path], Path], message: str
) -> None:
    """The source is read from a temporary snapshot, but the admin gave --from and a path: the error names those,
    never DATABASE_URL (not read by migrate-db) or the snapshot (gone when the error is read)."""
    path = make(tmp_path)
    with pytest.raises(DatabaseError) as refused:
        await migrate(f"sqlite:///{path}", server_url())
    text = str(refused.value)
    assert message in text and "--from" in text and str(path) in text
    assert "DATABASE_URL" not in text and "snapshot" not in text


async def test_a_snapshot_it_cannot_write_names_the_temporary_folder_not_the_source(tmp_path: Path) -> None:
    """A full disk under the temporary copy read "cannot read the SQLite database ... (--from)" (QA)."""
    path = tmp_path / "old.sqlite3"
    await (await Database.open(path)).close()
    (tmp_path / "tmp").mkdir()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "migrate-db", "--from", f"sqlite:///{path}", "--to", "postgresql://x@127.0.0.1/db",
        env={**os.environ, "TMPDIR": str(tmp_path / "tmp")}, preexec_fn=full_disk, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert (process.returncode, stderr.decode().splitlines()) == (
        2,
        [
            f"dicebot: cannot write the temporary copy of {path} (--from) in {tmp_path / 'tmp'} (disk I/O error): "
            "check the disk there (free space) or set TMPDIR to another folder"
        ],
    )


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("sqlite:///missing.sqlite3", "postgresql://x@127.0.0.1/db", "no SQLite database"),
        (
            f"sqlite:///{TOO_LONG}/old.sqlite3",
            "postgresql://x@127.0.0.1/db",
            f"cannot use the path {TOO_LONG}/old.sqlite3 (--from): file name too long",
        ),
        ("sqlite:///old.sqlite3?mode=ro", "postgresql://x@127.0.0.1/db", "--from: a sqlite:/// URL takes no query"),
        ("postgresql://x@127.0.0.1/db", "postgresql://x@127.0.0.1/db", "--from must be"),
        ("sqlite:///old.sqlite3", "sqlite:///new.sqlite3", "--to must be"),
        ("sqlite:///old.sqlite3", "postgresql://x@127.0.0.1:99999/db", "--to: port 99999 is not between 1 and 65535"),
        ("sqlite:///old.sqlite3", "postgresql://x@127.0.0.1:x5/db", "--to: port 'x5' is not a number"),
        # Copied into libpq's default, a database named after the user (QA).
        ("sqlite:///old.sqlite3", "postgresql://", "--to: names no server and no database"),
        ("sqlite:///old.sqlite3", "postgres://", "--to: names no server and no database"),
        # A server but no database: copied into the database named after the user too (review).
        ("sqlite:///old.sqlite3", "postgresql://x@127.0.0.1:5432", "--to: names no database, so the driver"),
        ("sqlite:///old.sqlite3", "postgresql:///", "--to: names no database, so the driver"),
        ("sqlite:///old.sqlite3", "postgresql://@", "--to: names no database, so the driver"),
        # "--to: port 'Zx9' is not a number": the password's start (QA).
        ("sqlite:///old.sqlite3", "postgresql://x:Zx9/Qk+3w=@127.0.0.1/db", "--to: the password or user name holds"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path, source: str, target: str, message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "migrate-db", "--from", source, "--to", target],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr
    assert "Zx9" not in done.stderr
