"""Rendering a Kniffel (or Tutto) board and encoding the click's type-7 answer, in CPU microseconds per board.

Run: ``.venv/bin/python -m bench.render [--game kniffel|tutto] [--rounds 9] [--games 40]``.

``bench.clickpath`` measures the whole click path, and on a shared machine its noise is larger than a change to the
rendering alone. This renders every board of seeded two-player Kniffel games (roll, hold the most common face, roll
up to twice more, score the best box: the clicks ``bench.load``'s players make) with ``KniffelUI.render`` and encodes
``discord_io.update_payload`` as the bot sends it. ``--game tutto``: every board of seeded four-player Tutto games
to 6,000 played by the engine's cautious moves (``tutto.timeout_action``: draw, roll, a die toggle per click, bank
when allowed), rendered with ``TuttoUI.render``. Each round plays new games (new seeds), so what a renderer
remembers between clicks helps only as much as it would for games it has not seen. It prints the median and range
of the rounds' CPU time per board. Only public calls are used, so it measures an older checkout too
(``PYTHONPATH=<checkout> python -m bench.render``); compare trees by running them alternately.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from discord.utils import _to_json

from bot.engine import fivedice, kniffel, tutto
from bot.play.discord_io import update_payload
from bot.ui import kniffel as kniffel_ui
from bot.ui import tutto as tutto_ui
from bot.ui.render import Rendered, SeatView, Table

PLAYERS = ("111111111111111111", "222222222222222222")
SEATS = tuple(SeatView(player, f"player {index}") for index, player in enumerate(PLAYERS))
TUTTO_PLAYERS = tuple(f"{index}" * 18 for index in range(1, 5))
TUTTO_SEATS = tuple(SeatView(player, f"player {index}") for index, player in enumerate(TUTTO_PLAYERS))


def boards(seed: int) -> list[Table[kniffel.State]]:
    """Every board one seeded game shows, a table per click."""
    rng = random.Random(seed)
    state = kniffel.new_game(list(PLAYERS), rng)
    tables = []
    while not kniffel.is_over(state):
        player = kniffel.to_act(state)[0]
        changes: list[int] = []
        action: kniffel.Action = fivedice.Roll()
        if 0 < state.rolls < fivedice.ROLLS:
            face = Counter(state.dice).most_common(1)[0][0]
            wanted = [die == face for die in state.dice]
            changes = [index for index, held in enumerate(state.held) if held != wanted[index]]
            action = fivedice.ToggleHold(index=changes[0]) if changes else action
        if state.rolls in (0, fivedice.ROLLS) or (not changes and all(state.held)):
            action = kniffel.timeout_action(state, player)
        state = kniffel.apply(state, player, action, rng)
        tables.append(Table(SEATS, 1234567890123456789, len(tables) + 1, "en-US", state))
    return tables


def tutto_boards(seed: int) -> list[Table[tutto.State]]:
    """Every board one seeded Tutto game shows, a table per click."""
    rng = random.Random(seed)
    state = tutto.new_game(list(TUTTO_PLAYERS), rng)
    tables = []
    while not tutto.is_over(state):
        state = tutto.apply(state, state.current, tutto.timeout_action(state, state.current), rng)
        tables.append(Table(TUTTO_SEATS, 1234567890123456789, len(tables) + 1, "en-US", state))
    return tables


GAMES: dict[str, tuple[Callable[[int], list[Any]], Callable[[Any], Rendered], int]] = {
    "kniffel": (boards, kniffel_ui.UI.render, 40),
    "tutto": (tutto_boards, tutto_ui.UI.render, 10),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="kniffel", help="whose boards")
    parser.add_argument("--rounds", type=int, default=9, help="rounds, each over new games")
    parser.add_argument("--games", type=int, help="games per round (Kniffel 40, Tutto 10)")
    args = parser.parse_args()
    play, render, games = GAMES[args.game]
    games = args.games or games
    per_board = []
    for round_ in range(args.rounds + 1):
        tables = [table for game in range(games) for table in play(round_ * games + game)]
        start = time.process_time()
        for table in tables:
            _to_json(update_payload(render(table), None))
        if round_:  # the first round warms up imports and the catalogues
            per_board.append((time.process_time() - start) / len(tables) * 1e6)
    print(
        f"{len(tables)} boards a round: median {statistics.median(per_board):.1f} µs of CPU per board "
        f"(min {min(per_board):.1f}, max {max(per_board):.1f}, {args.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
