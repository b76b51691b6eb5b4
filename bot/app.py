"""The bot itself: a ``commands.AutoShardedBot`` that opens storage, loads the game cogs and syncs commands."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import json
import logging
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import heap, registry
from bot.engine.core import secure_rng
from bot.health import Heartbeat
from bot.i18n import CatalogueTranslator, t
from bot.play import components
from bot.play.computer import Brain
from bot.play.discord_io import CLICKED_MESSAGE, MESSAGE_GAMES, DiscordChannels
from bot.play.scheduler import DeadlineScheduler
from bot.play.service import GameService
from bot.settings import Settings
from bot.storage import (
    Database,
    GamesRepository,
    GuildSettingsRepository,
    HistoryRepository,
    MetaRepository,
    ResultsRepository,
)
from bot.ui.render import CUSTOM_ID, games_in

if TYPE_CHECKING:
    import yarl

log = logging.getLogger(__name__)
#: Seconds a shutdown waits for clicks and commands in progress to finish their reply and save.
SHUTDOWN_GRACE = 10.0
#: The ``bot_meta`` key holding the hash of the command payload last synced to Discord.
COMMAND_SYNC_KEY = "command_sync"


class DiceBot(commands.AutoShardedBot):
    """Holds the storage, the game service and the deadline scheduler for the cogs.

    Always discord.py's sharded client: without ``SHARD_COUNT`` it asks Discord for the recommended count and
    connects every shard (one shard for all but big bots, as before); with ``SHARD_COUNT``/``SHARD_IDS`` it connects
    only its shards, and its repositories fire deadlines and repairs only for the games of their guilds.
    """

    db: Database
    games: GamesRepository
    results: ResultsRepository
    guild_settings: GuildSettingsRepository
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
        sync_only: bool = False,
        guild_ready_timeout: float = 2.0,
        strategy_dir: Path | None = None,
        warm_strategy: bool = False,
        settle_heap: bool = False,
        database_setting: str = "DATABASE_URL",
    ) -> None:
        # The bot joins no voice channel: discord.py's one-time warnings that its voice libraries are missing
        # would only tell an admin, at every start, of something the bot never uses.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True
        # New messages (never their content, a privileged intent) tell the service when the board scrolled away.
        intents.guild_messages = True
        # Only passed when set: discord.py reads a missing ``shard_ids`` as "every shard of the count".
        shards: dict[str, Any] = {}
        if settings.shard_ids is not None:
            shards["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            max_messages=None,
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            guild_ready_timeout=guild_ready_timeout,
            shard_count=settings.shard_count,
            **shards,
        )
        # discord.py builds full Messages from a click's two gateway events (the clicked board, and the echo of the
        # answer's edit) for readers this bot does not have: it is given only what is read (docs/benchmarks.md).
        parsers = self._connection.parsers
        self._parse_message_update = parsers["MESSAGE_UPDATE"]
        parsers["MESSAGE_UPDATE"] = self._message_updated
        self._parse_interaction_create = parsers["INTERACTION_CREATE"]
        parsers["INTERACTION_CREATE"] = self._interaction_created
        self.settings = settings
        self._games = tuple(games)
        self._extensions = tuple(extensions) if extensions is not None else registry.extensions(self._games)
        self._rng = rng
        self.clock = clock
        self._sync_only = sync_only
        #: What this process's command sync sent ("synced 7 commands globally"), None before one.
        self.synced: str | None = None
        #: The strategy tables' folder: beside the database unless given.
        self.brain = Brain(strategy_dir or settings.strategy_dir)
        self._warm_strategy = warm_strategy
        #: Whether the process is the bot's own (``python -m bot``): then its start-up heap is frozen (``bot/heap.py``).
        self._settle_heap = settle_heap
        #: What placed the database, named by its start-up errors: the playground's is its own file in ``DATA_DIR``.
        self._database_setting = database_setting
        self._warming: asyncio.Task[None] | None = None
        self.tree.error(self._on_app_command_error)
        self._close_lock = asyncio.Lock()
        self._closed = False
        self._catch_up: asyncio.Task[None] | None = None
        self._guarding: asyncio.Task[None] | None = None
        #: Why the bot stopped by itself (another process took its games), for the exit line; None otherwise.
        self.stopped_by: str | None = None
        self._settling: asyncio.Task[None] | None = None
        self.heartbeat = Heartbeat(settings.health_file, self.healthy) if settings.health_file is not None else None

    async def setup_hook(self) -> None:
        settings = self.settings
        self.db = await Database.open(
            settings.database_url,
            setting=self._database_setting,
            pool_size=settings.database_pool_size,  # PostgreSQL's pool; SQLite has none
            statement_timeout=settings.database_statement_timeout,
            # PostgreSQL's claim on the games this process runs (a sync runs none, beside the bot); SQLite's is its
            # lock files, taken before (bot/datalock.py).
            claim=not self._sync_only,
            shards=settings.shard_scope,
        )
        self.games = GamesRepository(self.db, settings.shard_scope)
        self.results = ResultsRepository(self.db)
        self.guild_settings = GuildSettingsRepository(self.db)
        specs = registry.load_specs(self._games)
        self.service = GameService(
            self.games,
            specs,
            DiscordChannels(self),
            rng=self._rng,
            clock=self.clock,
            brain=self.brain,
            computer_delay=self.settings.computer_delay,
            history=HistoryRepository(self.db),
        )
        self.scheduler = DeadlineScheduler(self.games, self.service.on_deadline, clock=self.clock)
        self.service.on_saved = lambda record: self.scheduler.wake(record.deadline_at)
        self.service.guild_language = self.guild_settings.language
        await self.tree.set_translator(CatalogueTranslator())
        await self._add_cogs()
        await self._sync_commands(force=self._sync_only)
        if self._sync_only:
            return
        self.scheduler.start()
        self.service.shown.start()
        self._guarding = asyncio.create_task(self._stop_when_overtaken(), name="dicebot-claim-guard")
        if self.heartbeat is not None:
            self.heartbeat.start()
        if self._warm_strategy:
            # Built or loaded in a worker thread; computer moves use the engine's timeout action meanwhile.
            self._warming = asyncio.create_task(self.brain.warm(), name="dicebot-strategy-tables")
        # Repairing messages a crash left behind must not delay readiness: clicks are served meanwhile.
        self._catch_up = asyncio.create_task(self._show_games_behind(), name="dicebot-catch-up")
        if self._settle_heap:
            self._settling = asyncio.create_task(self._settle(), name="dicebot-settle-heap")

    async def _stop_when_overtaken(self) -> None:
        """Close once another process took this one's games (``Database.overtaken``): both would run them."""
        self.stopped_by = await self.db.overtaken()
        await self.close()

    async def _settle(self) -> None:
        """Once connected and the strategy tables are loaded, freeze what start-up built (``bot/heap.py``)."""
        await self.wait_until_ready()
        if self._warming is not None:
            with contextlib.suppress(Exception):
                await self._warming
        heap.settle()

    async def on_ready(self) -> None:
        """Every shard is connected: vouch for it at once rather than at the heartbeat's next tick."""
        if self.heartbeat is not None:
            self.heartbeat.beat()

    def healthy(self) -> bool:
        """Ready, not closing, and every shard of this process connected (what the heartbeat file vouches for)."""
        if not self.is_ready() or self.is_closed() or not self.shards:
            return False
        return all(not shard.is_closed() for shard in self.shards.values())

    async def _show_games_behind(self) -> None:
        try:
            count = await self.service.catch_up()
        except Exception:
            log.exception("could not show the games left behind by the last run")
            return
        if count:
            log.info("showed %d game message(s) left behind by the last run", count)

    async def _add_cogs(self) -> None:
        """Every extension's ``setup``, from its module as imported once per process.

        Not discord.py's ``load_extension``, which executes the module anew at every load (and ``close`` takes it
        out of ``sys.modules`` again): a game's cog module ran twice per start, once for the registry's ``SPEC`` and
        once for its cogs, and every bot a process starts again (the tests start hundreds) ran all seven anew,
        about 5 ms of a 26 ms start. The bot never reloads an extension.
        """
        for extension in self._extensions:
            await importlib.import_module(extension).setup(self)

    async def _sync_commands(self, *, force: bool = False) -> None:
        """Sync the command tree to Discord when it changed since the last sync, or always when ``force``.

        Discord rate-limits command syncs and a bot that restarts often would hit the limit, so the hash of what
        a sync sends (the translated payload and its target) is kept in ``bot_meta``; it is stored only after a
        sync succeeded, so a failed sync is retried at the next start. The payload hashed is the payload sent:
        ``tree.sync`` would translate every string into Discord's 31 locales a second time.
        """
        guild_id = self.settings.dev_guild_id
        guild = None if guild_id is None else discord.Object(guild_id)
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        where = " globally" if guild_id is None else f" to guild {guild_id}"
        tree_commands = self.tree.get_commands(guild=guild)
        translator = self.tree.translator
        payload = [
            await command.get_translated_payload(self.tree, translator) if translator else command.to_dict(self.tree)
            for command in tree_commands
        ]
        target = {"application_id": self.application_id, "guild_id": guild_id}
        text = json.dumps({"target": target, "commands": payload}, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode()).hexdigest()
        meta = MetaRepository(self.db)
        if not force and await meta.get(COMMAND_SYNC_KEY) == digest:
            log.info("commands unchanged since the last sync%s; not syncing", where)
            return
        synced = await self._upload_commands(payload, tree_commands, guild_id)
        await meta.set(COMMAND_SYNC_KEY, digest)
        self.synced = f"synced {len(synced)} commands{where}"
        log.info("%s", self.synced)

    async def _upload_commands(
        self,
        payload: list[dict[str, Any]],
        tree_commands: list[app_commands.Command[Any, ..., Any] | app_commands.Group | app_commands.ContextMenu],
        guild_id: int | None,
    ) -> list[Any]:
        """Overwrite the application's commands with ``payload``, as ``tree.sync`` does, its errors included."""
        if self.application_id is None:
            raise app_commands.MissingApplicationID
        try:
            if guild_id is None:
                return await self.http.bulk_upsert_global_commands(self.application_id, payload=payload)
            return await self.http.bulk_upsert_guild_commands(self.application_id, guild_id, payload=payload)
        except discord.HTTPException as error:
            if error.status == 400 and error.code == 50035:
                raise app_commands.CommandSyncFailure(error, tree_commands) from None
            raise

    async def close(self) -> None:
        """Stop firing deadlines, disconnect, then close the database after the last write finished.

        A signal handler and the ``async with`` exit both call this; the second caller waits for the first.
        """
        async with self._close_lock:
            if self._closed:
                return
            if self.heartbeat is not None:
                await self.heartbeat.stop()
            if hasattr(self, "scheduler"):
                await self.scheduler.stop()
            if hasattr(self, "service"):
                await self.service.drain(SHUTDOWN_GRACE)
                if self._warming is not None:
                    self._warming.cancel()
                if self._settling is not None:
                    self._settling.cancel()
                if self._guarding is not None and self._guarding is not asyncio.current_task():
                    self._guarding.cancel()
                if self._catch_up is not None:
                    self._catch_up.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await self._catch_up
                await self.service.shown.stop()
                await self.service.followers.close()
                await self.service.hints.close()
                await self.service.refusals.close()
                await self.service.cards.close()
            await super().close()
            if hasattr(self, "db"):
                await self.db.close()
            self._closed = True

    async def launch_shard(self, gateway: yarl.URL, shard_id: int, *, initial: bool = False) -> None:
        """discord.py retries a shard that fails to connect every 5 s, for ever and even once closed (it calls this
        again for each retry): a gateway out of reach at start made the bot deaf to SIGTERM. Closed, it stops."""
        if self.is_closed():
            return
        await super().launch_shard(gateway, shard_id, initial=initial)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Game buttons and selects are routed by their id (``bot/play/components.py``); commands and the
        leaderboard's buttons are dispatched by discord.py before this runs."""
        if hasattr(self, "service"):
            await components.dispatch(interaction, self.service)

    async def on_shard_connect(self, shard_id: int) -> None:
        """A new gateway session (not a resumed one): messages posted meanwhile were never reported, so the channel
        tails start over and the board asks the channel's history again at each turn's start."""
        if hasattr(self, "service"):
            self.service.tail.forget()

    def _message_updated(self, data: dict[str, Any]) -> None:
        """discord.py's MESSAGE_UPDATE parser, run only if the edit has a reader: a message cache, an edit
        listener (method, ``add_listener`` or ``wait_for``) or a view tracked for the message. About a tenth of the
        gateway's cost per click under load went to parsing echoes nobody read (docs/benchmarks.md)."""
        if self._edits_read(data):
            self._parse_message_update(data)

    def _edits_read(self, data: dict[str, Any]) -> bool:
        state = self._connection
        if state._messages is not None:
            return True
        for event in ("message_edit", "raw_message_edit"):
            if self._listeners.get(event) or self.extra_events.get(f"on_{event}") or hasattr(self, f"on_{event}"):
                return True
        if "components" not in data:
            return False
        # The id discord.py's parser looks the view up by.
        try:
            entity = int(data["interaction"]["id"])
        except (KeyError, ValueError):
            entity = int(data["id"])
        return state._view_store.is_message_tracked(entity)

    def _interaction_created(self, data: dict[str, Any]) -> None:
        """discord.py's INTERACTION_CREATE parser, given only the parts of a game click's message that are read.

        discord.py builds the clicked message into a full ``Message`` (every embed, button and select, the users
        its content mentions, its reactions) with the interaction; a game click reads only the message's id, flags,
        author and interaction metadata (``discord_io.InteractionRequest``) and is routed by its id alone, so the
        message is handed over with those and the rest empty. Other interactions (commands, the leaderboard's
        buttons) are parsed whole.
        """
        message = data.get("message")
        if message is not None and data.get("type") == 3 and CUSTOM_ID.fullmatch(str(data["data"].get("custom_id"))):
            clicked = {key: message[key] for key in CLICKED_MESSAGE if key in message}
            unread = {"content": "", "embeds": [], "components": [], "mentions": [], "mention_roles": []}
            ids = (
                item.get("custom_id") for row in message.get("components") or () for item in row.get("components") or ()
            )
            games = sorted(games_in(ids))
            data = {**data, "data": {**data["data"], MESSAGE_GAMES: games}, "message": {**clicked, **unread}}
        self._parse_interaction_create(data)

    async def on_message(self, message: discord.Message) -> None:
        """Only noted for the live board (no prefix commands, and the content is never read)."""
        if hasattr(self, "service"):
            self.service.tail.seen(message.channel.id, message.id)

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """A message was deleted: if it was a game's live board, the board is posted anew (no message cache needed:
        the raw event carries the id, which is all the lookup reads)."""
        if hasattr(self, "service"):
            self.service.tail.deleted(payload.channel_id, {payload.message_id})
            await self.service.on_messages_deleted({payload.message_id})

    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent) -> None:
        """A purge: as :meth:`on_raw_message_delete`, with one lookup for all its messages."""
        if hasattr(self, "service"):
            self.service.tail.deleted(payload.channel_id, payload.message_ids)
            await self.service.on_messages_deleted(payload.message_ids)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: a game in it is over (abandoned), instead of timing out for ever."""
        if hasattr(self, "service"):
            await self.service.on_channel_deleted(channel.id)

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted, or the channel holding it (discord.py reports each thread it knew of then, as
        Discord sends no THREAD_DELETE for those): a game in it is over, as in a deleted channel. The raw event,
        since the thread need not be in discord.py's cache."""
        if hasattr(self, "service"):
            await self.service.on_channel_deleted(payload.thread_id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (kicked or banned, or the server deleted): its games are over. An outage
        (a GUILD_DELETE marked unavailable) is reported by discord.py as ``on_guild_unavailable`` instead, and
        changes no game."""
        if hasattr(self, "service"):
            await self.service.on_guild_removed(guild.id)

    async def on_shard_ready(self, shard_id: int) -> None:
        """A gateway session's READY listed every server of the shard: the games of a server missing from the list
        are over, as it removed the bot while the bot was away (no GUILD_DELETE will come)."""
        if hasattr(self, "service") and self.shard_count is not None:
            listed = [guild.id for guild in self.guilds if guild.shard_id == shard_id]
            await self.service.on_guilds_listed(shard_id, self.shard_count, listed)

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
    """The app factory: tests pass a seeded ``rng``, a fake ``clock``, other ``games`` or fewer ``extensions``.

    ``sync_only=True`` (``python -m bot sync``) opens storage, loads the cogs and forces the command sync during
    ``login``, and starts no deadlines; the caller closes the bot without connecting to the gateway.
    """
    return DiceBot(settings, **options)
