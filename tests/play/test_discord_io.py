"""A connection to Discord that breaks (or times out) on the way is a failed answer or write, like a 5xx.

discord.py passes aiohttp's errors on: a click whose move was saved must still reach the channel's message
(``ResponseFailed`` sends the service there), and a deadline's board edit must be counted as missed, not crash.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest

from bot.play.discord_io import DiscordChannels, InteractionRequest, failed_write
from bot.play.ports import Edit, ResponseFailed
from bot.storage import GameRecord
from bot.ui.render import Rendered

BROKEN = [aiohttp.ServerDisconnectedError(), aiohttp.ClientConnectionError("reset"), TimeoutError()]

RECORD = GameRecord(
    id=3, kind="kniffel", variant="kniffel", guild_id=5, channel_id=6, host="7", status="running", version=4,
    created_at=0.0, updated_at=0.0, message_id=99,
)  # fmt: skip


def failing(error: BaseException) -> Any:
    async def call(*args: Any, **kwargs: Any) -> Any:
        raise error

    return call


def interaction(error: BaseException) -> Any:
    """Just what :class:`InteractionRequest` reads of a slash command, its answers failing with ``error``."""
    user = SimpleNamespace(id=7, display_name="Alice")
    response = SimpleNamespace(is_done=lambda: False, send_message=failing(error), defer=failing(error))
    return SimpleNamespace(
        id=1, user=user, permissions=discord.Permissions.none(), locale="en-US", guild_locale=None, guild_id=5,
        channel_id=6, message=None, client=SimpleNamespace(user=SimpleNamespace(id=8)), data={}, response=response,
    )  # fmt: skip


@pytest.mark.parametrize("error", BROKEN, ids=type)
async def test_an_answer_whose_connection_breaks_is_a_failed_answer(error: BaseException) -> None:
    request = InteractionRequest(interaction(error))
    with pytest.raises(ResponseFailed):
        await request.refuse("play.board_changed")
    with pytest.raises(ResponseFailed):
        await request.send(Rendered(content="board"))
    with pytest.raises(ResponseFailed):
        await request.acknowledge()


class History:
    def __init__(self, error: BaseException) -> None:
        self._error = error

    def __aiter__(self) -> History:
        return self

    async def __anext__(self) -> Any:
        raise self._error


@pytest.mark.parametrize("error", BROKEN, ids=type)
async def test_a_board_write_whose_connection_breaks_is_retried_later(error: BaseException) -> None:
    message = SimpleNamespace(edit=failing(error), delete=failing(error))
    channel = SimpleNamespace(
        get_partial_message=lambda message_id: message, send=failing(error), history=lambda **kw: History(error)
    )
    client = SimpleNamespace(get_partial_messageable=lambda channel_id, guild_id=None: channel)
    channels = DiscordChannels(client)  # type: ignore[arg-type]
    assert await channels.edit(RECORD, Rendered(content="board")) is Edit.RETRY, "a missed edit, shown again later"
    assert await channels.send(RECORD, Rendered(content="board")) is Edit.RETRY
    assert await channels.delete(RECORD, 98) is Edit.RETRY
    assert await channels.below(RECORD) is None


def refusal(kind: type[discord.HTTPException], status: int, code: int) -> discord.HTTPException:
    return kind(SimpleNamespace(status=status, reason="refused"), {"code": code, "message": "refused"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "edit"),
    [
        (refusal(discord.NotFound, 404, 10008), Edit.GONE),
        (refusal(discord.NotFound, 404, 10003), Edit.NO_CHANNEL),
        (refusal(discord.HTTPException, 400, 50035), Edit.REFUSED),
        (refusal(discord.Forbidden, 403, 50013), Edit.REFUSED),
        (refusal(discord.HTTPException, 429, 0), Edit.RETRY),
        (refusal(discord.DiscordServerError, 503, 0), Edit.RETRY),
        *((error, Edit.RETRY) for error in BROKEN),
    ],
    ids=str,
)
def test_only_an_edit_that_may_still_go_through_is_retried(error: BaseException, edit: Edit) -> None:
    assert failed_write(error) is edit


@pytest.mark.parametrize(
    ("error", "deleted"),
    [
        (None, Edit.DONE),
        (refusal(discord.NotFound, 404, 10008), Edit.DONE),
        (refusal(discord.NotFound, 404, 10003), Edit.NO_CHANNEL),
        (refusal(discord.Forbidden, 403, 50013), Edit.REFUSED),
        (refusal(discord.DiscordServerError, 503, 0), Edit.RETRY),
    ],
    ids=str,
)
async def test_deleting_a_message_that_is_gone_already_is_done(error: BaseException | None, deleted: Edit) -> None:
    """A board this process takes back (``LiveBoards._withdraw``) is to be gone: one a moderator deleted first is."""
    asked: list[int] = []

    def message(message_id: int) -> Any:
        async def delete() -> None:
            asked.append(message_id)
            if error is not None:
                raise error

        return SimpleNamespace(delete=delete)

    channel = SimpleNamespace(get_partial_message=message)
    client = SimpleNamespace(get_partial_messageable=lambda channel_id, guild_id=None: channel)
    assert await DiscordChannels(client).delete(RECORD, 98) is deleted  # type: ignore[arg-type]
    assert asked == [98]
