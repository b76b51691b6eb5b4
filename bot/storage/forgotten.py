"""The seats of people who asked ``/forget-me`` while they sat in a game that had not ended.

Forget-me cannot change such a game: its row and seats are the game service's, kept in its memory and written
under the game's lock (in another process, with shards). It notes the seat in ``forgotten_seats`` instead
(migration 0014), and the game's own save carries the request out when the game ends: a noted seat's result is
skipped as it is inserted (a trigger), and :func:`settle` replaces the seat's name, drops the move history when
no other person sat in the game (nobody else reviews it), and drops the notes.
"""

from __future__ import annotations

from bot.storage.backend import Transaction

#: What a seat of an ended game shows instead of the name of a user who asked to be forgotten (no language).
FORGOTTEN_NAME = "—"


def settle(tx: Transaction, game_id: int) -> None:
    """Inside the transaction of the save that ends ``game_id`` (after its seats and results): carry out the
    forget-me requests of its seats."""
    tx.execute(
        "UPDATE game_seats SET display_name = ?1 WHERE game_id = ?2 AND kind = 'user' "
        "AND player IN (SELECT player FROM forgotten_seats WHERE game_id = ?2)",
        (FORGOTTEN_NAME, game_id),
    )
    tx.execute(
        "DELETE FROM game_moves WHERE game_id = ?1 "
        "AND EXISTS (SELECT 1 FROM forgotten_seats WHERE game_id = ?1) "
        "AND NOT EXISTS (SELECT 1 FROM game_seats AS s WHERE s.game_id = ?1 AND s.kind = 'user' "
        "AND s.player NOT IN (SELECT player FROM forgotten_seats WHERE game_id = ?1))",
        (game_id,),
    )
    tx.execute("DELETE FROM forgotten_seats WHERE game_id = ?", (game_id,))
