-- SQLite's 0009_move_history.sql for PostgreSQL: every accepted action of a game with the engine state it was
-- applied to, written in the transaction that saves the game's new state (see that file for the columns).

CREATE TABLE game_moves (
    game_id  BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version  INTEGER NOT NULL,
    step     INTEGER NOT NULL,
    player   TEXT    NOT NULL,
    source   TEXT    NOT NULL CHECK (source IN ('player', 'computer', 'timeout')),
    action   TEXT    NOT NULL,
    state    TEXT    NOT NULL,
    PRIMARY KEY (game_id, version, step)
);
