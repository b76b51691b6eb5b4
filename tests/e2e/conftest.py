"""End-to-end harness: the real dicebot, unmodified discord.py, talking to fakediscord on 127.0.0.1.

Tests act as users (slash commands, clicks, selects) and read what the bot posted. Dice are seeded through
``Harness.rng`` (a :class:`~tests.scripted.ScriptedRandom`: the faces a test scripts first, then seed 1); time for
deadlines is a controllable clock (``Harness.advance``), so timeouts fire on demand.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import re
import shutil
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app import DiceBot, create_bot
from bot.endpoints import configure_endpoints
from bot.settings import Settings
from bot.storage import Database, GameRecord, GamesRepository
from fakediscord import Channel, FakeDiscord, Guild, InteractionHandle, Message, User
from tests.scripted import ScriptedRandom

TOKEN = "dicebot-e2e-token"
START_TIMEOUT = 15.0
#: How long fakediscord takes an interaction's first answer in these tests (see :func:`world`).
ANSWER_WAIT = 15.0
#: A game id above any a test creates (SQLite's and PostgreSQL's largest 64-bit integer).
NO_GAME_YET = 2**63 - 1


class Clock:
    """Wall-clock time the test can move forward; the bot's deadlines read it."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


async def _identify_at_once(shard_id: int | None, *, initial: bool = False) -> None:
    """No pause before an IDENTIFY: the 5 s discord.py waits protect Discord's limit, which fakediscord lacks."""


@dataclass
class Harness:
    """One server world plus the bot process state the tests drive."""

    server: FakeDiscord
    guild: Guild
    channel: Channel
    users: list[User]
    database: Path
    rng: ScriptedRandom = field(default_factory=ScriptedRandom)
    clock: Clock = field(default_factory=Clock)
    extensions: Sequence[str] | None = None
    #: ``DATABASE_URL`` when not the SQLite file ``database`` (the PostgreSQL variants of tests/e2e/test_backends.py).
    database_url: str | None = None
    #: The registry's game cogs by default; a test adds its own game here.
    games: Sequence[str] | None = None
    dev_guild_id: int | None = None
    #: The strategy tables' folder (a session's prebuilt one); None: beside the database, loaded lazily.
    strategy_dir: Path | None = None
    #: A migrated SQLite file the first start copies to ``database`` when there is none (see ``migrated_sqlite``).
    template: Path | None = None
    bot: DiceBot | None = None
    _runner: asyncio.Task[None] | None = None
    _started: bool = False

    @property
    def alice(self) -> User:
        return self.users[0]

    @property
    def bob(self) -> User:
        return self.users[1]

    @property
    def carol(self) -> User:
        return self.users[2]

    # ------------------------------------------------------------------ bot lifecycle

    async def start_bot(self, extensions: Sequence[str] | None = None) -> DiceBot:
        """Start the bot with all extensions, or only ``extensions`` (kept for later restarts)."""
        if extensions is not None:
            self.extensions = extensions
        settings = Settings(
            discord_token=TOKEN,
            database_url=self.database_url or f"sqlite:///{self.database}",
            dev_guild_id=self.dev_guild_id,
            discord_api_base=self.server.api_base,
            discord_gateway_url=self.server.gateway_url,
            _env_file=None,
        )
        configure_endpoints(settings.discord_api_base, settings.discord_gateway_url)
        # fakediscord sends every GUILD_CREATE right after READY: the bot need not wait 2 s for stragglers.
        options: dict[str, Any] = {"rng": lambda: self.rng, "clock": self.clock, "guild_ready_timeout": 0.0}
        if self.extensions is not None:
            options["extensions"] = tuple(self.extensions)
        if self.games is not None:
            options["games"] = tuple(self.games)
        if self.strategy_dir is not None:
            options["strategy_dir"] = self.strategy_dir
        bot = create_bot(settings, **options)
        # discord.py waits 5 s before every re-IDENTIFY to respect Discord's limit; fakediscord has none.
        bot.before_identify_hook = _identify_at_once  # type: ignore[method-assign]
        first_start = not self.database.exists() if self.database_url is None else not self._started
        if first_start and self.database_url is None and self.template is not None:
            shutil.copyfile(self.template, self.database)
        self._started = True
        synced_before = self.syncs()
        runner = asyncio.create_task(bot.start(TOKEN))
        # The command sync (or the decision not to sync) happens in setup_hook, before the bot gets READY.
        waiting = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({runner, waiting}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        if not waiting.done():
            waiting.cancel()
            if runner in done:
                runner.result()
            raise TimeoutError(f"the bot was not ready after {START_TIMEOUT:g}s\n{self.server.diagnostics()}")
        if first_start:
            assert self.syncs() > synced_before, "a bot starting on a new database must sync its commands"
        self.bot, self._runner = bot, runner
        return bot

    def syncs(self, path: str = r"/commands$") -> int:
        """How many command syncs (bulk overwrites, global or per guild) the server received so far."""
        return len(self.server.find_requests("PUT", path))

    async def stop_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self._runner is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self._runner, 10)
        self.bot, self._runner = None, None

    async def restart(self) -> DiceBot:
        """Stop the bot (as SIGTERM would) and start a new process on the same database."""
        await self.stop_bot()
        return await self.start_bot()

    async def advance(self, seconds: float) -> None:
        """Move time forward and fire every deadline that fell due, as the scheduler would."""
        assert self.bot is not None
        self.clock.now += seconds
        await self.bot.scheduler.run_due()

    # ------------------------------------------------------------------ playing

    async def command(self, user: User, command: str, /, **options: Any) -> InteractionHandle:
        return await self.server.slash(user, self.channel, command, **options)

    async def reply_text(self, handle: InteractionHandle) -> str:
        """The text of the bot's (usually ephemeral) answer to an interaction."""
        return (await handle.message()).text

    async def open_lobby(self, game: str, host: User, **options: Any) -> Message:
        handle = await self.command(host, f"{game} start", **options)
        return await handle.message()

    async def click(self, user: User, message: Message, label: str) -> InteractionHandle:
        handle = await self.server.click_button(user, message, label=label)
        await handle.response()
        return handle

    async def start_game(self, game: str, players: Sequence[User], **options: Any) -> Message:
        """Host opens the lobby, the others join, the host starts; returns the game message once the bot is idle."""
        message = await self.open_lobby(game, players[0], **options)
        for player in players[1:]:
            await self.click(player, message, "Join")
        await self.click(players[0], message, "Start")
        # The start may still move the board after answering (a new turn): let the bot finish first.
        assert self.bot is not None
        await self.bot.service.drain(10)
        return message

    async def tables_ready(self, player: str | None = None) -> None:
        """Wait until the strategy tables of the channel's running game are in memory (loaded in a thread), as
        for ``player``'s move (by default the first computer seat's)."""
        assert self.bot is not None
        record = await self.record()
        assert record is not None and record.state is not None
        player = player or next(seat.player for seat in record.seats if seat.kind == "computer")
        loading = self.bot.brain.prepare(await self.state(), player)
        if loading is not None:
            await loading

    def user(self, player: str | int) -> User:
        return next(user for user in self.users if user.id == int(player))

    async def state(self, record: GameRecord | None = None) -> Any:
        """The engine state of the channel's latest game, or of ``record`` when the caller read it already."""
        record = record or await self.record()
        assert record is not None and record.state is not None and self.bot is not None
        return self.bot.service.specs[record.kind].engine.State.load(record.state)

    async def record(self) -> GameRecord | None:
        """The most recent game of this channel, straight from the database, in one read.

        The game before an id no game reaches is the newest; the tests read it after almost every click, and the
        id first and the game second took two trips to the database's thread. Through a repository of its own:
        a test may stub the bot's (``test_board.py`` makes its ``previous_in_channel`` fail).
        """
        assert self.bot is not None
        return await GamesRepository(self.bot.db).previous_in_channel(self.channel.id, NO_GAME_YET)

    @staticmethod
    def snapshot(message: Message) -> Message:
        """The message as a user's client still shows it after later edits (for stale and double clicks)."""
        return dataclasses.replace(message, components=copy.deepcopy(message.components))

    async def wait_post(self, fragment: str, timeout: float = 5.0) -> str:
        """Wait until a public channel message contains or contained ``fragment``.

        Announcements fold into the live board, whose next edit replaces them: what the board showed earlier
        counts as said (see :meth:`said`).
        """

        def found() -> str | None:
            return next((post for post in [*self.posts(), *self.said()] if fragment in post), None)

        return await self.server.wait_for(found, timeout=timeout, what=f"a post containing {fragment!r}")

    def posts(self) -> list[str]:
        """Texts of the public messages in the channel, oldest first."""
        return [message.text for message in self.server.channel_messages(self.channel) if not message.ephemeral]

    def said(self) -> list[str]:
        """Every content the bot put on a public message, earlier versions of an edited board included, in order.

        Read from the requests fakediscord recorded: messages posted or edited through the REST API, and
        interaction answers that post or update a public message (an ephemeral one is left out).
        """
        texts = []
        for request in self.server.rest.requests:
            body = request.json if isinstance(request.json, dict) else None
            if body is None:
                continue
            if request.method in ("POST", "PATCH") and re.search(r"/channels/\d+/messages(/\d+)?$", request.path):
                content = body.get("content")
            elif request.path.endswith("/callback") and body.get("type") in (4, 7):
                data = body.get("data") or {}
                content = None if int(data.get("flags") or 0) & 64 else data.get("content")
            else:
                continue
            if content:
                texts.append(content)
        return texts


@contextlib.asynccontextmanager
async def world(
    tmp_path: Path, database_url: str | None = None, template: Path | None = None
) -> AsyncIterator[Harness]:
    """A fakediscord server with a guild, a channel and three users, and the harness around it (bot not started).

    Interactions expire after :data:`ANSWER_WAIT` rather than Discord's 3 s: a click the bot decided and saved but
    answered after 3 s on a machine running three suites at once failed a game test that is not about the deadline
    (tests/reliability/test_failed_answers.py and the shard test set Discord's own limit where it is under test).
    """
    async with FakeDiscord(token=TOKEN, interaction_timeout=ANSWER_WAIT) as server:
        guild = server.add_guild("Dice Club")
        channel = server.add_channel(guild, "games")
        users = [server.add_user(name) for name in ("Alice", "Bob", "Carol")]
        database = tmp_path / "dicebot.sqlite3"
        harness = Harness(server, guild, channel, users, database, database_url=database_url, template=template)
        try:
            yield harness
        finally:
            await harness.stop_bot()
            configure_endpoints(None, None)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database with every migration applied, made once per worker; each harness starts from a copy.

    Applying the eleven migrations to a new file took 17 ms of CPU and 57 ms of disk waits per test; the
    migrations themselves keep their tests in ``tests/storage``. Opened in a thread of its own, so its event
    loop never meets the tests' loops.
    """
    path = tmp_path_factory.mktemp("migrated") / "dicebot.sqlite3"

    async def migrate() -> None:
        await (await Database.open(f"sqlite:///{path}")).close()

    with ThreadPoolExecutor(max_workers=1) as helper:
        helper.submit(asyncio.run, migrate()).result()
    return path


@pytest.fixture
async def harness(tmp_path: Path, migrated_sqlite: Path) -> AsyncIterator[Harness]:
    async with world(tmp_path, template=migrated_sqlite) as harness:
        yield harness


@pytest.fixture
async def running(harness: Harness) -> Harness:
    """The harness with the bot started and its commands synced."""
    await harness.start_bot()
    return harness
