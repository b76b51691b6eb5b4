"""The strategy tables the tests share, kept from one test run to the next while the code they come from is the same.

Building every exact table costs about 13 s of CPU (Kniffel's alone 9 s, on every core numba gives it) and held up
the start of every run: the shard tests, which start it, waited for them. A table only depends on the solver,
the rules engine it reads and the libraries that compute it, so a folder named by a hash of exactly those is
as good as a fresh build: any change to them names a new folder, and the old ones are removed. The builder keeps
its own tests, which build in folders of their own on every run (``tests/play/test_computer.py``,
``tests/strategy/test_cli.py``).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import importlib.util
import platform
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _folder(package: str) -> Path:
    """Where ``package`` lives, found without importing it (the solvers bring numba: a second of CPU)."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations is not None, package
    return Path(next(iter(spec.submodule_search_locations)))


#: The packages whose files a table is computed from (the solvers and their learned weights, the rules engine).
SOURCES = (_folder("bot.strategy"), _folder("bot.engine"))
LOCK = ".lock"


def source_key() -> str:
    """A hash of every file the tables are computed from, and of the Python, numpy and numba that compute them."""
    versions = [platform.python_version(), *(importlib.metadata.version(name) for name in ("numpy", "numba"))]
    digest = hashlib.sha256(" ".join(versions).encode())
    for package in SOURCES:
        for path in sorted(p for p in package.iterdir() if p.suffix in (".py", ".npz")):
            digest.update(f"\0{package.name}/{path.name}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@contextmanager
def cached_folder(root: Path) -> Iterator[Path]:
    """``root``'s folder for the current sources, held under a lock (other workers and runs wait); older ones
    are removed."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            key = source_key()
            for old in root.iterdir():
                if old.is_dir() and old.name != key:
                    shutil.rmtree(old, ignore_errors=True)
            folder = root / key
            folder.mkdir(exist_ok=True)
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
