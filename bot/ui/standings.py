"""A place in a game's final standings: the medal or rank, and the name marked when the player did not stay.

A player who left or was removed ranks after everyone who stayed and can no longer win (docs/RULES.md, section 6),
so their line takes no medal, only their rank, and says why they are down there.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from bot.i18n import t
from bot.ui.render import Table

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
#: The mark of a game played alone: it is never a win (docs/RULES.md, section 6), so no gold medal either.
FINISHED_ALONE = "🏁"


class Standing(NamedTuple):
    medal: str
    name: str


def standing(table: Table[Any], player: str, rank: int, limit: int | None = None) -> Standing:
    """``player``'s medal (their rank when they have none) and name (cut to ``limit``) on the final standings.

    Who left is the engine's word (``state.left``, which its ranks follow); the seat tells a removal from a leave.
    """
    name = table.name(player, limit)
    if len(table.state.players) == 1:
        return Standing(FINISHED_ALONE, name)
    if player not in table.state.left:
        return Standing(MEDALS.get(rank, f"{rank}."), name)
    seat = table.seat(player)
    if seat is not None and seat.status == "removed":
        return Standing(f"{rank}.", t("play.standing_removed", table.locale, name=name))
    return Standing(f"{rank}.", t("play.standing_left", table.locale, name=name))
