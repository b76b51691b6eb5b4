"""A SQLite database a newer dicebot wrote, for the tests of its refusal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.storage.backend import bundled_migrations


def newer_sqlite(path: Path, version: int = 9999) -> Path:
    """Every bundled migration applied, then a schema version beyond them: the tables are dicebot's, so only the
    version tells it from this dicebot's own database (a bare version table is another program's:
    ``bot.storage.ownership``)."""
    with sqlite3.connect(path) as conn:
        for migration in bundled_migrations():
            conn.executescript(migration.sql)
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (?)", (version,))
    conn.close()
    return path
