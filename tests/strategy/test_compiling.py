"""Every path that compiles numba code or first loads it holds the machine-wide compile lock (admin QA: a process
loading the Knister search while another wrote it to numba's cache aborted with "LLVM ERROR: Symbol not found")."""

from __future__ import annotations

import fcntl
import random
from pathlib import Path

import pytest

from bot import strategy
from bot.engine import knister as knister_engine
from bot.strategy import __main__ as cli
from bot.strategy import knister
from bot.strategy.compiling import LOCK_FILE, compiling


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


def test_the_lock_is_held_inside() -> None:
    with compiling():
        assert held()


def test_the_lock_is_reentrant_in_one_process() -> None:
    """``warm`` holds it around ``compile_search``, which takes it too: a second flock would wait forever."""
    with compiling(), compiling():
        assert held()


def test_the_knister_search_compiles_under_the_lock(monkeypatch: pytest.MonkeyPatch, table_dir: Path) -> None:
    """Test code and the bot alike reach the search's compile through ``compile_search``: the compile that two
    xdist workers of a fresh checkout raced on (a worker aborted in llvmlite)."""
    seen: list[bool] = []
    monkeypatch.setattr(knister, "placement_values", lambda *args: seen.append(held()))
    knister.compile_search(knister.load(table_dir))
    assert seen == [True]


def test_warming_compiles_under_the_lock(monkeypatch: pytest.MonkeyPatch, table_dir: Path) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(knister, "compile_search", lambda tabs: seen.append(held()))
    strategy.warm(table_dir)
    assert seen == [True]


def test_preparing_a_knister_game_compiles_under_the_lock(monkeypatch: pytest.MonkeyPatch, table_dir: Path) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(knister, "compile_search", lambda tabs: seen.append(held()))
    state = knister_engine.new_game(["a"], random.Random(1))
    strategy.prepare(state, "a", directory=table_dir)
    assert seen == [True]


def test_the_table_build_runs_under_the_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[bool] = []

    def build(directory: Path, *, rebuild: bool) -> None:
        seen.append(held())

    monkeypatch.setattr(cli, "_build", build)
    monkeypatch.setattr(cli, "missing", lambda directory: [])
    cli.main(["--dir", str(tmp_path), "build", "--missing"])
    assert seen == [True]
