-- SQLite's 0018_solo_results.sql for PostgreSQL (see that file): the result of a game of one seat (one person, no
-- computer) stored before is no win any more and gets the counter 'solo'; the kept wins of standings and of the
-- windows it lies in are taken down here (no trigger follows an UPDATE of results), board_figures follows them
-- by its triggers, standing_counters the counter's insert.

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
