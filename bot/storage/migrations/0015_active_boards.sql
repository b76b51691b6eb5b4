-- The live boards of the active games by message id: a message deleted in a channel (the gateway reports its id,
-- never its author) is looked up here to tell whether a game lost its board. Partial, so it holds only the
-- boards of lobbies and running games, a few per active channel, and a deletion of anything else is one probe
-- of a small index that finds nothing.

CREATE INDEX games_active_board ON games (message_id) WHERE status IN ('lobby', 'running');
