"""Fixtures every test package shares: the database URL of each storage backend, and the strategy tables."""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadGroupScheduling

from bot.stopsignal import SIGNALS, early_stop
from tests.postgres import fresh_schema
from tests.table_cache import cached_folder

BACKENDS = ("sqlite", "postgres")


def pytest_configure(config: pytest.Config) -> None:
    """Let the run keep Python's bytecode (``__pycache__``, which git ignores), even where the environment says
    ``PYTHONDONTWRITEBYTECODE``; and let the processes the tests start import this tree first.

    Without the bytecode every xdist worker compiled the bot and rewrote the asserts of every test module again, on
    every run: about 10 s of CPU per worker to collect the suite instead of 4 s, and every ``python -m bot`` a test
    starts compiled the bot anew. Without ``PYTHONPATH`` such a child, started in a test's own folder, imported the
    environment's install, which can be another checkout (``tests/test_child_processes.py``). The workers and those
    child processes are started after this and inherit both.
    """
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(config.rootpath), os.environ.get("PYTHONPATH"))))


@pytest.fixture(autouse=True)
def stop_signals_restored() -> Iterator[None]:
    """The worker's own Ctrl+C and SIGTERM handlers (pytest's, xdist's) and a clear stop note after every test: a
    test that runs ``bot.__main__.main`` in process leaves the start's handlers installed (``bot.stopsignal``) on a
    path that returns before an event loop takes them over, and the worker would then ignore both signals, or
    later tests read a stop that was noted here (review)."""
    saved = {signum: signal.getsignal(signum) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
        early_stop.requested = False


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
def shared_tables(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of strategy tables shared by every xdist worker, and by later runs of the same sources.

    The exact tables take seconds of CPU each to build (Kniffel's about 9 s); the strategy tests and the
    end-to-end games against computers each built their own, and each worker again. The folder lives in pytest's
    cache (``.pytest_cache``; ``--cache-clear`` empties it), named by a hash of the code the tables come from
    (:mod:`tests.table_cache`); without the cache plugin, beside the workers' temporary folders for this run only.
    The first worker that needs it fills it while the others wait. The builder itself keeps its own tests
    (``tests/play/test_computer.py`` builds in a fresh folder in a child process).
    """
    cache: pytest.Cache | None = getattr(request.config, "cache", None)
    # The run's base temp is shared by its workers (pytest-xdist's pattern).
    root = cache.mkdir("strategy-tables") if cache is not None else tmp_path_factory.getbasetemp().parent / "tables"
    from bot.strategy import dicepoker, kniffel, knister  # numba: not in the controller, which runs no test

    with cached_folder(root) as folder:
        for ruleset in ("kniffel", "classic"):
            kniffel.load(ruleset, folder)
        dicepoker.load(folder)
        knister.load(folder)
    return folder


#: Tests that mostly wait (on child processes, a browser) rather than compute, longest first. They start the run, so
#: their waits overlap other workers' computing instead of trailing alone at its end. The shard test's two variants
#: and the browser tests are a group each (:func:`shared_group`): one worker each, one test after the other, so the
#: third worker computes meanwhile. Waits of a second or three (discord.py's retry after a 503, the shown-versions
#: flusher in ``tests/reliability/test_failed_answers.py``) stay where they are collected, among computing tests:
#: at the front they waited on every worker at once, next to the long groups.
WAITING_FIRST = (
    "tests/e2e/test_shards.py",  # bot processes, a SIGKILL and a restart, discord.py's 2 s to get ready, twice
    "tests/playground/",  # Chromium renders while the test waits
    "tests/play/test_computer.py",  # builds a strategy table in a child process
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put :data:`WAITING_FIRST` at the front, keeping the order within each group (the same on every worker), and
    the tests of a :func:`shared_group` right after its first: what one keeps for the next is then used in a run
    on one process too (``-n0``), not only where the scheduler hands a group to one worker."""
    first: dict[str, int] = {}

    def rank(numbered: tuple[int, pytest.Item]) -> tuple[int, int]:
        index, item = numbered
        path = item.nodeid
        group = shared_group(path)
        waiting = next((i for i, prefix in enumerate(WAITING_FIRST) if path.startswith(prefix)), len(WAITING_FIRST))
        return waiting, first.setdefault(group, index) if group else index

    items[:] = [item for _, item in sorted(enumerate(items), key=rank)]


#: A case of the two tests that render every message of a seeded game (``tests/ui/test_phone.py`` keeps the renders).
RENDERED_CASE = re.compile(
    r"tests/ui/test_(?:phone\.py::test_every_button_row_and_code_block_fits_a_phone"
    r"|payloads\.py::test_every_answer_is_byte_identical_to_discord_py_s)(?P<case>\[.+\])"
)


def shared_group(nodeid: str) -> str | None:
    """The tests that share what a worker keeps, run on one worker: the browser tests one Chromium (each
    worker that ran one started its own: about 6 s of CPU and a Node.js driver), the two rendering tests of a
    game case one rendering of its thousands of messages. And the shard test's variants, which share nothing but
    mostly wait on their bot processes: one worker waits for both while the others compute, instead of two."""
    if nodeid.startswith("tests/playground/"):
        return "browser"
    if nodeid.startswith("tests/e2e/test_shards.py"):
        return "bot-processes"
    case = RENDERED_CASE.match(nodeid)
    return f"renders{case['case']}" if case else None


class SharedScheduling(LoadGroupScheduling):
    """``--dist loadgroup`` with the groups of :func:`shared_group`; every other test is handed out alone.

    Not the ``xdist_group`` mark: pytest-xdist 3.8 groups by renaming ``item._nodeid``, which pytest 9's node
    ids no longer read, so the mark groups nothing. The groups keep the collection's order
    (``--no-loadscope-reorder``): the waiting tests still start the run.
    """

    def _split_scope(self, nodeid: str) -> str:
        return shared_group(nodeid) or nodeid


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadGroupScheduling | None:
    """:class:`SharedScheduling` for ``--dist loadgroup`` (the suite's default); other modes as xdist has them."""
    return SharedScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None
