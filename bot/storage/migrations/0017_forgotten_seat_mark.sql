-- A seat of a person who asked /forget-me is marked by a column of its own, no longer by its name
-- (bot/storage/forgotten.py). The seat still shows "—", but a person may call themselves "—" too: told apart by
-- the name alone, such a person counted as forgotten, so forget-me by the others who sat with them dropped the
-- game's move history, and with it their review.
--
-- The seats forget-me blanked before this migration carry nothing but the name, so they are marked from it: the
-- people's seats named "—" in games that have ended. A person who really was named "—" in such a game before
-- this migration cannot be told apart from a forgotten one and is treated as forgotten from here on.
-- 0 or 1, the type of results.won on both backends.

ALTER TABLE game_seats ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0 CHECK (forgotten IN (0, 1));

UPDATE game_seats SET forgotten = 1
WHERE kind = 'user' AND display_name = '—'
AND game_id IN (SELECT id FROM games WHERE status IN ('finished', 'abandoned'));
