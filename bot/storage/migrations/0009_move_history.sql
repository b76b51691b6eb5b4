-- Every accepted action of a game, with the engine state it was applied to, written in the transaction that
-- saves the game's new state (one INSERT per save). Post-game reviews replay nothing: each row already holds the
-- position the decision was made in. ``version`` is the game version the save created, ``step`` the order of the
-- actions inside that save (a computer's die toggles and roll, a timed-out turn played out). ``source`` says who
-- decided: the seated player, a computer player, or the computer playing a person's timed-out turn.

CREATE TABLE game_moves (
    game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version  INTEGER NOT NULL,
    step     INTEGER NOT NULL,
    player   TEXT    NOT NULL,
    source   TEXT    NOT NULL CHECK (source IN ('player', 'computer', 'timeout')),
    action   TEXT    NOT NULL,
    state    TEXT    NOT NULL,
    PRIMARY KEY (game_id, version, step)
) WITHOUT ROWID;

