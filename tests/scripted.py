"""Helpers shared by the engine, UI and end-to-end tests: scripted dice, Tutto turns and random play.

- :class:`ScriptedRandom` is the one random source whose die rolls a test dictates: strict for unit tests
  (:func:`scripted_dice`), with a seeded fallback for end-to-end games (the harness's ``rng``).
- :func:`tutto_table`, :func:`act` and :func:`take` build and play Tutto states move by move.
- :func:`assert_apply_accepts_only_legal`, :func:`play_randomly` and :func:`chase_most_common_face` drive
  the property tests and pinned seeded games of the engines.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from bot.engine import tutto
from bot.engine.core import GameError
from bot.engine.fivedice import ROLLS, FiveDiceState, Roll, ToggleHold

# --------------------------------------------------------------------------------------------------
# Scripted dice


class ScriptedRandom(random.Random):
    """A seeded random source whose die rolls (``randint``) show the faces a test scripts, in order.

    Once the script is used up, a ``strict`` source fails the test (a unit test decides every roll), any other
    rolls from the seed (an end-to-end game scripts only the rolls that matter). Shuffles and choices always
    come from the seed.
    """

    def __init__(self, *faces: int, seed: int = 1, strict: bool = False) -> None:
        super().__init__(seed)
        self.strict = strict
        self.queue: list[int] = list(faces)

    def script(self, *faces: int) -> None:
        """Let the next rolls show ``faces``, after any faces still scripted."""
        self.queue.extend(faces)

    def randint(self, a: int, b: int) -> int:
        if self.queue:
            face = self.queue.pop(0)
            assert a <= face <= b, f"scripted {face} outside {a}..{b}"
            return face
        assert not self.strict, f"a roll of {a}..{b} after every scripted face was used"
        return super().randint(a, b)


def scripted_dice(*faces: int) -> ScriptedRandom:
    """A strict random source for unit tests: the dice show exactly ``faces``; shuffles come from seed 0."""
    return ScriptedRandom(*faces, seed=0, strict=True)


# --------------------------------------------------------------------------------------------------
# Tutto, move by move


def tutto_table(
    deck: Sequence[str],
    scores: Mapping[str, int] | None = None,
    *,
    target: int = tutto.DEFAULT_TARGET,
) -> tutto.State:
    """A Tutto game whose next cards are ``deck``; the players are the keys of ``scores`` (alice and bob at 0
    when not given), in seat order with those scores, and the first of them draws next."""
    scores = scores or {"alice": 0, "bob": 0}
    players = list(scores)
    return tutto.State(
        players=players,
        scores=dict(scores),
        tuttos=dict.fromkeys(players, 0),
        current=players[0],
        deck=list(deck),
        target=target,
    )


def act(state: tutto.State, action: tutto.AnyAction, *faces: int) -> tutto.State:
    """The current Tutto player does ``action``; the dice it rolls show ``faces``, and any further roll fails."""
    return tutto.apply(state, state.current, action, scripted_dice(*faces))


def take(state: tutto.State, *faces: int) -> tutto.State:
    """Toggle dice of the current Tutto roll showing ``faces`` into the selection, each die once."""
    for face in faces:
        index = next(i for i, f in enumerate(state.roll) if f == face and i not in state.selected)
        state = act(state, tutto.ToggleSelect(index=index))
    return state


# --------------------------------------------------------------------------------------------------
# Random play and fixed strategies


def assert_apply_accepts_only_legal(engine: ModuleType, state: Any, player: str, action: Any) -> None:
    """``engine.apply`` accepts ``action`` from ``player`` exactly when it is legal, and never changes ``state``."""
    before = state.dump()
    try:
        engine.apply(state, player, action, random.Random(0))
    except GameError:
        assert action not in engine.legal_actions(state, player)
    else:
        assert action in engine.legal_actions(state, player)
    assert state.dump() == before


def play_randomly(
    engine: ModuleType,
    players: list[str],
    seed: int,
    every_action: Sequence[Any],
    *,
    probe: bool = False,
    **options: str,
) -> Any:
    """Play a whole five-dice game (Kniffel, dice poker) choosing uniformly among the legal actions, and return
    its final state; ``options`` go to ``engine.new_game``. With ``probe``, check every reached state.

    The probe asserts the dump/load identity, that ``apply`` accepts exactly the legal actions (trying each of
    ``every_action`` for every player and a stranger), and that a refused action leaves the state as it was.
    """
    rng = random.Random(seed)
    chooser = random.Random(seed + 1)
    probing = random.Random(0)  # the dice of the probes' moves, which are thrown away
    state = engine.new_game(players, rng, **options)
    while not engine.is_over(state):
        if probe:
            before = state.dump()
            assert engine.State.load(before) == state
            for player in [*players, "ghost"]:
                accepted = []
                for action in every_action:
                    try:
                        engine.apply(state, player, action, probing)
                    except GameError:
                        continue
                    accepted.append(action)
                assert accepted == engine.legal_actions(state, player)
            assert state.dump() == before
        (player,) = engine.to_act(state)
        state = engine.apply(state, player, chooser.choice(engine.legal_actions(state, player)), rng)
    assert engine.State.load(state.dump()) == state
    return state


def chase_most_common_face(state: FiveDiceState) -> Roll | ToggleHold | None:
    """A five-dice player chasing a kind: between rolls, hold exactly the dice showing the most common face
    (ties: the higher), then reroll the rest. ``None`` when there is nothing to chase: before the first roll,
    after the last, or once all five dice show that face."""
    if 0 < state.rolls < ROLLS:
        tally = Counter(state.dice)
        target = max(tally, key=lambda face: (tally[face], face))
        wanted = [die == target for die in state.dice]
        for index, (held, want) in enumerate(zip(state.held, wanted, strict=True)):
            if held != want:
                return ToggleHold(index=index)
        if not all(wanted):
            return Roll()
    return None
