"""Knister placement: line values for fast players, a searched grid value (or rollouts) for the strong one.

A line's potential is the expected score of the line once full (the engine's ``score_line``), given the numbers
it holds, with each empty cell filled by a random roll of two dice (:mod:`bot.strategy.knister_lines`). The
``normal`` player writes the number where the grid's total potential (diagonals doubled) grows most.

Random filling underrates what a player can steer, so better line values are learned here, by Monte Carlo
policy iteration: play many seeded games writing where the values say, record what every line content seen
after ``t`` placements finally scored, average (shrunk towards the potential where data is thin), repeat.

The ``perfect`` player searches with the grid value of :mod:`bot.strategy.knister_net` (line tables plus a
small network that sees how lines compete for cells and numbers): every empty cell valued by the expected best
grid after the next roll, the few best looked at one roll deeper. Should that value be missing or trained for
other line scores, ``perfect`` falls back to rollouts: from every empty cell, play the rest of the game many
times with fresh rolls and placements by the learned line values and pick the best mean final score (the same
rolls for every cell, so the comparison is fair). ``easy`` plays the engine's greedy
:func:`bot.engine.knister.best_cell` (the most points now).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from bot.engine import knister as engine
from bot.strategy import knister_net, tables
from bot.strategy.base import ActionValue, pick_best
from bot.strategy.knister_lines import (
    ADD,
    CELL_LINE_COUNTS,
    CELL_LINES,
    CELLS,
    CHANCE,
    LINES,
    NUMBERS,
    WEIGHTS,
    arrays,
    draw,
    line_scores,
    place,
    potentials,
)

DECISION_WORK = 4_000_000
HINT_WORK = 600_000
MAX_ROLLOUTS = 16_384
"""Cell scans a ``perfect`` decision (a hint) may spend on rollouts, and the most rollouts per empty cell
(:func:`rollouts`): at most about 90 ms (15 ms) on one core."""
SEARCH_CELLS = 4
SEARCH_WIDTH = 3
"""With the grid value (:mod:`bot.strategy.knister_net`), a decision looks two rolls ahead from the
``SEARCH_CELLS`` cells one roll ranks best, following the ``SEARCH_WIDTH`` best cells for each second roll."""

LEARNING_GAMES = 50_000
LEARNING_ROUNDS = 4
LEARNING_PRIOR = 20.0
"""Games per round of policy iteration, rounds, and the weight of the potential in a learned value."""


def learned_values() -> NDArray[np.float64]:
    """``values[t, content]``: what a line holding ``content`` after ``t`` placements finally scores when the
    player writes where these values say (seeded, about 3 s)."""
    potential = potentials()
    values = np.tile(potential, (engine.CELLS + 1, 1))
    for round_ in range(LEARNING_ROUNDS):
        sums = np.zeros_like(values)
        counts = np.zeros_like(values)
        _learn(LEARNING_GAMES, round_, values, potential, sums, counts)
        values = (sums + LEARNING_PRIOR * potential) / (counts + LEARNING_PRIOR)
        values[engine.CELLS] = potential
    return values


@njit(cache=True)
def _learn(
    games: int,
    seed: int,
    values: NDArray[np.float64],
    potential: NDArray[np.float64],
    sums: NDArray[np.float64],
    counts: NDArray[np.float64],
) -> None:
    """Play ``games`` games by ``values`` and add every line's final score to the contents it passed through."""
    np.random.seed(seed)
    seen = np.zeros((CELLS + 1, LINES.shape[0]), dtype=np.int64)
    for _ in range(games):
        grid = np.full(CELLS, -1, dtype=np.int64)
        lines = np.zeros(LINES.shape[0], dtype=np.int64)
        for t in range(CELLS):
            seen[t] = lines
            n = draw()
            place(grid, lines, _greedy(grid, lines, n, values[t + 1]), n)
        seen[CELLS] = lines
        for line in range(LINES.shape[0]):
            final = potential[lines[line]]
            for t in range(CELLS + 1):
                sums[t, seen[t, line]] += final
                counts[t, seen[t, line]] += 1


@njit(cache=True)
def _greedy(grid: NDArray[np.int64], lines: NDArray[np.int64], n: int, potential: NDArray[np.float64]) -> int:
    """The empty cell where number index ``n`` raises the total potential most (first on a tie)."""
    best = -np.inf
    pick = -1
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        gain = 0.0
        for j in range(CELL_LINE_COUNTS[cell]):
            line = CELL_LINES[cell, j]
            gain += WEIGHTS[line] * (potential[ADD[lines[line], n]] - potential[lines[line]])
        if gain > best:
            best = gain
            pick = cell
    return pick


@njit(cache=True)
def _rollout_values(
    grid: NDArray[np.int64],
    lines: NDArray[np.int64],
    n: int,
    rolls: NDArray[np.int64],
    potential: NDArray[np.float64],
    learned: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Mean final score of each empty cell (NaN for a filled one) over games finished by the learned values,
    game ``r`` drawing the numbers ``rolls[r]`` whichever cell it starts from (common random numbers)."""
    placed = 0
    for cell in range(CELLS):
        if grid[cell] >= 0:
            placed += 1
    means = np.full(CELLS, np.nan)
    g = grid.copy()
    state = lines.copy()
    for cell in range(CELLS):
        if grid[cell] >= 0:
            continue
        total = 0.0
        for r in range(rolls.shape[0]):
            g[:] = grid
            state[:] = lines
            place(g, state, cell, n)
            for t in range(placed + 1, CELLS):
                m = rolls[r, t - placed - 1]
                place(g, state, _greedy(g, state, m, learned[t + 1]), m)
            for line in range(LINES.shape[0]):
                total += WEIGHTS[line] * potential[state[line]]
        means[cell] = total / rolls.shape[0]
    return means


def rollouts(empty: int, work: int) -> int:
    """Rollouts per empty cell that fit ``work`` cell scans in a decision with ``empty`` empty cells.

    A rollout from each of the ``empty`` cells scans the remaining empty cells once per later placement, about
    ``empty * (empty - 1) / 2`` scans (plus a fixed cost, counted as ``empty``), so late decisions afford many
    more rollouts than early ones for the same time: capped at :data:`MAX_ROLLOUTS`.
    """
    return max(1, min(MAX_ROLLOUTS, work // (empty * (empty * (empty - 1) // 2 + empty))))


@dataclass(frozen=True)
class Tables:
    """The random-fill potential of every line content and the learned values per placement count."""

    potential: NDArray[np.float64]
    learned: NDArray[np.float64]
    net: knister_net.Net | None = None
    """The grid value ``perfect`` searches with; None when the committed one was trained for other rules."""


_LOADED: dict[Path, Tables] = {}
TABLE = "knister"
"""The name of the stored learned values (their file adds the version and :func:`digest`)."""


def digest() -> str:
    """What the learned values depend on: the engine's line scores and the learning's settings."""
    return tables.rules_hash(["knister", line_scores().tobytes(), LEARNING_GAMES, LEARNING_ROUNDS, LEARNING_PRIOR])


def load(directory: Path | str | None = None, *, rebuild: bool = False) -> Tables:
    """The tables: from memory, from the cache folder, or learned (and stored) now (``rebuild``: afresh)."""
    # A Path as it is: every decision and hint looks its tables up here, and building a Path again costs.
    folder = directory if isinstance(directory, Path) else tables.DEFAULT_DIR if directory is None else Path(directory)
    if rebuild or folder not in _LOADED:
        potential = potentials()
        stored = tables.load_or_build(folder, TABLE, digest(), lambda: {"learned": learned_values()}, rebuild=rebuild)
        _LOADED[folder] = Tables(potential, np.asarray(stored["learned"], dtype=np.float64), knister_net.load())
    return _LOADED[folder]


def compile_search(tabs: Tables) -> None:
    """Value one placement as ``perfect`` does, so numba compiles (or loads from its cache) the search now.

    Compiling took up to 50 s on a loaded machine; the first computer move of a game paid it on the event loop,
    and every click of every game waited. :func:`bot.strategy.warm` calls this in its worker thread.
    """
    placement_values(tabs, [[None] * engine.SIZE for _ in range(engine.SIZE)], 7, "perfect")


def placement_values(
    tabs: Tables, grid: engine.Grid, number: int, level: str, seed: int = 0, work: int = DECISION_WORK
) -> dict[int, float]:
    """What writing ``number`` into each empty cell is worth at ``level``: for ``perfect`` the expected final
    score by the grid value's search (two rolls ahead on the best cells when ``work`` is a decision's, one for
    a hint), or without a valid grid value the mean final score of the rollouts (as many as ``work`` affords);
    for the others the grid's total potential afterwards."""
    flat, lines = arrays(grid)
    n = number - engine.LOWEST
    potential = tabs.potential
    if level == "perfect" and tabs.net is not None:
        net = tabs.net
        top, width = (SEARCH_CELLS, SEARCH_WIDTH) if work >= DECISION_WORK else (0, 0)
        means = knister_net.search_values(flat, lines, n, top, width, net.tables, net.w, net.b, net.v, net.c, CHANCE)
        return {cell: float(means[cell]) for cell in range(CELLS) if flat[cell] < 0}
    if level == "perfect":
        empty = int(np.count_nonzero(flat < 0))
        rolls = np.random.default_rng(seed).choice(len(NUMBERS), size=(rollouts(empty, work), empty - 1), p=CHANCE)
        means = _rollout_values(flat, lines, n, rolls, potential, tabs.learned)
        return {cell: float(means[cell]) for cell in range(CELLS) if flat[cell] < 0}
    base = float(WEIGHTS @ potential[lines])
    values = {}
    for cell in range(CELLS):
        if flat[cell] < 0:
            value = base
            for line in CELL_LINES[cell, : CELL_LINE_COUNTS[cell]]:
                value += WEIGHTS[line] * (potential[ADD[lines[line], n]] - potential[lines[line]])
            values[cell] = value
    return values


def evaluate(tabs: Tables, state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every legal action with its expected final score as the level judges it (a roll: the grid as it is)."""
    legal = engine.legal_actions(state, player)
    if not legal:
        return []
    grid = state.grids[player]
    if state.number is None:
        _, lines = arrays(grid)
        return [ActionValue(action, float(WEIGHTS @ tabs.potential[lines])) for action in legal]
    values = placement_values(tabs, grid, state.number, level, work=HINT_WORK)
    return [ActionValue(action, values[action.cell]) for action in legal if isinstance(action, engine.Place)]


def choose(
    tabs: Tables, state: engine.State, player: str, level: str, rng: random.Random, work: int = DECISION_WORK
) -> Any:
    """Roll when it is the player's roll; else place the number where the level puts it (``perfect``: with
    rollouts worth ``work`` cell scans)."""
    legal = engine.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do now")
    if state.number is None:
        return engine.Roll()
    grid = state.grids[player]
    if level == "easy":
        return engine.Place(cell=engine.best_cell(grid, state.number))
    values = placement_values(tabs, grid, state.number, level, seed=rng.randrange(2**31), work=work)
    return pick_best([ActionValue(engine.Place(cell=cell), value) for cell, value in values.items()], rng)


def play_solo(tabs: Tables, level: str, games: int, seed: int, work: int = DECISION_WORK) -> list[int]:
    """Final scores of ``games`` seeded solo games at ``level`` (``perfect``: rollouts worth ``work`` cell scans
    a decision), scored by the engine's ``score_grid``."""
    rng = random.Random(seed)
    scores = []
    for _ in range(games):
        state = engine.new_game(["solo"], rng)
        while not engine.is_over(state):
            state = engine.apply(state, "solo", choose(tabs, state, "solo", level, rng, work), rng)
        scores.append(engine.results(state)[0].score)
    return scores
