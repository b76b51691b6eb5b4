"""``python -m bot`` without a token: the playground, its one line, its own data, port errors and the host warning."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

import bot.__main__ as entry
from bot.settings import environment_names
from bot.urls import netloc, reached_by
from tests.newer import newer_sqlite

pytestmark = pytest.mark.timeout(120)

#: Every setting dicebot reads: a developer's own values (a token, a COMPUTER_DELAY) must not leak into the
#: playground a test starts; from the settings models, so a new setting cannot be missed here.
SETTINGS = environment_names()


def clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def refused(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot playground ARGS`` (a free port unless ARGS name one) in ``cwd``, run to its exit: these
    tests start it where it must refuse, so it stops by itself."""
    port = () if "--port" in args else ("--port", str(free_port()))
    return subprocess.run(
        [sys.executable, "-m", "bot", "playground", *args, *port],
        env=clean_env(**env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize(
    ("data_dir", "token", "host"), [(None, "", "127.0.0.1"), ("kept/here", "", "localhost"), (None, "abc", "0.0.0.0")]
)
async def test_playground_prints_its_url_serves_the_page_and_stops_on_sigterm(
    tmp_path: Path, data_dir: str | None, token: str, host: str
) -> None:
    """Its games and world are kept in ``data``, or in ``DATA_DIR`` where the admin keeps the bot's files. Asked
    for by name with a token set, its line does not advise setting one. Listening beyond this machine, it warns
    that the page has no login."""
    port = free_port()
    folder = tmp_path / (data_dir or "data")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "playground",
        "--port",
        str(port),
        "--host",
        host,
        env=clean_env(
            DATABASE_URL="sqlite:///real.sqlite3", DISCORD_TOKEN=token, **({"DATA_DIR": data_dir} if data_dir else {})
        ),
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
        url = f"http://127.0.0.1:{port}/"
        advice = "" if token else " (set DISCORD_TOKEN to connect to Discord instead)"
        assert line == f"dicebot playground: open {url} to play in your browser{advice}\n"
        async with aiohttp.ClientSession() as session, session.get(url) as page:
            assert page.status == 200
            assert "<title>dicebot playground</title>" in await page.text()
            assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        rest, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()
    assert rest == b""
    warning = (
        f"dicebot: warning: the playground page has no login; anyone who can reach this machine on port {port} "
        "can play as any of its users\n"
    )
    assert stderr.decode() == (warning if host == "0.0.0.0" else "")
    assert (folder / "playground.sqlite3").exists()
    assert (folder / "playground.world.json").exists()
    assert not (tmp_path / "real.sqlite3").exists()  # never the real server's database


def test_a_port_in_use_is_one_line_and_exit_code_2(tmp_path: Path, taken_port: int) -> None:
    """The hint is a command that works: ``--port`` belongs to the playground subcommand, not to plain
    ``python -m bot``, whose playground is the one that finds 8080 taken."""
    done = refused(tmp_path, "--port", str(taken_port))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"dicebot: port {taken_port} is already in use; pick another one: python -m bot playground --port NUMBER"
    ]
    hint = done.stderr.split(": ")[-1].strip().replace("NUMBER", str(free_port())).split()
    assert hint[:3] == ["python", "-m", "bot"]
    assert entry.parse(hint[3:]).run.__name__ == "run_playground"


def test_a_start_that_fails_on_another_host_says_only_why(tmp_path: Path) -> None:
    """The no-login warning comes once the page listens: it came first, then the error (two lines; QA)."""
    done = refused(tmp_path, "--host", "203.0.113.7")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "cannot serve the playground on 203.0.113.7:" in done.stderr


def test_a_disk_failing_under_a_running_playground_is_not_blamed_on_its_address(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any OSError read "cannot serve the playground on …; try another --host or --port" (review)."""
    monkeypatch.chdir(tmp_path)
    for name in environment_names():
        monkeypatch.delenv(name, raising=False)

    async def full_disk(playground: object, *, has_token: bool) -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "data" / "playground.world.json"))

    monkeypatch.setattr(entry, "serve_playground", full_disk)
    assert entry.main(["playground", "--port", str(free_port())]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dicebot: the playground stopped: [Errno 28] No space left on device: "
        f"'{tmp_path / 'data' / 'playground.world.json'}'"
    ]


@pytest.mark.parametrize(
    ("host", "others"),
    [
        ("127.0.0.1", None),
        ("127.1.2.3", None),
        ("localhost", None),
        ("LocalHost", None),
        ("::1", None),
        ("0.0.0.0", "this machine on port 8080"),
        ("0", "this machine on port 8080"),
        ("::", "this machine on port 8080"),
        ("192.168.1.20", "192.168.1.20:8080"),
        ("fe80::1", "[fe80::1]:8080"),
        ("box.lan", "box.lan:8080"),
    ],
)
def test_the_warning_names_who_else_can_reach_the_page(host: str, others: str | None) -> None:
    assert reached_by(host, 8080) == others


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "playground"),
        ({"DISCORD_TOKEN": ""}, "playground"),
        ({"DISCORD_TOKEN": " "}, "playground"),
        ({"DISCORD_TOKEN": " ", "REQUIRE_TOKEN": "true"}, "bot"),
        ({"DISCORD_TOKEN": "abc"}, "bot"),
        ({"REQUIRE_TOKEN": "true"}, "bot"),
    ],
)
def test_the_default_is_the_playground_only_without_a_token(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ran: list[str] = []
    monkeypatch.setattr(entry, "run_bot", lambda args: ran.append("bot") or 0)
    monkeypatch.setattr(entry, "run_playground", lambda args: ran.append("playground") or 0)
    assert entry.main([]) == 0
    assert ran == [expected]


def test_the_playground_subcommand_takes_port_and_host() -> None:
    args = entry.parse(["playground", "--port", "9001", "--host", "0.0.0.0"])
    assert (args.port, args.host) == (9001, "0.0.0.0")
    # An IPv6 address in brackets, as a URL writes it, is the address: it printed as http://[[::1]]:9001 (review).
    assert entry.parse(["playground", "--host", "[::1]"]).host == "::1"
    assert args.run.__name__ == "run_playground"
    assert entry.parse([]).run.__name__ == "run_default"


@pytest.mark.parametrize("port", ["70000", "0", "-1", "http"])
def test_a_port_outside_1_to_65535_is_one_line_and_exit_code_2(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Not a traceback from the socket's bind (an OverflowError, which is no OSError)."""
    with pytest.raises(SystemExit) as exited:
        entry.main(["playground", "--port", port])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dicebot: argument --port: {port if port.lstrip('-').isdecimal() else repr(port)} is not a port number"
        " (1 to 65535) (see python -m bot --help)"
    ]


@pytest.mark.parametrize("host", ["", " "])
def test_an_empty_host_is_one_line_and_exit_code_2(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    """aiohttp took it for every interface and the playground printed http://0.0.0.0:PORT (QA)."""
    with pytest.raises(SystemExit) as exited:
        entry.main(["playground", "--host", host])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "dicebot: argument --host: an empty host would listen on every interface; name one, e.g. 127.0.0.1 "
        "(this machine) or 0.0.0.0 (all) (see python -m bot --help)"
    ]


@pytest.mark.parametrize(("host", "address"), [("::1", "[::1]:8080"), ("localhost", "localhost:8080")])
def test_the_address_the_warning_names_is_as_a_url_writes_it(host: str, address: str) -> None:
    assert netloc(host, 8080) == address


def test_a_bot_that_cannot_start_ends_the_playground_with_its_error(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    newer_sqlite(tmp_path / "data" / "playground.sqlite3")
    done = refused(tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("dicebot: playground: the database data/playground.sqlite3 has schema version 9999, ")
    assert line.endswith("; upgrade dicebot or point DATA_DIR at another database")


def test_a_damaged_world_file_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    """Each kind of damage is told in tests/playground/test_damaged_files.py; here, how it ends the command."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "playground.world.json").write_text('{"format": 1, "application_id": 12')
    done = refused(tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: cannot restore the playground's world from data/playground.world.json: it is not JSON "
        "(Expecting ',' delimiter: line 1 column 35 (char 34)); repair the file, or move it away to start a new world"
    ]


def test_a_database_file_that_is_not_one_is_named_with_the_setting_that_placed_it(tmp_path: Path) -> None:
    """The playground's database is placed by DATA_DIR, not DATABASE_URL (which it never reads)."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "playground.sqlite3").write_bytes(b"not a database, " * 512)
    done = refused(tmp_path, DATABASE_URL="sqlite:///real.sqlite3")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: playground: cannot use the database data/playground.sqlite3 (DATA_DIR): file is not a database"
    ]


@pytest.mark.parametrize(
    ("dotenv", "variable"),
    [
        ("COMPUTER_DELAY=0.1", "COMPUTER_DELAY"),
        ("DATABASE_POOL_SIZE=abc", "DATABASE_POOL_SIZE"),
        ("SHARD_IDS=1", "SHARD_IDS"),
    ],
)
def test_bad_bot_settings_are_one_line_and_exit_code_2(tmp_path: Path, dotenv: str, variable: str) -> None:
    """The playground's bot reads the admin's other settings too: the bot's own one line, not a pydantic traceback."""
    (tmp_path / ".env").write_text(f"{dotenv}\n")
    done = refused(tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dicebot: {variable} is invalid (")


@pytest.mark.parametrize("where", ["through a file", "read-only"])
def test_a_data_dir_it_cannot_write_names_the_folder_not_the_port(tmp_path: Path, where: str) -> None:
    if where == "read-only" and os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    (tmp_path / "file").touch()
    (tmp_path / "locked").mkdir(mode=0o500)
    data_dir = "file/data" if where == "through a file" else "locked"
    done = refused(tmp_path, DATA_DIR=data_dir)
    assert done.returncode == 2
    reason = "Not a directory" if where == "through a file" else "Permission denied"
    assert done.stderr.splitlines() == [
        f"dicebot: cannot keep the playground's files in {data_dir} ({reason}); "
        "set DATA_DIR to a folder this user may write"
    ]


async def playground(cwd: Path, port: int, **env: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "playground",
        "--port",
        str(port),
        env=clean_env(**env),
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def serving(process: asyncio.subprocess.Process) -> str:
    """Its one line once it serves the page: the URL."""
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 60)).decode()
    assert line.startswith("dicebot playground: open "), line
    return line.split()[3]


async def test_a_second_playground_on_the_same_data_is_refused_until_the_first_is_gone(tmp_path: Path) -> None:
    """Two playgrounds on one data folder shared its database and world file, and after restarts games were stuck
    (QA). The second is refused with one line while the first keeps serving; after a kill -9 of the first a new
    one starts (the lock went with the process)."""
    first = await playground(tmp_path, free_port())
    try:
        url = await serving(first)
        done = await asyncio.to_thread(refused, tmp_path)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            "dicebot: another dicebot process uses the playground's data in data (data/playground.sqlite3); "
            "stop it first, or set DATA_DIR to another folder for this one"
        ]
        async with aiohttp.ClientSession() as session, session.get(url) as page:
            assert page.status == 200
    finally:
        first.kill()
        await first.wait()
    again = await playground(tmp_path, free_port())
    try:
        await serving(again)
    finally:
        again.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(again.communicate(), 30)
    assert again.returncode == 0, stderr.decode()


#: What the playground imports or logs (with LOG_LEVEL=INFO) as its start goes on: discord.py imported, the
#: playground's module imported, its bot logging in, its commands synced, its URL printed.
PLAYGROUND_PHASES = ["| discord", "| bot.playground", "logging in using static token", "synced", "the URL"]


def imported(line: str, module: str) -> bool:
    """Whether ``line`` of ``PYTHONPROFILEIMPORTTIME`` says ``module`` is imported, at any depth of nesting (its name
    indented by two spaces a level)."""
    return re.search(rf"\|\s+{re.escape(module)}$", line.rstrip()) is not None


@pytest.mark.parametrize("phase", PLAYGROUND_PHASES)
async def test_ctrl_c_at_any_moment_of_the_playgrounds_start_is_a_quiet_stop(tmp_path: Path, phase: str) -> None:
    process = await playground(tmp_path, free_port(), LOG_LEVEL="INFO", PYTHONPROFILEIMPORTTIME="1")
    try:
        if phase == "the URL":
            await serving(process)
        else:
            assert process.stderr is not None
            while True:
                line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
                assert line, f"the playground ended before {phase!r}"
                if imported(line, phase[2:]) if phase.startswith("| ") else phase in line:
                    break
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    told = "\n".join(line for line in stderr.decode().splitlines() if "import time:" not in line)
    assert process.returncode == 0, told
    assert "Traceback" not in told
    assert "ERROR" not in told
