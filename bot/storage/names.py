"""Display names as both backends can store them.

A Discord display name is whatever text the user chose, and a Python ``str`` can hold what no database column
can: PostgreSQL's text refuses NUL, and neither backend can encode a lone surrogate to UTF-8 (the SQLite driver
raises, asyncpg refuses the argument). Names are made storable where they enter the bot (``actor_of``) and where
old rows leave SQLite for PostgreSQL (``migrate-db``), so a player's save never fails on their name.
"""

from __future__ import annotations

import re

#: The C0 control characters (NUL, tab, newline, ...): no use in a name shown on a board, and NUL is not storable.
_CONTROLS = re.compile("[\x00-\x1f]")


def storable_name(name: str, fallback: str) -> str:
    """``name`` without C0 control characters and with every lone surrogate as U+FFFD (a pair split into two
    code points is joined into its character); ``fallback`` when nothing but white space is left."""
    whole = name.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    kept = _CONTROLS.sub("", whole)
    return kept if kept.strip() else fallback
