"""The seats of people who asked ``/forget-me`` while they sat in a game that had not ended.

Forget-me cannot change such a game: its row and seats are the game service's, kept in its memory and written
under the game's lock (in another process, with shards). It notes the seat in ``forgotten_seats`` instead
(migration 0014), and the game's own save carries the request out when the game ends: a noted seat's result is
skipped as it is inserted (a trigger), and :func:`settle` marks the seat forgotten and replaces its name, drops the
game's stored news (its lines name the players), drops the move history when nobody is left to review it, and
drops the notes.

A forgotten seat is told by its ``forgotten`` column (migration 0017), never by its name: a person may call
themselves :data:`FORGOTTEN_NAME` too, and must not lose their games' history when the others ask to be forgotten.
"""

from __future__ import annotations

from bot.storage.backend import PerDialect, Transaction

#: What a seat of an ended game shows instead of the name of a user who asked to be forgotten (no language); shown
#: only: the seat's ``forgotten`` column says it is forgotten, since anyone may take this name.
FORGOTTEN_NAME = "—"
#: SQL: set on a seat whose person asked to be forgotten (parameter 1: :data:`FORGOTTEN_NAME`).
FORGET_SEAT = "display_name = ?1, forgotten = 1"


def nobody_reviews(game: str) -> str:
    """SQL: the ended game ``game`` (a column or a parameter) has no seated person left who may review it, once
    the forgotten seats are marked.

    The one rule for forget-me and for :func:`settle`, so the history's fate does not depend on whether the people
    asked before or after the game ended: a person who asked to be forgotten reviews nothing.
    """
    return (
        f"NOT EXISTS (SELECT 1 FROM game_seats AS reviewer WHERE reviewer.game_id = {game} "
        "AND reviewer.kind = 'user' AND reviewer.forgotten = 0)"
    )


def without_news(games: str) -> PerDialect:
    """The statement dropping the stored news (``options.news``) of the games ``games`` selects: its lines name
    the players, forgotten ones too, and a finished board is drawn again from it when the next game supersedes it.
    """
    where = f"WHERE id IN ({games})"
    return PerDialect(
        f"UPDATE games SET options = json_remove(options, '$.news') {where}",
        f"UPDATE games SET options = (options::jsonb - 'news')::text {where}",
    )


def settle(tx: Transaction, game_id: int) -> None:
    """Inside the transaction of the save that ends ``game_id`` (after its seats and results): carry out the
    forget-me requests of its seats."""
    tx.execute(
        f"UPDATE game_seats SET {FORGET_SEAT} WHERE game_id = ?2 AND kind = 'user' "
        "AND player IN (SELECT player FROM forgotten_seats WHERE game_id = ?2)",
        (FORGOTTEN_NAME, game_id),
    )
    tx.execute(without_news("SELECT game_id FROM forgotten_seats WHERE game_id = ?1"), (game_id,))
    tx.execute(
        "DELETE FROM game_moves WHERE game_id = ?1 "
        f"AND EXISTS (SELECT 1 FROM forgotten_seats WHERE game_id = ?1) AND {nobody_reviews('?1')}",
        (game_id,),
    )
    tx.execute("DELETE FROM forgotten_seats WHERE game_id = ?", (game_id,))
