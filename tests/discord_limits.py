"""Discord's limits on a message, checked by fakediscord's own validation: one checker for every test.

fakediscord refuses a payload over a limit the way Discord does (``fakediscord/validation.py``: content 2,000,
embeds 6,000 in total, titles, descriptions, 25 fields of 256/1,024, 5 rows of 5 buttons, labels 80, select
options 25 of 100, placeholders 150, custom ids 100). Rendering tests run the same validation on a ``Rendered``
without a server, and end-to-end tests on every payload the bot sent, so each limit is written down once. Whom a
message may ping is checked here too: a name like ``@everyone`` in a board's text must never ping anyone.
"""

from __future__ import annotations

import re
from typing import Any

from bot.ui.render import Rendered
from fakediscord import FakeDiscord
from fakediscord.messages import mentioned_ids
from fakediscord.validation import FormErrors, validate_message

#: Requests whose body is a message (posted or edited): channel messages, follow-ups and their edits.
MESSAGE_PATHS = re.compile(r"/channels/\d+/messages(/\d+)?$|/webhooks/\d+/[^/]+(/messages/[^/]+)?$")
#: Interaction callbacks that carry a message: a reply (4) and the clicked message's update (7).
MESSAGE_CALLBACKS = (4, 7)


def payload(rendered: Rendered) -> dict[str, Any]:
    """The message JSON the bot sends for ``rendered`` (components as a click's answer writes them)."""
    return {
        "content": rendered.content,
        "embeds": [embed.to_dict() for embed in rendered.embeds],
        "components": rendered.layout.components(),
    }


def limit_errors(message: dict[str, Any]) -> dict[str, Any]:
    """fakediscord's ``Invalid Form Body`` errors for a message payload, by field path (empty: it fits)."""
    errors = FormErrors()
    validate_message(message, errors)
    return errors.tree


def assert_fits(rendered: Rendered) -> None:
    """Assert that Discord would take ``rendered`` as a message."""
    errors = limit_errors(payload(rendered))
    assert not errors, errors


def sent_messages(server: FakeDiscord) -> list[dict[str, Any]]:
    """Every message payload the bot sent to the server (posts, edits, interaction answers), in order."""
    messages = []
    for request in server.rest.requests:
        body = request.json if isinstance(request.json, dict) else None
        if body is None or request.method not in ("POST", "PATCH"):
            continue
        if request.path.endswith("/callback"):
            if body.get("type") in MESSAGE_CALLBACKS:
                messages.append(body.get("data") or {})
        elif MESSAGE_PATHS.search(request.path):
            messages.append(body)
    return messages


def assert_every_message_fits(server: FakeDiscord) -> None:
    """Assert that every message the bot sent is within Discord's limits and none was refused as over one."""
    for message in sent_messages(server):
        errors = limit_errors(message)
        assert not errors, (errors, message)
    refused = [str(request) for request in server.rest.requests if request.status == 400]
    assert not refused, refused


def assert_pings_only_people(server: FakeDiscord) -> None:
    """Assert that every message with text the bot sent lets Discord ping the users it mentions and nobody else.

    fakediscord does not resolve mentions; Discord pings ``@everyone``, ``@here`` and roles in a message's text
    unless its ``allowed_mentions`` say otherwise, and a display name is free text.
    """
    for message in sent_messages(server):
        if not message.get("content"):
            continue
        allowed = message.get("allowed_mentions")
        assert allowed is not None, message
        assert set(allowed.get("parse", [])) <= {"users"} and not allowed.get("roles"), message


def pinged(server: FakeDiscord) -> set[int]:
    """The users some message the bot sent (any version of it) mentions and lets Discord ping."""
    return {
        user
        for message in sent_messages(server)
        for user in mentioned_ids(message.get("content") or "", message.get("allowed_mentions"))
    }
