"""The brain of computer players: ids, the fallback while tables load, tables loaded off the event loop."""

from __future__ import annotations

import asyncio
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot import strategy
from bot.engine import dicepoker
from bot.play import computer
from cogs.dicepoker import SPEC


def test_ids_carry_the_level_and_a_free_number() -> None:
    assert computer.player_id("perfect", {"cpu-perfect-1", "cpu-easy-2"}) == "cpu-perfect-2"
    assert (computer.level_of("cpu-perfect-2"), computer.number_of("cpu-perfect-2")) == ("perfect", 2)
    with pytest.raises(ValueError, match="not a computer"):
        computer.level_of("cpu-godlike-1")


def test_counters_against_each_level_present() -> None:
    assert computer.vs_computer_counters({"perfect", "easy"}, won=True) == {
        "vs_easy": 1,
        "won_vs_easy": 1,
        "vs_perfect": 1,
        "won_vs_perfect": 1,
    }


async def test_decisions_fall_back_until_the_tables_are_loaded_in_a_thread(tmp_path: Path) -> None:
    brain = computer.Brain(tmp_path)
    state = dicepoker.apply(dicepoker.new_game(["a"], random.Random(1)), "a", dicepoker.Roll(), random.Random(2))
    choose = computer.chooser(brain, SPEC, random.Random(3))
    assert brain.choose(state, "a", "perfect", random.Random(3)) is None
    assert choose(state, "a", "perfect") == dicepoker.timeout_action(state, "a")  # the engine's fallback
    loading = brain.prepare(state, "a")
    assert loading is not None and brain.prepare(state, "a") is loading  # one load, however often asked
    await loading
    assert brain.is_ready(state) and brain.prepare(state, "a") is None
    action = brain.choose(state, "a", "perfect", random.Random(3))
    assert action in dicepoker.legal_actions(state, "a")
    assert list(tmp_path.glob("*.npz"))  # built into the given folder  # noqa: ASYNC240


async def test_a_game_waits_for_the_start_up_build_instead_of_racing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def warm(directory: Path) -> dict[str, float]:
        release.wait(10)
        return {"everything": 0.0}

    async def no_child_build(directory: Path) -> None:
        return None

    monkeypatch.setattr(strategy, "warm", warm)
    monkeypatch.setattr(computer, "build_tables", no_child_build)
    brain = computer.Brain(tmp_path)
    warming = asyncio.create_task(brain.warm())
    await asyncio.sleep(0)  # the (here empty) child build ends and the load starts in its thread
    await asyncio.sleep(0)
    state = dicepoker.new_game(["a"], random.Random(1))
    waiting = brain.prepare(state, "a")
    assert waiting is not None and not brain.is_ready(state)
    assert not list(tmp_path.glob("*.npz"))  # noqa: ASYNC240 - no second build of its own
    release.set()
    await waiting
    await warming
    assert brain.is_ready(state) and brain.prepare(state, "a") is None


async def test_the_start_up_build_runs_in_a_child_process_and_fills_the_cache(
    tmp_path: Path, shared_tables: Path
) -> None:
    """Building in a thread would hold the interpreter lock for seconds and stall every click meanwhile.

    The folder has every table but dice poker's, as after an upgrade that changed one game's rules: the child
    builds the missing one and leaves the others as they are (rebuilding all would cost 10-20 s of CPU).
    """
    for table in shared_tables.glob("*.npz"):  # noqa: ASYNC240
        if not table.name.startswith("dicepoker-"):
            shutil.copy2(table, tmp_path)
    kept = written(tmp_path)
    await computer.build_tables(tmp_path)
    built = written(tmp_path)
    assert {name.split("-v")[0] for name in built} == {"kniffel-kniffel", "kniffel-classic", "dicepoker", "knister"}
    assert {name: built[name] for name in kept} == kept


#: In a fresh interpreter: the start-up check of a filled folder, with child processes forbidden, and the thread
#: in which numba is imported.
FILLED_CHECK = """
import asyncio, sys, threading
from pathlib import Path
from bot.play import computer

threads = []
sys.addaudithook(lambda event, args: event == "import" and args[0] == "numba" and threads.append(
    threading.current_thread().name))

async def no_child(*args, **kwargs):
    raise AssertionError(f"a child process was started: {args}")

asyncio.create_subprocess_exec = no_child
asyncio.run(computer.build_tables(Path(sys.argv[1])))
print(threads)
"""


def test_a_filled_cache_is_checked_in_a_worker_thread_without_a_child_process(shared_tables: Path) -> None:
    """A restart with every table present (every start but the first) checks the files in its own process, and
    imports numba and the solvers off the event loop (most of a second of CPU there would hold up the start)."""
    checked = subprocess.run(
        [sys.executable, "-c", FILLED_CHECK, str(shared_tables)], capture_output=True, text=True, check=True
    )
    assert checked.stdout.split() == ["['strategy-tables']"]


def written(folder: Path) -> dict[str, int]:
    """Each table file of the folder with the time it was last written."""
    return {path.name: path.stat().st_mtime_ns for path in folder.glob("*.npz")}


def test_the_levels_are_the_strategys_and_the_bot_starts_without_importing_it() -> None:
    """``bot.strategy`` brings numba and the solvers (seconds of CPU): imported when a computer first plays."""
    assert computer.LEVELS == strategy.LEVELS
    code = "import sys, bot.app, cogs.kniffel; print('bot.strategy' in sys.modules, 'numba' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.split() == ["False", "False"]


async def test_tables_that_failed_to_load_are_not_loaded_again_at_every_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every save of a game with a computer asks for its tables; a load that failed would start a build each time."""
    attempts = []

    def failing(state: object, player: str, directory: Path) -> None:
        attempts.append(player)
        raise MemoryError("no room for the table")

    monkeypatch.setattr(computer, "_evaluate", failing)
    brain = computer.Brain(tmp_path)
    state = dicepoker.new_game(["a"], random.Random(1))
    for _ in range(5):
        loading = brain.prepare(state, "a")
        assert loading is not None
        await loading
    assert attempts == ["a"]
    assert not brain.is_ready(state) and brain.choose(state, "a", "perfect", random.Random(3)) is None
    assert brain.failed(state)  # the hint says so instead of "preparing" forever
