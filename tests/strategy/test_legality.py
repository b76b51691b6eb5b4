"""Property tests: at every level, in positions reached by random play, the strategy only picks legal actions,
and :func:`bot.strategy.evaluate` values exactly the legal actions, best first."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import strategy
from bot.engine import dicepoker, kniffel, knister, tutto

FAST = settings(max_examples=25, deadline=None)


def _random_position(engine: ModuleType, seed: int, steps: int, **options: Any) -> Any:
    """A game after ``steps`` random legal actions (or at its end), with two players."""
    rng = random.Random(seed)
    state = engine.new_game(["a", "b"], rng, **options)
    for _ in range(steps):
        if engine.is_over(state):
            break
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, rng.choice(engine.legal_actions(state, player)), rng)
    return state


def _check(engine: ModuleType, state: Any, table_dir: Path, seed: int) -> None:
    for player in ["a", "b"]:
        legal = engine.legal_actions(state, player)
        values = strategy.evaluate(state, player, directory=table_dir)
        assert sorted(map(repr, (v.action for v in values))) == sorted(map(repr, legal))
        assert [v.value for v in values] == sorted((v.value for v in values), reverse=True)
        for level in strategy.LEVELS:
            if legal:
                assert strategy.choose(state, player, level, random.Random(seed), directory=table_dir) in legal
            else:
                with pytest.raises(ValueError, match="nothing to do"):
                    strategy.choose(state, player, level, random.Random(seed), directory=table_dir)


@FAST
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 120), ruleset=st.sampled_from(kniffel.RULESETS))
def test_kniffel(table_dir: Path, seed: int, steps: int, ruleset: str) -> None:
    _check(kniffel, _random_position(kniffel, seed, steps, ruleset=ruleset), table_dir, seed)


@FAST
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 140))
def test_dicepoker(table_dir: Path, seed: int, steps: int) -> None:
    _check(dicepoker, _random_position(dicepoker, seed, steps), table_dir, seed)


@FAST
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 80))
def test_tutto(table_dir: Path, seed: int, steps: int) -> None:
    _check(tutto, _random_position(tutto, seed, steps, target=3000), table_dir, seed)


@FAST
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 70))
def test_knister(table_dir: Path, seed: int, steps: int) -> None:
    _check(knister, _random_position(knister, seed, steps), table_dir, seed)


def test_unknown_level_and_game_are_refused(table_dir: Path) -> None:
    state = kniffel.new_game(["a"], random.Random(0))
    with pytest.raises(ValueError, match="unknown level"):
        strategy.choose(state, "a", "godlike", random.Random(0), directory=table_dir)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no strategy"):
        strategy.evaluate(object(), "a", directory=table_dir)
