-- PostgreSQL's side of migrations/0019_rule_set_stats.sql: /stats' figures per (user, game, rule set), kept by
-- triggers like standings, backfilled here, cleared by forget-me.

CREATE TABLE rule_set_standings (
    user_id    BIGINT           NOT NULL,
    kind       TEXT             NOT NULL,
    variant    TEXT             NOT NULL,
    games      INTEGER          NOT NULL,
    wins       INTEGER          NOT NULL,
    best       INTEGER          NOT NULL,
    score_sum  BIGINT           NOT NULL,
    last_at    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, kind, variant)
);

CREATE TABLE rule_set_counters (
    user_id  BIGINT  NOT NULL,
    kind     TEXT    NOT NULL,
    variant  TEXT    NOT NULL,
    name     TEXT    NOT NULL,
    total    NUMERIC NOT NULL,
    games    INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, variant, name)
);

INSERT INTO rule_set_standings (user_id, kind, variant, games, wins, best, score_sum, last_at)
SELECT user_id, kind, variant, COUNT(*), SUM(won), MAX(score), SUM(score), MAX(finished_at)
FROM results GROUP BY user_id, kind, variant;

INSERT INTO rule_set_counters (user_id, kind, variant, name, total, games)
SELECT r.user_id, r.kind, r.variant, c.name, SUM(c.value), COUNT(*)
FROM result_counters AS c JOIN results AS r ON r.id = c.result_id
GROUP BY r.user_id, r.kind, r.variant, c.name;

CREATE FUNCTION results_rule_set_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rule_set_standings AS s (user_id, kind, variant, games, wins, best, score_sum, last_at)
    VALUES (NEW.user_id, NEW.kind, NEW.variant, 1, NEW.won, NEW.score, NEW.score, NEW.finished_at)
    ON CONFLICT (user_id, kind, variant) DO UPDATE SET
        games = s.games + 1,
        wins = s.wins + excluded.wins,
        best = GREATEST(s.best, excluded.best),
        score_sum = s.score_sum + excluded.score_sum,
        last_at = GREATEST(s.last_at, excluded.last_at);
    RETURN NULL;
END;
$$;

CREATE TRIGGER results_rule_set_insert AFTER INSERT ON results
FOR EACH ROW EXECUTE FUNCTION results_rule_set_insert();

CREATE FUNCTION results_rule_set_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE rule_set_standings SET
        games = games - 1,
        wins = wins - OLD.won,
        score_sum = score_sum - OLD.score,
        best = CASE WHEN OLD.score < best THEN best ELSE COALESCE((
            SELECT MAX(r.score) FROM results AS r
            WHERE r.user_id = OLD.user_id AND r.kind = OLD.kind AND r.variant = OLD.variant
        ), 0) END,
        last_at = CASE WHEN OLD.finished_at < last_at THEN last_at ELSE COALESCE((
            SELECT MAX(r.finished_at) FROM results AS r
            WHERE r.user_id = OLD.user_id AND r.kind = OLD.kind AND r.variant = OLD.variant
        ), 0) END
    WHERE user_id = OLD.user_id AND kind = OLD.kind AND variant = OLD.variant;

    DELETE FROM rule_set_standings
    WHERE user_id = OLD.user_id AND kind = OLD.kind AND variant = OLD.variant AND games <= 0;
    RETURN NULL;
END;
$$;

CREATE TRIGGER results_rule_set_delete AFTER DELETE ON results
FOR EACH ROW EXECUTE FUNCTION results_rule_set_delete();

CREATE FUNCTION result_counters_rule_set_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rule_set_counters AS t (user_id, kind, variant, name, total, games)
    SELECT r.user_id, r.kind, r.variant, NEW.name, NEW.value, 1 FROM results AS r WHERE r.id = NEW.result_id
    ON CONFLICT (user_id, kind, variant, name) DO UPDATE SET
        total = t.total + excluded.total,
        games = t.games + 1;
    RETURN NULL;
END;
$$;

CREATE TRIGGER result_counters_rule_set_insert AFTER INSERT ON result_counters
FOR EACH ROW EXECUTE FUNCTION result_counters_rule_set_insert();

CREATE FUNCTION results_rule_set_counters_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE rule_set_counters SET total = rule_set_counters.total - c.value, games = rule_set_counters.games - 1
    FROM result_counters AS c
    WHERE c.result_id = OLD.id AND rule_set_counters.name = c.name AND rule_set_counters.user_id = OLD.user_id
        AND rule_set_counters.kind = OLD.kind AND rule_set_counters.variant = OLD.variant;

    DELETE FROM rule_set_counters
    WHERE user_id = OLD.user_id AND kind = OLD.kind AND variant = OLD.variant AND games <= 0;
    RETURN OLD;
END;
$$;

CREATE TRIGGER results_rule_set_counters_delete BEFORE DELETE ON results
FOR EACH ROW EXECUTE FUNCTION results_rule_set_counters_delete();
