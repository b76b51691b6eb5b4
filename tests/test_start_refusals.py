"""The one line an admin reads when Discord refuses the bot's start-up requests (``bot.__main__.refused_at_start``)."""

from __future__ import annotations

from types import SimpleNamespace

import discord

from bot.__main__ import refused_at_start


def refusal(status: int, code: int, message: str) -> discord.HTTPException:
    return discord.HTTPException(SimpleNamespace(status=status, reason=message), {"code": code, "message": message})


def test_an_unknown_dev_server_names_the_setting_instead_of_asking_to_try_again() -> None:
    """A positive DEV_GUILD_ID of no server the bot is in: Discord's 404 read "try again later" (QA)."""
    line = refused_at_start(refusal(404, 10004, "Unknown Guild"), 123456789012345678, None)
    assert line == (
        "Discord knows no such server (404 Unknown Guild): is the bot in the server DEV_GUILD_ID=123456789012345678 "
        "names? check the id and the bot's invitation"
    )


def test_a_404_without_a_dev_server_and_a_server_error_stay_something_to_retry() -> None:
    assert refused_at_start(refusal(404, 10002, "Unknown Application"), None, None).endswith("; try again later")
    assert refused_at_start(refusal(500, 0, "Internal Server Error"), 42, None).endswith("; try again later")


def test_a_404_from_an_api_base_of_the_admins_names_the_setting() -> None:
    """A wrong path (http://127.0.0.1:PORT/nothing) read "try again later" (QA); with DEV_GUILD_ID set as well it
    would have blamed the server. Discord's own base and its Unknown Guild keep their lines."""
    base = "http://127.0.0.1:8080/nothing"
    expected = (
        f"DISCORD_API_BASE={base} answered a start-up request with 404 Not Found: check its path "
        "(Discord's REST base is https://discord.com/api/v10), or leave it empty for Discord's"
    )
    assert refused_at_start(refusal(404, 0, "Not Found"), None, base) == expected
    assert refused_at_start(refusal(404, 0, "Not Found"), 42, base) == expected
    assert refused_at_start(refusal(404, 10004, "Unknown Guild"), 42, base).startswith("Discord knows no such server")
    discords = "https://discord.com/api/v10/"
    assert refused_at_start(refusal(404, 10002, "Unknown Application"), None, discords).endswith("; try again later")
