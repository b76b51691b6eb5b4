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
import logging
import tempfile
import threading
from pathlib import Path
from typing import IO

from numba.core import event

_PACKAGE = str(Path(__file__).resolve().parent)
LOCK_FILE = Path(tempfile.gettempdir()) / f"dicebot-numba-{hashlib.sha256(_PACKAGE.encode()).hexdigest()[:16]}.lock"
COMPILER_LOCK = "numba:compiler_lock"

log = logging.getLogger(__name__)


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
        self._warned = False

    def on_start(self, _event: event.Event) -> None:
        self._thread.acquire()
        try:
            if self._depth == 0:
                self._file = self._lock_file()
            self._depth += 1
        except BaseException:  # a Ctrl+C while waiting: numba's end event will not come, so release here
            self._thread.release()
            raise

    def on_end(self, _event: event.Event) -> None:
        try:
            self._depth -= 1
            if self._depth == 0 and self._file is not None:
                handle, self._file = self._file, None
                with handle:
                    fcntl.flock(handle, fcntl.LOCK_UN)
        finally:
            self._thread.release()

    def _lock_file(self) -> IO[str] | None:
        """The lock file, locked; None when it cannot be opened or locked (owned by another user in a sticky
        temporary folder, no file descriptors or inodes left). Raising here would leave numba's lock taken and
        every later compile of the process waiting (review); compiling with the process's own lock only is what
        numba does without this module, so the compile goes on, as it would have before the file lock existed."""
        try:
            handle = self._path.open("a")
        except OSError as error:
            self._without_lock(error)
            return None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError as error:
            handle.close()
            self._without_lock(error)
            return None
        except BaseException:
            handle.close()
            raise
        return handle

    def _without_lock(self, error: OSError) -> None:
        if not self._warned:  # once a process: a fresh install compiles dozens of kernels
            self._warned = True
            log.warning("numba compiles without the machine-wide lock %s: %s", self._path, error)


_installed: MachineWideCompilerLock | None = None


def install() -> None:
    """Make numba's compiler lock machine-wide for this process (once; later calls change nothing)."""
    global _installed
    if _installed is None:
        _installed = MachineWideCompilerLock()
        event.register(COMPILER_LOCK, _installed)  # type: ignore[no-untyped-call]  # numba ships no type hints
