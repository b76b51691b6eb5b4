"""The on-disk cache of exact tables: one ``.npz`` file per game and rule set, named by a version and a rules hash.

A table is only valid for the rules it was built from, so its file name carries a hash of everything the
solver read from the engine (score tables, bonus functions) plus :data:`VERSION` of the solver itself. When the
engine's scoring changes, the hash changes, the old file is simply not found and the table is rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

VERSION = 1
"""Bump when the solver's algorithm or table layout changes."""

DEFAULT_DIR = Path("data/strategy")


def rules_hash(parts: Iterable[bytes | str | int | float]) -> str:
    """A short hash of the rule data a table depends on (and of :data:`VERSION`)."""
    digest = hashlib.sha256(f"v{VERSION}".encode())
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def table_path(directory: Path, name: str, digest: str) -> Path:
    """Where the table ``name`` built for rules ``digest`` lives."""
    return directory / f"{name}-v{VERSION}-{digest}.npz"


def load_or_build(
    directory: Path | str | None,
    name: str,
    digest: str,
    build: Callable[[], Mapping[str, NDArray[Any]]],
    *,
    rebuild: bool = False,
) -> dict[str, NDArray[Any]]:
    """Read the cached arrays of a table, or build and store them (atomically, so readers never see half a file).

    Files of the same table built for other rules or versions are removed, so the folder holds one per table. A
    folder that cannot take the file (not writable, a full disk) costs the cache, not the table: it is used from
    memory and built again at the next start, with a warning; thrown away, every later load would build it anew.
    """
    folder = Path(directory) if directory is not None else DEFAULT_DIR
    path = table_path(folder, name, digest)
    if path.exists() and not rebuild:
        with np.load(path) as stored:
            return {key: stored[key] for key in stored.files}
    arrays = dict(build())
    try:
        _store(folder, path, arrays)
    except OSError as error:
        log.warning("could not store the strategy table %s in %s (%s); built again at every start", name, folder, error)
        return arrays
    for stale in folder.glob(f"{name}-v*.npz"):
        if stale != path:
            with contextlib.suppress(OSError):  # an outdated file left behind is never read: its name is wrong
                stale.unlink(missing_ok=True)
    return arrays


def _store(folder: Path, path: Path, arrays: Mapping[str, NDArray[Any]]) -> None:
    """Write the table's file atomically: readers never see half a file."""
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            # numpy's stub types the keyword arrays like its own keywords (allow_pickle: bool); any name is fine.
            np.savez(out, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
