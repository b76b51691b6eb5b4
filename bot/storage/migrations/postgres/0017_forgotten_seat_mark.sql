-- SQLite's 0017_forgotten_seat_mark.sql for PostgreSQL (see that file): a forgotten seat is marked by a column of
-- its own, not by the name "—"; the seats named "—" of ended games are marked, so a person really named "—" in
-- such a game before this migration cannot be told apart and is treated as forgotten.

ALTER TABLE game_seats ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0 CHECK (forgotten IN (0, 1));

UPDATE game_seats SET forgotten = 1
WHERE kind = 'user' AND display_name = '—'
AND game_id IN (SELECT id FROM games WHERE status IN ('finished', 'abandoned'));
