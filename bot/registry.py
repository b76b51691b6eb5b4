"""The games the bot offers, listed once: the extension list, the service's specs, /help and the leaderboard's
game choices all derive from :data:`GAMES`.

Adding a game is one line here (its cog module, which defines ``SPEC``); see docs/architecture.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from bot.play.spec import AnySpec, GameSpec

#: The cog module of every game, in the order /help and the leaderboard list them.
GAMES: tuple[str, ...] = (
    "cogs.kniffel",
    "cogs.dicepoker",
    "cogs.knister",
    "cogs.tutto",
)


def extensions(games: Sequence[str] = GAMES) -> tuple[str, ...]:
    """Every extension the bot loads: help first, the games, the leaderboard that ranks them, server settings."""
    return ("cogs.help", *games, "cogs.leaderboard", "cogs.settings")


def load_specs(games: Sequence[str] = GAMES) -> dict[str, AnySpec]:
    """The spec of every game, by kind, in registry order."""
    specs: dict[str, AnySpec] = {}
    for module in games:
        spec = importlib.import_module(module).SPEC
        if not isinstance(spec, GameSpec):
            raise TypeError(f"{module}.SPEC is not a AnySpec")
        specs[spec.kind] = spec
    return specs
