-- How many players each board holds at each figure: PostgreSQL's spelling of migrations/0012_board_figures.sql
-- (the reasons are there). days is 0 for the all-time boards (standings), the window's length for week and month
-- (window_standings); the average board's figure is the average's floor, over the players with 5 games or more.

CREATE TABLE board_figures (
    days     INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    scope    BIGINT  NOT NULL,
    metric   TEXT    NOT NULL,
    figure   BIGINT  NOT NULL,
    players  INTEGER NOT NULL,
    PRIMARY KEY (days, kind, scope, metric, figure)
);

INSERT INTO board_figures (days, kind, scope, metric, figure, players)
SELECT 0, kind, scope, 'wins', wins, COUNT(*) FROM standings GROUP BY kind, scope, wins
UNION ALL
SELECT 0, kind, scope, 'best', best, COUNT(*) FROM standings GROUP BY kind, scope, best
UNION ALL
SELECT 0, kind, scope, 'games', games, COUNT(*) FROM standings GROUP BY kind, scope, games
UNION ALL
SELECT 0, kind, scope, 'average', floor(average)::BIGINT, COUNT(*) FROM standings WHERE games >= 5
GROUP BY 1, 2, 3, 4, 5
UNION ALL
SELECT days, kind, scope, 'wins', wins, COUNT(*) FROM window_standings GROUP BY days, kind, scope, wins
UNION ALL
SELECT days, kind, scope, 'best', best, COUNT(*) FROM window_standings GROUP BY days, kind, scope, best
UNION ALL
SELECT days, kind, scope, 'games', games, COUNT(*) FROM window_standings GROUP BY days, kind, scope, games
UNION ALL
SELECT days, kind, scope, 'average', floor(average)::BIGINT, COUNT(*) FROM window_standings WHERE games >= 5
GROUP BY 1, 2, 3, 4, 5;

-- One player of a board moves from figure ``old`` to figure ``new`` (NULL: not on that board before or after).
CREATE FUNCTION board_figure_move(
    p_days INTEGER, p_kind TEXT, p_scope BIGINT, p_metric TEXT, p_old BIGINT, p_new BIGINT
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_old IS NOT DISTINCT FROM p_new THEN
        RETURN;
    END IF;
    IF p_old IS NOT NULL THEN
        UPDATE board_figures SET players = players - 1
        WHERE days = p_days AND kind = p_kind AND scope = p_scope AND metric = p_metric AND figure = p_old;
    END IF;
    IF p_new IS NOT NULL THEN
        INSERT INTO board_figures AS b (days, kind, scope, metric, figure, players)
        VALUES (p_days, p_kind, p_scope, p_metric, p_new, 1)
        ON CONFLICT (days, kind, scope, metric, figure) DO UPDATE SET players = b.players + 1;
    END IF;
END;
$$;

-- A row of standings inserted, updated or deleted: each of its figures that changed moves (a row variable
-- left unassigned reads as NULLs, so an insert has no old figures and a delete no new ones).
CREATE FUNCTION standings_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o standings;
    n standings;
    d INTEGER;
    k TEXT;
    s BIGINT;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        o := OLD;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        n := NEW;
    END IF;
    d := 0;
    k := COALESCE(n.kind, o.kind);
    s := COALESCE(n.scope, o.scope);
    PERFORM board_figure_move(d, k, s, 'wins', o.wins, n.wins);
    PERFORM board_figure_move(d, k, s, 'best', o.best, n.best);
    PERFORM board_figure_move(d, k, s, 'games', o.games, n.games);
    PERFORM board_figure_move(d, k, s, 'average',
        CASE WHEN o.games >= 5 THEN floor(o.average)::BIGINT END,
        CASE WHEN n.games >= 5 THEN floor(n.average)::BIGINT END);
    RETURN NULL;
END;
$$;

CREATE TRIGGER standings_figures AFTER INSERT OR UPDATE OR DELETE ON standings
FOR EACH ROW EXECUTE FUNCTION standings_figures();

-- A row of window_standings inserted, updated or deleted: each of its figures that changed moves (a row variable
-- left unassigned reads as NULLs, so an insert has no old figures and a delete no new ones).
CREATE FUNCTION window_standings_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    o window_standings;
    n window_standings;
    d INTEGER;
    k TEXT;
    s BIGINT;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        o := OLD;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        n := NEW;
    END IF;
    d := COALESCE(n.days, o.days);
    k := COALESCE(n.kind, o.kind);
    s := COALESCE(n.scope, o.scope);
    PERFORM board_figure_move(d, k, s, 'wins', o.wins, n.wins);
    PERFORM board_figure_move(d, k, s, 'best', o.best, n.best);
    PERFORM board_figure_move(d, k, s, 'games', o.games, n.games);
    PERFORM board_figure_move(d, k, s, 'average',
        CASE WHEN o.games >= 5 THEN floor(o.average)::BIGINT END,
        CASE WHEN n.games >= 5 THEN floor(n.average)::BIGINT END);
    RETURN NULL;
END;
$$;

CREATE TRIGGER window_standings_figures AFTER INSERT OR UPDATE OR DELETE ON window_standings
FOR EACH ROW EXECUTE FUNCTION window_standings_figures();
