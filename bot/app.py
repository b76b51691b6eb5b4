"""The bot itself: a ``commands.Bot`` that opens storage, loads the game cogs and syncs commands."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import registry
from bot.engine.core import secure_rng
from bot.i18n import CatalogueTranslator, t
from bot.play.components import GameComponent
from bot.play.discord_io import DiscordChannels
from bot.play.scheduler import DeadlineScheduler
from bot.play.service import GameService
from bot.settings import Settings
from bot.storage import Database, GamesRepository, ResultsRepository

log = logging.getLogger(__name__)
#: Seconds a shutdown waits for clicks and commands in progress to finish their reply and save.
SHUTDOWN_GRACE = 10.0


class DiceBot(commands.Bot):
    """Holds the storage, the game service and the deadline scheduler for the cogs."""

    db: Database
    games: GamesRepository
    results: ResultsRepository
    service: GameService
    scheduler: DeadlineScheduler

    def __init__(
        self,
        settings: Settings,
        *,
        games: Sequence[str] = registry.GAMES,
        extensions: Sequence[str] | None = None,
        rng: Callable[[], random.Random] = secure_rng,
        clock: Callable[[], float] = time.time,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
        )
        self.settings = settings
        self._games = tuple(games)
        self._extensions = tuple(extensions) if extensions is not None else registry.extensions(self._games)
        self._rng = rng
        self.clock = clock
        self.tree.error(self._on_app_command_error)
        self._close_lock = asyncio.Lock()
        self._closed = False
        self._catch_up: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self.db = await Database.open(self.settings.database_path)
        self.games = GamesRepository(self.db)
        self.results = ResultsRepository(self.db)
        specs = registry.load_specs(self._games)
        self.service = GameService(self.games, specs, DiscordChannels(self), rng=self._rng, clock=self.clock)
        self.scheduler = DeadlineScheduler(self.games, self.service.on_deadline, clock=self.clock)
        self.service.on_saved = lambda record: self.scheduler.wake()
        self.add_dynamic_items(GameComponent)
        await self.tree.set_translator(CatalogueTranslator())
        for extension in self._extensions:
            await self.load_extension(extension)
        await self._sync_commands()
        self.scheduler.start()
        self.service.shown.start()
        # Repairing messages a crash left behind must not delay readiness: clicks are served meanwhile.
        self._catch_up = asyncio.create_task(self._show_games_behind(), name="dicebot-catch-up")

    async def _show_games_behind(self) -> None:
        try:
            count = await self.service.catch_up()
        except Exception:
            log.exception("could not show the games left behind by the last run")
            return
        if count:
            log.info("showed %d game message(s) left behind by the last run", count)

    async def _sync_commands(self) -> None:
        guild_id = self.settings.dev_guild_id
        if guild_id is None:
            synced = await self.tree.sync()
        else:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        log.info("synced %d commands%s", len(synced), f" to guild {guild_id}" if guild_id else " globally")

    async def close(self) -> None:
        """Stop firing deadlines, disconnect, then close the database after the last write finished.

        A signal handler and the ``async with`` exit both call this; the second caller waits for the first.
        """
        async with self._close_lock:
            if self._closed:
                return
            if hasattr(self, "scheduler"):
                await self.scheduler.stop()
            if hasattr(self, "service"):
                await self.service.drain(SHUTDOWN_GRACE)
                if self._catch_up is not None:
                    self._catch_up.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await self._catch_up
                await self.service.shown.stop()
            await super().close()
            if hasattr(self, "db"):
                await self.db.close()
            self._closed = True

    async def _on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("command %s failed", interaction.command and interaction.command.qualified_name, exc_info=error)
        text = t("play.unexpected_error", interaction.locale)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


def create_bot(settings: Settings, **options: Any) -> DiceBot:
    """The app factory: tests pass a seeded ``rng``, a fake ``clock``, other ``games`` or fewer ``extensions``."""
    return DiceBot(settings, **options)
