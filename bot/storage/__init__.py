"""The only package that speaks SQL: the database, its migrations and the repositories."""

from bot.rankings import CounterTotal, CounterValue, GameStats, LeaderboardPage, Standing
from bot.storage.database import Database, DatabaseError, StorageUnavailable
from bot.storage.games import MAX_GAME_ID, ChannelBusy, GameRecord, GamesRepository, Seat, StaleVersion
from bot.storage.history import FinishedGame, HistoryRepository, MoveRow, MoveSource, StoredMove
from bot.storage.meta import MetaRepository
from bot.storage.results import ResultRow, ResultsRepository
from bot.storage.settings import GuildSettingsRepository
from bot.storage.stats import Forgotten, StatsRepository

__all__ = [
    "MAX_GAME_ID",
    "ChannelBusy",
    "CounterTotal",
    "CounterValue",
    "Database",
    "DatabaseError",
    "FinishedGame",
    "Forgotten",
    "GameRecord",
    "GameStats",
    "GamesRepository",
    "GuildSettingsRepository",
    "HistoryRepository",
    "LeaderboardPage",
    "MetaRepository",
    "MoveRow",
    "MoveSource",
    "ResultRow",
    "ResultsRepository",
    "Seat",
    "StaleVersion",
    "Standing",
    "StatsRepository",
    "StorageUnavailable",
    "StoredMove",
]
