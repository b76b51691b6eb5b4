-- /stats splits a game's figures by rule set (StatsRepository.user_stats, rule_sets=...), but standings keeps
-- them over all rule sets, as the leaderboards rank. Adding them up from the user's results cost 110 ms median,
-- 177 ms worst for the heaviest user of the 1,000,000-result benchmark (5,374 results); a covering index brought
-- the sums to 1 ms but each result's counters, one lookup each, still took 10 ms (docs/benchmarks.md). So the
-- figures per (user, game, rule set) are kept like standings, over every server (the only scope /stats shows):
-- rule_set_standings and rule_set_counters, kept by the same kind of triggers, backfilled here, cleared by
-- forget-me. Keyed by user first: /stats reads one user's rows.

CREATE TABLE rule_set_standings (
    user_id    INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    variant    TEXT    NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    best       INTEGER NOT NULL,
    score_sum  INTEGER NOT NULL,
    last_at    REAL    NOT NULL,
    PRIMARY KEY (user_id, kind, variant)
) WITHOUT ROWID;

CREATE TABLE rule_set_counters (
    user_id  INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    variant  TEXT    NOT NULL,
    name     TEXT    NOT NULL,
    -- No declared type, as in standing_counters: an integer counter sums to an integer.
    total             NOT NULL,
    games    INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, variant, name)
) WITHOUT ROWID;

INSERT INTO rule_set_standings (user_id, kind, variant, games, wins, best, score_sum, last_at)
SELECT user_id, kind, variant, COUNT(*), SUM(won), MAX(score), SUM(score), MAX(finished_at)
FROM results GROUP BY user_id, kind, variant;

INSERT INTO rule_set_counters (user_id, kind, variant, name, total, games)
SELECT r.user_id, r.kind, r.variant, c.name, SUM(c.value), COUNT(*)
FROM result_counters AS c JOIN results AS r ON r.id = c.result_id
GROUP BY r.user_id, r.kind, r.variant, c.name;

CREATE TRIGGER results_rule_set_insert AFTER INSERT ON results
BEGIN
    INSERT INTO rule_set_standings (user_id, kind, variant, games, wins, best, score_sum, last_at)
    VALUES (NEW.user_id, NEW.kind, NEW.variant, 1, NEW.won, NEW.score, NEW.score, NEW.finished_at)
    ON CONFLICT (user_id, kind, variant) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        best = max(best, excluded.best),
        score_sum = score_sum + excluded.score_sum,
        last_at = max(last_at, excluded.last_at);
END;

-- Only a deleted best or latest result makes the kept one be looked up again (results_user finds the rows).
CREATE TRIGGER results_rule_set_delete AFTER DELETE ON results
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
END;

-- As result_counters_insert (migration 0004): the counter row follows its result, whose kind and rule set are read.
CREATE TRIGGER result_counters_rule_set_insert AFTER INSERT ON result_counters
BEGIN
    INSERT INTO rule_set_counters (user_id, kind, variant, name, total, games)
    SELECT r.user_id, r.kind, r.variant, NEW.name, NEW.value, 1 FROM results AS r WHERE r.id = NEW.result_id
    ON CONFLICT (user_id, kind, variant, name) DO UPDATE SET
        total = total + excluded.total,
        games = games + 1;
END;

-- Before the result goes, as results_counters_delete: the cascade removes its counters before AFTER triggers run.
CREATE TRIGGER results_rule_set_counters_delete BEFORE DELETE ON results
BEGIN
    UPDATE rule_set_counters SET total = total - c.value, games = games - 1
    FROM result_counters AS c
    WHERE c.result_id = OLD.id AND rule_set_counters.name = c.name AND rule_set_counters.user_id = OLD.user_id
        AND rule_set_counters.kind = OLD.kind AND rule_set_counters.variant = OLD.variant;

    DELETE FROM rule_set_counters
    WHERE user_id = OLD.user_id AND kind = OLD.kind AND variant = OLD.variant AND games <= 0;
END;
