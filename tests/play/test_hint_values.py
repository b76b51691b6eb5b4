"""``computer.hint_values``: what the Hint button lists, asked from the strategy (keeps for the five-dice games)."""

from __future__ import annotations

import random
from pathlib import Path

from bot import strategy
from bot.engine import kniffel, tutto
from bot.engine.fivedice import Roll
from bot.play import computer
from bot.ui import hint
from tests.scripted import act, scripted_dice, tutto_table


def rolled(*held: bool) -> kniffel.State:
    state = kniffel.new_game(["p"], scripted_dice(), ruleset="kniffel")
    state = kniffel.apply(state, "p", Roll(), scripted_dice(6, 6, 2, 6, 1))
    return state.model_copy(update={"held": list(held)})


def test_a_five_dice_hint_lists_keeps_and_boxes_and_values_the_holds_set_up(shared_tables: Path) -> None:
    state = rolled(True, False, False, False, False)

    values, current = computer.hint_values(state, "p", shared_tables)

    keeps = strategy.keep_values(state, "p", directory=shared_tables)
    boxes = [entry for entry in strategy.evaluate(state, "p", directory=shared_tables) if entry.action.kind == "score"]
    assert sorted(values, key=repr) == sorted([*keeps, *boxes], key=repr)  # no toggles, no roll
    assert [entry.value for entry in values] == sorted((entry.value for entry in values), reverse=True)
    assert values[0].action == strategy.Keep((6, 6, 6))
    assert current is not None and current.action == Roll()
    assert current.value == next(entry.value for entry in keeps if entry.action == strategy.Keep((6,)))


def test_with_every_die_held_there_is_no_roll_and_the_toggles_are_shown(shared_tables: Path) -> None:
    state = rolled(*[True] * 5)

    values, current = computer.hint_values(state, "p", shared_tables)

    assert current is None
    assert values == strategy.evaluate(state, "p", directory=shared_tables)


def test_tutto_is_shown_as_the_strategy_values_it(shared_tables: Path) -> None:
    state = tutto.new_game(["a", "b"], random.Random(1))
    player = tutto.to_act(state)[0]
    state = tutto.apply(state, player, tutto.Draw(), random.Random(2))

    values, current = computer.hint_values(state, player, shared_tables)

    assert values == strategy.evaluate(state, player, directory=shared_tables)
    assert current is not None and current.action == tutto.Roll()  # what is set up now: rolling the dice


def test_a_tutto_hint_lists_whole_moves_that_can_score_best_first(shared_tables: Path) -> None:
    """The playground's roll ⚁ ⚁ ⚂ ⚀ ⚀ ⚁ under Bonus 600: each line was one die toggle ("take ⚂ → 0.0")."""
    state = tutto_table(["bonus_600"], {"bob": 0, "alice": 0}, target=1000)
    state = act(act(state, tutto.Draw()), tutto.Roll(), 2, 2, 3, 1, 1, 2)

    values, current = computer.hint_values(state, "bob", shared_tables)
    text = hint.render("tutto", state, values, current, "en-US", player="a")
    lines = text.replace("\N{NO-BREAK SPACE}", " ").splitlines()  # as read

    assert lines[0] == "💡 Best moves (expected points this turn):"
    assert len(lines) == 4 and current is None  # nothing selected yet: no "with the dice selected now"
    assert lines[1] == "**take ⚀ ⚀ ⚁ ⚁ ⚁ and stop** → 400"
    assert all(line.endswith(("and stop", "and roll on")) for line in (line.split("**")[1] for line in lines[1:]))
    assert not any("⚂" in line or "expected" in line for line in lines[1:])
    shown = [float(line.rsplit("→ ", 1)[1].replace(",", "")) for line in lines[1:]]
    assert shown == sorted(shown, reverse=True)
