-- Seats hold people and computer players alike: the engine's player id as text, and what kind of seat it is.
-- Discord users keep their id (as text); nothing about a seat assumes a Discord user any more.

CREATE TABLE game_seats (
    game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player        TEXT    NOT NULL,
    kind          TEXT    NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'computer')),
    seat          INTEGER NOT NULL,
    display_name  TEXT    NOT NULL,
    status        TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'left', 'removed')),
    timeouts      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, player)
) WITHOUT ROWID;

INSERT INTO game_seats (game_id, player, kind, seat, display_name, status, timeouts)
SELECT game_id, CAST(user_id AS TEXT), 'user', seat, display_name, status, timeouts FROM game_players;

DROP TABLE game_players;

-- /forget-me renames a person's seats in finished games without scanning every seat.
CREATE INDEX game_seats_player ON game_seats (player);
