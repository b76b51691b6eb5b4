-- Leaderboards and /stats: all-time standings kept by triggers, and covering indexes for week/month windows.
--
-- standings holds one row per (game kind, scope, user): scope is the guild id for "this server" and 0 for
-- "every server" (guild ids are Discord snowflakes, never 0; games in DMs count only there). Triggers on
-- results keep it in step inside the very transaction that stores a game's results, so games.py needs no
-- change and a reader never sees results without their standings. All-time boards and /stats read a few
-- standings rows instead of aggregating up to a million results; rolling week/month windows aggregate
-- results through covering indexes (see docs/benchmarks.md for the figures behind this choice).

CREATE TABLE standings (
    kind          TEXT    NOT NULL,
    scope         INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    games         INTEGER NOT NULL,
    wins          INTEGER NOT NULL,
    best          INTEGER NOT NULL,
    score_sum     INTEGER NOT NULL,
    kniffels      INTEGER NOT NULL DEFAULT 0,
    upper_bonus   INTEGER NOT NULL DEFAULT 0,
    tuttos        INTEGER NOT NULL DEFAULT 0,
    settlement    REAL    NOT NULL DEFAULT 0,
    last_at       REAL    NOT NULL,
    -- score_sum / games, kept by the triggers: an ordinary column lets its index answer "how many have a
    -- better average" alone (SQLite 3.40 reads the table for an indexed expression or generated column).
    average       REAL    NOT NULL,
    PRIMARY KEY (kind, scope, user_id)
) WITHOUT ROWID;

-- One ordered index per metric, in the order the board lists players (figure, then games, then user id),
-- so a page is an index walk and a rank is a count over an index range, never a sort of every player.
CREATE INDEX standings_wins ON standings (kind, scope, wins DESC, games DESC, user_id);
CREATE INDEX standings_best ON standings (kind, scope, best DESC, games DESC, user_id);
CREATE INDEX standings_games ON standings (kind, scope, games DESC, user_id);
CREATE INDEX standings_average ON standings (kind, scope, average DESC, games DESC, user_id) WHERE games >= 5;

-- The latest display name each user played under, for boards that span servers.
CREATE TABLE player_names (
    user_id       INTEGER PRIMARY KEY,
    display_name  TEXT    NOT NULL,
    seen_at       REAL    NOT NULL
);

-- Week/month boards aggregate results in the window; these cover every column they read.
DROP INDEX results_guild_kind;
DROP INDEX results_kind;
CREATE INDEX results_guild_window ON results (guild_id, kind, finished_at, user_id, won, score);
CREATE INDEX results_kind_window ON results (kind, finished_at, user_id, won, score);

-- Backfill from results stored before this migration. Bare columns next to MAX() come from the row with
-- the maximum (documented SQLite behaviour), which gives the latest display name.
INSERT INTO standings (kind, scope, user_id, games, wins, best, score_sum, kniffels, upper_bonus, tuttos,
                       settlement, last_at, average)
SELECT kind, guild_id, user_id, COUNT(*), SUM(won), MAX(score), SUM(score), TOTAL(kniffels), TOTAL(upper_bonus),
       TOTAL(tuttos), TOTAL(settlement), MAX(finished_at), CAST(SUM(score) AS REAL) / COUNT(*)
FROM results WHERE guild_id IS NOT NULL GROUP BY kind, guild_id, user_id;

INSERT INTO standings (kind, scope, user_id, games, wins, best, score_sum, kniffels, upper_bonus, tuttos,
                       settlement, last_at, average)
SELECT kind, 0, user_id, COUNT(*), SUM(won), MAX(score), SUM(score), TOTAL(kniffels), TOTAL(upper_bonus),
       TOTAL(tuttos), TOTAL(settlement), MAX(finished_at), CAST(SUM(score) AS REAL) / COUNT(*)
FROM results GROUP BY kind, user_id;

INSERT INTO player_names (user_id, display_name, seen_at)
SELECT user_id, display_name, MAX(finished_at) FROM results GROUP BY user_id;

CREATE TRIGGER results_standings_insert AFTER INSERT ON results
BEGIN
    INSERT INTO standings (kind, scope, user_id, games, wins, best, score_sum, kniffels, upper_bonus, tuttos,
                           settlement, last_at, average)
    SELECT NEW.kind, scopes.scope, NEW.user_id, 1, NEW.won, NEW.score, NEW.score, COALESCE(NEW.kniffels, 0),
           COALESCE(NEW.upper_bonus, 0), COALESCE(NEW.tuttos, 0), COALESCE(NEW.settlement, 0), NEW.finished_at,
           NEW.score
    FROM (SELECT 0 AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL) AS scopes
    WHERE true
    ON CONFLICT (kind, scope, user_id) DO UPDATE SET
        games = games + 1,
        wins = wins + excluded.wins,
        best = max(best, excluded.best),
        score_sum = score_sum + excluded.score_sum,
        kniffels = kniffels + excluded.kniffels,
        upper_bonus = upper_bonus + excluded.upper_bonus,
        tuttos = tuttos + excluded.tuttos,
        settlement = settlement + excluded.settlement,
        last_at = max(last_at, excluded.last_at),
        average = CAST(score_sum + excluded.score_sum AS REAL) / (games + 1);

    INSERT INTO player_names (user_id, display_name, seen_at) VALUES (NEW.user_id, NEW.display_name, NEW.finished_at)
    ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, seen_at = excluded.seen_at
        WHERE excluded.seen_at >= seen_at;
END;

-- Deleting results (forget-me, or a game row deleted with its results) takes them out of the standings.
-- Best score and last played are searched again only when the deleted row may have been the one holding
-- them; a standings row with no games left goes, and so does the name of a user with no results left.
CREATE TRIGGER results_standings_delete AFTER DELETE ON results
BEGIN
    UPDATE standings SET
        games = games - 1,
        wins = wins - OLD.won,
        score_sum = score_sum - OLD.score,
        kniffels = kniffels - COALESCE(OLD.kniffels, 0),
        upper_bonus = upper_bonus - COALESCE(OLD.upper_bonus, 0),
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
