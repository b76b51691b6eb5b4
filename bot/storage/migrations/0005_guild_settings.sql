-- Per-server settings chosen with /settings. language: the catalogue for the server's public game messages
-- (a shipped language code such as 'de'); no row, or NULL, means "follow the server's preferred locale".
CREATE TABLE guild_settings (
    guild_id INTEGER PRIMARY KEY,
    language TEXT
);
