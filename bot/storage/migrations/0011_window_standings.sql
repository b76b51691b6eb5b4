-- Week and month boards from kept totals: standings per rolling window, exact at the moment they are read.
--
-- Until now a "last 30 days" board aggregated every result in the window on each request: 20-30 ms over
-- every server on a million results (a GROUP BY of 32,000 results and a sort of 17,000 players). Here the
-- totals of each window are kept like the all-time standings: the insert trigger adds a result to every window
-- it falls in, and before a window board is read the bot moves the window's start to "now minus its length"
-- (StatsRepository: it recomputes, from results, only the players who had a result leave the window since the
-- last move). A page is then an index walk and a rank a counted index range, as on the all-time boards.
--
-- window_marks holds one row per window length in days: ``since`` is the start of the window the totals are
-- counted from (results with finished_at >= since are in them). A window without a row has no totals yet; the
-- bot builds it from results the first time a board asks for it, and again whenever asked for an older start.

CREATE TABLE window_marks (
    days   INTEGER PRIMARY KEY,
    since  REAL    NOT NULL
);

-- Columns and meanings as in standings (scope: the guild id, or 0 for every server), one row per window length.
CREATE TABLE window_standings (
    days       INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    scope      INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    best       INTEGER NOT NULL,
    score_sum  INTEGER NOT NULL,
    average    REAL    NOT NULL,
    PRIMARY KEY (days, kind, scope, user_id)
) WITHOUT ROWID;

CREATE INDEX window_standings_wins ON window_standings (days, kind, scope, wins DESC, games DESC, user_id);
CREATE INDEX window_standings_best ON window_standings (days, kind, scope, best DESC, games DESC, user_id);
CREATE INDEX window_standings_games ON window_standings (days, kind, scope, games DESC, user_id);
CREATE INDEX window_standings_average ON window_standings (days, kind, scope, average DESC, games DESC, user_id)
    WHERE games >= 5;

-- Moving a window's start finds the results that left it by finish time, whatever their kind.
CREATE INDEX results_finished ON results (finished_at, kind, user_id, guild_id);

-- The boards now read window_standings; the old covering indexes of the window aggregates have no reader left.
DROP INDEX results_guild_window;
DROP INDEX results_kind_window;

CREATE TRIGGER results_window_insert AFTER INSERT ON results
BEGIN
    INSERT INTO window_standings (days, kind, scope, user_id, games, wins, best, score_sum, average)
    SELECT m.days, NEW.kind, scopes.scope, NEW.user_id, 1, NEW.won, NEW.score, NEW.score, NEW.score
    FROM window_marks AS m
    JOIN (SELECT 0 AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL) AS scopes ON true
    WHERE NEW.finished_at >= m.since
    ON CONFLICT (days, kind, scope, user_id) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        best = max(best, excluded.best),
        score_sum = score_sum + excluded.score_sum,
        average = CAST(score_sum + excluded.score_sum AS REAL) / (games + 1);
END;

-- A deleted result (forget-me, a deleted game) leaves the windows it was counted in. The best score is searched
-- again only when the deleted one may have been it; a row with no games left goes.
CREATE TRIGGER results_window_delete AFTER DELETE ON results
BEGIN
    UPDATE window_standings SET
        games = games - 1,
        wins = wins - OLD.won,
        score_sum = score_sum - OLD.score,
        average = CASE WHEN games > 1 THEN CAST(score_sum - OLD.score AS REAL) / (games - 1) ELSE 0 END,
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
END;
