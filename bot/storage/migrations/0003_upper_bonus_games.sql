-- The /stats upper bonus rate counts only games where the bonus could be earned.
--
-- Kniffel's classic rule set has no upper bonus (RULES.md §1), yet its results stored upper_bonus = 0, so a
-- player's "upper bonus in X of Y games" counted classic games in Y. From now on a counter a game's rules do
-- not have is stored as NULL ("not applicable", see GameSpec.counters_not_in_variant), and standings keeps
-- upper_bonus_games, the number of results with a non-NULL upper_bonus, as the rate's denominator.

-- Classic results stored before this migration: their 0 meant "no such bonus", not "bonus missed".
UPDATE results SET upper_bonus = NULL WHERE kind = 'kniffel' AND variant = 'classic' AND upper_bonus IS NOT NULL;

ALTER TABLE standings ADD COLUMN upper_bonus_games INTEGER NOT NULL DEFAULT 0;

-- Backfill per server scope and for every server (scope 0), as migration 0002 built standings. The sum in
-- standings.upper_bonus needs no change: the classic results it counted all held 0.
UPDATE standings SET upper_bonus_games = counted.games
FROM (
    SELECT kind, guild_id AS scope, user_id, COUNT(*) AS games
    FROM results WHERE upper_bonus IS NOT NULL AND guild_id IS NOT NULL GROUP BY kind, guild_id, user_id
    UNION ALL
    SELECT kind, 0, user_id, COUNT(*)
    FROM results WHERE upper_bonus IS NOT NULL GROUP BY kind, user_id
) AS counted
WHERE standings.kind = counted.kind AND standings.scope = counted.scope AND standings.user_id = counted.user_id;

-- The triggers of migration 0002, unchanged except for upper_bonus_games.
DROP TRIGGER results_standings_insert;
DROP TRIGGER results_standings_delete;

CREATE TRIGGER results_standings_insert AFTER INSERT ON results
BEGIN
    INSERT INTO standings (kind, scope, user_id, games, wins, best, score_sum, kniffels, upper_bonus,
                           upper_bonus_games, tuttos, settlement, last_at, average)
    SELECT NEW.kind, scopes.scope, NEW.user_id, 1, NEW.won, NEW.score, NEW.score, COALESCE(NEW.kniffels, 0),
           COALESCE(NEW.upper_bonus, 0), NEW.upper_bonus IS NOT NULL, COALESCE(NEW.tuttos, 0),
           COALESCE(NEW.settlement, 0), NEW.finished_at, NEW.score
    FROM (SELECT 0 AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL) AS scopes
    WHERE true
    ON CONFLICT (kind, scope, user_id) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        best = max(best, excluded.best),
        score_sum = score_sum + excluded.score_sum,
        kniffels = kniffels + excluded.kniffels,
        upper_bonus = upper_bonus + excluded.upper_bonus,
        upper_bonus_games = upper_bonus_games + excluded.upper_bonus_games,
        tuttos = tuttos + excluded.tuttos,
        settlement = settlement + excluded.settlement,
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
        kniffels = kniffels - COALESCE(OLD.kniffels, 0),
        upper_bonus = upper_bonus - COALESCE(OLD.upper_bonus, 0),
        upper_bonus_games = upper_bonus_games - (OLD.upper_bonus IS NOT NULL),
        tuttos = tuttos - COALESCE(OLD.tuttos, 0),
        settlement = settlement - COALESCE(OLD.settlement, 0),
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
