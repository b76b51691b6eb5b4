"""Discord extensions: one cog per game, plus help and leaderboards. Thin: they hand work to bot.play."""
