-- How many players each board holds at each figure: a board's size and a player's rank become sums over the
-- board's distinct figures instead of counts over its players.
--
-- A board page counted index ranges: the board's size (every player on it), and for a rank the players with a
-- strictly better figure. On the all-servers boards that is tens of thousands of index entries per request
-- (5-12 ms on a million results on the slower machine). A board has far fewer distinct figures than players
-- (wins, best and games are whole numbers), so board_figures keeps, per board and figure, how many players have
-- it; triggers on standings and window_standings keep it in the transaction that changes them, whatever changes
-- them (results stored or deleted, forget-me, a window moved or rebuilt).
--
-- days is 0 for the all-time boards (standings) and the window's length for week and month (window_standings).
-- metric is the board's: wins, best, games, or average. An average is a float with nearly one value per player,
-- so its figure here is the average's floor: the players above an average are those of the higher floors plus
-- the few on the same floor with a higher average, which the board's own index counts (exact: both compare the
-- stored floats). The average board holds only players with at least 5 games (rankings.MIN_AVERAGE_GAMES), as
-- the index standings_average. A figure nobody has any more keeps its row at 0 players (a sum is unchanged by
-- it, and it is written again as soon as someone reaches the figure).
--
-- The floor is spelled without floor(), which needs SQLite's optional math functions: the truncated value,
-- minus one when the truncation went up (a negative average with a fraction, as in dice poker).

CREATE TABLE board_figures (
    days     INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    scope    INTEGER NOT NULL,
    metric   TEXT    NOT NULL,
    figure   INTEGER NOT NULL,
    players  INTEGER NOT NULL,
    PRIMARY KEY (days, kind, scope, metric, figure)
) WITHOUT ROWID;

INSERT INTO board_figures (days, kind, scope, metric, figure, players)
SELECT 0, kind, scope, 'wins', wins, COUNT(*) FROM standings GROUP BY kind, scope, wins
UNION ALL
SELECT 0, kind, scope, 'best', best, COUNT(*) FROM standings GROUP BY kind, scope, best
UNION ALL
SELECT 0, kind, scope, 'games', games, COUNT(*) FROM standings GROUP BY kind, scope, games
UNION ALL
SELECT 0, kind, scope, 'average', CAST(average AS INTEGER) - (average < CAST(average AS INTEGER)), COUNT(*)
FROM standings WHERE games >= 5 GROUP BY 1, 2, 3, 4, 5
UNION ALL
SELECT days, kind, scope, 'wins', wins, COUNT(*) FROM window_standings GROUP BY days, kind, scope, wins
UNION ALL
SELECT days, kind, scope, 'best', best, COUNT(*) FROM window_standings GROUP BY days, kind, scope, best
UNION ALL
SELECT days, kind, scope, 'games', games, COUNT(*) FROM window_standings GROUP BY days, kind, scope, games
UNION ALL
SELECT days, kind, scope, 'average', CAST(average AS INTEGER) - (average < CAST(average AS INTEGER)), COUNT(*)
FROM window_standings WHERE games >= 5 GROUP BY 1, 2, 3, 4, 5;

-- A row comes in with its figures, goes out with them, and an update moves each figure that changed (one trigger
-- per metric, so an update that leaves a figure alone writes nothing for it: a lost game leaves wins and best).
-- kind, scope and days are a row's key and never change.

CREATE TRIGGER standings_figures_insert AFTER INSERT ON standings
BEGIN
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    SELECT 0, NEW.kind, NEW.scope, f.metric, f.figure, 1
    FROM (SELECT 'wins' AS metric, NEW.wins AS figure
        UNION ALL SELECT 'best', NEW.best
        UNION ALL SELECT 'games', NEW.games
        UNION ALL SELECT 'average', CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER))
            WHERE NEW.games >= 5) AS f
    WHERE true
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER standings_figures_delete AFTER DELETE ON standings
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'wins' AND figure = OLD.wins;
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'best' AND figure = OLD.best;
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'games' AND figure = OLD.games;
    UPDATE board_figures SET players = players - 1
    WHERE OLD.games >= 5 AND days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'average'
        AND figure = CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER));
END;

CREATE TRIGGER standings_wins_figure AFTER UPDATE OF wins ON standings WHEN OLD.wins <> NEW.wins
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'wins' AND figure = OLD.wins;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (0, NEW.kind, NEW.scope, 'wins', NEW.wins, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER standings_best_figure AFTER UPDATE OF best ON standings WHEN OLD.best <> NEW.best
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'best' AND figure = OLD.best;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (0, NEW.kind, NEW.scope, 'best', NEW.best, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER standings_games_figure AFTER UPDATE OF games ON standings WHEN OLD.games <> NEW.games
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'games' AND figure = OLD.games;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (0, NEW.kind, NEW.scope, 'games', NEW.games, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER standings_average_figure AFTER UPDATE OF average, games ON standings
WHEN (OLD.games >= 5 OR NEW.games >= 5) AND (OLD.games < 5 OR NEW.games < 5
    OR CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER))
        <> CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER)))
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE OLD.games >= 5 AND days = 0 AND kind = OLD.kind AND scope = OLD.scope AND metric = 'average'
        AND figure = CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER));
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    SELECT 0, NEW.kind, NEW.scope, 'average',
        CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER)), 1
    WHERE NEW.games >= 5
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER window_standings_figures_insert AFTER INSERT ON window_standings
BEGIN
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    SELECT NEW.days, NEW.kind, NEW.scope, f.metric, f.figure, 1
    FROM (SELECT 'wins' AS metric, NEW.wins AS figure
        UNION ALL SELECT 'best', NEW.best
        UNION ALL SELECT 'games', NEW.games
        UNION ALL SELECT 'average', CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER))
            WHERE NEW.games >= 5) AS f
    WHERE true
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER window_standings_figures_delete AFTER DELETE ON window_standings
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'wins' AND figure = OLD.wins;
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'best' AND figure = OLD.best;
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'games' AND figure = OLD.games;
    UPDATE board_figures SET players = players - 1
    WHERE OLD.games >= 5 AND days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'average'
        AND figure = CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER));
END;

CREATE TRIGGER window_standings_wins_figure AFTER UPDATE OF wins ON window_standings WHEN OLD.wins <> NEW.wins
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'wins' AND figure = OLD.wins;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (NEW.days, NEW.kind, NEW.scope, 'wins', NEW.wins, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER window_standings_best_figure AFTER UPDATE OF best ON window_standings WHEN OLD.best <> NEW.best
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'best' AND figure = OLD.best;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (NEW.days, NEW.kind, NEW.scope, 'best', NEW.best, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER window_standings_games_figure AFTER UPDATE OF games ON window_standings WHEN OLD.games <> NEW.games
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'games' AND figure = OLD.games;
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    VALUES (NEW.days, NEW.kind, NEW.scope, 'games', NEW.games, 1)
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER window_standings_average_figure AFTER UPDATE OF average, games ON window_standings
WHEN (OLD.games >= 5 OR NEW.games >= 5) AND (OLD.games < 5 OR NEW.games < 5
    OR CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER))
        <> CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER)))
BEGIN
    UPDATE board_figures SET players = players - 1
    WHERE OLD.games >= 5 AND days = OLD.days AND kind = OLD.kind AND scope = OLD.scope AND metric = 'average'
        AND figure = CAST(OLD.average AS INTEGER) - (OLD.average < CAST(OLD.average AS INTEGER));
    INSERT INTO board_figures (days, kind, scope, metric, figure, players)
    SELECT NEW.days, NEW.kind, NEW.scope, 'average',
        CAST(NEW.average AS INTEGER) - (NEW.average < CAST(NEW.average AS INTEGER)), 1
    WHERE NEW.games >= 5
    ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = players + 1;
END;

