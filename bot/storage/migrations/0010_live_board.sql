-- The live board moves down the channel (it is posted anew when other messages were posted below it): the
-- game's message_id is always the live board, and retired_message_id the previous board while its controls are
-- still to be removed. Both are written in one statement, so a restart between posting the new board and
-- editing the old one finds the old one here and strips it.

ALTER TABLE games ADD COLUMN retired_message_id INTEGER;
