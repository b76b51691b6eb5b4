-- The bot's own bookkeeping as key/value pairs, e.g. the hash of the command payload it last synced to Discord,
-- so a restart syncs commands only when they changed (Discord rate-limits command syncs).
CREATE TABLE bot_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
