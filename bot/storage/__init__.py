"""The only package that speaks SQL: the database, its migrations and the repositories."""

from bot.storage.database import Database, DatabaseError
from bot.storage.games import ChannelBusy, GameRecord, GamesRepository, Seat, StaleVersion
from bot.storage.results import CounterValue, ResultRow, ResultsRepository
from bot.storage.stats import CounterTotal, GameStats, LeaderboardPage, Standing, StatsRepository

__all__ = [
    "ChannelBusy",
    "CounterTotal",
    "CounterValue",
    "Database",
    "DatabaseError",
    "GameRecord",
    "GameStats",
    "GamesRepository",
    "LeaderboardPage",
    "ResultRow",
    "ResultsRepository",
    "Seat",
    "StaleVersion",
    "Standing",
    "StatsRepository",
]
