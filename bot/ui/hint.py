"""The Hint answer: the best few actions of the player to act, with their values, and what the current one is worth.

Pure: it gets the engine state, the player and the strategy's values (best first) and writes lines. Five-dice
holds are shown as dice ("keep ⚄ ⚄ ⚄ and roll"), Tutto's plans as the dice taken and what follows ("take ⚀ ⚀
and roll on"), Knister cells as row and column and lettered on a map of the player's grid, boxes and rows by
their names in the catalogue with the points the dice score there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.engine import dicepoker, kniffel, knister
from bot.i18n import number, t
from bot.ui.common import EMPTY, faces, unbroken

#: How many of the best actions a hint lists, in every game: three, as the README promises (Tutto listed four, a
#: fourth plan of the same kind that read as a broken promise; QA). What is set up now, when not among them, has a
#: labelled line of its own below ("If you roll now", "With the dice selected now").
TOP = 3
#: The actions that are a player's only move before their dice fall: a turn's first roll, Tutto's draw.
BEFORE_THE_DICE = frozenset({"roll", "draw"})
#: The catalogue of a game's button labels, where it is not named after the game.
BUTTON_CATALOGUE = {"kniffel": "dice", "dicepoker": "dice"}
#: Marks of the listed Knister cells, in the list and on the map of the player's grid below it: the grid's
#: buttons carry no row or column numbers to count against, a mark on a copy of the grid is found at a glance.
CELL_MARKS = "ABC"


def _kept(dice: Sequence[int], held: Sequence[bool]) -> list[int]:
    return sorted(die for die, hold in zip(dice, held, strict=True) if hold)


def _keep(kept: Sequence[int], locale: str) -> str:
    return t("hint.keep", locale, dice=unbroken(faces(kept))) if kept else t("hint.keep_none", locale)


def describe(kind: str, state: Any, action: Any, locale: str, board: str | None = None) -> str:
    """One action in words, for the game ``kind``; besides engine actions, a five-dice keep (``kind == "keep"``
    with its ``dice``: keep these and roll the rest) and a Tutto plan (``kind == "plan"``: take these dice, then
    roll on or stop).

    A Tutto action is named by its button, as the button reads on the game's board: in ``board``'s language (the
    game's, None when it is the reader's ``locale``), the words around it in the reader's.
    """
    board = board or locale
    name = action.kind
    if name == "plan":
        return _plan(state, action, locale, board)
    if kind in ("kniffel", "dicepoker"):
        if name == "keep":
            return _keep(action.dice, locale)
        if name == "roll":
            return _keep(_kept(state.dice, state.held), locale) if state.rolls else t("hint.roll", locale)
        if name == "toggle_hold":
            held = list(state.held)
            held[action.index] = not held[action.index]
            return _keep(_kept(state.dice, held), locale)
        if name == "score":
            return _score(kind, state, action, locale)
        return t("hint.pass", locale)
    if kind == "knister":
        if name == "place":
            return t("hint.place", locale, row=action.cell // 5 + 1, column=action.cell % 5 + 1)
        return t("hint.roll", locale)
    return t(f"tutto.{name}", board)


def _plan(state: Any, plan: Any, locale: str, board: str) -> str:
    """A Tutto plan as the buttons that play it: rolling on with every die in hand is no roll but the Tutto
    ("Tutto!"; under Plus/Minus it ends the turn), followed by Continue where that is what its value counts; a
    Tutto whose value is banking reads as Stop, which banks the same at once."""
    dice = unbroken(faces(plan.dice))
    if plan.finish == "stop" or plan.then == "stop":
        return t("hint.plan_stop", locale, dice=dice)
    if plan.then == "continue":
        return t(
            "hint.plan_tutto_continue",
            locale,
            dice=dice,
            tutto=t("tutto.set_aside_tutto", board),
            button=t("tutto.continue", board),
        )
    if len(plan.dice) == state.in_hand:
        return t("hint.plan_tutto", locale, dice=dice, tutto=t("tutto.set_aside_tutto", board))
    return t("hint.plan_roll_on", locale, dice=dice)


def _score(kind: str, state: Any, action: Any, locale: str) -> str:
    """Writing the dice into a box, with the points they score there (and a Kniffel's extra bonus): a forced zero
    read as if the box had been filled for real (QA). The engine counts them (dice poker's first-roll doubling,
    Kniffel's joker), never a copy of its rules here; a doubled row says so, as the board's options and news do
    (QA: a review's "score Pair (24 points)" for ⚅ ⚅ did not say why a pair of sixes made 24)."""
    if kind == "kniffel":
        box = t(f"kniffel.box.{action.box}", locale)
        points = kniffel.box_points(state, action.box)
        bonus = kniffel.extra_bonus(state.dice, state.cards[state.current_player], state.ruleset)
    else:
        box = t(f"dicepoker.row.{action.row}", locale)
        points, bonus = dicepoker.row_points(state, action.row), 0
    worth = t("hint.box_points", locale, count=points)
    if kind == "dicepoker" and dicepoker.doubles(action.row, state.first_roll):
        return t("hint.score_doubled", locale, box=box, points=worth)
    if bonus:
        return t("hint.score_bonus", locale, box=box, points=worth, bonus=bonus)
    return t("hint.score", locale, box=box, points=worth)


def _cell_map(grid: knister.Grid, marks: dict[int, str]) -> str:
    """The player's grid as a code block, the listed cells marked, laid out as the final grids are."""
    lines = []
    for row_index, row in enumerate(grid):
        cells = []
        for column, placed in enumerate(row):
            cell = row_index * knister.SIZE + column
            text = str(placed) if placed is not None else marks.get(cell, EMPTY)
            cells.append(f"{text:>2}")
        lines.append(" ".join(cells))
    return "```\n" + "\n".join(lines) + "\n```"


def render(
    kind: str,
    state: Any,
    values: Sequence[Any],
    current: Any | None,
    locale: str,
    *,
    player: str,
    board: str | None = None,
) -> str:
    """The private hint for ``player``: the best few actions (``values``, best first) and what rolling now is worth.

    ``current`` is the roll with the dice held as they are (five dice) or rolling on with the dice selected now
    (Tutto), with its value; None when there is no such action (Knister, a finished roll, nothing selected). It
    answers "what if I press Roll now?", so it gets a line only when it is not among the best already listed:
    said twice, the same action and value read as two different moves. Tutto's values are whole points (its
    amounts come in fifties; the title names the unit once), the others' expected final scores have a decimal.

    When there is one move only (a turn's first roll, Tutto's draw, the last empty box or cell, a forced pass) a
    list of one under "Best move" ("roll → 254.6") read as advice where there is no choice: the hint then says
    what the position is worth with best play, and names the move (a roll or draw as its button reads).
    Buttons are named in ``board``'s language (the game's; None: the reader's ``locale``), as they read there.
    """
    board = board or locale
    tutto = kind == "tutto"
    scope = "tutto" if tutto else "final"

    def value_of(entry: Any) -> str:
        return number(entry.value, locale, decimals=0 if tutto else 1, exact=True)

    moves = list(dict.fromkeys(describe(kind, state, entry.action, locale, board) for entry in values))
    if len(moves) == 1 and (current is None or describe(kind, state, current.action, locale, board) in moves):
        only = values[0].action.kind
        # A roll or draw named as its button reads ("Roll", "Draw & roll"), so the player finds it at a glance.
        action = t(f"{BUTTON_CATALOGUE.get(kind, kind)}.{only}", board) if only in BEFORE_THE_DICE else moves[0]
        return "\n".join(
            [t(f"hint.only_{scope}", locale, value=value_of(values[0])), t("hint.only_move", locale, action=action)]
        )
    lines: list[str] = []
    seen: set[str] = set()
    marks: dict[int, str] = {}
    for entry in values:
        text = describe(kind, state, entry.action, locale, board)
        if text in seen:  # two toggles can lead to the same holds
            continue
        seen.add(text)
        value = value_of(entry) if tutto else t("hint.points_final", locale, value=value_of(entry))
        if entry.action.kind == "place":
            marks[entry.action.cell] = CELL_MARKS[len(marks)]
            lines.append(f"`{marks[entry.action.cell]}` **{text}** →\N{NO-BREAK SPACE}{unbroken(value)}")
        else:
            # The arrow and the value wrap as one (QA: a phone left "→" at a line's end, or "expected" alone).
            lines.append(f"**{text}** →\N{NO-BREAK SPACE}{unbroken(value)}")
        if len(seen) == TOP:
            break
    lines.insert(0, t(f"hint.title_{scope}", locale, count=len(seen)))
    if marks:
        lines.append(_cell_map(state.grids[player], marks))
    if current is not None:
        action = describe(kind, state, current.action, locale, board)
        if action not in seen:
            lines.append(t(f"hint.current{'_tutto' if tutto else ''}", locale, action=action, value=value_of(current)))
    return "\n".join(lines)
