-- Per-game counters become data: one row per (result, counter name) instead of one column per game's counter.
--
-- Until now results and standings had a column for every counter some game keeps, and the standings triggers
-- named each of them, so a new counter cost a new column and two rewritten triggers. From now on a result's
-- counters are rows of result_counters (a counter the game leaves out, because its rules do not have it, has
-- no row), and standing_counters keeps per (kind, scope, user, counter) the total and the number of results
-- that had the counter: "rate over the games where the counter exists" is total / games. The triggers below
-- know no counter name. This migration is the one place that names the old columns: as the data it converts.

CREATE TABLE result_counters (
    result_id  INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name       TEXT    NOT NULL,
    -- No declared type: an integer counter stays an integer (and sums to one), a fractional one stays real.
    value      NOT NULL,
    PRIMARY KEY (result_id, name)
) WITHOUT ROWID;

-- Scope as in standings: the guild id, and 0 for every server.
CREATE TABLE standing_counters (
    kind     TEXT    NOT NULL,
    scope    INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    name     TEXT    NOT NULL,
    total             NOT NULL,
    -- How many of the user's results in this kind and scope had the counter: what a rate is out of.
    games    INTEGER NOT NULL,
    PRIMARY KEY (kind, scope, user_id, name)
) WITHOUT ROWID;

-- Forget-me blanks the user's name in the seats of old games: without this index that is a scan of every seat.
CREATE INDEX game_players_user ON game_players (user_id);

-- The old columns' values, NULL meaning "this result has no such counter" as before.
INSERT INTO result_counters (result_id, name, value)
SELECT id, 'kniffels', kniffels FROM results WHERE kniffels IS NOT NULL
UNION ALL
SELECT id, 'upper_bonus', upper_bonus FROM results WHERE upper_bonus IS NOT NULL
UNION ALL
SELECT id, 'tuttos', tuttos FROM results WHERE tuttos IS NOT NULL
UNION ALL
SELECT id, 'settlement', settlement FROM results WHERE settlement IS NOT NULL;

INSERT INTO standing_counters (kind, scope, user_id, name, total, games)
SELECT r.kind, r.guild_id, r.user_id, c.name, SUM(c.value), COUNT(*)
FROM result_counters AS c JOIN results AS r ON r.id = c.result_id
WHERE r.guild_id IS NOT NULL GROUP BY r.kind, r.guild_id, r.user_id, c.name;

INSERT INTO standing_counters (kind, scope, user_id, name, total, games)
SELECT r.kind, 0, r.user_id, c.name, SUM(c.value), COUNT(*)
FROM result_counters AS c JOIN results AS r ON r.id = c.result_id
GROUP BY r.kind, r.user_id, c.name;

-- The old triggers name the old columns; they go before the columns do and come back without them.
DROP TRIGGER results_standings_insert;
DROP TRIGGER results_standings_delete;

ALTER TABLE results DROP COLUMN kniffels;
ALTER TABLE results DROP COLUMN upper_bonus;
ALTER TABLE results DROP COLUMN tuttos;
ALTER TABLE results DROP COLUMN settlement;
ALTER TABLE standings DROP COLUMN kniffels;
ALTER TABLE standings DROP COLUMN upper_bonus;
ALTER TABLE standings DROP COLUMN upper_bonus_games;
ALTER TABLE standings DROP COLUMN tuttos;
ALTER TABLE standings DROP COLUMN settlement;

-- The triggers of migration 0003 without the counter columns: games, wins, scores, last played and names.
CREATE TRIGGER results_standings_insert AFTER INSERT ON results
BEGIN
    INSERT INTO standings (kind, scope, user_id, games, wins, best, score_sum, last_at, average)
    SELECT NEW.kind, scopes.scope, NEW.user_id, 1, NEW.won, NEW.score, NEW.score, NEW.finished_at, NEW.score
    FROM (SELECT 0 AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL) AS scopes
    WHERE true
    ON CONFLICT (kind, scope, user_id) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        best = max(best, excluded.best),
        score_sum = score_sum + excluded.score_sum,
        last_at = max(last_at, excluded.last_at),
        average = CAST(score_sum + excluded.score_sum AS REAL) / (games + 1);

    INSERT INTO player_names (user_id, display_name, seen_at) VALUES (NEW.user_id, NEW.display_name, NEW.finished_at)
    ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, seen_at = excluded.seen_at
        WHERE excluded.seen_at >= seen_at;
END;

CREATE TRIGGER results_standings_delete AFTER DELETE ON results
BEGIN
    UPDATE standings SET
        games = games - 1,
        wins = wins - OLD.won,
        score_sum = score_sum - OLD.score,
        average = CASE WHEN games > 1 THEN CAST(score_sum - OLD.score AS REAL) / (games - 1) ELSE 0 END,
        best = CASE WHEN OLD.score < best THEN best ELSE COALESCE((
            SELECT MAX(r.score) FROM results AS r
            WHERE r.user_id = OLD.user_id AND r.kind = OLD.kind AND (standings.scope = 0 OR r.guild_id = standings.scope)
        ), 0) END,
        last_at = CASE WHEN OLD.finished_at < last_at THEN last_at ELSE COALESCE((
            SELECT MAX(r.finished_at) FROM results AS r
            WHERE r.user_id = OLD.user_id AND r.kind = OLD.kind AND (standings.scope = 0 OR r.guild_id = standings.scope)
        ), 0) END
    WHERE kind = OLD.kind AND user_id = OLD.user_id AND scope IN (0, OLD.guild_id);

    DELETE FROM standings WHERE kind = OLD.kind AND user_id = OLD.user_id AND scope IN (0, OLD.guild_id) AND games <= 0;

    DELETE FROM player_names
    WHERE user_id = OLD.user_id AND NOT EXISTS (SELECT 1 FROM results WHERE user_id = OLD.user_id);
END;

-- A counter row is written after its result (the result's id is its key), so its kind, server and user are there.
CREATE TRIGGER result_counters_insert AFTER INSERT ON result_counters
BEGIN
    INSERT INTO standing_counters (kind, scope, user_id, name, total, games)
    SELECT r.kind, scopes.scope, r.user_id, NEW.name, NEW.value, 1
    FROM results AS r
    JOIN (SELECT 0 AS scope UNION ALL SELECT guild_id FROM results WHERE id = NEW.result_id AND guild_id IS NOT NULL)
        AS scopes
    WHERE r.id = NEW.result_id
    ON CONFLICT (kind, scope, user_id, name) DO UPDATE SET
        total = total + excluded.total,
        games = games + 1;
END;

-- A result's counters go with it by cascade, and a cascade runs before AFTER DELETE triggers: so the counters
-- leave standing_counters BEFORE the result is deleted, while they can still be read.
CREATE TRIGGER results_counters_delete BEFORE DELETE ON results
BEGIN
    UPDATE standing_counters SET total = total - c.value, games = games - 1
    FROM result_counters AS c
    WHERE c.result_id = OLD.id AND standing_counters.name = c.name AND standing_counters.kind = OLD.kind
        AND standing_counters.user_id = OLD.user_id AND standing_counters.scope IN (0, OLD.guild_id);

    DELETE FROM standing_counters
    WHERE kind = OLD.kind AND user_id = OLD.user_id AND scope IN (0, OLD.guild_id) AND games <= 0;
END;
