"""One numba compile at a time on this machine, across processes.

numba's on-disk cache is not safe against a process loading a function while another writes it (numba issue
10128): a bot started beside a shard that was finishing its Knister compile aborted with "LLVM ERROR: Symbol not
found" (admin QA, three processes of one checkout). So every path that compiles or first loads compiled code (the
table build, :func:`bot.strategy.warm`, :func:`bot.strategy.prepare`) holds this lock; the second process waits
and then loads what the first wrote. The lock file sits in the temporary folder, keyed by the installed package's
path, so every process of one installation meets the same lock whatever its data folder; the OS releases it when
a holder dies (kill -9), so a crash never leaves it held.
"""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)
LOCK_FILE = Path(tempfile.gettempdir()) / f"dicebot-numba-{hashlib.sha256(_PACKAGE.encode()).hexdigest()[:16]}.lock"


#: Within a process the lock is re-entrant (``warm`` holds it around ``compile_search``, which takes it too): a
#: second ``flock`` on a new open of the file would wait for the first forever. The thread lock also keeps two
#: threads of one process (a hint's and a computer's) from compiling at once.
_HELD = threading.RLock()
_depth = 0


@contextmanager
def compiling() -> Iterator[None]:
    """Hold the machine-wide compile lock of this installation (blocking until it is free)."""
    global _depth
    with _HELD:
        if _depth:
            _depth += 1
            try:
                yield
            finally:
                _depth -= 1
            return
        with LOCK_FILE.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            _depth = 1
            try:
                yield
            finally:
                _depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)
