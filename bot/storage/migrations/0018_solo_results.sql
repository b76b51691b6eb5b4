-- A game played alone is never a win (docs/RULES.md, section 6): the bot now stores the result of a game of one
-- seat (one person, no computer) with won = 0 and the counter 'solo' (bot/play/transitions.py). The results stored
-- before lose their win here and get the counter, so the wins boards and /stats' win rate (over the games with an
-- opponent: games minus the solo ones) read the same for old and new games.
--
-- A solo result is the only result of its game, at a table with no seat but its player's. Both are asked: the seat
-- of someone who left stays in the game (status 'left'), and forget-me deletes a person's result but keeps the
-- seat, so the other person's game keeps its win. A game against a computer has the computer's seat.
--
-- No trigger follows an UPDATE of results (they follow inserts and deletes), so the kept wins are taken down here:
-- standings for every scope the result counts in, window_standings for the windows it lies in. board_figures
-- follows both by their own update triggers (migration 0012); standing_counters follows the counter's insert.

CREATE TEMP TABLE solo_results AS
SELECT r.id, r.kind, r.guild_id, r.user_id, r.won, r.finished_at FROM results AS r
WHERE NOT EXISTS (SELECT 1 FROM results AS o WHERE o.game_id = r.game_id AND o.id <> r.id)
    AND NOT EXISTS (
        SELECT 1 FROM game_seats AS s WHERE s.game_id = r.game_id AND s.player <> CAST(r.user_id AS TEXT)
    );
-- Each kept row below looks its player's solo results up by player and game kind.
CREATE INDEX solo_results_player ON solo_results (user_id, kind);

UPDATE standings SET wins = wins - (
    SELECT COUNT(*) FROM solo_results AS w
    WHERE w.won = 1 AND w.kind = standings.kind AND w.user_id = standings.user_id
        AND (standings.scope = 0 OR w.guild_id = standings.scope)
)
WHERE EXISTS (
    SELECT 1 FROM solo_results AS w
    WHERE w.won = 1 AND w.kind = standings.kind AND w.user_id = standings.user_id
        AND (standings.scope = 0 OR w.guild_id = standings.scope)
);

UPDATE window_standings SET wins = wins - (
    SELECT COUNT(*) FROM solo_results AS w JOIN window_marks AS m ON m.days = window_standings.days
    WHERE w.won = 1 AND w.kind = window_standings.kind AND w.user_id = window_standings.user_id
        AND (window_standings.scope = 0 OR w.guild_id = window_standings.scope) AND w.finished_at >= m.since
)
WHERE EXISTS (
    SELECT 1 FROM solo_results AS w JOIN window_marks AS m ON m.days = window_standings.days
    WHERE w.won = 1 AND w.kind = window_standings.kind AND w.user_id = window_standings.user_id
        AND (window_standings.scope = 0 OR w.guild_id = window_standings.scope) AND w.finished_at >= m.since
);

UPDATE results SET won = 0 WHERE id IN (SELECT id FROM solo_results WHERE won = 1);

INSERT INTO result_counters (result_id, name, value) SELECT id, 'solo', 1 FROM solo_results;

DROP TABLE solo_results;
