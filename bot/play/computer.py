"""Computer players: their seat ids, and the brain that picks their moves without blocking the event loop.

A computer seat's player id is ``cpu-<level>-<n>``: the level is read back from the id, so nothing else about a
computer needs storing. :class:`Brain` answers "what does this computer play now" from ``bot.strategy`` once
the game's tables are in memory; the tables are loaded (built on a first start) in a worker thread, and until
they are ready a decision falls back to the engine's ``timeout_action`` (the most points now) and says so in the
log, so a click or a deadline never waits for a table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import sys
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from bot.engine import tutto
from bot.play.game import AnyRules
from bot.storage.games import Seat

log = logging.getLogger(__name__)

PREFIX = "cpu"
#: ``bot.strategy.LEVELS``, spelled out (a test checks they agree): ``bot.strategy`` is imported only when a
#: computer first plays or tables load, since it brings numba and the solvers (seconds of CPU at every start
#: of the bot, and of every command-line run that stops before connecting).
LEVELS: tuple[str, ...] = ("easy", "normal", "perfect")
#: Results of a game with computer players are stored under ``<kind>+computer``: their own standings, never in
#: the people-against-people leaderboards of ``<kind>`` (``bot/ui/leaderboard.py`` reads the same suffix).
VS_COMPUTER = "+computer"
#: The level that plays a person's turn when their time runs out.
TIMEOUT_LEVEL = "normal"


def player_id(level: str, taken: set[str]) -> str:
    """The first free ``cpu-<level>-<n>`` id."""
    number = 1
    while f"{PREFIX}-{level}-{number}" in taken:
        number += 1
    return f"{PREFIX}-{level}-{number}"


def level_of(player: str) -> str:
    """The level in a computer's id (``cpu-perfect-2`` → ``perfect``)."""
    prefix, level, _ = player.split("-", 2)
    if prefix != PREFIX or level not in LEVELS:
        raise ValueError(f"not a computer player id: {player!r}")
    return level


def number_of(player: str) -> int:
    """The number in a computer's id: 2 for the second computer of its level."""
    return int(player.rsplit("-", 1)[1])


def vs_computer_counters(levels: set[str], won: bool) -> dict[str, int]:
    """A person's result counters against computers: one game and a win or not against each level present."""
    counters = {}
    for level in sorted(levels):
        counters[f"vs_{level}"] = 1
        counters[f"won_vs_{level}"] = int(won)
    return counters


def is_computer(seat: Seat | None) -> bool:
    return seat is not None and seat.kind == "computer"


def table_key(state: Any) -> Hashable:
    """Which table a state's decisions need: one per engine state type and rule set."""
    return (type(state).__module__, getattr(state, "ruleset", None))


async def in_daemon_thread(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` in a daemon thread, awaited.

    Not ``asyncio.to_thread``: a shutdown waits for the default executor, and a table being built would hold a
    SIGTERM for many seconds. A daemon thread dies with the process; the table files are written atomically, so
    an interrupted build leaves nothing behind but the work to redo.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = function(*args, **kwargs), None
        except Exception as caught:
            result, error = None, caught
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="strategy-tables", daemon=True).start()
    return await future


class Brain:
    """Decisions of computer players, with tables loaded off the event loop.

    ``choose`` is synchronous (the pure transitions call it): it uses ``bot.strategy`` only for a table already in
    memory and otherwise returns None, and the caller falls back to ``engine.timeout_action``.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._ready: set[Hashable] = set()
        self._loading: dict[Hashable, asyncio.Future[Any]] = {}
        #: Tables whose load failed: not tried again before the next start (see ``_load``).
        self._failed: set[Hashable] = set()
        self._all_ready = False
        #: The start-up build of every table, while it runs: a game's own load waits for it instead of racing it.
        self._warming: asyncio.Future[Any] | None = None

    def is_ready(self, state: Any) -> bool:
        return self._all_ready or table_key(state) in self._ready

    def failed(self, state: Any) -> bool:
        """Whether loading the tables ``state`` needs failed: they stay missing until the bot restarts."""
        return not self.is_ready(state) and table_key(state) in self._failed

    def prepare(self, state: Any, player: str) -> asyncio.Future[Any] | None:
        """Start loading the tables ``state`` needs in a worker thread (once); the task, or None when ready."""
        key = table_key(state)
        if self.is_ready(state):
            return None
        if self._warming is not None and not self._warming.done():
            return self._warming
        task = self._loading.get(key)
        if task is None:
            task = asyncio.create_task(self._load(key, state, player), name=f"strategy-tables-{key}")
            self._loading[key] = task
        return task

    async def _load(self, key: Hashable, state: Any, player: str) -> None:
        try:
            await in_daemon_thread(_evaluate, state, player, self.directory)
        except Exception:
            # The failed task stays in ``_loading``: started again at every computer move, a build that cannot
            # succeed would take seconds of CPU each time. The next start tries again.
            log.exception("could not load the strategy tables for %s; computer players play the most points now", key)
            self._failed.add(key)
            return
        self._ready.add(key)
        log.info("strategy tables for %s are ready", key)

    async def warm(self) -> None:
        """Build every missing table in a child process, load them all in a worker thread, then use them.

        The build runs compiled loops that hold the interpreter lock for seconds; in a thread of the bot's own
        process they would stall every click meanwhile. A separate process costs the event loop nothing, and the
        load afterwards only reads the cached files (a fraction of a second).
        """
        self._warming = asyncio.ensure_future(self._build_and_load())
        try:
            timings = await self._warming
        except Exception:
            log.exception("could not build the strategy tables; computer players play the most points now")
            return
        log.info("strategy tables ready: %s", ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items()))
        self._all_ready = True

    async def _build_and_load(self) -> dict[str, float]:
        await build_tables(self.directory)
        timings: dict[str, float] = await in_daemon_thread(_warm, self.directory)
        return timings

    def choose(self, state: Any, player: str, level: str, rng: random.Random) -> Any | None:
        """The action of a ``level`` player now, or None while the game's tables are not in memory yet."""
        if not self.is_ready(state):
            log.info("strategy tables for %s still loading: playing the most points now", table_key(state))
            return None
        from bot import strategy  # lazily: numba and the solvers (see LEVELS)

        return strategy.choose(state, player, level, rng, directory=self.directory)  # type: ignore[arg-type]


async def build_tables(directory: Path) -> None:
    """``python -m bot.strategy build --missing`` into ``directory`` as a child process, killed if the bot stops first.

    Only missing (or outdated) tables are built, so a restart with a filled cache costs a load, not a rebuild; and
    the folder is checked here first (in a thread: the rules read from the engine are cached for the load that
    follows), so such a restart starts no child at all, whose interpreter, numba and solvers cost more than a
    second of CPU only to find every file present.
    """
    if not await in_daemon_thread(_missing, directory):
        return
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.strategy",
        "--dir",
        str(directory),
        "build",
        "--missing",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, error = await process.communicate()
    except asyncio.CancelledError:
        process.kill()
        await process.wait()
        raise
    if process.returncode != 0:
        last = error.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        log.warning("building the strategy tables failed (exit %s): %s", process.returncode, last[0])


def _missing(directory: Path) -> list[str]:
    """``strategy.missing``, imported in the worker thread that calls it: importing numba and the solvers takes
    most of a second of CPU, which on the event loop would hold up the start's connection and first clicks."""
    from bot import strategy

    return strategy.missing(directory)


def _evaluate(state: Any, player: str, directory: Path) -> None:
    """``strategy.prepare`` (which loads the tables ``state`` needs, compiled), imported in its worker thread (see
    :func:`_missing`)."""
    from bot import strategy

    strategy.prepare(state, player, directory=directory)


def _warm(directory: Path) -> dict[str, float]:
    """``strategy.warm``, imported in its worker thread (see :func:`_missing`)."""
    from bot import strategy

    return strategy.warm(directory)


def hint_values(state: Any, player: str, directory: Path) -> tuple[list[Any], Any | None]:
    """The values a hint shows, best first, and the value of what is set up now (or None).

    ``strategy.evaluate`` values a five-dice toggle as "toggle one die, then roll"; a person thinks in keeps, so
    for the five-dice games the toggles and the roll give way to every distinct keep (``strategy.keep_values``,
    :class:`bot.strategy.Keep`), and the boxes (or rows) stay as they are. With every die held there is no roll
    to set up and the toggles are shown. On a Tutto roll the toggles and Roll on or Stop give way to whole plans
    (``strategy.tutto.plan_values``: a selection and rolling on or stopping), the current one being the dice
    selected now and rolling on; otherwise Tutto's and Knister's actions are shown as the strategy values them.
    """
    from bot import strategy  # lazily: numba and the solvers (see LEVELS)

    plans = strategy.tutto.plan_values(state, player) if isinstance(state, tutto.State) else []
    if plans:
        chosen = strategy.tutto.Plan(tuple(sorted(state.selection)), "roll_on")
        return plans, next((entry for entry in plans if entry.action == chosen), None)
    values = strategy.evaluate(state, player, directory=directory)
    current = next((entry for entry in values if entry.action.kind in ("roll", "roll_on")), None)
    keeps = strategy.keep_values(state, player, directory=directory) if current is not None else []
    if not keeps:
        return values, current
    others = [entry for entry in values if entry.action.kind not in ("roll", "toggle_hold")]
    return sorted([*keeps, *others], key=lambda entry: -entry.value), current


def chooser(brain: Brain | None, rules: AnyRules, rng: random.Random) -> Callable[[Any, str, str], Any]:
    """``(state, player, level) -> action``: the brain's choice, else the engine's timeout action.

    ``rng`` is the decisions' own random source (ties, Knister rollouts), apart from the dice.
    """

    def choose(state: Any, player: str, level: str) -> Any:
        action = brain.choose(state, player, level, rng) if brain is not None else None
        return action if action is not None else rules.engine.timeout_action(state, player)

    return choose
