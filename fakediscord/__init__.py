"""fakediscord: a local Discord (REST v10 + gateway) that the unmodified discord.py client can connect to.

It exists to drive a real bot end to end in tests (and later a browser playground) without the network: fake
users run slash commands, click buttons and pick select options; the server enforces Discord's rules (the
3-second acknowledgement deadline, 15-minute tokens, double acknowledgement, component and embed limits,
ephemeral visibility) and records everything the bot does.

Quick start::

    from bot.endpoints import configure_endpoints
    from fakediscord import FakeDiscord

    async with FakeDiscord(token="t") as server:
        guild = server.add_guild("Test")
        channel = server.add_channel(guild, "dice")
        alice = server.add_user("Alice")
        configure_endpoints(server.api_base, server.gateway_url)
        ...                                      # start the bot with token "t"
        await server.wait_until_ready()          # READY + GUILD_CREATE sent
        await server.wait_for_commands(names=["kniffel"])
        reply = await server.slash(alice, channel, "kniffel start", rules="classic")
        msg = await reply.message()              # the response, after any deferral
        click = await server.click_button(alice, msg, label="Join")
        assert (await click.message()).content == "..."

Main pieces (see README.md beside this file for the full API):

- :class:`FakeDiscord` -- the server: world building (``add_guild``, ``add_channel``, ``add_user``), user
  actions (``slash``, ``autocomplete``, ``click``, ``click_button``, ``select``, ``submit_modal``,
  ``post_message``), reading (``channel_messages``, ``visible_messages``, ``requests``), waiting
  (``wait_until_ready``, ``wait_for_commands``, ``wait_for``) and disturbances (``inject_rest_error``,
  ``reconnect_gateway``, ``invalidate_session``, ``drop_gateway``, ``advance_time``).
- :class:`InteractionHandle` -- one user action and the bot's answer: ``response()``, ``message()``,
  ``followup()``, ``suggestions()``, ``wait_failed()``, ``failed``, ``ephemeral_messages``, ``api_errors``.
- :class:`Message` -- a live message (edits apply in place) with ``content``, ``embeds``, ``components``,
  ``flags``, ``ephemeral``, ``text`` and ``button()`` / ``select()`` finders.
"""

from __future__ import annotations

from fakediscord.components import Button, Select, SelectOption
from fakediscord.errors import (
    APIError,
    ComponentNotFound,
    FakeDiscordError,
    InteractionFailed,
    InvalidInput,
    UnknownCommand,
)
from fakediscord.faults import Fault
from fakediscord.gateway import GatewayFrame
from fakediscord.interactions import InteractionHandle
from fakediscord.messages import Attachment, Message
from fakediscord.models import Channel, Guild, Role, User
from fakediscord.rest import RecordedRequest
from fakediscord.server import FakeDiscord

__all__ = [
    "APIError",
    "Attachment",
    "Button",
    "Channel",
    "ComponentNotFound",
    "FakeDiscord",
    "FakeDiscordError",
    "Fault",
    "GatewayFrame",
    "Guild",
    "InteractionFailed",
    "InteractionHandle",
    "InvalidInput",
    "Message",
    "RecordedRequest",
    "Role",
    "Select",
    "SelectOption",
    "UnknownCommand",
    "User",
]
