-- SQLite's 0014_forgotten_seats.sql for PostgreSQL (see that file): the seats of games in progress whose person
-- asked /forget-me, and the trigger that skips their results when the game ends.

CREATE TABLE forgotten_seats (
    game_id  BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player   TEXT   NOT NULL,
    PRIMARY KEY (game_id, player)
);

CREATE FUNCTION results_of_forgotten_seats() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM forgotten_seats WHERE game_id = NEW.game_id AND player = NEW.user_id::TEXT) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER results_of_forgotten_seats BEFORE INSERT ON results
FOR EACH ROW EXECUTE FUNCTION results_of_forgotten_seats();
