-- PostgreSQL's spelling of migrations/0010_live_board.sql: the previous board while its controls are still to be
-- removed (see there).

ALTER TABLE games ADD COLUMN retired_message_id BIGINT;
