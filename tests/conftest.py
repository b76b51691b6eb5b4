"""Fixtures every test package shares: the database URL of each storage backend, and the strategy tables."""

from __future__ import annotations

import fcntl
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.strategy import dicepoker, kniffel, knister
from tests.postgres import fresh_schema

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """``DATABASE_URL`` of a new, empty database on each backend: a SQLite file, or a PostgreSQL schema of its own
    (skipped, naming the variable, when no PostgreSQL server is configured)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'dicebot.sqlite3'}"
        return
    async with fresh_schema() as url:
        yield url


@pytest.fixture(scope="session")
def shared_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of strategy tables per test run, built once and shared by every xdist worker.

    The exact tables take seconds of CPU each to build (Kniffel's about 6 s); the strategy tests and the
    end-to-end games against computers each built their own, and each worker again. The folder lives beside
    the workers' temporary folders (the same base for the whole run, a new one for every run), and a file lock
    lets the first worker build while the others wait and then load. The builder itself keeps its own tests
    (``tests/play/test_computer.py`` builds every table in a fresh folder in a child process).
    """
    root = tmp_path_factory.getbasetemp().parent  # shared by the workers of one run (pytest-xdist's pattern)
    folder = root / "strategy-tables"
    folder.mkdir(exist_ok=True)
    with open(root / "strategy-tables.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for ruleset in ("kniffel", "classic"):
                kniffel.load(ruleset, folder)
            dicepoker.load(folder)
            knister.load(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


#: Tests that mostly wait (on child processes, a browser, the bot's own timers) rather than compute, slowest first.
#: They start the run, so their waits overlap other workers' computing instead of trailing alone at its end.
WAITING_FIRST = (
    "tests/e2e/test_shards.py",  # two bot processes, a SIGKILL and a restart; computer moves 1 s apart
    "tests/play/test_computer.py",  # builds every strategy table in a child process
    "tests/playground/",  # Chromium renders while the test waits
    "tests/reliability/test_failed_answers.py",  # discord.py's retry after a 503, the shown-versions flusher
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put :data:`WAITING_FIRST` at the front, keeping the order within each group (the same on every worker)."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid
        return next((i for i, prefix in enumerate(WAITING_FIRST) if path.startswith(prefix)), len(WAITING_FIRST))

    items.sort(key=rank)
