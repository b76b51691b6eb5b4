"""Building blocks every game engine shares: errors, events, dice helpers, ranking and the state base."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field

FACES = range(1, 7)


class GameError(Exception):
    """An action the rules do not allow.

    ``key`` is a message id the UI translates (``error.<key>`` in the catalogue); ``params`` fill its
    placeholders. The English text is only for logs and tracebacks.
    """

    key: ClassVar[str] = "illegal_action"

    def __init__(self, message: str = "", **params: Any) -> None:
        super().__init__(message or self.key.replace("_", " "))
        self.params = params


class NotYourTurn(GameError):
    key = "not_your_turn"


class NotAPlayer(GameError):
    key = "not_a_player"


class GameOver(GameError):
    key = "game_over"


class NoRollsLeft(GameError):
    key = "no_rolls_left"


class MustRollFirst(GameError):
    key = "must_roll_first"


class BoxFilled(GameError):
    key = "box_filled"


class BoxNotAllowed(GameError):
    key = "box_not_allowed"


class InvalidSelection(GameError):
    key = "invalid_selection"


class MustNotStop(GameError):
    key = "must_not_stop"


class CellFilled(GameError):
    key = "cell_filled"


class AlreadyPlaced(GameError):
    key = "already_placed"


class IllegalAction(GameError):
    """Any other action that does not fit the current phase of the game."""

    key = "illegal_action"


class Event(BaseModel):
    """Something a transition did that players should be told about, as a message id plus parameters.

    Engines record events instead of text so every announcement can be translated.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    params: dict[str, Any] = Field(default_factory=dict)


class GameState(BaseModel):
    """Fields every game state carries.

    ``move`` grows by one with every accepted action; the UI stamps it into component ids so a click on an
    older message is recognised as stale. ``events`` holds what the latest transition did.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int = 1
    move: int = 0
    players: list[str]
    events: list[Event] = Field(default_factory=list)

    def dump(self) -> str:
        """Serialize to JSON; :meth:`load` restores an equal state."""
        return self.model_dump_json()

    @classmethod
    def load(cls, data: str | bytes) -> Self:
        """Restore a state from :meth:`dump` output, refusing a schema this code does not know."""
        state = cls.model_validate_json(data)
        if state.schema_version != cls.SCHEMA_VERSION:
            raise ValueError(
                f"{cls.__name__} schema version {state.schema_version} is not supported "
                f"(this code reads version {cls.SCHEMA_VERSION})"
            )
        return state

    def successor(self) -> Self:
        """A deep copy to mutate: transitions never touch the state they were given.

        The fields are copied by pydantic's dump, which builds new lists and dicts all the way down (faster than any
        copy written in Python, ``copy.deepcopy``, ``marshal`` or ``pickle``), and become the new state's fields as
        they are: they come from a valid state, and validating the dump cost as much as the dump itself on every
        action and every simulated game (docs/benchmarks.md). The whole state is dumped, events included, so the
        fields keep their order (pydantic writes JSON in the order of the instance's fields); the copy is set up as
        pydantic's own ``__copy__`` sets one up (``model_copy`` and ``model_construct`` cost a fifth more and half
        as much again, in instructions). States have no extra fields (``extra="forbid"``) and no private ones.
        """
        fields = self.model_dump()
        fields["events"] = []
        fields["move"] = self.move + 1
        cls = type(self)
        copied = cls.__new__(cls)
        _set_attribute(copied, "__dict__", fields)
        _set_attribute(copied, "__pydantic_fields_set__", set(fields))
        _set_attribute(copied, "__pydantic_extra__", None)
        _set_attribute(copied, "__pydantic_private__", None)
        return copied


#: Sets an attribute past pydantic's own ``__setattr__``, as pydantic does to set up a copy.
_set_attribute = object.__setattr__


class PlayerResult(BaseModel):
    """One player's line in a finished game, as stored for leaderboards."""

    player: str
    score: int
    rank: int
    won: bool
    counters: dict[str, int | float] = Field(default_factory=dict)


def validate_dice(dice: Iterable[int], count: int | None = None) -> list[int]:
    """Return ``dice`` as a list, raising ``ValueError`` for a face outside 1..6 or a wrong count."""
    faces = list(dice)
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise ValueError(f"a die shows 1..6, got {face!r}")
    if count is not None and len(faces) != count:
        raise ValueError(f"expected {count} dice, got {len(faces)}")
    return faces


def counts(dice: Iterable[int]) -> Counter[int]:
    """How many dice show each face."""
    return Counter(dice)


def roll(rng: random.Random, n: int) -> list[int]:
    """Roll ``n`` six-sided dice with the injected random source."""
    return [rng.randint(1, 6) for _ in range(n)]


def competition_ranks(scores: Sequence[int | float]) -> list[int]:
    """Standard competition ranks ("1224"): equal scores share a rank, higher is better."""
    return [1 + sum(other > score for other in scores) for score in scores]


def standing_ranks(scores: Sequence[int | float], left: Sequence[bool]) -> list[int]:
    """Competition ranks in which every player who stayed ranks before every player who left.

    A player who left or was removed can no longer win (docs/RULES.md, "Project decisions"); among themselves
    the leavers rank by score as usual, after the last player who stayed.
    """
    stayed = [score for score, gone in zip(scores, left, strict=True) if not gone]
    leavers = [score for score, gone in zip(scores, left, strict=True) if gone]

    def better(score: int | float, group: list[int | float]) -> int:
        return sum(other > score for other in group)

    return [
        len(stayed) + 1 + better(score, leavers) if gone else 1 + better(score, stayed)
        for score, gone in zip(scores, left, strict=True)
    ]


def ranked_results(
    scores: Mapping[str, int],
    counters: Mapping[str, dict[str, int | float]] | None = None,
    left: Collection[str] = (),
) -> list[PlayerResult]:
    """One result line per player of ``scores``, in its order, ranked by :func:`standing_ranks`.

    ``left`` names the players who left or were removed: they rank after everyone who stayed and never win.
    Every rank 1 of a player who stayed has won. ``counters`` holds each player's leaderboard counters; a game
    without any leaves it out.
    """
    ranks = standing_ranks(list(scores.values()), [player in left for player in scores])
    return [
        PlayerResult(
            player=player,
            score=score,
            rank=rank,
            won=rank == 1 and player not in left,
            counters=counters[player] if counters else {},
        )
        for (player, score), rank in zip(scores.items(), ranks, strict=True)
    ]


def next_player(players: Sequence[str], after: str, eligible: Callable[[str], bool]) -> str | None:
    """The first player after ``after`` in seat order for whom ``eligible`` holds, ``after`` itself last.

    Turn-based games hand the turn on this way, skipping players who left (or have nothing left to play).
    """
    start = players.index(after)
    for step in range(1, len(players) + 1):
        candidate = players[(start + step) % len(players)]
        if eligible(candidate):
            return candidate
    return None


def secure_rng() -> random.Random:
    """The random source production uses: backed by the operating system, never a predictable seed."""
    return random.SystemRandom()
