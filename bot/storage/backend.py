"""What every storage backend offers the repositories: a write batch, reads, errors and the migrations it ships.

The repositories write through :class:`Transaction`, a batch of statements built without awaiting anything and run
as one transaction when the ``async with db.transaction()`` block ends. That shape is what lets SQLite run a
whole transaction in one call (BEGIN, every statement, COMMIT) and PostgreSQL in one acquired
connection, while the repositories' SQL stays the same for both. A statement that must touch an exact number of
rows (the optimistic version check) says so with ``expect_rows``; a value returned by one statement can be a
parameter of a later one (:class:`Returned`), e.g. a new game's id for its seats.

SQL is written once with ``?`` placeholders (``?1`` for a numbered one); :func:`numbered` translates a statement
to PostgreSQL's ``$n`` once and caches it. Where the dialects really differ a repository passes
:class:`PerDialect`.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol

from bot.paths import Kind, Unexaminable, kind

Dialect = Literal["sqlite", "postgres"]
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
#: Where each dialect's migrations live inside ``bot/storage/migrations``.
MIGRATION_FOLDERS: dict[Dialect, tuple[str, ...]] = {"sqlite": ("migrations",), "postgres": ("migrations", "postgres")}


class DatabaseError(Exception):
    """The database cannot be used; the message tells the admin what to do."""


class StorageUnavailable(sqlite3.OperationalError):
    """A write or read failed for a reason outside the program (disk full, I/O error, read-only file, the database
    server gone or too slow), or on a value the database cannot hold (a NUL in PostgreSQL's text, a lone
    surrogate): nothing was changed.

    It is an ``OperationalError`` so existing handlers still match; the game service answers it with "could not
    save, try again" instead of a traceback, and the next request succeeds once the disk or server is back.
    """


class Conflict(Exception):
    """A constraint refused the write (a unique index, a check); the transaction was rolled back."""


@dataclass(frozen=True)
class PerDialect:
    """One statement spelled for each dialect, where one spelling cannot serve both."""

    sqlite: str
    postgres: str

    def spelled(self, dialect: Dialect) -> str:
        return self.sqlite if dialect == "sqlite" else self.postgres


Sql = str | PerDialect


class Row(Protocol):
    """A fetched row on either backend (``sqlite3.Row``, ``asyncpg.Record``): by position, or unpacked."""

    def __getitem__(self, index: int, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...


@dataclass
class Pending:
    """What a statement in a batch did, filled in when the transaction ran."""

    rowcount: int = -1
    rows: list[Row] = field(default_factory=list)

    def value(self) -> Any:
        """The first column of the first returned row (``INSERT ... RETURNING id``)."""
        if not self.rows:
            raise LookupError("the statement returned no row")
        return self.rows[0][0]


@dataclass(frozen=True)
class Returned:
    """A parameter taken from an earlier statement of the same batch: its first returned value."""

    pending: Pending


@dataclass
class Statement:
    sql: Sql
    params: Sequence[Any] | list[Sequence[Any]]
    many: bool
    pending: Pending
    expect_rows: int | None = None
    otherwise: Callable[[], Exception] | None = None

    def bound(self, values: Sequence[Any]) -> tuple[Any, ...]:
        """The parameters with every :class:`Returned` replaced by its value (read when the statement runs)."""
        return tuple(value.pending.value() if isinstance(value, Returned) else value for value in values)

    def check(self) -> None:
        """Raise the statement's error when it touched another number of rows than it expects."""
        if self.expect_rows is not None and self.pending.rowcount != self.expect_rows:
            raise (self.otherwise or (lambda: Conflict("unexpected row count")))()


class Transaction:
    """A batch of statements run as one transaction when the ``db.transaction()`` block ends.

    Nothing runs while the block builds it; an exception inside the block runs nothing at all.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.statements: list[Statement] = []

    def execute(
        self,
        sql: Sql,
        params: Sequence[Any] = (),
        *,
        expect_rows: int | None = None,
        otherwise: Callable[[], Exception] | None = None,
    ) -> Pending:
        """Add one statement; ``expect_rows`` rolls everything back with ``otherwise()`` on another row count."""
        pending = Pending()
        self.statements.append(Statement(sql, params, False, pending, expect_rows, otherwise))
        return pending

    def executemany(self, sql: Sql, rows: Sequence[Sequence[Any]]) -> None:
        """Add one statement run once per parameter row (nothing when ``rows`` is empty)."""
        if rows:
            self.statements.append(Statement(sql, list(rows), True, Pending()))


class Database(ABC):
    """A backend: SQLite (one file, the default) or PostgreSQL (a server every bot process shares)."""

    dialect: Dialect

    @classmethod
    async def open(
        cls,
        target: Path | str,
        migrations: list[Migration] | None = None,
        *,
        setting: str = "DATABASE_URL",
        **options: Any,
    ) -> Database:
        """Open ``DATABASE_URL`` (or a SQLite file's path), check it and migrate it, or raise DatabaseError.

        ``setting`` is what placed the database, named by its errors (the playground's file is placed by
        ``DATA_DIR``); ``options`` are PostgreSQL's (``pool_size``, ``statement_timeout``, ``claim``, ``shards``).
        """
        url = postgres_url(target)
        if url is not None:
            from bot.storage.postgres import PostgresDatabase

            return await PostgresDatabase.connect(url, migrations, setting=setting, **options)
        from bot.storage.sqlite import SqliteDatabase

        return await SqliteDatabase.connect(sqlite_path(target), migrations, setting=setting)

    async def overtaken(self) -> str:
        """Wait until another process took this one's games (a claim lost and taken meanwhile): the line saying so.
        SQLite's locks are held by the process itself and never lost, so only PostgreSQL's claim can end it."""
        never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        return await never

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """Collect a batch in the block and run it as one transaction at its end: all of it, or none of it."""
        batch = Transaction(self.dialect)
        yield batch
        if batch.statements:
            await self.run(batch)

    @abstractmethod
    async def run(self, batch: Transaction) -> None:
        """Run every statement of ``batch`` in one transaction (raises StorageUnavailable, Conflict, or a check's
        error, after rolling back)."""

    @abstractmethod
    async def fetch_all(self, sql: Sql, params: Sequence[Any] = ()) -> list[Row]:
        """Run a read of committed data and fetch every row at once."""

    async def fetch_one(self, sql: Sql, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a read, or None."""
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    @abstractmethod
    async def schema_version(self) -> int:
        """The applied migration version, 0 for a new database."""

    @abstractmethod
    async def close(self) -> None:
        """Wait for a running transaction to finish, then close every connection."""


#: How ``DATABASE_URL`` names each backend.
SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def postgres_url(target: Path | str) -> str | None:
    """The URL when ``target`` names a PostgreSQL database, else None."""
    if isinstance(target, str) and target.startswith(POSTGRES_PREFIXES):
        return target
    return None


def sqlite_path(target: Path | str) -> Path:
    """The SQLite file of a ``sqlite:///`` URL (or a path given as such); a ``~`` the URL starts its path with is
    the home folder, as a shell reads it (ValueError when there is none)."""
    return home_expanded(Path(target.removeprefix(SQLITE_PREFIX))) if isinstance(target, str) else target


def sqlite_url_problem(url: str) -> str | None:
    """Why a ``sqlite:///`` URL cannot name a file, or None. A query string or fragment is not read: the bot
    opened ``sqlite:////path/db.sqlite3?mode=ro`` as a new, empty file named ``db.sqlite3?mode=ro`` (QA)."""
    for mark, part in (("?", "query string"), ("#", "fragment")):
        if mark in url:
            return f"a sqlite:/// URL takes no {part} ({mark}{url.split(mark, 1)[1]}): name the file alone"
    return None


def home_expanded(path: Path) -> Path:
    """``path`` with a leading ``~`` or ``~user`` made the home folder, as a shell does where ``.env`` and a
    container's environment do not: ``DATA_DIR=~/dicedata`` made a folder named ``~`` in the working directory.
    ValueError naming it when there is no such home folder (no ``HOME``, no such user)."""
    try:
        return path.expanduser()
    except RuntimeError:
        raise ValueError(f"{path.parts[0]} names no home folder on this system; write the full path") from None


def path_kind(path: Path, setting: str) -> Kind:
    """What is at a database's path (:func:`bot.paths.kind`), or :class:`DatabaseError` naming ``setting`` and why
    the system would not say: "permission denied" for a folder on the way this user may not enter."""
    try:
        return kind(path, setting)
    except Unexaminable as error:
        raise DatabaseError(str(error)) from error


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def bundled_migrations(dialect: Dialect = "sqlite") -> list[Migration]:
    """The ``NNNN_name.sql`` files shipped for a dialect, in version order.

    PostgreSQL's list starts at 0008, the schema SQLite reached with its first eight migrations: a PostgreSQL
    database never held data in an older shape. From there both lists carry the same numbers, one file each.
    """
    folder = resources.files("bot.storage")
    for part in MIGRATION_FOLDERS[dialect]:
        folder = folder / part
    found = []
    for entry in folder.iterdir():
        match = MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda migration: migration.version)
    return found


def refuse_newer(current: int, migrations: list[Migration], where: str, setting: str = "DATABASE_URL") -> None:
    """A database from a newer dicebot is refused before anything touches it."""
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise DatabaseError(
            f"the database {where} has schema version {current}, newer than this dicebot understands ({latest}); "
            f"upgrade dicebot or point {setting} at another database"
        )


_PLACEHOLDER = re.compile(r"\?(\d*)")


@lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (``?3`` as ``$3``); translated once per statement.

    The repositories' SQL holds no ``?`` inside string literals, so a plain scan is enough.
    """
    counter = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal counter
        if match.group(1):
            return f"${match.group(1)}"
        counter += 1
        return f"${counter}"

    return _PLACEHOLDER.sub(replace, sql)


def counter_value(value: Any) -> int | float:
    """A stored counter as the game reported it: PostgreSQL's NUMERIC comes back as Decimal."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value
