"""A place in a game's final standings, and a player who did not stay on a board's scores.

A player who left or was removed ranks after everyone who stayed and can no longer win (docs/RULES.md, section 6),
so their line takes no medal, only their rank, and says why they are down there. Their card stays, so a running or
ended board keeps their score too: after everyone still playing, with a short mark of why.

A player who used the Hint button is marked 💡 wherever the end of the game names them with a score: their line in
the final standings and the game-over news; the final embed's footer says what the mark means (``final_footer``).
Not in the cards' and grids' code blocks, whose columns a name already fills to a phone's width.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import discord

from bot.engine.core import PlayerResult
from bot.i18n import t
from bot.ui.render import Table

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
#: The mark of a game played alone: it is never a win (docs/RULES.md, section 6), so no gold medal either.
FINISHED_ALONE = "🏁"
#: The mark of a player who used a hint in the game, after their name.
HINT_MARK = "💡"


class Standing(NamedTuple):
    medal: str
    name: str


def standing(table: Table[Any], player: str, rank: int, limit: int | None = None) -> Standing:
    """``player``'s medal (their rank when they have none) and name (cut to ``limit``) on the final standings.

    Who left is the engine's word (``state.left``, which its ranks follow); the seat tells a removal from a leave.
    """
    name = marked_name(table, player, limit)
    if len(table.state.players) == 1:
        return Standing(FINISHED_ALONE, name)
    if player not in table.state.left:
        return Standing(MEDALS.get(rank, f"{rank}."), name)
    seat = table.seat(player)
    if seat is not None and seat.status == "removed":
        return Standing(f"{rank}.", t("play.standing_removed", table.locale, name=name))
    return Standing(f"{rank}.", t("play.standing_left", table.locale, name=name))


def ranked(results: Iterable[PlayerResult], players: Sequence[str]) -> list[PlayerResult]:
    """``results`` in the final standings' order: by rank, ties in rolling order (``players``, as the roll-off or
    the lobby seated them). A final board lists its medal lines and its cards or grids so (QA: the cards in seat
    order put Bob's first under "🥇 Carol")."""
    return sorted(results, key=lambda result: (result.rank, players.index(result.player)))


def staying_first(table: Table[Any], players: Sequence[str]) -> list[str]:
    """``players`` in their order, those who left or were removed after everyone still playing."""
    left = table.state.left
    return [p for p in players if p not in left] + [p for p in players if p in left]


def board_mark(table: Table[Any], player: str) -> str:
    """The short mark of a player who left or was removed, for a board's scores; empty for one still playing.

    Shorter than the final standings' "(left)" in some languages: it follows a name and a total in a code block
    that must fit a phone, at most ten columns after them (``tests/ui/test_ended_boards.py``, every language).
    """
    if player not in table.state.left:
        return ""
    seat = table.seat(player)
    return t("play.mark_removed" if seat is not None and seat.status == "removed" else "play.mark_left", table.locale)


def marked_name(table: Table[Any], player: str, limit: int | None = None) -> str:
    """``player``'s name for markdown (cut to ``limit``), followed by :data:`HINT_MARK` when they used a hint."""
    name = table.name(player, limit)
    seat = table.seat(player)
    return f"{name} {HINT_MARK}" if seat is not None and seat.hinted else name


def final_footer(table: Table[Any], embed: discord.Embed) -> discord.Embed:
    """The final ``embed`` with a footer for what its board leaves unsaid: what :data:`HINT_MARK` means when someone
    on it is marked, and that a game with a computer counts in /stats but not on /leaderboard (its results are kept
    apart, docs/architecture.md; QA: three people and a computer finished, and the leaderboard said nobody was on
    it, with nothing to say why)."""
    lines = []
    if any(seat.hinted for seat in table.seats):
        lines.append(t("play.hinted_legend", table.locale))
    if any(seat.kind == "computer" for seat in table.seats):
        lines.append(t("play.computers_unranked", table.locale))
    if lines:
        embed.set_footer(text="\n".join(lines))
    return embed
