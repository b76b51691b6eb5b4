"""The only package that speaks SQL: the database, its migrations and the repositories."""

from bot.storage.database import Database, DatabaseError
from bot.storage.games import ChannelBusy, GameRecord, GamesRepository, Seat, StaleVersion
from bot.storage.results import ResultRow, ResultsRepository

__all__ = [
    "ChannelBusy",
    "Database",
    "DatabaseError",
    "GameRecord",
    "GamesRepository",
    "ResultRow",
    "ResultsRepository",
    "Seat",
    "StaleVersion",
]
