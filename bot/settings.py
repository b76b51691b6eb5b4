"""Runtime configuration from the environment and ``.env``, validated once at start-up."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import parse_qsl

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.envfile import ENV_FILE
from bot.sharding import MAX_SHARDS, ShardScope, parse_shard_ids
from bot.storage.backend import (
    POSTGRES_PREFIXES,
    SQLITE_PREFIX,
    home_expanded,
    postgres_url,
    sqlite_path,
    sqlite_url_problem,
)
from bot.urls import check_database_url, check_server

#: How to fix each setting, shown when its value is missing or invalid.
FIX_HINTS: dict[str, str] = {
    "discord_token": "set it to your bot token from the Discord developer portal (see .env.example)",
    "database_url": (
        "use sqlite:///relative/path.sqlite3, sqlite:////absolute/path.sqlite3 or postgresql://user:password@host:5432/db"
    ),
    "database_pool_size": "use a number of connections from 1 to 100",
    "database_statement_timeout": "use a number of seconds from 0.1 to 300",
    "dev_guild_id": "use the numeric id of your test server (Discord's ids are positive), or leave it empty",
    "log_level": "use one of DEBUG, INFO, WARNING, ERROR, CRITICAL",
    "discord_api_base": "use an http(s) URL such as http://127.0.0.1:8080/api/v10, or leave it empty",
    "discord_gateway_url": "use a ws(s) URL such as ws://127.0.0.1:8080/gateway, or leave it empty",
    "require_token": "use true or false",
    "computer_delay": "use a number of seconds from 1 to 30 (Discord allows about one message edit a second)",
    "data_dir": "use a folder path this user may write, e.g. /srv/dicebot or ~/dicebot, or leave it empty",
    "health_file": "use a file path the bot may write, e.g. /tmp/dicebot.health, or leave it empty",
    "shard_count": f"use the total number of shards of all processes (1 to {MAX_SHARDS}), or leave it empty",
    "shard_ids": "use this process's shards, comma-separated from 0 to SHARD_COUNT-1 (e.g. 0,1), with SHARD_COUNT set",
}


#: Where the bot keeps its games unless ``DATABASE_URL`` says otherwise.
DEFAULT_DATABASE_URL = "sqlite:///data/dicebot.sqlite3"


#: ``statement_timeout`` inside a PostgreSQL URL's ``options`` (``-c statement_timeout=...``,
#: ``--statement-timeout=...``).
STATEMENT_TIMEOUT_OPTION = re.compile(r"statement[-_]timeout", re.IGNORECASE)


def sets_statement_timeout(url: str) -> bool:
    """Whether ``url``'s query sets ``statement_timeout``: as a parameter, or in ``options``; read decoded, as the
    driver reads it (``statement%5Ftimeout`` is the same parameter)."""
    query = url.partition("?")[2].partition("#")[0]
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name.lower() == "statement_timeout" or (
            name.lower() == "options" and STATEMENT_TIMEOUT_OPTION.search(value)
        ):
            return True
    return False


def checked_database_url(value: str) -> str:
    """``value`` if it names a SQLite file or a PostgreSQL database the bot can use, else ValueError (whose text
    names no part of a password: see :func:`bot.urls.check_database_url`)."""
    if value.startswith(POSTGRES_PREFIXES):
        check_database_url(value)
        if sets_statement_timeout(value):
            # The bot's own setting replaced it without a word, and its client-side wait follows that setting.
            raise ValueError(
                "sets statement_timeout, which the bot takes from DATABASE_STATEMENT_TIMEOUT: remove it from the URL "
                "and set DATABASE_STATEMENT_TIMEOUT (seconds) instead"
            )
        return value
    if not value.startswith(SQLITE_PREFIX) or len(value) == len(SQLITE_PREFIX):
        raise ValueError("must start with sqlite:/// followed by a file path, or be a postgresql:// URL")
    problem = sqlite_url_problem(value)
    if problem is not None:
        raise ValueError(problem)
    if str(sqlite_path(value)) == ":memory:":
        # SQLite's name for a database in memory: each connection would have its own, empty one.
        raise ValueError("the bot keeps its games in a file, not in memory; name a file path")
    return value


def empty_is_unset(value: object) -> object:
    """An empty line in .env (``DEV_GUILD_ID=``) means "not set", as admins expect."""
    return None if isinstance(value, str) and not value.strip() else value


class DatabaseSettings(BaseSettings):
    """``DATABASE_URL`` alone: what ``python -m bot backup`` reads, so a backup needs no token (a container's
    ``REQUIRE_TOKEN`` included), and the part of :class:`Settings` that checks it."""

    model_config = SettingsConfigDict(env_file=ENV_FILE, env_file_encoding="utf-8", extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL

    @field_validator("database_url", mode="before")
    @classmethod
    def _empty_url_is_default(cls, value: object) -> object:
        """Spaces around the URL are no part of it (QA: " sqlite:///x" was told it must start with sqlite:///)."""
        if empty_is_unset(value) is None:
            return DEFAULT_DATABASE_URL
        return value.strip() if isinstance(value, str) else value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return checked_database_url(value)

    @property
    def uses_postgres(self) -> bool:
        return postgres_url(self.database_url) is not None

    @property
    def database_path(self) -> Path:
        """The SQLite file named by ``DATABASE_URL`` (relative paths are relative to the working directory)."""
        return sqlite_path(self.database_url)


class Settings(DatabaseSettings):
    """Everything an admin can configure; names match the environment variables in upper case."""

    model_config = SettingsConfigDict(env_file=ENV_FILE, env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr = Field(min_length=1)
    #: PostgreSQL only: the most connections this process holds (each request borrows one for its statements).
    database_pool_size: int = Field(default=10, ge=1, le=100)
    #: PostgreSQL only: seconds a statement may run before the server cancels it ("try again" for that click).
    #: PostgreSQL takes whole milliseconds, and 0 turns the timeout off. From a tenth of a second: the start's own
    #: statements failed below a few milliseconds, blamed on DATABASE_URL, and its first look-ups below 20 ms (QA).
    database_statement_timeout: float = Field(default=10.0, ge=0.1, le=300, allow_inf_nan=False)
    #: A snowflake: Discord's ids are unsigned 64-bit numbers above 0.
    dev_guild_id: int | None = Field(default=None, gt=0, lt=2**64)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    #: Seconds between a computer player's moves: a pace a person can follow, never faster than Discord's edits.
    computer_delay: float = Field(default=1.2, ge=1.0, le=30.0, allow_inf_nan=False)
    #: Shards of all processes together; unset: Discord's recommended count, every shard in this process.
    shard_count: int | None = Field(default=None, ge=1, le=MAX_SHARDS)
    #: The shards this process connects (``0,1``); needs ``shard_count``. Unset: all of them.
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = None
    #: Touched every few seconds while every shard is connected; ``python -m bot health`` checks its age.
    health_file: Path | None = None
    #: The folder of the bot's own files (the strategy tables). Unset: beside the SQLite file, or ``data`` in the
    #: working directory with PostgreSQL.
    data_dir: Path | None = None

    @field_validator(
        "database_pool_size",
        "database_statement_timeout",
        "dev_guild_id",
        "log_level",
        "discord_api_base",
        "discord_gateway_url",
        "computer_delay",
        "shard_count",
        "health_file",
        "data_dir",
        mode="before",
    )
    @classmethod
    def _empty_is_default(cls, value: object, info: ValidationInfo) -> object:
        """An empty line in .env (``LOG_LEVEL=``, ``DEV_GUILD_ID=``) means the setting's default: unset for an
        optional one. Not the token (empty is refused) nor the shard ids (their own parser)."""
        if empty_is_unset(value) is None and info.field_name is not None:
            return cls.model_fields[info.field_name].default
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("discord_token", mode="before")
    @classmethod
    def _strip_token(cls, value: object) -> object:
        """A token pasted with a space or a line break around it; only spaces is an empty token. A control character
        inside it (a line break in a quoted value, a stray ``\x01``) is refused here: aiohttp refused the header at
        login with a traceback. The message never shows the token."""
        if not isinstance(value, str):
            return value
        token = value.strip()
        if any(ord(char) < 32 or ord(char) == 127 for char in token):
            raise ValueError("it holds a control character, such as a line break, inside it")
        return token

    @field_validator("data_dir", "health_file")
    @classmethod
    def _home_expanded(cls, value: Path | None) -> Path | None:
        """``~/dicebot.health`` as a shell reads it: neither ``.env`` nor a container's environment expands it."""
        return None if value is None else home_expanded(value)

    @field_validator("discord_api_base")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return None if value is None else check_server(value, ("http", "https"))

    @field_validator("discord_gateway_url")
    @classmethod
    def _ws_url(cls, value: str | None) -> str | None:
        return None if value is None else check_server(value, ("ws", "wss"))

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        """``SHARD_IDS=0,1`` as admins write it (not JSON); empty means unset."""
        if isinstance(value, str):
            return parse_shard_ids(value) if value.strip() else None
        return value

    @field_validator("shard_ids")
    @classmethod
    def _within_count(cls, value: tuple[int, ...] | None, info: ValidationInfo) -> tuple[int, ...] | None:
        """Ids need the count (a process cannot know the others' shards otherwise) and must lie inside it. A count
        that failed its own check is reported as such, not as a missing one."""
        if value is None:
            return None
        if "shard_count" not in info.data:
            return value
        count = info.data.get("shard_count")
        if count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT")
        ShardScope.of(count, value)  # raises ValueError naming the ids outside 0..count-1
        return tuple(sorted(value))

    @property
    def shard_scope(self) -> ShardScope | None:
        """The shards whose games this process handles; None when it connects every shard (it owns all games)."""
        if self.shard_count is None or self.shard_ids is None:
            return None
        scope = ShardScope.of(self.shard_count, self.shard_ids)
        return None if scope.everything else scope

    @property
    def files_dir(self) -> Path:
        """Where the bot keeps files (the strategy tables): ``DATA_DIR``, else beside the SQLite file, else ``data``
        with PostgreSQL (a container sets ``DATA_DIR`` to its volume)."""
        if self.data_dir is not None:
            return self.data_dir
        return Path("data") if self.uses_postgres else self.database_path.parent

    @property
    def strategy_dir(self) -> Path:
        """Where the bot keeps its strategy tables, built once and loaded at every later start."""
        return self.files_dir / "strategy"


class LaunchSettings(BaseSettings):
    """What ``python -m bot`` without a subcommand does, read before :class:`Settings` so a missing token is
    not an error yet: without a token it starts the playground, unless ``REQUIRE_TOKEN`` is set.

    The Docker image sets ``REQUIRE_TOKEN=true``: a container is never someone trying the bot out, so there a
    missing token stays one line and exit code 2.
    """

    model_config = SettingsConfigDict(env_file=ENV_FILE, env_file_encoding="utf-8", extra="ignore")

    discord_token: str = ""
    require_token: bool = False
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] | None = None
    #: The playground keeps its database and world here too (``data`` when unset), beside the bot's other files.
    data_dir: Path | None = None

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("data_dir", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """``DATA_DIR=`` as in .env.example: ``data``, not ``Path("")``, the working directory."""
        return empty_is_unset(value)

    @field_validator("require_token", mode="before")
    @classmethod
    def _empty_is_false(cls, value: object) -> object:
        """``REQUIRE_TOKEN=`` means the default, as an empty line does for every other setting (QA: it was
        refused as no boolean)."""
        return False if empty_is_unset(value) is None else value

    @field_validator("data_dir")
    @classmethod
    def _home_expanded(cls, value: Path | None) -> Path | None:
        return None if value is None else home_expanded(value)

    @property
    def has_token(self) -> bool:
        return bool(self.discord_token.strip())


def environment_names() -> frozenset[str]:
    """Every variable dicebot reads from the environment, from the settings models themselves.

    Whatever starts ``python -m bot`` for a test or a benchmark clears these, so a developer's own values never
    leak in; derived here so a new setting cannot be forgotten in a hand-kept list.
    """
    models: tuple[type[BaseSettings], ...] = (Settings, LaunchSettings)
    return frozenset(name.upper() for model in models for name in model.model_fields)


#: Names other bots and tutorials give a setting, too far from it for a typo (``GITHUB_TOKEN`` is as close to
#: ``DISCORD_TOKEN`` as ``BOT_TOKEN``), so named one by one: each warns as a near miss would, naming the setting.
OTHER_NAMES: dict[str, str] = {"DISCORD_BOT_TOKEN": "DISCORD_TOKEN", "BOT_TOKEN": "DISCORD_TOKEN"}


def misspelt_settings(env_file: Path = ENV_FILE, environ: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each name in ``.env`` or in the environment that is no setting but close to one
    (``DISCORD_TOKN``): pydantic ignores unknown names, so a typo would otherwise start the playground or a default
    database without a word. Docker's ``--env-file`` and compose's ``env_file`` pass ``.env``'s lines as environment
    variables, so there the environment is where a typo arrives.

    Only near misses warn: compose reads the same file for its own keys (``POSTGRES_PASSWORD``). A warning, not
    exit code 2, because an unrelated key that happens to look like one (``DATABASE_USER`` for a backup script)
    must not stop a bot that worked before. The environment holds every program's variables, so there only a
    typo's distance counts (:func:`typo_of`), not the looser likeness ``.env`` is held to; the names other bots
    give a setting (:data:`OTHER_NAMES`, ``DISCORD_BOT_TOKEN``) warn in both. A name in both is named once, in
    ``.env``.
    """
    known = sorted(environment_names())
    warnings = []
    in_file = list(dotenv_values(env_file, encoding="utf-8")) if env_file.is_file() else []
    for name in in_file:
        if name.upper() in known:
            continue
        other = OTHER_NAMES.get(name.upper())
        close = [other] if other else difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.8)
        if close:
            warnings.append(f"warning: {name} in {env_file} is not a setting and is ignored; did you mean {close[0]}?")
    for name in sorted(os.environ if environ is None else environ):
        if name.upper() in known or name in in_file:
            continue
        meant = OTHER_NAMES.get(name.upper()) or next(
            (setting for setting in known if typo_of(name.upper(), setting)), None
        )
        if meant is not None:
            warnings.append(
                f"warning: {name} in the environment is not a setting and is ignored; did you mean {meant}?"
            )
    return warnings


def typo_of(name: str, setting: str) -> bool:
    """Whether ``name`` is ``setting`` with a slip of the keyboard: one letter typed, left out, changed or two
    swapped (``DATABSE_URL``, ``SHARD_ID``, ``LOGLEVEL``), two in a name of ten letters or more. Other programs'
    variables that merely share a word (``DATABASE_USER``, ``GUILD_ID``) are further off."""
    allowed = 2 if len(setting) >= 10 else 1
    if abs(len(name) - len(setting)) > allowed:
        return False
    # Optimal string alignment distance: edits where swapping two neighbours counts as one.
    before: list[int] = []
    previous = list(range(len(setting) + 1))
    for i, char in enumerate(name, 1):
        current = [i]
        for j, other in enumerate(setting, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == setting[j - 2] and name[i - 2] == other:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, previous = previous, current
    return previous[-1] <= allowed


def describe_error(error: ValidationError) -> str:
    """One line naming every bad variable and how to fix it, never echoing a secret value."""
    parts = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else "settings"
        variable = field.upper()
        problem = "is missing" if item["type"] == "missing" else f"is invalid ({item['msg']})"
        if field == "discord_token" and item["type"] == "too_short":
            problem = "is empty"
        hint = FIX_HINTS.get(field, "check its value")
        parts.append(f"{variable} {problem}: {hint}")
    return "; ".join(parts)
