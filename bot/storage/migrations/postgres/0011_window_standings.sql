-- Week and month boards from kept totals: PostgreSQL's spelling of migrations/0011_window_standings.sql (the
-- reasons are there). window_marks holds one row per window length in days; results with finished_at >= since
-- are counted in that window's totals.

CREATE TABLE window_marks (
    days   INTEGER PRIMARY KEY,
    since  DOUBLE PRECISION NOT NULL
);

CREATE TABLE window_standings (
    days       INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    scope      BIGINT  NOT NULL,
    user_id    BIGINT  NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    best       INTEGER NOT NULL,
    score_sum  BIGINT  NOT NULL,
    average    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (days, kind, scope, user_id)
);

CREATE INDEX window_standings_wins ON window_standings (days, kind, scope, wins DESC, games DESC, user_id);
CREATE INDEX window_standings_best ON window_standings (days, kind, scope, best DESC, games DESC, user_id);
CREATE INDEX window_standings_games ON window_standings (days, kind, scope, games DESC, user_id);
CREATE INDEX window_standings_average ON window_standings (days, kind, scope, average DESC, games DESC, user_id)
    WHERE games >= 5;

CREATE INDEX results_finished ON results (finished_at, kind, user_id, guild_id);

DROP INDEX results_guild_window;
DROP INDEX results_kind_window;

CREATE FUNCTION results_window_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO window_standings AS w (days, kind, scope, user_id, games, wins, best, score_sum, average)
    SELECT m.days, NEW.kind, scopes.scope, NEW.user_id, 1, NEW.won, NEW.score, NEW.score, NEW.score
    FROM window_marks AS m
    CROSS JOIN (SELECT 0::BIGINT AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL) AS scopes
    WHERE NEW.finished_at >= m.since
    ON CONFLICT (days, kind, scope, user_id) DO UPDATE SET
        games = w.games + 1,
        wins = w.wins + excluded.wins,
        best = GREATEST(w.best, excluded.best),
        score_sum = w.score_sum + excluded.score_sum,
        average = (w.score_sum + excluded.score_sum)::DOUBLE PRECISION / (w.games + 1);
    RETURN NULL;
END;
$$;

CREATE TRIGGER results_window_insert AFTER INSERT ON results
FOR EACH ROW EXECUTE FUNCTION results_window_insert();

CREATE FUNCTION results_window_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE window_standings SET
        games = games - 1,
        wins = wins - OLD.won,
        score_sum = score_sum - OLD.score,
        average = CASE WHEN games > 1 THEN (score_sum - OLD.score)::DOUBLE PRECISION / (games - 1) ELSE 0 END,
        best = CASE WHEN OLD.score < best THEN best ELSE COALESCE((
            SELECT MAX(r.score) FROM results AS r
            WHERE r.user_id = OLD.user_id AND r.kind = OLD.kind
                AND r.finished_at >= (SELECT m.since FROM window_marks AS m WHERE m.days = window_standings.days)
                AND (window_standings.scope = 0 OR r.guild_id = window_standings.scope)
        ), 0) END
    WHERE days IN (SELECT days FROM window_marks WHERE OLD.finished_at >= since)
        AND kind = OLD.kind AND user_id = OLD.user_id AND scope IN (0, OLD.guild_id);

    DELETE FROM window_standings
    WHERE days IN (SELECT days FROM window_marks) AND kind = OLD.kind AND user_id = OLD.user_id
        AND scope IN (0, OLD.guild_id) AND games <= 0;
    RETURN NULL;
END;
$$;

CREATE TRIGGER results_window_delete AFTER DELETE ON results
FOR EACH ROW EXECUTE FUNCTION results_window_delete();
