-- PostgreSQL's side of migrations/0013_move_history_rowid.sql: nothing to change. SQLite's game_moves was a
-- WITHOUT ROWID table (large rows in the key's B-tree); PostgreSQL's is a heap with its key as an index already.
-- The file exists so both backends carry the same schema versions.

SELECT 1;
