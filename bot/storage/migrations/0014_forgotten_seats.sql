-- Seats of games in progress whose person asked /forget-me (bot/storage/stats.py, StatsRepository.forget).
--
-- Forget-me deletes the results a person has; a game they sit in when they ask ends later, and its end must not
-- store a result under their id again. The game's row and seats are the game service's (kept in its memory,
-- written under the game's lock), so forget-me leaves them alone and notes the seat here instead: a result of a
-- noted seat is skipped as it is inserted (the trigger below), and the save that ends the game replaces the
-- seat's name, drops the move history if no other person sat in the game (else it stays for their reviews) and
-- drops the notes (bot/storage/forgotten.py).

CREATE TABLE forgotten_seats (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player   TEXT    NOT NULL,
    PRIMARY KEY (game_id, player)
);

CREATE TRIGGER results_of_forgotten_seats BEFORE INSERT ON results
WHEN EXISTS (SELECT 1 FROM forgotten_seats WHERE game_id = NEW.game_id AND player = CAST(NEW.user_id AS TEXT))
BEGIN
    SELECT RAISE(IGNORE);
END;
