"""Opening the database named by DATABASE_URL: the backend interface and its errors, in one import.

``Database.open`` picks the backend from the URL (``sqlite:///...`` or a path: :mod:`bot.storage.sqlite`;
``postgresql://...``: :mod:`bot.storage.postgres`); the repositories see only :class:`Database`.
"""

from __future__ import annotations

from bot.storage.backend import (
    Conflict,
    Database,
    DatabaseError,
    Migration,
    StorageUnavailable,
    Transaction,
    bundled_migrations,
)

__all__ = [
    "Conflict",
    "Database",
    "DatabaseError",
    "Migration",
    "StorageUnavailable",
    "Transaction",
    "bundled_migrations",
]
