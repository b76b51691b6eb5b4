"""``python -m bot``: run the bot (with a token) or the playground (without one) until SIGTERM or SIGINT.

Subcommands live in :data:`COMMANDS`; adding one is a parser function and a runner there. discord.py, the bot and
the playground are imported by the runners that use them (half a second of CPU): the container's health check
runs every few seconds, and a configuration mistake is reported before any of it loads. The health check loads
neither the settings models (pydantic, another third of a second) nor asyncio nor storage: it reads one variable.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from bot import health, paths
from bot.envfile import ENV_FILE, env_file_problem, quoted_setting
from bot.stopsignal import SIGNALS, early_stop

if TYPE_CHECKING:
    import discord

    from bot.app import DiceBot
    from bot.datalock import DataLock
    from bot.playground import Playground
    from bot.settings import Settings

EXIT_CONFIG = 2
EXIT_UNHEALTHY = 1
LOCALHOST = "127.0.0.1"


def fail(message: str) -> int:
    print(f"dicebot: {message}", file=sys.stderr)
    return EXIT_CONFIG


def environment_problem() -> str | None:
    """A setting in quotes in the environment (:func:`bot.envfile.quoted_setting`) as the line to fail with, after
    one warning line on standard error for each near miss of a setting's name in ``.env`` or the environment (see
    the settings module)."""
    from bot.settings import environment_names, misspelt_settings

    for warning in misspelt_settings():
        print(f"dicebot: {warning}", file=sys.stderr)
    return quoted_setting(environment_names())


async def run(bot: DiceBot, token: str) -> None:
    """Start the bot; a termination signal, at any moment of the start too, closes it cleanly (database last)."""
    import asyncio
    import contextlib

    starting = asyncio.ensure_future(bot.start(token))
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in SIGNALS:
        loop.add_signal_handler(signum, stopping.set)
    if early_stop.requested:
        stopping.set()
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({starting, stop}, return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            starting.result()  # it ended by itself: its error (a rejected token, a database it cannot use)
    finally:
        stop.cancel()
        # The start is stopped where it is before anything closes: closed beside it, the bot went on opening
        # storage and starting deadlines and the catch-up after close() had closed the database (their errors
        # logged), or logging in on a closed connection (a traceback). Running, start() only waits for gateway
        # events, and one still waiting out discord.py's 5 s between attempts to reach a gateway that is down
        # stops waiting. What a cancelled start raises is the stop's doing, not news.
        starting.cancel()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await starting
        # Clicks in progress finish, then the gateway and the database close.
        try:
            await bot.close()
        finally:
            early_stop.hand_over(loop)
    if bot.stopped_by is not None:  # it stopped itself (another process took its games), a stop signal or not
        from bot.storage import DatabaseError

        raise DatabaseError(bot.stopped_by)


async def sync(bot: DiceBot, token: str) -> None:
    """Log in, which opens storage, loads the cogs and forces the command sync; then close without the gateway.
    What it synced is printed, as ``backup`` and ``migrate-db`` print theirs: at ``LOG_LEVEL=WARNING`` a success
    said nothing at all (QA)."""
    async with bot:
        await bot.login(token)
    if bot.synced is not None:
        print(f"dicebot: {bot.synced}")


def run_bot(args: argparse.Namespace) -> int:
    """Connect to Discord with ``DISCORD_TOKEN``; every configuration problem is one line and exit code 2."""
    return _with_discord(run)


def run_sync(args: argparse.Namespace) -> int:
    """Sync the slash commands to Discord now and exit (a normal start syncs only when they changed). It opens the
    database, creating or migrating it as a start does: the hash of what it synced is kept there, so the next start
    does not sync the same commands again."""
    return _with_discord(sync, sync_only=True)


def _with_discord(what: Callable[[DiceBot, str], Coroutine[Any, Any, None]], *, sync_only: bool = False) -> int:
    import asyncio

    from pydantic import ValidationError

    from bot.settings import Settings, describe_error
    from bot.storage import DatabaseError

    problem = environment_problem()
    if problem is not None:
        return fail(problem)
    try:
        settings = Settings()
    except ValidationError as error:
        return fail(describe_error(error))
    unusable = None if sync_only else files_unusable(settings)
    if unusable is not None:
        return fail(unusable)
    from bot.datalock import InUse

    try:
        # Held until the bot has closed its database; a sync runs no games and is left to run beside the bot.
        held = None if sync_only else lock_database(settings)
    except InUse as error:
        return fail(str(error))
    import discord

    from bot.app import create_bot
    from bot.endpoints import configure_endpoints
    from bot.logs import setup_logging

    if early_stop.requested:  # a stop signal during the imports
        if held is not None:
            held.release()
        return 0
    setup_logging(settings.log_level)
    configure_endpoints(settings.discord_api_base, settings.discord_gateway_url)
    # A real bot builds its strategy tables at start (in a worker thread); tests and the playground load lazily.
    # It also freezes its start-up heap, which in a test process would freeze the other tests' objects too.
    bot = create_bot(settings, sync_only=sync_only, warm_strategy=not sync_only, settle_heap=not sync_only)
    try:
        asyncio.run(what(bot, settings.discord_token.get_secret_value()))
    except DatabaseError as error:
        return fail(str(error))
    except discord.LoginFailure:
        return fail("DISCORD_TOKEN was rejected by Discord: copy the bot token again from the developer portal")
    except discord.PrivilegedIntentsRequired:
        return fail("Discord refused the requested gateway intents: check the bot's settings in the developer portal")
    except discord.HTTPException as error:
        return fail(refused_at_start(error, settings.dev_guild_id, settings.discord_api_base))
    except (OSError, discord.GatewayNotFound) as error:
        return fail(f"cannot reach Discord ({error}); check the network or DISCORD_API_BASE/DISCORD_GATEWAY_URL")
    finally:
        if held is not None:
            held.release()
    return 0


def lock_database(settings: Settings) -> DataLock | None:
    """Lock a SQLite database for this process (``bot/datalock.py``); PostgreSQL needs none: shard processes
    sharing it is the supported way to run several. A process with ``SHARD_IDS`` locks it shared, and its shards
    and its ``SHARD_COUNT`` as well."""
    from bot.datalock import InUse, hold, hold_count, hold_shards

    if settings.uses_postgres:
        return None
    database = settings.database_path
    held = hold(
        database,
        f"another dicebot process uses the database {database} (DATABASE_URL); stop it first, or give this one its "
        "own DATABASE_URL (several processes share PostgreSQL, each with its SHARD_IDS: docs/deploy.md)",
        shared=settings.shard_scope is not None,
    )
    if held is None or settings.shard_ids is None:
        return held
    try:
        held.joined(
            hold_shards(
                database,
                settings.shard_ids,
                lambda shard: (
                    f"another dicebot process runs shard {shard} on the database {database} (SHARD_IDS); "
                    "give each process other shards"
                ),
            )
        )
        if settings.shard_count is not None:  # always, with SHARD_IDS (the settings' check): for the type checker
            held.joined(
                hold_count(
                    database,
                    settings.shard_count,
                    lambda other: (
                        f"another dicebot process runs with SHARD_COUNT={other} on the database {database}, this "
                        f"one with {settings.shard_count}; give every process the same SHARD_COUNT (docs/deploy.md)"
                    ),
                )
            )
    except InUse:
        held.release()
        raise
    return held


def files_unusable(settings: Settings) -> str | None:
    """Why the bot could not keep its files (``HEALTH_FILE``, the strategy tables under ``DATA_DIR``), or None:
    checked before anything connects, because later a heartbeat fails only as an unhealthy container and a folder
    that cannot take the tables only as a warning and every table built again at every start. A sync keeps none."""
    from bot.folders import data_dir_unusable
    from bot.settings import FIX_HINTS

    if settings.health_file is not None:
        unusable = health.unusable(settings.health_file)
        if unusable is not None:
            return f"HEALTH_FILE {unusable}: {FIX_HINTS['health_file']}"
    return data_dir_unusable(settings.strategy_dir, "the bot's")


#: Discord's code in a 404 for a server that does not exist or that the bot is not in.
UNKNOWN_GUILD = 10004


def refused_at_start(error: discord.HTTPException, dev_guild_id: int | None, api_base: str | None) -> str:
    """Discord answered a start-up request (the command sync, mostly) with an error: what to check, by what it said.
    Discord was reached, so the network is not the thing to check. A 404 from a ``DISCORD_API_BASE`` of the
    admin's that is not Discord's Unknown Guild says the URL's path leads nowhere: no wait would help."""
    from bot.endpoints import DISCORD_API_BASE

    said = f"{error.status} {error.text}".strip()
    server = f"is the bot in the server DEV_GUILD_ID={dev_guild_id} names? " if dev_guild_id is not None else ""
    elsewhere = api_base is not None and api_base.rstrip("/") != DISCORD_API_BASE
    if error.status in (401, 403):
        return f"Discord refused a start-up request ({said}): {server}check the bot's invitation and permissions"
    if error.status == 404 and dev_guild_id is not None and (error.code == UNKNOWN_GUILD or not elsewhere):
        # Discord answers Unknown Guild alike for a server that does not exist and one the bot is not in.
        return f"Discord knows no such server ({said}): {server}check the id and the bot's invitation"
    if error.status == 404 and elsewhere:
        return (
            f"DISCORD_API_BASE={api_base} answered a start-up request with {said}: check its path "
            f"(Discord's REST base is {DISCORD_API_BASE}), or leave it empty for Discord's"
        )
    return f"Discord answered a start-up request with an error ({said}); try again later"


async def serve_playground(playground: Playground, *, has_token: bool) -> None:
    """Start the playground, print where it is, and run until a signal (clean stop) or a bot crash. With a token
    set the admin chose the playground (``python -m bot playground``): no advice to set one. A signal while it
    starts stops the start where it is, quietly, as for the bot (``run``)."""
    import asyncio
    import contextlib

    from bot.urls import reached_by

    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for signum in SIGNALS:
        loop.add_signal_handler(signum, stopping.set)
    if early_stop.requested:
        stopping.set()
    stop = asyncio.ensure_future(stopping.wait())
    starting = asyncio.ensure_future(playground.start())
    try:
        await asyncio.wait({starting, stop}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            starting.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await starting
            return
        starting.result()
        # Warned once it listens: a start that fails says only why (a bad host was a warning and an error).
        others = reached_by(playground.host, playground.port)
        if others is not None:
            print(
                f"dicebot: warning: the playground page has no login; anyone who can reach {others} "
                "can play as any of its users",
                file=sys.stderr,
            )
        advice = "" if has_token else " (set DISCORD_TOKEN to connect to Discord instead)"
        print(f"dicebot playground: open {playground.url} to play in your browser{advice}", flush=True)
        crashed = asyncio.create_task(playground.wait())
        await asyncio.wait({crashed, stop}, return_when=asyncio.FIRST_COMPLETED)
        if crashed.done():
            crashed.result()
    finally:
        stop.cancel()
        starting.cancel()
        try:
            await playground.stop()
        finally:
            early_stop.hand_over(loop)


def run_playground(args: argparse.Namespace) -> int:
    """The bot against a local fakediscord with a web page: no token, no Discord, its own database."""
    early_stop.defer()
    from bot.urls import netloc

    address = netloc(args.host, args.port)
    import asyncio

    from pydantic import ValidationError

    from bot.settings import LaunchSettings, describe_error
    from bot.storage import DatabaseError

    problem = environment_problem()
    if problem is not None:
        return fail(problem)
    try:
        launch = LaunchSettings()
    except ValidationError as error:
        return fail(describe_error(error))
    from bot.logs import setup_logging
    from bot.playground import (
        BotCrashed,
        CannotServe,
        DataDirUnusable,
        DataInUse,
        Playground,
        PortInUse,
        WorldUnreadable,
    )

    if early_stop.requested:
        return 0  # a stop signal during the imports
    # One line on the terminal, the URL: discord.py's connection chatter only when LOG_LEVEL asks for it.
    setup_logging(launch.log_level or "WARNING")
    playground = Playground(host=args.host, port=args.port, data_dir=launch.data_dir or Path("data"))
    try:
        asyncio.run(serve_playground(playground, has_token=launch.has_token))
    except (PortInUse, DataDirUnusable, DataInUse, WorldUnreadable) as error:
        return fail(str(error))
    except ValidationError as error:
        return fail(describe_error(error))
    except DatabaseError as error:
        return fail(f"playground: {error}")
    except BotCrashed as error:
        return fail(f"the playground's bot crashed: {error}")
    except CannotServe as error:
        return fail(
            f"cannot serve the playground on {address} ({error}); "
            "try python -m bot playground with another --host or --port"
        )
    except OSError as error:  # a disk gone full or read-only under it: another port would not help (review)
        return fail(f"the playground stopped: {error}")
    return 0


def run_default(args: argparse.Namespace) -> int:
    """The bot when a token is set (or the image requires one), otherwise the playground on its defaults."""
    early_stop.defer()
    from pydantic import ValidationError

    from bot.settings import LaunchSettings, describe_error

    try:
        launch = LaunchSettings()
    except ValidationError as error:
        return fail(describe_error(error))
    if launch.has_token or launch.require_token:
        return run_bot(args)
    return run_playground(args)


def run_migrate_db(args: argparse.Namespace) -> int:
    """Copy a SQLite installation into an empty PostgreSQL database and verify the counts (see bot.storage.copy)."""
    import asyncio

    from bot.storage import DatabaseError
    from bot.storage.copy import CopyFailed, migrate

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        copied = asyncio.run(migrate(args.source, args.target))
    except DatabaseError as error:
        return fail(str(error))
    except CopyFailed as error:
        print(f"dicebot: {error}", file=sys.stderr)
        return 1
    print(f"dicebot: {copied.summary()}")
    return 0


def add_migrate_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", required=True, help="the SQLite database: sqlite:///path.sqlite3")
    parser.add_argument("--to", dest="target", required=True, help="an empty PostgreSQL database: postgresql://...")


def run_backup(args: argparse.Namespace) -> int:
    """Copy the bot's SQLite database (``DATABASE_URL``) to a new file while the bot runs (see bot.storage.backup);
    PostgreSQL has its own tool."""
    from pydantic import ValidationError

    from bot.settings import DatabaseSettings, describe_error
    from bot.storage import DatabaseError
    from bot.storage.backup import back_up

    problem = environment_problem()
    if problem is not None:
        return fail(problem)
    try:
        settings = DatabaseSettings()
    except ValidationError as error:
        return fail(describe_error(error))
    if settings.uses_postgres:
        return fail(
            "DATABASE_URL names a PostgreSQL database, which this command does not copy: back it up with pg_dump "
            "(see Backups in the README)"
        )
    try:
        done = back_up(settings.database_path, args.target)
    except DatabaseError as error:
        return fail(str(error))
    print(f"dicebot: {done.summary()}")
    return 0


def add_backup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", type=Path, metavar="PATH", help="the new file to write the copy to")


def health_file(environ: dict[str, str] | None = None, env_file: Path = ENV_FILE) -> Path | None:
    """``HEALTH_FILE`` as :class:`bot.settings.Settings` reads it: the environment first, then ``.env``, the name
    in any case, empty meaning unset, a leading ``~`` the home folder. Read without pydantic-settings, whose imports
    cost the check, which runs every few seconds, a third of a second of CPU each time (``.env`` is parsed by
    python-dotenv, as it does). A ``~user`` of no such user stays as written: the bot refuses it at start, so the
    check then finds no heartbeat."""
    sources: list[dict[str, str | None]] = [dict(os.environ if environ is None else environ)]
    if env_file.is_file():
        from dotenv import dotenv_values

        sources.append(dotenv_values(env_file, encoding="utf-8"))
    for source in sources:
        values = [value for name, value in source.items() if name.upper() == "HEALTH_FILE"]
        if values:
            value = values[-1]
            return home_folder(Path(value)) if value is not None and value.strip() else None
    return None


def home_folder(path: Path) -> Path:
    """``path`` with a leading ``~`` expanded, or as it is when it names no home folder on this system."""
    try:
        return path.expanduser()
    except RuntimeError:
        return path


def run_health(args: argparse.Namespace) -> int:
    """The container health check: 0 when the running bot's heartbeat file is recent, else 1 and one line."""
    path = health_file()
    if path is None:
        return fail("HEALTH_FILE is not set: the bot writes its heartbeat there and this check reads it")
    try:
        found = paths.kind(path, "HEALTH_FILE")
    except paths.Unexaminable as error:
        return fail(str(error))
    if found == "folder":
        return fail(f"HEALTH_FILE {path} is a folder: point it at the file the bot writes, e.g. /tmp/dicebot.health")
    unreached = health.unreachable(path) if found == "missing" else None
    if unreached is not None:
        return fail(f"HEALTH_FILE {unreached}: point it at the file the bot writes, e.g. /tmp/dicebot.health")
    problem = health.problem(path)
    if problem is not None:
        print(f"dicebot: unhealthy: {problem}", file=sys.stderr)
        return EXIT_UNHEALTHY
    return 0


def add_nothing(parser: argparse.ArgumentParser) -> None:
    """A subcommand without arguments."""


def tcp_port(text: str) -> int:
    """A port to listen on: 1 to 65535 (0 would pick a random one, which the printed address could not name)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1 to 65535)")
    return port


def listen_host(text: str) -> str:
    """An address to listen on. Not empty: aiohttp takes that for every interface while the printed address would
    read 0.0.0.0, and an admin who cleared the option meant no such thing."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "an empty host would listen on every interface; name one, e.g. 127.0.0.1 (this machine) or 0.0.0.0 (all)"
        )
    # An IPv6 address is written without brackets here ("::1"); URLs get theirs from bot.urls.netloc.
    return text.removeprefix("[").removesuffix("]") if text.startswith("[") and text.endswith("]") else text


def add_playground(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=tcp_port, default=8080, help="port of the page and the local Discord (8080)")
    parser.add_argument(
        "--host", type=listen_host, default=LOCALHOST, help="address to listen on (127.0.0.1: only this machine)"
    )


#: Subcommand name -> (help, add its arguments, run it). ``python -m bot`` alone runs ``run_default``.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {
    "playground": ("play in the browser against a local Discord (no token needed)", add_playground, run_playground),
    "sync": (
        "sync the slash commands to Discord now and exit (a normal start syncs only when they changed); "
        "it opens the database like a start, creating or migrating it, to note the sync",
        add_nothing,
        run_sync,
    ),
    "migrate-db": (
        "copy a SQLite installation (games in progress included) into an empty PostgreSQL database",
        add_migrate_db,
        run_migrate_db,
    ),
    "backup": (
        "copy the bot's SQLite database (DATABASE_URL) to a new file PATH, also while the bot runs",
        add_backup,
        run_backup,
    ),
    "health": (
        "exit 0 if the running bot's heartbeat (HEALTH_FILE) is recent: a container health check",
        add_nothing,
        run_health,
    ),
}


#: The subcommands that run until stopped, as the bot does: Ctrl+C is how they end, exit code 0.
SERVING = frozenset({"playground"})
#: Exit code of a command a Ctrl+C broke off (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130
#: What a Ctrl+C left, by subcommand. A copy broken off after its commit (while counting what it wrote) is refused
#: as "not empty" when run again: "run it again" alone would not say why (review).
INTERRUPTED = {
    "migrate-db": (
        "interrupted (Ctrl+C) before it finished; run it again (should it find the target not empty, the copy had "
        "been committed and only its check was broken off)"
    ),
}
INTERRUPTED_ANY = "interrupted (Ctrl+C) before it finished; run it again"

#: The subcommands that read no setting, so a damaged ``.env`` does not stop them: ``migrate-db`` takes its URLs as
#: arguments.
WITHOUT_SETTINGS = frozenset({"migrate-db"})


class _Parser(argparse.ArgumentParser):
    """Bad arguments end with one line and exit code 2, like every other admin mistake."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_CONFIG, f"dicebot: {message} (see python -m bot --help)\n")


class _Version(argparse.Action):
    """``--version``, the version read only when asked: ``importlib.metadata`` costs the health check, which parses
    its arguments every few seconds, 10–20 ms (review)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> NoReturn:
        print(f"dicebot {installed_version()}")
        parser.exit(0)


def installed_version() -> str:
    """The version pip installed (pyproject.toml's), for ``--version`` and an admin's bug report."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dicebot")
    except PackageNotFoundError:
        return "unknown (not installed with pip)"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _Parser(
        prog="python -m bot",
        description="Run dicebot: on Discord when DISCORD_TOKEN is set, otherwise the browser playground.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print dicebot's version and exit")
    parser.set_defaults(run=run_default, host=LOCALHOST, port=8080, reads_settings=True, serves=True)
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, (summary, add_arguments, runner) in COMMANDS.items():
        sub = subcommands.add_parser(name, help=summary, description=summary)
        add_arguments(sub)
        sub.set_defaults(
            run=runner,
            reads_settings=name not in WITHOUT_SETTINGS,
            serves=name in SERVING,
            interrupted=INTERRUPTED.get(name, INTERRUPTED_ANY),
        )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.reads_settings:
        # Checked once for every command, before pydantic-settings or python-dotenv meet the file.
        problem = env_file_problem()
        if problem is not None:
            return fail(problem)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        if args.serves:
            # Ctrl+C before the bot or the playground notes it (``bot.stopsignal``): a stop like any other, exit
            # code 0 as the handled one gives, no traceback.
            return 0
        # A backup or a copy broken off is no success: both said nothing and exited 0 (QA). What they leave is
        # theirs to undo (the backup's part file, the copy's one transaction).
        print(f"dicebot: {args.interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":
    sys.exit(main())
