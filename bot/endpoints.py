"""Point discord.py at another Discord-compatible REST base and gateway (a proxy or the local test server)."""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl

DISCORD_API_BASE = "https://discord.com/api/v10"
DISCORD_GATEWAY_URL = "wss://gateway.discord.gg/"


def configure_endpoints(api_base: str | None, gateway_url: str | None) -> None:
    """Route all REST calls (bot and interaction webhooks) and the gateway connection to the given URLs.

    discord.py keeps both endpoints as class attributes, so this is process-wide; ``None`` restores the real
    Discord endpoint. Webhook routes share ``discord.http.Route``, so one assignment covers interaction
    callbacks and followups too.
    """
    discord.http.Route.BASE = (api_base or DISCORD_API_BASE).rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url or DISCORD_GATEWAY_URL)
