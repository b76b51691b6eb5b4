-- PostgreSQL's side of migrations/0016_active_guilds.sql: the lobbies and running games by guild.

CREATE INDEX games_active_guild ON games (guild_id) WHERE status IN ('lobby', 'running');
