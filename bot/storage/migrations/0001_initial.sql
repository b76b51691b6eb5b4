-- Games, their seated players, deadlines and the results that feed leaderboards.

CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    kind         TEXT    NOT NULL,
    variant      TEXT    NOT NULL,
    guild_id     INTEGER,
    channel_id   INTEGER NOT NULL,
    message_id   INTEGER,
    host_id      INTEGER NOT NULL,
    locale       TEXT    NOT NULL DEFAULT 'en-US',
    status       TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
    options      TEXT    NOT NULL DEFAULT '{}',
    state        TEXT,
    version      INTEGER NOT NULL DEFAULT 0,
    deadline_at  REAL,
    created_at   REAL    NOT NULL,
    updated_at   REAL    NOT NULL,
    finished_at  REAL
);

-- At most one game that is still in its lobby or running per channel.
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status IN ('lobby', 'running');
CREATE INDEX games_deadline ON games (deadline_at) WHERE deadline_at IS NOT NULL;

CREATE TABLE game_players (
    game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    seat          INTEGER NOT NULL,
    display_name  TEXT    NOT NULL,
    status        TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'left', 'removed')),
    timeouts      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, user_id)
);

CREATE TABLE results (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL,
    variant       TEXT    NOT NULL,
    guild_id      INTEGER,
    channel_id    INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    display_name  TEXT    NOT NULL,
    score         INTEGER NOT NULL,
    rank          INTEGER NOT NULL,
    won           INTEGER NOT NULL CHECK (won IN (0, 1)),
    finished_at   REAL    NOT NULL,
    kniffels      INTEGER,
    upper_bonus   INTEGER,
    tuttos        INTEGER,
    settlement    REAL,
    UNIQUE (game_id, user_id)
);

CREATE INDEX results_user ON results (user_id, kind, finished_at);
CREATE INDEX results_guild_kind ON results (guild_id, kind, finished_at);
CREATE INDEX results_kind ON results (kind, finished_at);
