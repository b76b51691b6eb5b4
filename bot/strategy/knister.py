"""Knister placement: where to write the round's number, judged by what every line through the cell can still become.

A line's potential is the expected score of the line once full (the engine's ``score_line``), given the numbers
it holds, with each empty cell filled by a future roll. Random filling underrates a line (the player chooses
where numbers go), so the future numbers are drawn from the 2d6 chances sharpened towards the numbers the line
needs: each empty cell gets the best of ``draws`` independent rolls for that line, which the player can often
arrange. A placement is worth the grid's total potential afterwards (diagonals doubled); ``easy`` plays the
engine's greedy :func:`bot.engine.knister.best_cell` instead, ``normal`` uses plain random filling.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bot.engine import knister as engine
from bot.strategy.base import ActionValue, pick_best

NUMBERS = tuple(range(engine.LOWEST, engine.HIGHEST + 1))
CHANCE = np.array([(6 - abs(7 - n)) / 36 for n in NUMBERS])
"""Chance of each sum of two dice."""
SIZE = engine.SIZE
LINES = (
    [[(r, c) for c in range(SIZE)] for r in range(SIZE)]
    + [[(r, c) for r in range(SIZE)] for c in range(SIZE)]
    + [[(i, i) for i in range(SIZE)], [(i, SIZE - 1 - i) for i in range(SIZE)]]
)
WEIGHTS = (1,) * (2 * SIZE) + (2, 2)
"""Diagonals count double (RULES.md section 3)."""

Content = tuple[int, ...]
"""The numbers a line holds, ascending."""


@cache
def _full_scores() -> dict[Content, int]:
    return {line: engine.score_line(line) for line in combinations_with_replacement(NUMBERS, SIZE)}


@cache
def potentials(level: str) -> dict[Content, float]:
    """Expected final score of every line content (0..5 numbers) when its empty cells are filled at ``level``.

    ``normal`` fills with plain 2d6 rolls; ``perfect`` lets every empty cell take the most useful of two
    rolls, a stand-in for the player's freedom to send numbers where they fit.
    """
    scores = _full_scores()
    values: dict[Content, float] = {line: float(score) for line, score in scores.items()}
    for size in range(SIZE - 1, -1, -1):
        for line in combinations_with_replacement(NUMBERS, size):
            options = np.array([values[tuple(sorted((*line, n)))] for n in NUMBERS])
            values[line] = float(CHANCE @ options) if level == "normal" else _best_of_two(options)
    return values


def _best_of_two(options: NDArray[np.float64]) -> float:
    """Expected best of two independent 2d6 rolls, judged by ``options`` (the value of each number)."""
    order = np.argsort(options)
    below = np.cumsum(CHANCE[order])
    chance_best = below**2 - np.concatenate(([0.0], below[:-1])) ** 2
    return float(chance_best @ options[order])


def _line_content(grid: engine.Grid, line: list[tuple[int, int]]) -> Content:
    return tuple(sorted(n for r, c in line if (n := grid[r][c]) is not None))


def grid_value(grid: engine.Grid, level: str) -> float:
    """Sum of line potentials, diagonals doubled: the expected final score as the level judges it."""
    table = potentials(level)
    return sum(w * table[_line_content(grid, line)] for line, w in zip(LINES, WEIGHTS, strict=True))


def placement_values(grid: engine.Grid, number: int, level: str) -> dict[int, float]:
    """The grid's value after writing ``number`` into each empty cell."""
    table = potentials(level)
    lines_of = _lines_of_cell()
    base = {i: table[_line_content(grid, line)] for i, line in enumerate(LINES)}
    total = sum(w * base[i] for i, w in enumerate(WEIGHTS))
    values = {}
    for cell in range(engine.CELLS):
        r, c = divmod(cell, SIZE)
        if grid[r][c] is not None:
            continue
        value = total
        for i in lines_of[cell]:
            content = tuple(sorted((*_line_content(grid, LINES[i]), number)))
            value += WEIGHTS[i] * (table[content] - base[i])
        values[cell] = value
    return values


@cache
def _lines_of_cell() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {cell: [] for cell in range(engine.CELLS)}
    for i, line in enumerate(LINES):
        for r, c in line:
            found[r * SIZE + c].append(i)
    return found


def evaluate(state: engine.State, player: str, level: str = "perfect") -> list[ActionValue]:
    """Every legal action with the expected final score as the level judges it (a roll: the grid as it is)."""
    legal = engine.legal_actions(state, player)
    grid = state.grids.get(player)
    if not legal or grid is None:
        return []
    if state.number is None:
        return [ActionValue(action, grid_value(grid, _judge(level))) for action in legal]
    values = placement_values(grid, state.number, _judge(level))
    return [ActionValue(action, values[action.cell]) for action in legal]


def _judge(level: str) -> str:
    return "normal" if level == "normal" else "perfect"


def choose(state: engine.State, player: str, level: str, rng: random.Random) -> Any:
    """Roll when it is the player's roll; else place where the level's judgement puts the number."""
    legal = engine.legal_actions(state, player)
    if not legal:
        raise ValueError(f"{player} has nothing to do now")
    if state.number is None:
        return engine.Roll()
    if level == "easy":
        return engine.Place(cell=engine.best_cell(state.grids[player], state.number))
    return pick_best(evaluate(state, player, level), rng)


def play_solo(level: str, games: int, seed: int) -> list[int]:
    """Final scores of ``games`` seeded solo games at ``level`` (the engine's own scoring)."""
    rng = random.Random(seed)
    scores = []
    for _ in range(games):
        grid: engine.Grid = [[None] * SIZE for _ in range(SIZE)]
        for _ in range(engine.ROUNDS):
            number = rng.randint(1, 6) + rng.randint(1, 6)
            if level == "easy":
                cell = engine.best_cell(grid, number)
            else:
                values = placement_values(grid, number, _judge(level))
                top = max(values.values())
                cell = rng.choice([c for c, v in values.items() if v >= top - 1e-9])
            grid[cell // SIZE][cell % SIZE] = number
        scores.append(engine.score_grid(grid))
    return scores
