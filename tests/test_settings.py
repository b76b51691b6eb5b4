"""Settings validation and the admin-facing start-up errors of ``python -m bot``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.__main__ import main, parse
from bot.envfile import env_file_problem, quoted_setting
from bot.settings import FIX_HINTS, LaunchSettings, Settings, describe_error, environment_names, misspelt_settings

ENV_NAMES = environment_names()
EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults() -> None:
    settings = Settings(discord_token="abc")
    assert settings.database_path == Path("data/dicebot.sqlite3")
    assert settings.log_level == "INFO"
    assert settings.dev_guild_id is None


def test_a_postgresql_url_selects_postgresql_with_its_pool_settings() -> None:
    settings = Settings(
        discord_token="abc",
        database_url="postgresql://dice:secret@db:5432/dicebot",
        database_pool_size="4",
        database_statement_timeout="2.5",
    )
    assert settings.uses_postgres
    assert (settings.database_pool_size, settings.database_statement_timeout) == (4, 2.5)
    assert Settings(discord_token="abc", database_statement_timeout="0.1").database_statement_timeout == 0.1
    assert settings.files_dir == Path("data")
    assert Settings(discord_token="abc", data_dir="/srv/tables").files_dir == Path("/srv/tables")
    assert Settings(discord_token="abc", data_dir="").files_dir == Path("data")
    assert not Settings(discord_token="abc").uses_postgres


def test_reads_dotenv_and_treats_empty_as_unset(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=from-file\nDEV_GUILD_ID=\nLOG_LEVEL=debug\n")
    settings = Settings()
    assert settings.discord_token.get_secret_value() == "from-file"
    assert settings.dev_guild_id is None
    assert settings.log_level == "DEBUG"


def test_copying_the_env_example_changes_no_default() -> None:
    """``cp .env.example .env`` is the first step of every guide: the copy must start what no ``.env`` starts (an
    empty ``DATA_DIR=`` once put the playground's files in the working directory, ``LOG_LEVEL=INFO`` printed its
    connection chatter under the one line the README promises)."""
    assert LaunchSettings(_env_file=EXAMPLE) == LaunchSettings(_env_file=None)
    assert Settings(discord_token="x", _env_file=EXAMPLE) == Settings(discord_token="x", _env_file=None)


def test_empty_lines_mean_the_defaults(tmp_path: Path) -> None:
    names = ("DATABASE_URL", "DATABASE_POOL_SIZE", "DATABASE_STATEMENT_TIMEOUT", "LOG_LEVEL", "COMPUTER_DELAY")
    (tmp_path / ".env").write_text("".join(f"{name}=\n" for name in names))
    assert Settings(discord_token="x") == Settings(discord_token="x", _env_file=None)


def test_an_empty_data_dir_is_the_default_for_the_playground_too() -> None:
    assert LaunchSettings(data_dir="", _env_file=None).data_dir is None
    assert LaunchSettings(data_dir=" ", _env_file=None).data_dir is None


def test_an_empty_require_token_is_the_default() -> None:
    """Refused as "no valid boolean", where an empty line means the default for every other setting (QA)."""
    assert LaunchSettings(require_token="", _env_file=None).require_token is False
    assert LaunchSettings(require_token=" ", _env_file=None).require_token is False


def test_spaces_around_the_database_url_are_no_part_of_it() -> None:
    """It was told it "must start with sqlite:///", which it did after the space (QA)."""
    assert Settings(discord_token="x", database_url=" sqlite:///x.db ", _env_file=None).database_url == "sqlite:///x.db"


def test_a_tilde_in_data_dir_and_a_sqlite_path_is_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DATA_DIR=~/dicedata`` made a folder literally named ``~`` in the working directory (QA): neither ``.env``
    nor a container's environment expands it, so the bot does, as a shell would."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / ".env").write_text("DISCORD_TOKEN=x\nDATA_DIR=~/dicedata\nDATABASE_URL=sqlite:///~/dice/db.sqlite3\n")
    settings = Settings()
    assert settings.files_dir == home / "dicedata"
    assert settings.database_path == home / "dice" / "db.sqlite3"
    assert LaunchSettings().data_dir == home / "dicedata"
    monkeypatch.setenv("DATA_DIR", "~")
    assert Settings().files_dir == LaunchSettings().data_dir == home
    # Only at the start of a path, as in a shell; the full path of a folder named "~" stays as it is.
    assert Settings(discord_token="x", data_dir="data/~x", _env_file=None).files_dir == Path("data/~x")
    assert Settings(discord_token="x", database_url="sqlite:////srv/~/db.sqlite3").database_path == Path(
        "/srv/~/db.sqlite3"
    )


def test_a_tilde_in_health_file_is_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HEALTH_FILE=~/dicebot.health`` was taken literally, a file under a folder named ``~``, while ``DATA_DIR``
    and the SQLite path beside it were expanded."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / ".env").write_text("DISCORD_TOKEN=x\nHEALTH_FILE=~/dicebot.health\n")
    assert Settings().health_file == home / "dicebot.health"
    monkeypatch.setenv("HEALTH_FILE", "/run/~/dicebot.health")
    assert Settings().health_file == Path("/run/~/dicebot.health")
    with pytest.raises(ValidationError, match="~dicebot-no-such-user names no home folder"):
        Settings(discord_token="x", health_file="~dicebot-no-such-user/x.health", _env_file=None)


def test_a_tilde_of_no_home_folder_is_refused_naming_the_setting() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(discord_token="x", data_dir="~dicebot-no-such-user/data", _env_file=None)
    assert describe_error(caught.value) == (
        "DATA_DIR is invalid (Value error, ~dicebot-no-such-user names no home folder on this system; write the full "
        "path): use a folder path this user may write, e.g. /srv/dicebot or ~/dicebot, or leave it empty"
    )
    with pytest.raises(ValidationError, match="~dicebot-no-such-user names no home folder"):
        LaunchSettings(data_dir="~dicebot-no-such-user", _env_file=None)


def test_token_is_never_shown() -> None:
    settings = Settings(discord_token="super-secret")
    assert "super-secret" not in repr(settings)
    assert "super-secret" not in str(settings.model_dump())


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({}, "DISCORD_TOKEN is missing"),
        ({"discord_token": ""}, "DISCORD_TOKEN is empty"),
        ({"discord_token": " \t"}, "DISCORD_TOKEN is empty"),
        # Both passed, then aiohttp refused the header at login: "Forbidden control character detected" (QA).
        (
            {"discord_token": "abc\ndef"},
            "DISCORD_TOKEN is invalid (Value error, it holds a control character, such as a line break, inside it)",
        ),
        ({"discord_token": "abc\x01def"}, "DISCORD_TOKEN is invalid (Value error, it holds a control character"),
        (
            {"discord_token": "x", "database_url": "postgresql://postgres@127.0.0.1:notaport/test"},
            "DATABASE_URL is invalid (Value error, port 'notaport' is not a number)",
        ),
        ({"discord_token": "x", "database_url": "postgresql://u@a:5432,b:x5/db"}, "port 'x5' is not a number"),
        (
            {"discord_token": "x", "database_url": "postgresql://postgres@127.0.0.1:99999/test"},
            "DATABASE_URL is invalid (Value error, port 99999 is not between 1 and 65535)",
        ),
        ({"discord_token": "x", "database_url": "postgresql://u@a:0,b:5432/db"}, "port 0 is not between 1 and 65535"),
        ({"discord_token": "x", "database_url": "mysql://db"}, "DATABASE_URL is invalid"),
        # Accepted, then "no such table: bot_meta" after the migrations, which ran on another connection (QA).
        (
            {"discord_token": "x", "database_url": "sqlite:///:memory:"},
            "DATABASE_URL is invalid (Value error, the bot keeps its games in a file, not in memory; name a file "
            "path): use sqlite:///relative/path.sqlite3",
        ),
        # Said to start with postgresql:// or sqlite:///, which it does; migrate-db's --to took it as the local
        # socket's database named after the user (QA).
        (
            {"discord_token": "x", "database_url": "postgresql://"},
            "DATABASE_URL is invalid (Value error, names no server and no database: write postgresql://",
        ),
        (
            {"discord_token": "x", "database_url": "postgresql://dice@db:5432/"},
            "DATABASE_URL is invalid (Value error, names no database, so the driver would pick one named after the "
            "user: write postgresql://",
        ),
        # Replaced by DATABASE_STATEMENT_TIMEOUT's value without a word (review).
        (
            {"discord_token": "x", "database_url": "postgresql://db/dice?statement_timeout=60000"},
            "DATABASE_URL is invalid (Value error, sets statement_timeout, which the bot takes from "
            "DATABASE_STATEMENT_TIMEOUT: remove it from the URL and set DATABASE_STATEMENT_TIMEOUT (seconds) instead)",
        ),
        *(
            ({"discord_token": "x", "database_url": f"postgresql://db/dice?{query}"}, "sets statement_timeout")
            for query in (
                "options=-c%20Statement_Timeout%3D0",
                "statement%5Ftimeout=1",  # decoded, as the driver reads it
                "options=--statement-timeout%3D1234",
            )
        ),
        # Opened a new, empty file named "db.sqlite3?mode=ro" (QA).
        (
            {"discord_token": "x", "database_url": "sqlite:////srv/db.sqlite3?mode=ro"},
            "DATABASE_URL is invalid (Value error, a sqlite:/// URL takes no query string (?mode=ro): name the file "
            "alone): use sqlite:///relative/path.sqlite3",
        ),
        (
            {"discord_token": "x", "database_url": "sqlite:///data/db.sqlite3#main"},
            "DATABASE_URL is invalid (Value error, a sqlite:/// URL takes no fragment (#main): name the file alone)",
        ),
        ({"discord_token": "x", "database_pool_size": "0"}, "DATABASE_POOL_SIZE is invalid"),
        ({"discord_token": "x", "database_statement_timeout": "-1"}, "DATABASE_STATEMENT_TIMEOUT is invalid"),
        # Passed "above 0", then reached PostgreSQL as int(0.4 ms) = 0: no timeout at all (QA).
        (
            {"discord_token": "x", "database_statement_timeout": "0.0004"},
            "DATABASE_STATEMENT_TIMEOUT is invalid (Input should be greater than or equal to 0.1): use a number of "
            "seconds from 0.1 to 300",
        ),
        # The start failed, "cannot use the database (DATABASE_URL): canceling statement due to statement timeout"
        # (QA).
        ({"discord_token": "x", "database_statement_timeout": "0.001"}, "DATABASE_STATEMENT_TIMEOUT is invalid"),
        ({"discord_token": "x", "dev_guild_id": "abc"}, "DEV_GUILD_ID is invalid"),
        (
            {"discord_token": "x", "discord_gateway_url": "http://x"},
            "DISCORD_GATEWAY_URL is invalid (Value error, must start with ws:// or wss://)",
        ),
        (
            {"discord_token": "x", "discord_api_base": "ftp://x"},
            "DISCORD_API_BASE is invalid (Value error, must start with http:// or https://)",
        ),
        ({"discord_token": "x", "shard_count": "0"}, "SHARD_COUNT is invalid"),
        ({"discord_token": "x", "shard_count": "two"}, "SHARD_COUNT is invalid"),
        ({"discord_token": "x", "shard_ids": "0"}, "SHARD_IDS is invalid (Value error, SHARD_IDS needs SHARD_COUNT)"),
        ({"discord_token": "x", "shard_count": "2", "shard_ids": "2"}, "shard ids [2] are outside 0..1"),
        ({"discord_token": "x", "shard_count": "2", "shard_ids": "-1"}, "SHARD_IDS is invalid"),
        ({"discord_token": "x", "shard_count": "2", "shard_ids": "0,0"}, "listed twice"),
        ({"discord_token": "x", "shard_count": "2", "shard_ids": "0;1"}, "comma-separated numbers"),
        ({"discord_token": "x", "shard_count": "2", "shard_ids": "0,"}, "comma-separated numbers"),
        # Passed as ge=1 alone, then looped on "Integer exceeds 64-bit range" tracebacks, deaf to SIGTERM (QA).
        (
            {"discord_token": "x", "shard_count": "99999999999999999999"},
            "SHARD_COUNT is invalid (Input should be less than or equal to 65535)",
        ),
        ({"discord_token": "x", "shard_count": "65536"}, "SHARD_COUNT is invalid"),
        # These passed the prefix check and ended in aiohttp's and yarl's tracebacks (QA).
        ({"discord_token": "x", "discord_api_base": "http://"}, "DISCORD_API_BASE is invalid (Value error, no host)"),
        (
            {"discord_token": "x", "discord_api_base": "http://:80/x"},
            "DISCORD_API_BASE is invalid (Value error, no host)",
        ),
        (
            {"discord_token": "x", "discord_api_base": "http://[::1"},
            "DISCORD_API_BASE is invalid (Value error, the [ of an IPv6 address is never closed with ])",
        ),
        (
            {"discord_token": "x", "discord_api_base": "http://127.0.0.1:99999/api"},
            "DISCORD_API_BASE is invalid (Value error, port 99999 is not between 1 and 65535)",
        ),
        (
            {"discord_token": "x", "discord_gateway_url": "ws://[::1"},
            "DISCORD_GATEWAY_URL is invalid (Value error, the [",
        ),
        (
            {"discord_token": "x", "discord_gateway_url": "ws://127.0.0.1:99999/g"},
            "DISCORD_GATEWAY_URL is invalid (Value error, port 99999 is not between 1 and 65535)",
        ),
        ({"discord_token": "x", "discord_gateway_url": "ws://h:0/g"}, "port 0 is not between 1 and 65535"),
        (
            {"discord_token": "x", "database_url": "postgresql://u@[::1/db"},
            "DATABASE_URL is invalid (Value error, the [",
        ),
        # Snowflakes are positive: -5 reached Discord as a 404 "try again later" (QA).
        ({"discord_token": "x", "dev_guild_id": "-5"}, "DEV_GUILD_ID is invalid (Input should be greater than 0)"),
        ({"discord_token": "x", "dev_guild_id": "0"}, "DEV_GUILD_ID is invalid"),
        ({"discord_token": "x", "dev_guild_id": str(2**64)}, "DEV_GUILD_ID is invalid"),
        # nan compared false to every bound: "should be less than or equal to 300" (QA).
        (
            {"discord_token": "x", "database_statement_timeout": "nan"},
            "DATABASE_STATEMENT_TIMEOUT is invalid (Input should be a finite number)",
        ),
        (
            {"discord_token": "x", "computer_delay": "nan"},
            "COMPUTER_DELAY is invalid (Input should be a finite number)",
        ),
        (
            {"discord_token": "x", "computer_delay": "inf"},
            "COMPUTER_DELAY is invalid (Input should be a finite number)",
        ),
    ],
)
def test_errors_name_the_variable(overrides: dict[str, str], expected: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(**overrides)
    line = describe_error(caught.value)
    assert expected in line
    assert "\n" not in line


def test_an_invalid_shard_count_is_its_own_error_not_a_missing_one() -> None:
    """SHARD_IDS is checked against a count that failed its own check: "needs SHARD_COUNT" would be wrong."""
    with pytest.raises(ValidationError) as caught:
        Settings(discord_token="x", shard_count="99999999999999999999", shard_ids="0", _env_file=None)
    assert [item["loc"] for item in caught.value.errors()] == [("shard_count",)]


@pytest.mark.parametrize(
    ("name", "url"),
    [
        ("discord_api_base", "http://127.0.0.1:8080/api/v10"),
        ("discord_api_base", "https://discord.com/api/v10"),
        ("discord_api_base", "http://[::1]:65535/api"),
        ("discord_gateway_url", "ws://127.0.0.1:8080/gateway"),
        ("discord_gateway_url", "wss://gateway.discord.gg/"),
    ],
)
def test_discord_urls_with_a_host_and_a_good_port_pass(name: str, url: str) -> None:
    assert getattr(Settings(discord_token="x", _env_file=None, **{name: url}), name) == url


def test_the_largest_shard_count_and_a_snowflake_pass() -> None:
    settings = Settings(
        discord_token="x", shard_count="65535", shard_ids="65534", dev_guild_id=str(2**64 - 1), _env_file=None
    )
    assert (settings.shard_count, settings.shard_ids, settings.dev_guild_id) == (65535, (65534,), 2**64 - 1)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run_bot(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` with ``env``; Discord is a closed local port, so a value wrongly accepted ends in "cannot
    reach Discord" rather than in a connection to the real one."""
    clean = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    port = closed_port()
    nowhere = {"DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10", "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/"}
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        env={**clean, **nowhere, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_exits_2_with_one_line_where_a_token_is_required(tmp_path: Path) -> None:
    done = run_bot({"REQUIRE_TOKEN": "true"}, tmp_path)  # what the Docker image sets
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "dicebot: DISCORD_TOKEN is missing: set it to your bot token from the Discord developer portal "
        "(see .env.example)"
    ]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LOG_LEVEL", "loud"),
        ("DATABASE_URL", "postgresql://postgres@127.0.0.1:99999/test"),
        ("SHARD_COUNT", "99999999999999999999"),
        ("DISCORD_API_BASE", "http://[::1"),
        ("DISCORD_GATEWAY_URL", "ws://127.0.0.1:99999/g"),
        ("DEV_GUILD_ID", "-5"),
    ],
)
def test_invalid_value_exits_2(tmp_path: Path, name: str, value: str) -> None:
    done = run_bot({"DISCORD_TOKEN": "x", name: value}, tmp_path)
    assert done.returncode == 2
    assert f"{name} is invalid" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_sqlite_url_with_a_query_string_exits_2_and_creates_no_file(tmp_path: Path) -> None:
    done = run_bot({"DISCORD_TOKEN": "x", "DATABASE_URL": "sqlite:///db.sqlite3?mode=ro"}, tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("dicebot: DATABASE_URL is invalid (Value error, a sqlite:/// URL takes no query string")
    assert list(tmp_path.iterdir()) == []


def test_a_postgresql_url_keeps_its_search_path() -> None:
    url = "postgresql://dice@db:5432/dicebot?search_path=dicebot"
    assert Settings(discord_token="x", database_url=url, _env_file=None).database_url == url


def test_a_url_only_naming_statement_timeout_in_another_value_passes() -> None:
    """Only the parameter and ``options`` set it: any text containing the words was refused (review)."""
    url = "postgresql://db/dicebot?application_name=statement_timeout_x&options=-c%20work_mem%3D64MB"
    assert Settings(discord_token="x", database_url=url, _env_file=None).database_url == url


@pytest.mark.parametrize(
    "url", ["postgresql://u:p@db:5432/d", "postgresql://u@[::1]:5432/d", "postgresql://u@a,b:5433/d", "postgres://db/d"]
)
def test_postgresql_urls_with_good_ports_pass(url: str) -> None:
    assert Settings(discord_token="x", database_url=url, _env_file=None).uses_postgres


@pytest.mark.parametrize("password", ["Zx9/Qk+3w=", "ab#cdef", "p@ss:x5"])
def test_a_password_with_a_reserved_character_is_one_line_asking_to_encode_it_never_showing_it(
    tmp_path: Path, password: str
) -> None:
    """``Zx9/Qk+3w=`` read "port 'Zx9' is not a number", printing the password's start; ``p@ss:x5`` passed and
    broke in the driver, which splits at the first @ (QA)."""
    done = run_bot(
        {"DISCORD_TOKEN": "x", "DATABASE_URL": f"postgresql://postgres:{password}@db:5432/dicebot"}, tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: DATABASE_URL is invalid (Value error, the password or user name holds a character a URL reserves "
        "(/ ? # @ [ ]): percent-encode each (/ as %2F, ? as %3F, # as %23, @ as %40, [ as %5B, ] as %5D, and % "
        "itself as %25), or use a password of letters and digits only): " + FIX_HINTS["database_url"]
    ]


def test_a_token_of_spaces_is_empty_where_a_token_is_required(tmp_path: Path) -> None:
    done = run_bot({"REQUIRE_TOKEN": "true", "DISCORD_TOKEN": "  "}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: DISCORD_TOKEN is empty: set it to your bot token from the Discord developer portal (see .env.example)"
    ]


@pytest.mark.parametrize(
    ("env", "told"),
    [
        # Rejected by Discord as a wrong token, though the token in the quotes was right (QA).
        ({"DISCORD_TOKEN": '"QAsecret.abc123.xyz789"'}, 'DISCORD_TOKEN is in quotes ("...")'),
        # A folder named " in the working directory (QA).
        ({"DATA_DIR": "'/srv/dicebot'"}, "DATA_DIR is in quotes ('...')"),
        ({"REQUIRE_TOKEN": "true", "database_url": ' "sqlite:///db.sqlite3" '}, 'DATABASE_URL is in quotes ("...")'),
    ],
)
def test_a_setting_in_quotes_in_the_environment_is_one_line_naming_it(
    tmp_path: Path, env: dict[str, str], told: str
) -> None:
    """``docker run --env-file`` keeps a value's quotes, which python-dotenv takes off in ``.env``."""
    done = run_bot(env, tmp_path)
    assert (done.returncode, done.stderr.splitlines()) == (
        2,
        [f"dicebot: {told}, which docker run --env-file keeps as part of the value: write it without them"],
    )
    assert "QAsecret" not in done.stderr and list(tmp_path.iterdir()) == []


def test_quotes_inside_a_value_or_at_one_end_are_its_own() -> None:
    names = environment_names()
    assert quoted_setting(names, {"DATA_DIR": "/srv/it's", "LOG_LEVEL": "'INFO", "OTHER": '"x"'}) is None
    assert quoted_setting(names, {"HEALTH_FILE": "''"}) is not None


def test_an_env_folder_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What Docker makes where it mounts a missing .env: it was skipped without a word, the playground started (QA)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").mkdir()
    assert env_file_problem() == (
        ".env is a folder, not a file of settings: remove it and write the file (cp .env.example .env)"
    )


def test_shards_unset_mean_one_process_with_every_shard() -> None:
    settings = Settings(discord_token="x", _env_file=None)
    assert (settings.shard_count, settings.shard_ids, settings.shard_scope) == (None, None, None)


def test_shard_ids_read_as_admins_write_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", " 3, 1 ")
    settings = Settings(discord_token="x", _env_file=None)
    assert settings.shard_ids == (1, 3)
    scope = settings.shard_scope
    assert scope is not None and (scope.count, scope.ids) == (4, (1, 3))
    assert scope.owns(1 << 22) and not scope.owns(2 << 22) and not scope.owns(None)


def test_a_process_with_every_shard_owns_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "2")
    assert Settings(discord_token="x", _env_file=None).shard_scope is None
    monkeypatch.setenv("SHARD_IDS", "1,0")
    assert Settings(discord_token="x", _env_file=None).shard_scope is None


def test_shard_ids_outside_the_count_exit_2(tmp_path: Path) -> None:
    done = run_bot({"DISCORD_TOKEN": "x", "SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "dicebot: SHARD_IDS is invalid (Value error, shard ids [2] are outside 0..1): use this process's shards, "
        "comma-separated from 0 to SHARD_COUNT-1 (e.g. 0,1), with SHARD_COUNT set"
    ]


def test_a_near_miss_of_a_setting_in_dotenv_warns_with_the_right_name(tmp_path: Path) -> None:
    """Compose's own keys in the same file stay quiet; ``DISCORD_TOKN`` is not silently a missing token."""
    (tmp_path / ".env").write_text(
        "DISCORD_TOKN=abc\nPOSTGRES_PASSWORD=x\ndatabse_url=sqlite:///x.sqlite3\nLOG_LEVEL=\n"
    )
    assert misspelt_settings() == [
        "warning: DISCORD_TOKN in .env is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "warning: databse_url in .env is not a setting and is ignored; did you mean DATABASE_URL?",
    ]
    done = run_bot({"REQUIRE_TOKEN": "true"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: warning: DISCORD_TOKN in .env is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "dicebot: warning: databse_url in .env is not a setting and is ignored; did you mean DATABASE_URL?",
        "dicebot: DISCORD_TOKEN is missing: set it to your bot token from the Discord developer portal "
        "(see .env.example)",
    ]


def test_a_near_miss_of_a_setting_in_the_environment_warns_once_per_name(tmp_path: Path) -> None:
    """Docker's --env-file and compose pass .env's lines as environment variables: ``DATABSE_URL`` there silently
    used SQLite (QA). Other programs' variables that only share a word stay quiet, and so does a setting in any
    case; a name also in .env is named once."""
    (tmp_path / ".env").write_text("DISCORD_TOKN=abc\n")
    environ = {
        name: "x"
        for name in (
            "DATABSE_URL", "SHARD_ID", "LOGLEVEL", "DISCROD_TOKEN", "DISCORD_TOKN", "database_url", "LOG_LEVEL",
            "DATABASE_USER", "DATABASE", "GUILD_ID", "SHARDS", "PATH", "HOSTNAME", "POSTGRES_PASSWORD",
        )
    }  # fmt: skip
    assert misspelt_settings(environ=environ) == [
        "warning: DISCORD_TOKN in .env is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "warning: DATABSE_URL in the environment is not a setting and is ignored; did you mean DATABASE_URL?",
        "warning: DISCROD_TOKEN in the environment is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "warning: LOGLEVEL in the environment is not a setting and is ignored; did you mean LOG_LEVEL?",
        "warning: SHARD_ID in the environment is not a setting and is ignored; did you mean SHARD_IDS?",
    ]


def test_another_bots_name_for_the_token_warns_naming_discord_token(tmp_path: Path) -> None:
    """``DISCORD_BOT_TOKEN`` and ``BOT_TOKEN``, as other bots and tutorials call it, were silently no token in the
    environment (too far from ``DISCORD_TOKEN`` for a typo); other programs' tokens stay quiet."""
    (tmp_path / ".env").write_text("BOT_TOKEN=abc\n")
    environ = {
        name: "x"
        for name in (
            "DISCORD_BOT_TOKEN", "BOT_TOKEN", "bot_token", "GITHUB_TOKEN", "GH_TOKEN", "SLACK_BOT_TOKEN", "NPM_TOKEN",
            "TOKEN", "ACCESS_TOKEN", "DISCORD_CLIENT_ID", "DISCORD_WEBHOOK_URL",
        )
    }  # fmt: skip
    assert misspelt_settings(environ=environ) == [
        "warning: BOT_TOKEN in .env is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "warning: DISCORD_BOT_TOKEN in the environment is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "warning: bot_token in the environment is not a setting and is ignored; did you mean DISCORD_TOKEN?",
    ]
    (tmp_path / ".env").unlink()
    done = run_bot({"REQUIRE_TOKEN": "true", "DISCORD_BOT_TOKEN": "abc", "BOT_TOKEN": "abc"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: warning: BOT_TOKEN in the environment is not a setting and is ignored; did you mean DISCORD_TOKEN?",
        "dicebot: warning: DISCORD_BOT_TOKEN in the environment is not a setting and is ignored; did you mean "
        "DISCORD_TOKEN?",
        "dicebot: DISCORD_TOKEN is missing: set it to your bot token from the Discord developer portal "
        "(see .env.example)",
    ]


def test_a_misspelt_variable_in_the_environment_is_named_at_start(tmp_path: Path) -> None:
    done = run_bot({"REQUIRE_TOKEN": "true", "DATABSE_URL": "postgresql://dice@db/dicebot"}, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "dicebot: warning: DATABSE_URL in the environment is not a setting and is ignored; did you mean DATABASE_URL?",
        "dicebot: DISCORD_TOKEN is missing: set it to your bot token from the Discord developer portal "
        "(see .env.example)",
    ]


@pytest.mark.parametrize("data_dir", ["afile", "afile/below"])
def test_a_data_dir_the_bot_cannot_write_exits_2_naming_it(tmp_path: Path, data_dir: str) -> None:
    """It started anyway, warned without naming DATA_DIR, and built every strategy table again at each start."""
    (tmp_path / "afile").touch()
    done = run_bot({"DISCORD_TOKEN": "x", "DATA_DIR": data_dir}, tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"dicebot: cannot keep the bot's files in {data_dir}/strategy (")
    assert line.endswith("); set DATA_DIR to a folder this user may write")


@pytest.mark.parametrize("command", [[], ["sync"], ["playground"], ["health"]])
@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # Every command ended in a UnicodeDecodeError traceback, exit code 1 (QA).
        (b"LOG_LEVEL=INFO\nDISCORD_TOKEN=x\xff\n", "dicebot: .env is not UTF-8 text (line 2): save it as UTF-8"),
        # python-dotenv warned twice and skipped the line: "DISCORD_TOKEN is missing" (QA).
        (
            b'LOG_LEVEL=INFO\nDISCORD_TOKEN="abc\n',
            "dicebot: line 2 of .env cannot be read: write it as NAME=value "
            "(a value in quotes needs its closing quote)",
        ),
    ],
)
def test_a_dotenv_that_cannot_be_read_is_one_line_naming_it_for_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], content: bytes, expected: str
) -> None:
    (tmp_path / ".env").write_bytes(content)
    assert main(command) == 2
    assert capsys.readouterr().err.splitlines() == [expected]


def test_migrate_db_reads_no_dotenv(tmp_path: Path) -> None:
    """Its URLs are arguments: a damaged ``.env`` is no reason to refuse a copy."""
    (tmp_path / ".env").write_bytes(b"\xff")
    assert parse(["migrate-db", "--from", "sqlite:///a", "--to", "postgresql://b"]).reads_settings is False
    assert env_file_problem() is not None
