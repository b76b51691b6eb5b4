"""``python -m bot``: validate settings, then run the bot until SIGTERM or SIGINT (``sync``: force a command sync)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

import discord
from pydantic import ValidationError

from bot.app import DiceBot, create_bot
from bot.endpoints import configure_endpoints
from bot.settings import Settings, describe_error
from bot.storage import DatabaseError

EXIT_CONFIG = 2


def fail(message: str) -> int:
    print(f"dicebot: {message}", file=sys.stderr)
    return EXIT_CONFIG


class _Parser(argparse.ArgumentParser):
    """Bad arguments end with one line and exit code 2, like every other admin mistake."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_CONFIG, f"dicebot: {message} (see python -m bot --help)\n")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _Parser(prog="python -m bot", description="Run dicebot, the Discord dice games bot.")
    commands = parser.add_subparsers(dest="command", metavar="command")
    commands.add_parser(
        "sync", help="sync the slash commands to Discord now and exit (a normal start syncs only when they changed)"
    )
    return parser.parse_args(argv)


async def run(bot: DiceBot, token: str) -> None:
    """Start the bot; a termination signal closes it cleanly (database last)."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: asyncio.ensure_future(bot.close()))
    try:
        await bot.start(token)
    finally:
        # start() returns as soon as the gateway closes; wait here until the database is closed too.
        await bot.close()


async def sync(bot: DiceBot, token: str) -> None:
    """Log in, which opens storage, loads the cogs and forces the command sync; then close without the gateway."""
    async with bot:
        await bot.login(token)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as error:
        return fail(describe_error(error))
    discord.utils.setup_logging(level=getattr(logging, settings.log_level))
    configure_endpoints(settings.discord_api_base, settings.discord_gateway_url)
    bot = create_bot(settings, sync_only=args.command == "sync")
    token = settings.discord_token.get_secret_value()
    try:
        asyncio.run(sync(bot, token) if args.command == "sync" else run(bot, token))
    except DatabaseError as error:
        return fail(str(error))
    except discord.LoginFailure:
        return fail("DISCORD_TOKEN was rejected by Discord: copy the bot token again from the developer portal")
    except discord.PrivilegedIntentsRequired:
        return fail("Discord refused the requested gateway intents: check the bot's settings in the developer portal")
    except (OSError, discord.GatewayNotFound, discord.HTTPException) as error:
        return fail(f"cannot reach Discord ({error}); check the network or DISCORD_API_BASE/DISCORD_GATEWAY_URL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
