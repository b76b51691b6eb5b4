"""``python -m bot``: validate settings, then run the bot until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

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


def main() -> int:
    try:
        settings = Settings()
    except ValidationError as error:
        return fail(describe_error(error))
    discord.utils.setup_logging(level=getattr(logging, settings.log_level))
    configure_endpoints(settings.discord_api_base, settings.discord_gateway_url)
    bot = create_bot(settings)
    try:
        asyncio.run(run(bot, settings.discord_token.get_secret_value()))
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
