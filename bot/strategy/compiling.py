"""One numba compile at a time on this machine, across processes.

numba's on-disk cache is not safe against a process loading a function while another writes it (numba issue
10128): a bot started beside a shard that was finishing its Knister compile aborted with "LLVM ERROR: Symbol not
found" (admin QA, three processes of one checkout). Within a process numba already serialises that work under
its compiler lock, which covers compiling and loading and saving the cache, and announces every hold of it as a
``numba:compiler_lock`` event (numba's event API). :func:`install` listens to those events and widens the lock to
the machine: a file lock taken when a hold starts and released when it ends.

The lock is held only while numba compiles or touches its cache, never while a table is built: an earlier version
held it around whole builds, so a hint in one process waited minutes for another process's table build (the hint
tests timed out in CI beside a build in a child process). The lock file sits in the temporary folder, keyed by the
installed package's path, so every process of one installation meets the same lock whatever its data folder; the
OS releases it when a holder dies (kill -9), so a crash never leaves it held.
"""

from __future__ import annotations

import fcntl
import hashlib
import tempfile
import threading
from pathlib import Path
from typing import IO

from numba.core import event

_PACKAGE = str(Path(__file__).resolve().parent)
LOCK_FILE = Path(tempfile.gettempdir()) / f"dicebot-numba-{hashlib.sha256(_PACKAGE.encode()).hexdigest()[:16]}.lock"
COMPILER_LOCK = "numba:compiler_lock"


class MachineWideCompilerLock(event.Listener):
    """Holds :data:`LOCK_FILE` while any thread of this process holds numba's compiler lock.

    numba announces a hold before it takes its own (re-entrant) lock and ends it after releasing it, so a second
    thread waits here on :attr:`_thread`, before numba's lock: one order for both locks, no deadlock. Only the
    outermost hold of the holding thread takes the file lock; a nested one (a compile that compiles a callee) only
    counts.
    """

    def __init__(self, path: Path = LOCK_FILE) -> None:
        self._path = path
        self._thread = threading.RLock()
        self._depth = 0
        self._file: IO[str] | None = None

    def on_start(self, _event: event.Event) -> None:
        self._thread.acquire()
        if self._depth == 0:
            handle = self._path.open("a")
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._file = handle
        self._depth += 1

    def on_end(self, _event: event.Event) -> None:
        self._depth -= 1
        if self._depth == 0 and self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None
        self._thread.release()


_installed: MachineWideCompilerLock | None = None


def install() -> None:
    """Make numba's compiler lock machine-wide for this process (once; later calls change nothing)."""
    global _installed
    if _installed is None:
        _installed = MachineWideCompilerLock()
        event.register(COMPILER_LOCK, _installed)  # type: ignore[no-untyped-call]  # numba ships no type hints
