"""Whether a database is dicebot's, and at which version: decided before anything writes to it.

The bot once took another program's PostgreSQL schema over (its ``schema_version`` of 3 overwritten with 19, the
bot's tables added beside its own), and switched another program's SQLite file to WAL for good before failing on
``no such table``. Both backends now read the same facts, :class:`Found`: the tables and views of the database (on
PostgreSQL: of the schema the bot creates its tables in, ``current_schema()``; SQLite's own ``sqlite_*`` tables left
out), the columns of ``schema_version`` and, when they are dicebot's, its rows. This module alone decides:

* **No table at all** is a new database, version 0: the migrations create dicebot's tables.
* **Dicebot's database** has a ``schema_version`` in the shape dicebot creates it (one column, ``version``, an
  integer, NOT NULL) holding one row, and that version is one the backend's migrations write, with every table
  the migrations up to it leave behind (read from the migrations themselves: ``CREATE TABLE``, ``DROP TABLE``,
  ``ALTER TABLE ... RENAME TO``). A version above the newest migration is a newer dicebot's database if it has the
  tables every version so far has had; it is then refused as newer (:func:`~bot.storage.backend.refuse_newer`).
  Tables of the admin's own beside dicebot's are allowed.
* **Dicebot's database with tables gone** (an admin dropped one by hand): dicebot's ``schema_version`` and most,
  not all, of the tables of its version. Refused with :class:`DatabaseError` as a *damaged* dicebot database,
  naming the missing tables and the fix, a backup: it is the admin's data, not another program's.
* **Anything else with tables** is refused with :class:`DatabaseError`, naming what it has and what it lacks:
  a ``schema_version`` of another shape, a version no dicebot of this backend wrote (PostgreSQL's start at 8),
  few of dicebot's tables (another program's ``schema_version`` of dicebot's shape beside a ``games`` table, as QA
  met it), or other tables alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.storage.backend import DatabaseError, Migration, refuse_newer

VERSION_TABLE = "schema_version"
#: ``schema_version`` as the migrations create it: (column, type as the backend reports it in lower case, NOT NULL).
VERSION_COLUMNS = (("version", "integer", True),)
DICEBOT_SHAPE = "version integer not null"
#: Tables named in a refusal before the rest are counted: enough to recognise whose database it is.
SHOWN = 8

_COMMENT = re.compile(r"--[^\n]*")
_TABLE_CHANGE = re.compile(
    r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<created>\w+)"
    r"|\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?P<dropped>\w+)"
    r"|\bALTER\s+TABLE\s+(?P<renamed>\w+)\s+RENAME\s+TO\s+(?P<into>\w+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Found:
    """What a database holds, as a backend reads it before writing anything."""

    #: Every table and view, in lower case.
    tables: frozenset[str]
    #: The columns of ``schema_version`` (name, type in lower case, NOT NULL), empty when there is none.
    version_columns: tuple[tuple[str, str, bool], ...] = ()
    #: Its rows (up to two: one is dicebot's), read only when its columns are dicebot's.
    versions: tuple[object, ...] = ()

    @property
    def dicebot_version_table(self) -> bool:
        return self.version_columns == VERSION_COLUMNS


def tables_at(migrations: list[Migration]) -> dict[int, frozenset[str]]:
    """The tables (``schema_version`` included) a database has after each migration, by version."""
    tables: set[str] = set()
    after: dict[int, frozenset[str]] = {}
    for migration in migrations:
        for change in _TABLE_CHANGE.finditer(_COMMENT.sub("", migration.sql)):
            if change["created"]:
                tables.add(change["created"].lower())
            elif change["dropped"]:
                tables.discard(change["dropped"].lower())
            else:
                tables.discard(change["renamed"].lower())
                tables.add(change["into"].lower())
        after[migration.version] = frozenset({*tables, VERSION_TABLE})
    return after


def identify(
    found: Found,
    migrations: list[Migration],
    where: str,
    setting: str,
    schema: str | None = None,
    *,
    new_allowed: bool = True,
) -> int:
    """The version of a new (0) or dicebot's database; :class:`DatabaseError` for a newer dicebot's and for any
    other database with tables (see the module's docstring). ``where`` names the database as the admin wrote it,
    ``schema`` the PostgreSQL schema inside it, ``setting`` what the admin wrote it into; ``new_allowed`` whether
    a new database would do there (not for what ``migrate-db`` copies from)."""
    if not found.tables:
        return 0
    place = f"the database {where}" if schema is None else f"schema {schema} of the database {where}"
    fix = f"point {setting} at dicebot's database{' or at a new one' if new_allowed else ''}"
    foreign = _Foreign(found, f"{place} ({setting})", fix)
    if VERSION_TABLE not in found.tables:
        raise foreign.lacking([VERSION_TABLE])
    if not found.dicebot_version_table:
        shape = ", ".join(f"{name} {kind}{' not null' * required}" for name, kind, required in found.version_columns)
        raise foreign.refused(f"its {VERSION_TABLE} has the columns ({shape}), not dicebot's ({DICEBOT_SHAPE})")
    if len(found.versions) != 1:
        rows = "several rows" if found.versions else "no row"
        raise foreign.refused(f"its {VERSION_TABLE} holds {rows}, not dicebot's one version")
    version = found.versions[0]
    if not isinstance(version, int) or isinstance(version, bool):
        raise foreign.refused(f"its {VERSION_TABLE} holds {version!r}, not a version number")
    after = tables_at(migrations)
    newer = not after or version > max(after)
    if version not in after and not newer:
        raise foreign.refused(f"its {VERSION_TABLE} holds {version}, a version no dicebot database of this kind has")
    # A newer dicebot may have added tables and dropped some: the ones every version so far has had must be there.
    lasting = frozenset.intersection(*after.values()) if after else frozenset({VERSION_TABLE})
    needed = lasting if newer else after[version]
    lacking = sorted(needed - found.tables)
    if lacking:
        having = "every dicebot schema version has" if newer else f"dicebot's schema version {version} has"
        if len(needed) - len(lacking) > len(lacking):
            raise foreign.damaged(lacking, having)
        raise foreign.lacking(lacking, f" (which {having})")
    refuse_newer(version, migrations, where, setting)
    return version


@dataclass(frozen=True)
class _Foreign:
    """The refusals of a database that is not dicebot's, each naming it and what to do."""

    found: Found
    place: str
    fix: str

    def refused(self, why: str) -> DatabaseError:
        return DatabaseError(f"{self.place} is not a dicebot database: {why}; it was left untouched: {self.fix}")

    def damaged(self, tables: list[str], having: str) -> DatabaseError:
        """Dicebot's database with some of its tables gone (dropped by hand): restoring a backup is the way back,
        pointing the setting elsewhere would only start an empty database."""
        named = "table" if len(tables) == 1 else "tables"
        return DatabaseError(
            f"{self.place} is a damaged dicebot database: it lacks {named} {_listed(tables)}, which {having}; it was "
            'left untouched: stop the bot and restore the database from a backup (README, "Backups")'
        )

    def lacking(self, tables: list[str], at: str = "") -> DatabaseError:
        """What it has and which of dicebot's tables it lacks (``at``: whose tables they are)."""
        has = sorted(self.found.tables)
        named = "table" if len(has) == 1 else "tables"
        return self.refused(f"it has {named} {_listed(has)} but no {_listed(tables)}{at}")


def _listed(names: list[str]) -> str:
    """The first :data:`SHOWN` names, then how many more."""
    shown = ", ".join(names[:SHOWN])
    return shown if len(names) <= SHOWN else f"{shown} and {len(names) - SHOWN} more"
