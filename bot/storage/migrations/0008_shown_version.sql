-- The game version its public message last showed, written in batches by the bot (never on the click path):
-- at start-up every active game whose message is behind its stored version is shown again.

ALTER TABLE games ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
