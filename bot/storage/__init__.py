"""The only package that speaks SQL: the database, its migrations and the repositories."""

from bot.storage.database import Database, DatabaseError, StorageUnavailable
from bot.storage.games import ChannelBusy, GameRecord, GamesRepository, Seat, StaleVersion
from bot.storage.results import ResultRow, ResultsRepository
from bot.storage.stats import GameStats, LeaderboardPage, Standing, StatsRepository

__all__ = [
    "ChannelBusy",
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
    "StorageUnavailable",
]
