"""The engine protocol: every registered engine honours the contract the shared runner relies on, and mypy
holds each engine module to ``Engine[State, Action]`` (and refuses a module that does not fit)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import registry
from bot.engine.protocol import Engine

ROOT = Path(__file__).resolve().parents[2]
MAX_STEPS = 20_000
"""Far above the longest game the timeout player makes; reaching it means the runner loop would not end."""

ENGINES = [
    pytest.param(registry.KNIFFEL, {"ruleset": "kniffel"}, id="kniffel"),
    pytest.param(registry.KNIFFEL, {"ruleset": "classic"}, id="kniffel-classic"),
    pytest.param(registry.DICEPOKER, {}, id="dicepoker"),
    pytest.param(registry.KNISTER, {}, id="knister"),
    pytest.param(registry.TUTTO, {"target": 1500}, id="tutto"),
]


def step(engine: Engine[Any, Any], state: Any, rng: random.Random) -> Any:
    """One move of the deadline runner: the first player to act plays what ``timeout_action`` picks.

    Checks on the way what the runner and the UI take for granted: the timeout's choice is a legal action,
    nobody outside ``to_act`` has one, actions survive their JSON form and states their dump.
    """
    acting = engine.to_act(state)
    assert acting, "a running game always waits for somebody"
    for player in state.players:
        if player not in acting:
            assert engine.legal_actions(state, player) == []
    player = acting[0]
    action = engine.timeout_action(state, player)
    assert action in engine.legal_actions(state, player)
    assert engine.parse_action(action.model_dump()) == action
    nxt = engine.apply(state, player, action, rng)
    assert nxt.move == state.move + 1
    assert engine.State.load(nxt.dump()) == nxt
    return nxt


def assert_finished(engine: Engine[Any, Any], state: Any, players: list[str], everyone_left: bool = False) -> None:
    """A finished game waits for nobody and has one result line per seat, rank 1 exactly for the winners.

    Someone wins, unless every player left (a leaver can no longer win: docs/RULES.md, project decisions).
    """
    assert engine.is_over(state)
    assert engine.to_act(state) == []
    assert all(engine.legal_actions(state, player) == [] for player in players)
    results = engine.results(state)
    assert sorted(result.player for result in results) == sorted(players)
    assert all(result.won == (result.rank == 1) for result in results) or everyone_left
    assert any(result.won for result in results) != everyone_left


@pytest.mark.parametrize(("engine", "options"), ENGINES)
@settings(max_examples=8, deadline=None)
@given(n_players=st.integers(min_value=1, max_value=4), seed=st.integers(min_value=0, max_value=2**32))
def test_the_timeout_runner_finishes_every_game(
    engine: Engine[Any, Any], options: dict[str, Any], n_players: int, seed: int
) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n_players)]
    state = engine.new_game(players, rng, **options)
    assert sorted(state.players) == sorted(players)
    assert engine.State.load(state.dump()) == state
    steps = 0
    while not engine.is_over(state):
        state = step(engine, state, rng)
        steps += 1
        assert steps < MAX_STEPS
    assert_finished(engine, state, players)


def containers(value: Any) -> list[Any]:
    """Every list and dict inside a field's value, itself included."""
    if isinstance(value, dict):
        return [value, *(inner for item in value.values() for inner in containers(item))]
    if isinstance(value, list):
        return [value, *(inner for item in value for inner in containers(item))]
    return []


def ids(state: Any) -> set[int]:
    """The identities of every list and dict in a state's fields."""
    return {id(container) for name in type(state).model_fields for container in containers(getattr(state, name))}


def types(value: Any) -> Any:
    """The value's shape with every leaf replaced by its type (a bool stays a bool, a tuple a tuple)."""
    if isinstance(value, dict):
        return {key: types(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(types(item) for item in value)
    return type(value)


@pytest.mark.parametrize(("engine", "options"), ENGINES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_a_successor_is_the_validated_copy_sharing_nothing(
    engine: Engine[Any, Any], options: dict[str, Any], seed: int
) -> None:
    """``successor`` skips validating its copy: at every step of a game it equals the validated copy, field types
    and JSON included, and no list or dict of it is one of the state it came from (transitions mutate it)."""
    rng = random.Random(seed)
    state = engine.new_game(["ann", "ben", "cleo"], rng, **options)
    while not engine.is_over(state):
        nxt = state.successor()
        validated = engine.State.model_validate(state.model_dump(exclude={"events"}))
        assert nxt.move == state.move + 1 and nxt.events == []
        assert nxt.model_dump(exclude={"move"}) == validated.model_dump(exclude={"move"})
        # Stored and sent as JSON: the same bytes as the validated copy's, the fields in the same order.
        assert nxt.dump() == validated.model_copy(update={"move": nxt.move}).dump()
        assert nxt.model_fields_set == set(type(state).model_fields)
        assert nxt.__pydantic_extra__ is None and nxt.__pydantic_private__ is None
        assert not type(state).__private_attributes__
        for name in type(state).model_fields:
            assert types(getattr(nxt, name)) == types(getattr(validated, name)), name
        assert not ids(state) & ids(nxt)
        state = step(engine, state, rng)


@pytest.mark.parametrize(("engine", "options"), ENGINES)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), moves=st.integers(min_value=0, max_value=40))
def test_players_leaving_one_by_one_end_the_game(
    engine: Engine[Any, Any], options: dict[str, Any], seed: int, moves: int
) -> None:
    rng = random.Random(seed)
    players = ["ann", "ben", "cleo"]
    state = engine.new_game(players, rng, **options)
    for _ in range(moves):
        if engine.is_over(state):
            break
        state = step(engine, state, rng)
    left = []
    for player in players:
        if engine.is_over(state):
            break
        state = engine.leave(state, player)
        left.append(player)
        assert player not in engine.to_act(state)
        assert engine.legal_actions(state, player) == []
    assert_finished(engine, state, players, everyone_left=left == players)


FAULTY_ENGINE = '''
"""Kniffel's engine, except that its new_game takes no random source and it has no leave."""
import random

from bot.engine import kniffel

State = kniffel.State
apply = kniffel.apply
legal_actions = kniffel.legal_actions
to_act = kniffel.to_act
timeout_action = kniffel.timeout_action
is_over = kniffel.is_over
results = kniffel.results
parse_action = kniffel.parse_action


def new_game(players: list[str]) -> kniffel.State:
    return kniffel.new_game(players, random.Random(0))
'''

BINDING = """
import faulty_engine
from bot.engine import kniffel
from bot.engine.protocol import Engine

FAULTY: Engine[kniffel.State, kniffel.Action] = faulty_engine
"""


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file holds it already (atomically: another run may be reading it)."""
    if not path.exists() or path.read_text() != text:
        path.with_suffix(".tmp").write_text(text)
        path.with_suffix(".tmp").replace(path)


def test_mypy_accepts_every_engine_module_and_refuses_one_that_breaks_the_protocol(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """One mypy run (the project's configuration, strict for ``bot.engine``) over the registry and a faulty
    engine bound the same way: only the faulty binding is reported, with what is wrong in it.

    mypy keeps its incremental cache in pytest's (``.pytest_cache``, as the strategy tables): a later run
    re-checks only what changed, by the files' hashes (0.3 s of CPU instead of 2.5 s, most of it typeshed and
    pydantic). The two modules stay in one folder beside it, because mypy's cached report names the path a
    module was checked at. Without the cache plugin: a temporary folder and no cache.
    """
    cache: pytest.Cache | None = getattr(request.config, "cache", None)
    folder = cache.mkdir("mypy-engine-protocol") if cache is not None else tmp_path
    cache_dir = folder / "cache" if cache is not None else Path("/dev/null")
    _write(folder / "faulty_engine.py", FAULTY_ENGINE)
    _write(folder / "binding.py", BINDING)
    checked = subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--follow-imports=silent", f"--cache-dir={cache_dir}"),
            *("bot/engine/protocol.py", "bot/engine/registry.py"),
            *(str(folder / "binding.py"), str(folder / "faulty_engine.py")),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    report = checked.stdout + checked.stderr
    assert checked.returncode == 1, report
    errors = [line for line in checked.stdout.splitlines() if ": error: " in line]
    assert len(errors) == 1, report
    where, _, error = errors[0].partition(":6: error: ")  # mypy names a file under ROOT relative to it
    assert (ROOT / where).resolve() == (folder / "binding.py").resolve(), report
    assert error.startswith("Incompatible types in assignment"), report
    assert 'is missing following "Engine" protocol member:\n' in checked.stdout
    assert "note:     leave\n" in checked.stdout
    assert 'new_game: expected "NewGame[State]"' in checked.stdout
