"""The playground: a Discord-like channel in the browser, served by fakediscord, with the real bot connected.

One process runs fakediscord (REST, gateway and the page on one port) and the unmodified bot through the same
code path as production: ``create_bot`` with the same cogs, service, storage and timeouts, logging in over the
gateway with discord.py. Only the endpoints and the database differ: the playground keeps its games in its own
SQLite file and its server, users and messages in a JSON file beside it, so games survive a restart of the
playground as they survive a restart of the bot, and never mix with a real server's results.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bot.app import DiceBot, create_bot
from bot.datalock import DataLock, InUse, hold
from bot.endpoints import configure_endpoints
from bot.folders import data_dir_unusable
from bot.settings import Settings
from bot.storage import DatabaseError
from bot.urls import every_interface, netloc
from fakediscord import FakeDiscord
from fakediscord.persist import DamagedWorld, load_world, restore_world, save_world

log = logging.getLogger(__name__)

#: The token the playground's bot logs in to its own fakediscord with; it grants nothing anywhere else.
TOKEN = "dicebot-playground-token"
DATABASE_FILE = "playground.sqlite3"
#: What places the playground's database, named by its errors: it never reads DATABASE_URL.
DATABASE_SETTING = "DATA_DIR"
WORLD_FILE = "playground.world.json"
GUILD_NAME = "Dice Club"
CHANNELS = ("general", "kniffel", "knister", "tutto")
#: The first one owns the server, so someone can use what needs Manage Server (``/settings``), as on Discord.
USERS = ("Alice", "Bob", "Carol", "Dave")
#: Seconds the bot gets to connect and sync its commands before the playground gives up.
START_TIMEOUT = 60.0
#: discord.py waits this long after the last guild arrives before it is ready, in case more follow; fakediscord
#: sends the playground's one guild right after READY, so waiting only delays the page (2 s by default).
GUILD_READY_TIMEOUT = 0.0
#: Seconds between a change made in the page (a user, a locale, a message typed) and saving the world. The bot's
#: writes are saved before they are answered, and :meth:`Playground.stop` saves at once.
SAVE_DELAY = 0.25


class PortInUse(Exception):
    """The port is taken (another playground, or any other server)."""

    def __init__(self, port: int) -> None:
        super().__init__(f"port {port} is already in use; pick another one: python -m bot playground --port NUMBER")
        self.port = port


class DataInUse(Exception):
    """Another playground (or a bot pointed at its database) uses the same data folder."""


class DataDirUnusable(Exception):
    """The playground cannot keep its files in its folder (a file in the way, no permission, a read-only disk)."""


class WorldUnreadable(Exception):
    """The saved world cannot be restored: the file is cut short, damaged, of another format, or unreadable."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"cannot restore the playground's world from {path}: {problem}; "
            "repair the file, or move it away to start a new world"
        )


class CannotServe(Exception):
    """The page's server could not listen on its address (no such address here, no permission for the port)."""


class BotCrashed(Exception):
    """The bot stopped without being asked to; the message is its last error."""


class Playground:
    """fakediscord with its page, plus the bot; :meth:`start`, then :meth:`wait` until the bot stops.

    ``bot_options`` go to :func:`bot.app.create_bot` (tests pass a seeded ``rng`` and a movable ``clock``).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        data_dir: Path = Path("data"),
        bot_options: dict[str, Any] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.data_dir = data_dir
        self.database = data_dir / DATABASE_FILE
        self.world_file = data_dir / WORLD_FILE
        self.bot_options = bot_options or {}
        self.server: FakeDiscord | None = None
        self.bot: DiceBot | None = None
        self._runner: asyncio.Task[None] | None = None
        self._pending_save: asyncio.TimerHandle | None = None
        self._save_failing = False
        self._lock: DataLock | None = None

    @property
    def url(self) -> str:
        """Where to open the page. Listening on every interface, the page is opened on this machine's loopback:
        Chrome and Safari refuse http://0.0.0.0/ (a way into the private network)."""
        assert self.server is not None
        if every_interface(self.host):
            return f"http://{netloc('::1' if ':' in self.host else '127.0.0.1', self.port)}/"
        return self.server.url

    async def start(self) -> None:
        """Serve the page, connect the bot and wait until its commands are synced.

        The bot's settings and the data folder are checked first, so an admin's mistake there is reported as
        what it is, before anything listens on the port."""
        settings = Settings(
            discord_token=SecretStr(TOKEN),
            database_url=f"sqlite:///{self.database}",
            dev_guild_id=None,
            discord_api_base=None,
            discord_gateway_url=None,
        )
        self._check_data_dir()
        self._lock_data()
        server = self._restored_server()
        try:
            await server.start()
        except OSError as error:
            await server.close()
            self._release_data()
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(self.port) from None
            raise CannotServe(str(error)) from error
        self.server = server
        server.world.changes.subscribe(self._schedule_save)
        # A message the bot was told it posted, edited or deleted is so in the file by then: a playground killed
        # right after (kill -9, a power cut of the container) would otherwise lose it while the bot's database
        # keeps it as shown. A save takes 1-3 ms for a few dozen messages, 10 ms for 1,000 boards.
        server.rest.before_answering_writes.append(self._save)
        settings = settings.model_copy(
            update={"discord_api_base": server.api_base, "discord_gateway_url": server.gateway_url}
        )
        configure_endpoints(settings.discord_api_base, settings.discord_gateway_url)
        defaults = {"guild_ready_timeout": GUILD_READY_TIMEOUT, "database_setting": DATABASE_SETTING}
        self.bot = create_bot(settings, **{**defaults, **self.bot_options})
        self._runner = asyncio.create_task(self.bot.start(TOKEN))
        ready = asyncio.create_task(self._wait_ready())
        await asyncio.wait({self._runner, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            await self._crashed()
        ready.result()

    async def wait(self) -> None:
        """Run until the bot is closed (:meth:`stop`, a signal); raise :class:`BotCrashed` if it died
        (:class:`~bot.storage.DatabaseError` if it could not use its database)."""
        assert self._runner is not None
        with contextlib.suppress(Exception):
            await asyncio.shield(self._runner)
        await self._crashed()

    async def stop(self) -> None:
        """Close the bot (it finishes clicks in progress and closes its database), then save and close the server.

        The bot's start is stopped where it is first: closed beside a start still in progress, the bot went on
        opening storage and starting its deadlines after the close, and logged their errors (``run`` in
        ``bot/__main__.py`` does the same for the bot)."""
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._runner
        if self.bot is not None:
            await self.bot.close()
        if self.server is not None:
            self._save()
            await self.server.close()
            self.server = None
        configure_endpoints(None, None)
        self._release_data()

    def _lock_data(self) -> None:
        """Lock the database, and with it the world file beside it, for this playground (``bot/datalock.py``): a
        second playground on the same folder shared both, and after restarts their games were stuck (QA)."""
        if self._lock is not None:
            return
        try:
            self._lock = hold(
                self.database,
                f"another dicebot process uses the playground's data in {self.data_dir} ({self.database}); "
                "stop it first, or set DATA_DIR to another folder for this one",
            )
        except InUse as error:
            raise DataInUse(str(error)) from None

    def _release_data(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _check_data_dir(self) -> None:
        """Create the folder and a file in it now: later, a save failing at the first move or at stop is too late."""
        problem = data_dir_unusable(self.data_dir, "the playground's")
        if problem is not None:
            raise DataDirUnusable(problem)

    def _restored_server(self) -> FakeDiscord:
        """The server with the saved world (a new one when there is none); :class:`WorldUnreadable` if the saved
        one cannot be restored, before anything listens on the port."""
        try:
            saved = load_world(self.world_file)
            server = FakeDiscord(
                TOKEN,
                application_id=saved["application_id"] if saved else None,
                host=self.host,
                port=self.port,
                web=True,
            )
            if saved:
                restore_world(server.world, saved)
        except DamagedWorld as error:
            raise WorldUnreadable(self.world_file, str(error)) from None
        if saved:
            self._hand_over_ownership(server)
        else:
            self._populate(server)
        return server

    async def _wait_ready(self) -> None:
        assert self.server is not None
        assert self.bot is not None
        bot, server = self.bot, self.server
        # The bot syncs its commands (or finds them unchanged) in setup_hook, before it is ready.
        await server.wait_for(lambda: bot.is_ready(), START_TIMEOUT, "the bot to be ready")

    async def _crashed(self) -> None:
        """If the bot task ended on its own, show why in the page and raise :class:`BotCrashed`."""
        assert self._runner is not None
        if not self._runner.done() or self._runner.cancelled():  # running, or stopped by :meth:`stop`
            return
        assert self.server is not None
        error = self._runner.exception()
        closing = self.bot is not None and self.bot.is_closed() and error is None
        if closing:
            return
        reason = f"{type(error).__name__}: {error}" if error else "the bot stopped unexpectedly"
        assert self.server.web is not None
        await self.server.web.announce_fatal(reason)
        if isinstance(error, DatabaseError):  # its file cannot be used: an admin's matter, told as such
            raise error
        raise BotCrashed(reason) from error

    def _schedule_save(self) -> None:
        """Save the world once per burst of changes (a game move changes it several times in a row)."""
        if self._pending_save is None:
            self._pending_save = asyncio.get_running_loop().call_later(SAVE_DELAY, self._save)

    def _save(self) -> None:
        """Save now; a save still scheduled would only write the same world again.

        Never raises: it runs before the bot's writes are answered, and an error there answered a post the world
        had already made with a 500, which discord.py retries (a full disk made five lobbies of one command). A
        failure is logged once until a save succeeds again.
        """
        if self._pending_save is not None:
            self._pending_save.cancel()
            self._pending_save = None
        if self.server is None:
            return
        try:
            save_world(self.server.world, self.world_file)
        except (OSError, TypeError, ValueError) as error:  # the disk, or a value orjson cannot encode
            if not self._save_failing:
                log.error("could not save the playground's world to %s: %s", self.world_file, error)
            self._save_failing = True
            return
        if self._save_failing:
            log.info("saved the playground's world to %s again", self.world_file)
        self._save_failing = False

    @staticmethod
    def _populate(server: FakeDiscord) -> None:
        users = [server.add_user(name) for name in USERS]
        guild = server.add_guild(GUILD_NAME, owner=users[0])
        for name in CHANNELS:
            server.add_channel(guild, name)

    @staticmethod
    def _hand_over_ownership(server: FakeDiscord) -> None:
        """A world saved before the playground's server had an owner among its users: its first user owns it now."""
        people = [user for user in server.world.users.values() if not user.bot]
        for guild in server.world.guilds.values():
            if people and guild.owner_id not in server.world.users:
                guild.owner_id = people[0].id
