"""Knister: every player writes the same 2d6 sum into their own 5x5 grid; its lines score number patterns."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bot.engine import core
from bot.engine.core import (
    AlreadyPlaced,
    CellFilled,
    Event,
    GameOver,
    IllegalAction,
    MustRollFirst,
    NotAPlayer,
    NotYourTurn,
    PlayerResult,
)

SIZE = 5
CELLS = SIZE * SIZE
ROUNDS = CELLS
LOWEST, HIGHEST = 2, 12

Grid = list[list[int | None]]
"""5 rows of 5 cells, ``None`` for an empty cell; cell ``i`` of the actions is ``grid[i // 5][i % 5]``."""


# --------------------------------------------------------------------------------------------------
# Scoring (docs/RULES.md section 3)


def _check_line(numbers: Sequence[int | None], *, allow_empty: bool) -> list[int | None]:
    line = list(numbers)
    if len(line) != SIZE:
        raise ValueError(f"a Knister line holds {SIZE} numbers, got {len(line)}")
    for number in line:
        if number is None and allow_empty:
            continue
        if isinstance(number, bool) or not isinstance(number, int) or not LOWEST <= number <= HIGHEST:
            raise ValueError(f"a Knister number is {LOWEST}..{HIGHEST}, got {number!r}")
    return line


def _check_grid(grid: Sequence[Sequence[int | None]], *, allow_empty: bool) -> Grid:
    rows = [list(row) for row in grid]
    if len(rows) != SIZE:
        raise ValueError(f"a Knister grid has {SIZE} rows, got {len(rows)}")
    return [_check_line(row, allow_empty=allow_empty) for row in rows]


def _pattern(numbers: list[int]) -> int:
    """Points of the numbers present in a line; a straight needs all five, so it is checked here only then."""
    return _sorted_pattern(tuple(sorted(numbers)))


@cache
def _sorted_pattern(numbers: tuple[int, ...]) -> int:
    """:func:`_pattern` of sorted numbers (no pattern depends on their order). Remembered: a line holds one of a
    few thousand multisets, and valuing a placement scores every line of the grid for every empty cell."""
    if len(numbers) == SIZE and len(set(numbers)) == SIZE and max(numbers) - min(numbers) == SIZE - 1:
        return 8 if 7 in numbers else 12
    shape = [*sorted(Counter(numbers).values(), reverse=True), 0, 0]
    top, second = shape[0], shape[1]
    if top == 5:
        return 10
    if top == 4:
        return 6
    if top == 3:
        return 8 if second == 2 else 3
    if top == 2:
        return 3 if second == 2 else 1
    return 0


def score_line(numbers: Sequence[int]) -> int:
    """Points of one full line of five numbers 2..12 (the patterns are exclusive: the best one counts)."""
    return _pattern([n for n in _check_line(numbers, allow_empty=False) if n is not None])


def partial_line_score(numbers: Sequence[int | None]) -> int:
    """Points the numbers already in a line form ("line scores so far"); ``None`` marks an empty cell.

    Equal numbers count as soon as they are there (two 7s = a pair = 1); a straight only counts once the
    line is complete, because four numbers in a row are still worth nothing.
    """
    return _pattern([n for n in _check_line(numbers, allow_empty=True) if n is not None])


class LineScores(BaseModel):
    """Per-line points of a grid for the end table; diagonals are listed undoubled, ``total`` doubles them."""

    model_config = ConfigDict(frozen=True)

    rows: list[int]
    columns: list[int]
    diagonals: list[int]
    """Main diagonal (top left to bottom right), then the anti-diagonal (top right to bottom left)."""
    total: int


def _lines(grid: Grid) -> tuple[list[list[int | None]], list[list[int | None]], list[list[int | None]]]:
    rows = [list(row) for row in grid]
    columns = [[grid[r][c] for r in range(SIZE)] for c in range(SIZE)]
    diagonals = [[grid[i][i] for i in range(SIZE)], [grid[i][SIZE - 1 - i] for i in range(SIZE)]]
    return rows, columns, diagonals


def line_scores(grid: Sequence[Sequence[int | None]], *, partial: bool = False) -> LineScores:
    """Score every line of a grid that may have empty cells (``None``).

    With ``partial=False`` (final scoring) a line containing an empty cell scores 0: this only happens to a
    player who left before the grid was full. With ``partial=True`` each line scores what it shows so far
    (:func:`partial_line_score`), for the running display and the timeout placement.
    """
    rows, columns, diagonals = _lines(_check_grid(grid, allow_empty=True))

    def score(line: list[int | None]) -> int:
        present = [n for n in line if n is not None]
        if partial or len(present) == SIZE:
            return _pattern(present)
        return 0

    row_points = [score(line) for line in rows]
    column_points = [score(line) for line in columns]
    diagonal_points = [score(line) for line in diagonals]
    total = sum(row_points) + sum(column_points) + 2 * sum(diagonal_points)
    return LineScores(rows=row_points, columns=column_points, diagonals=diagonal_points, total=total)


def score_grid(grid: Sequence[Sequence[int]]) -> int:
    """Total of a full grid: rows + columns + 2 x both diagonals."""
    return line_scores(_check_grid(grid, allow_empty=False)).total


def solo_rating(total: int) -> str | None:
    """The rulebook's verdict on a solo game: ``good`` 50-79, ``very_good`` 80-99, ``amazing`` 100+."""
    if total >= 100:
        return "amazing"
    if total >= 80:
        return "very_good"
    if total >= 50:
        return "good"
    return None


# --------------------------------------------------------------------------------------------------
# Actions and state


class Roll(BaseModel):
    """The round's roller throws the two dice."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["roll"] = "roll"


class Place(BaseModel):
    """Write the round's number into an empty cell (0..24, row-major) of the player's own grid."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["place"] = "place"
    cell: int = Field(ge=0, lt=CELLS)


Action = Annotated[Roll | Place, Field(discriminator="kind")]
_ROLL = Roll()
_PLACES = tuple(Place(cell=cell) for cell in range(CELLS))
"""One frozen instance per action serves every list of legal actions (every grid and decision asks)."""
_ACTION_ADAPTER: TypeAdapter[Roll | Place] = TypeAdapter(Action)


def parse_action(data: dict[str, Any]) -> Roll | Place:
    """Build an action from its dict form (``{"kind": "place", "cell": 12}``); ``ValueError`` when invalid."""
    return _ACTION_ADAPTER.validate_python(data)


class State(core.GameState):
    """A Knister game: one grid per player, the round, its roller and its roll."""

    grids: dict[str, Grid]
    round: int = 1
    roller: str
    dice: list[int] | None = None
    """The two dice of this round once rolled; the number to place is their sum."""
    placed: list[str] = Field(default_factory=list)
    left: list[str] = Field(default_factory=list)
    over: bool = False

    @property
    def number(self) -> int | None:
        """The number every player places this round, once rolled."""
        return None if self.dice is None else sum(self.dice)

    @property
    def active(self) -> list[str]:
        """Players still in the game, in join order."""
        return [p for p in self.players if p not in self.left]


def rolling_order(state: State) -> list[str]:
    """The players still in the game in the order they roll, from this round's roller: the join order turned to
    start there, as the game's order of play was announced (``game.order``) in its first round. A roller who left
    after rolling stays this round's roller; the order then starts at the next in line, who rolls next."""
    active = state.active
    if not active:
        return []
    first = state.roller if state.roller in active else _next_active(state, state.roller)
    start = active.index(first) if first in active else 0
    return active[start:] + active[:start]


def _next_active(state: State, after: str) -> str | None:
    """The next player after ``after`` in join order who has not left (``after`` itself last)."""
    return core.next_player(state.players, after, lambda p: p not in state.left)


def new_game(players: Sequence[str], rng: random.Random) -> State:
    """Start a game; the first roller is drawn at random, later rollers follow the join order."""
    order = list(players)
    if not order:
        raise ValueError("Knister needs at least one player")
    if len(set(order)) != len(order):
        raise ValueError("player ids must be unique")
    first = order[rng.randrange(len(order))]
    start = order.index(first)
    state = State(
        players=order,
        grids={p: [[None] * SIZE for _ in range(SIZE)] for p in order},
        roller=first,
    )
    state.events = [
        Event(key="game.order", params={"order": order[start:] + order[:start]}),
        Event(key="knister.round", params={"round": 1, "roller": first}),
    ]
    return state


def _check_member(state: State, player: str) -> None:
    if state.over:
        raise GameOver()
    if player not in state.players or player in state.left:
        raise NotAPlayer(player=player)


def apply(state: State, player: str, action: Roll | Place, rng: random.Random) -> State:
    """Return the state after ``player`` does ``action``; raises a ``GameError`` and leaves ``state`` as is."""
    _check_member(state, player)
    if isinstance(action, Roll):
        if player != state.roller:
            raise NotYourTurn(player=state.roller, reason="roller")
        if state.dice is not None:
            raise IllegalAction("the dice of this round are already rolled")
        nxt = state.successor()
        nxt.dice = core.roll(rng, 2)
        nxt.events.append(
            Event(key="knister.rolled", params={"player": player, "dice": nxt.dice, "sum": sum(nxt.dice)})
        )
        return nxt
    if isinstance(action, Place):
        if state.dice is None:
            raise MustRollFirst(player=state.roller)
        if player in state.placed:
            raise AlreadyPlaced()
        row, column = divmod(action.cell, SIZE)
        if state.grids[player][row][column] is not None:
            raise CellFilled(cell=action.cell)
        nxt = state.successor()
        nxt.grids[player][row][column] = nxt.number
        nxt.placed.append(player)
        nxt.events.append(Event(key="knister.placed", params={"player": player}))
        _advance_if_done(nxt)
        return nxt
    raise IllegalAction(f"unknown action {action!r}")


def _advance_if_done(nxt: State) -> None:
    """Start the next round (or end the game) once every active player has placed."""
    if any(p not in nxt.placed for p in nxt.active):
        return
    if nxt.round == ROUNDS:
        _finish(nxt)
        return
    roller = _next_active(nxt, nxt.roller)
    assert roller is not None  # somebody placed, so somebody is active
    nxt.round += 1
    nxt.roller = roller
    nxt.dice = None
    nxt.placed = []
    nxt.events.append(Event(key="knister.round", params={"round": nxt.round, "roller": roller}))


def _finish(nxt: State) -> None:
    nxt.over = True
    winners = [r.player for r in results(nxt) if r.won]
    nxt.events.append(Event(key="game.over", params={"winners": winners}))


def legal_actions(state: State, player: str) -> list[Roll | Place]:
    """Every action :func:`apply` accepts from ``player`` now."""
    if player not in to_act(state):
        return []
    if state.dice is None:
        return [_ROLL]
    grid = state.grids[player]
    return [_PLACES[i] for i in range(CELLS) if grid[i // SIZE][i % SIZE] is None]


def to_act(state: State) -> list[str]:
    """The roller before the roll; afterwards every active player who has not placed yet (join order)."""
    if state.over:
        return []
    if state.dice is None:
        return [state.roller]
    return [p for p in state.active if p not in state.placed]


def leave(state: State, player: str) -> State:
    """``player`` leaves: their grid stays as it is and is scored at the end; rounds no longer wait for them."""
    _check_member(state, player)
    nxt = state.successor()
    nxt.left.append(player)
    nxt.events.append(Event(key="game.left", params={"player": player}))
    if not nxt.active:
        _finish(nxt)
        return nxt
    if nxt.dice is None and nxt.roller == player:
        roller = _next_active(nxt, player)
        assert roller is not None
        nxt.roller = roller
        nxt.events.append(Event(key="knister.round", params={"round": nxt.round, "roller": roller}))
    elif nxt.dice is not None:
        _advance_if_done(nxt)
    return nxt


def best_cell(grid: Sequence[Sequence[int | None]], number: int) -> int:
    """The empty cell where ``number`` adds most to the grid's score so far (first such cell on a tie).

    What a cell adds is the change of the lines through it (a diagonal's doubled), the only lines it changes:
    the same number as scoring the whole grid before and after, without scoring the other lines 24 times.
    """
    rows = _check_grid(grid, allow_empty=True)
    if all(cell is not None for line in rows for cell in line):
        raise ValueError("the grid has no empty cell")
    _check_line([number] * SIZE, allow_empty=False)
    best, best_gain = -1, -1
    for cell in range(CELLS):
        row, column = divmod(cell, SIZE)
        if rows[row][column] is not None:
            continue
        gain = 0
        for line, weight in _cell_lines(rows, row, column):
            present = [n for n in line if n is not None]
            gain += weight * (_pattern([*present, number]) - _pattern(present))
        if gain > best_gain:
            best, best_gain = cell, gain
    return best


def _cell_lines(rows: Grid, row: int, column: int) -> list[tuple[list[int | None], int]]:
    """The lines through a cell, each with its weight in the total (a diagonal counts twice)."""
    lines = [(rows[row], 1), ([rows[r][column] for r in range(SIZE)], 1)]
    if row == column:
        lines.append(([rows[i][i] for i in range(SIZE)], 2))
    if row + column == SIZE - 1:
        lines.append(([rows[i][SIZE - 1 - i] for i in range(SIZE)], 2))
    return lines


def timeout_action(state: State, player: str) -> Roll | Place:
    """Roll for a roller who has not rolled; otherwise place where the number adds most (see :func:`best_cell`)."""
    if player not in to_act(state):
        raise IllegalAction(f"{player} has nothing to do now")
    if state.dice is None:
        return Roll()
    assert state.number is not None
    return Place(cell=best_cell(state.grids[player], state.number))


def is_over(state: State) -> bool:
    """Whether the game has ended (25 rounds played, or everybody left)."""
    return state.over


def results(state: State) -> list[PlayerResult]:
    """Scores in join order with shared ranks, leavers last; an incomplete grid scores 0 on every unfinished line."""
    return core.ranked_results({p: line_scores(state.grids[p]).total for p in state.players}, left=state.left)
