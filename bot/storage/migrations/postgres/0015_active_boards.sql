-- PostgreSQL's side of migrations/0015_active_boards.sql: the live boards of the active games by message id.

CREATE INDEX games_active_board ON games (message_id) WHERE status IN ('lobby', 'running');
