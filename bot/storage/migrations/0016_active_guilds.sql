-- The lobbies and running games by guild: when the bot is removed from a server (or finds at start-up that it
-- was while away) every active game there is looked up here to be abandoned. Partial, like games_active_board,
-- so it holds only the active games and the finished ones that pile up cost it nothing.

CREATE INDEX games_active_guild ON games (guild_id) WHERE status IN ('lobby', 'running');
