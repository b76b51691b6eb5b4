-- The game version its public message last showed, written in batches by the bot (never on the click path):
-- at start-up every game whose message is behind its stored version is shown again. Games stored before this
-- migration count as shown, so an upgrade does not edit every message the bot ever posted.

ALTER TABLE games ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
UPDATE games SET shown_version = version;
