"""The heartbeat file and ``python -m bot health``, the container health check of ``compose.yaml``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

import bot.__main__ as entry
from bot.health import STALE_AFTER, Heartbeat, problem, unusable
from bot.settings import Settings
from tests.test_paths import TOO_LONG, deny


def test_the_file_is_touched_only_while_healthy(tmp_path: Path) -> None:
    path = tmp_path / "run" / "dicebot.health"
    healthy = False
    beat = Heartbeat(path, lambda: healthy)
    beat.beat()
    assert not path.exists()
    healthy = True
    beat.beat()
    assert path.exists()


def test_a_missing_or_old_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "dicebot.health"
    assert "no heartbeat" in (problem(path) or "")
    path.touch()
    written = path.stat().st_mtime
    assert problem(path, now=written + 1) is None
    assert "s old" in (problem(path, now=written + STALE_AFTER + 1) or "")


def test_a_file_dated_far_in_the_future_is_a_problem(tmp_path: Path) -> None:
    """After the clock was set back, a hung bot's last beat must not count as fresh until the clock catches up."""
    path = tmp_path / "dicebot.health"
    path.touch()
    written = path.stat().st_mtime
    assert problem(path, now=written - 1) is None
    assert "in the future" in (problem(path, now=written - STALE_AFTER - 1) or "")


async def test_stopping_removes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "dicebot.health"
    beat = Heartbeat(path, lambda: True)
    beat.start()
    beat.beat()
    assert path.exists()
    await beat.stop()
    assert not path.exists()


async def test_stopping_goes_on_when_the_file_cannot_be_removed(tmp_path: Path) -> None:
    """A folder in its place made the bot's close() raise, and the process ran on after SIGTERM until kill -9."""
    beat = Heartbeat(tmp_path, lambda: True)
    beat.start()
    await beat.stop()


def test_a_folder_or_a_path_through_a_file_is_unusable(tmp_path: Path) -> None:
    assert unusable(tmp_path) == f"{tmp_path} is a folder"
    (tmp_path / "file").touch()
    assert unusable(tmp_path / "file" / "dicebot.health") == f"{tmp_path / 'file'} is a file, not a folder"
    assert unusable(tmp_path / "file") is None
    assert unusable(tmp_path / "run" / "nested" / "dicebot.health") is None


def test_a_path_it_cannot_look_at_is_unusable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Path.is_dir`` raised for these on Python 3.11: the start ended with a traceback (QA)."""
    long = tmp_path / TOO_LONG / "dicebot.health"
    assert unusable(long) == f"{long} cannot be used (file name too long)"
    deny(monkeypatch, tmp_path / "locked")
    locked = tmp_path / "locked" / "dicebot.health"
    assert unusable(locked) == f"{locked} cannot be used (permission denied)"


def test_a_place_that_takes_no_file_is_unusable_although_its_permissions_say_yes() -> None:
    """``HEALTH_FILE=/proc/h`` passed the check (``os.access`` allows root everything) and every beat failed later,
    the container unhealthy with a warning in the log (QA); /proc takes no new file, nor writes to most of its own."""
    assert unusable(Path("/proc/dicebot.health")) == "cannot create files in /proc (no such file or directory)"
    # Root is told "invalid argument", any other user "permission denied".
    assert (unusable(Path("/proc/version")) or "").startswith("/proc/version is not writable by this user (")


def broken_links(tmp_path: Path) -> dict[Path, str]:
    """Missing paths where no file can ever be, and why: every beat failed to touch them (review)."""
    (tmp_path / "loop").symlink_to(tmp_path / "other")
    (tmp_path / "other").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "unmounted" / "dicebot.health")
    (tmp_path / "file").touch()
    (tmp_path / "through").symlink_to(tmp_path / "file" / "dicebot.health")
    return {
        tmp_path / "loop": f"{tmp_path / 'loop'} is a loop of symbolic links",
        tmp_path / "dangling": (
            f"{tmp_path / 'dangling'} is a symbolic link to {tmp_path / 'unmounted' / 'dicebot.health'}, whose folder "
            "does not exist"
        ),
        tmp_path / "file" / "run" / "dicebot.health": f"{tmp_path / 'file'} is a file, not a folder",
        # The link's own folder was blamed (review).
        tmp_path / "through": f"{tmp_path / 'file'} is a file, not a folder",
    }


def test_a_loop_or_a_link_into_a_missing_folder_is_unusable(tmp_path: Path) -> None:
    for path, why in broken_links(tmp_path).items():
        assert unusable(path) == why
    (tmp_path / "fine").symlink_to(tmp_path / "dicebot.health")
    assert unusable(tmp_path / "fine") is None


def test_a_file_that_is_not_a_regular_one_is_unusable(tmp_path: Path) -> None:
    """A pipe: opening it to write would wait for a reader, at every start."""
    os.mkfifo(tmp_path / "pipe")
    assert unusable(tmp_path / "pipe") == f"{tmp_path / 'pipe'} is not a regular file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_the_bot_cannot_write_is_unusable(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert "permission denied" in (unusable(locked / "run" / "dicebot.health") or "")


def health(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if key != "HEALTH_FILE"}
    return subprocess.run(
        [sys.executable, "-m", "bot", "health"], env={**clean, **env}, cwd=cwd, capture_output=True, text=True
    )


def test_the_check_exits_0_fresh_1_stale_2_unconfigured(tmp_path: Path) -> None:
    path = tmp_path / "dicebot.health"
    unset = health({}, tmp_path)
    assert (unset.returncode, unset.stderr.count("\n")) == (2, 1)
    assert "HEALTH_FILE is not set" in unset.stderr
    missing = health({"HEALTH_FILE": str(path)}, tmp_path)
    assert missing.returncode == 1 and "no heartbeat" in missing.stderr
    path.touch()
    assert health({"HEALTH_FILE": str(path)}, tmp_path).returncode == 0
    old = path.stat().st_mtime - STALE_AFTER - 5
    os.utime(path, (old, old))
    stale = health({"HEALTH_FILE": str(path)}, tmp_path)
    assert stale.returncode == 1 and "s old" in stale.stderr


def test_the_check_on_a_folder_says_so(tmp_path: Path) -> None:
    """Not "the last heartbeat is 3 s old": the folder's own age is no heartbeat."""
    folder = health({"HEALTH_FILE": str(tmp_path)}, tmp_path)
    assert (folder.returncode, folder.stderr.count("\n")) == (2, 1)
    assert f"HEALTH_FILE {tmp_path} is a folder" in folder.stderr


def test_the_check_on_a_path_it_cannot_look_at_says_so(tmp_path: Path) -> None:
    """Not a traceback and exit code 1, which a container reads as an unhealthy bot (QA)."""
    path = tmp_path / TOO_LONG / "dicebot.health"
    done = health({"HEALTH_FILE": str(path)}, tmp_path)
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        [f"dicebot: cannot use the path {path} (HEALTH_FILE): file name too long"],
    )


def test_the_check_on_a_path_where_no_file_can_be_says_so(tmp_path: Path) -> None:
    """A file on the way or a loop of links ended the check with a traceback (review)."""
    for path, why in broken_links(tmp_path).items():
        done = health({"HEALTH_FILE": str(path)}, tmp_path)
        assert (done.returncode, done.stderr.splitlines()) == (
            2,
            [f"dicebot: HEALTH_FILE {why}: point it at the file the bot writes, e.g. /tmp/dicebot.health"],
        )


def test_the_check_loads_neither_discord_nor_the_bot() -> None:
    """It runs every few seconds in the container: half a second of imports each time was most of its cost, and
    the settings models (pydantic), asyncio and storage most of the rest."""
    heavy = "{'discord', 'bot.app', 'aiohttp', 'pydantic', 'pydantic_settings', 'asyncio', 'bot.storage'}"
    code = f"import sys, bot.__main__; print(sorted({heavy} & set(sys.modules)))"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"


@pytest.mark.parametrize(
    ("environ", "dotenv"),
    [
        ({}, ""),
        ({}, "HEALTH_FILE=/run/from-dotenv.health\n"),
        ({"HEALTH_FILE": "/run/from-env.health"}, "HEALTH_FILE=/run/from-dotenv.health\n"),
        ({"health_file": "/run/lower-case.health"}, ""),
        ({"HEALTH_FILE": "  "}, "HEALTH_FILE=/run/from-dotenv.health\n"),
        ({}, "# a comment\nexport HEALTH_FILE='/run/quoted file.health'\nOTHER=1\n"),
        ({}, "HEALTH_FILE=\n"),
        ({"HEALTH_FILE": "~/dicebot.health"}, ""),
        ({}, "HEALTH_FILE=~/dicebot.health\n"),
    ],
)
def test_the_check_reads_health_file_as_the_settings_do(
    environ: dict[str, str], dotenv: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check reads the variable without the settings models; the bot that writes the file reads it with them."""
    (tmp_path / ".env").write_text(dotenv)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in list(os.environ):
        if name.upper() == "HEALTH_FILE":
            monkeypatch.delenv(name)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    expected = Settings(discord_token=SecretStr("token")).health_file
    assert entry.health_file() == expected
