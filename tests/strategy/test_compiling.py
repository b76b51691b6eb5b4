"""numba's compiler lock is machine-wide (admin QA: a process loading the Knister search while another wrote it to
numba's cache aborted with "LLVM ERROR: Symbol not found"), and held only while numba compiles or touches its
cache (CI: a hint waited for another process's whole table build and timed out)."""

from __future__ import annotations

import asyncio
import fcntl
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from numba import njit
from numba.core import event

from bot import strategy
from bot.engine import kniffel as kniffel_engine
from bot.engine import knister as knister_engine
from bot.strategy import compiling
from bot.strategy.compiling import COMPILER_LOCK, LOCK_FILE
from tests.strategy import compiles_probe

#: A bound on work that takes milliseconds once compiled; reached only when it waits on the lock for good.
BOUND = 60.0


def held() -> bool:
    """Whether the compile lock is held: another open of the file cannot take it (flock is per open file). Only
    "held" says something here: another xdist worker may hold the machine-wide lock at any moment."""
    with LOCK_FILE.open("a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(other, fcntl.LOCK_UN)
        return False


class Probe(event.Listener):
    """Registered after the package's listener, so it sees each hold once the file lock is taken."""

    def __init__(self) -> None:
        self.seen: list[bool] = []

    def on_start(self, _event: event.Event) -> None:
        self.seen.append(held())

    def on_end(self, _event: event.Event) -> None:
        pass


@contextmanager
def probing() -> Iterator[Probe]:
    probe = Probe()
    with event.install_listener(COMPILER_LOCK, probe):
        yield probe


@contextmanager
def lock_held_elsewhere() -> Iterator[None]:
    """The lock as another process would hold it: taken on another open of the file."""
    with LOCK_FILE.open("a") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(other, fcntl.LOCK_UN)


def test_a_compile_holds_the_machine_wide_lock() -> None:
    compiling.install()  # what importing the package did; a second call changes nothing

    @njit
    def plus_one(x: int) -> int:
        return x + 1

    with probing() as probe:
        assert plus_one(1) == 2
    assert probe.seen and all(probe.seen)


def test_a_compile_that_compiles_a_callee_takes_the_file_once_and_ends() -> None:
    """The nested hold only counts: a second flock on a new open of the file would wait for the first forever."""

    @njit
    def inner(x: int) -> int:
        return x * 2

    @njit
    def outer(x: int) -> int:
        return inner(x) + 1

    with probing() as probe:
        assert outer(3) == 7
    assert len(probe.seen) >= 2 and all(probe.seen)


def test_threads_compiling_at_once_both_finish() -> None:
    results: list[int] = []

    def compile_and_call(value: int) -> None:
        @njit
        def square(x: int) -> int:
            return x * x

        results.append(square(value))

    threads = [threading.Thread(target=compile_and_call, args=(value,)) for value in (2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BOUND)
    assert sorted(results) == [4, 9]


async def test_preparing_compiled_games_does_not_wait_for_another_process(table_dir: Path) -> None:
    """A hint's load needs the lock only where it compiles: with everything compiled here, another process's build
    (or compile) holding the lock no longer holds up the hint."""
    kniffel_state = kniffel_engine.new_game(["a"], random.Random(1), "classic")
    knister_state = knister_engine.new_game(["a"], random.Random(1))

    def prepare_both() -> None:
        strategy.prepare(kniffel_state, "a", directory=table_dir)
        strategy.prepare(knister_state, "a", directory=table_dir)

    prepare_both()  # compiled (or loaded from numba's cache) in this process
    with lock_held_elsewhere():
        await asyncio.wait_for(asyncio.to_thread(prepare_both), BOUND)


def test_a_lock_file_that_cannot_be_opened_leaves_compiles_working(tmp_path: Path) -> None:
    """Raising from the listener left numba's lock taken by the raising thread: the compile failed, and every
    other thread's compile waited for good (review). Without its file the lock is the process's alone, as in
    numba itself."""
    unopenable = compiling.MachineWideCompilerLock(tmp_path / "missing" / "numba.lock")
    results: list[int] = []

    def compile_and_call(value: int) -> None:
        @njit
        def triple(x: int) -> int:
            return 3 * x

        results.append(triple(value))

    with event.install_listener(COMPILER_LOCK, unopenable):
        first = threading.Thread(target=compile_and_call, args=(1,))
        first.start()
        first.join(BOUND)
        second = threading.Thread(target=compile_and_call, args=(2,))
        second.start()
        second.join(BOUND)
    assert results == [3, 6]


@pytest.mark.parametrize("mode", ["prepare", "warm"])
def test_decisions_compile_nothing_after_prepare_or_warm(mode: str, table_dir: Path) -> None:
    """A kernel only a decision calls was compiled (or loaded from numba's cache) on the event loop at a
    computer's first such move: the five-dice keep choice and Tutto's turn solve after ``prepare``, the keep
    choice after ``warm``. Each game is played in a fresh process after either (``compiles_probe``)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.strategy.compiles_probe", mode, str(table_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    holds = dict(line.split() for line in done.stdout.splitlines())
    assert holds == dict.fromkeys(compiles_probe.GAMES, "0")
