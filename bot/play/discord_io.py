"""The Discord side of the plumbing: an interaction as a :class:`~bot.play.ports.Request`, and a game's channel.

Everything the service says to Discord goes through here: ephemeral refusals, the type-7 edit of a clicked
message, the public lobby message, posting, editing and deleting a game's boards, and reading the channel below
them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
from discord.http import Route
from discord.webhook.async_ import async_context

from bot.i18n import t
from bot.play.board import LOOK_BELOW
from bot.play.lateness import Lateness
from bot.play.ports import Edit, ResponseFailed
from bot.play.transitions import Actor
from bot.storage import GameRecord
from bot.storage.names import storable_name
from bot.ui.render import Rendered, embed_payload, name_in_markdown

log = logging.getLogger(__name__)

#: What a request to Discord fails with: Discord's refusal (an HTTP error), or no answer at all, the connection
#: having broken or timed out (discord.py passes aiohttp's errors on, bar a retry of a reset connection); whether
#: Discord acted on a request without an answer is unknown, as with a 5xx.
REQUEST_FAILED = (discord.HTTPException, aiohttp.ClientError, TimeoutError)
#: Discord's error code for a message that does not exist (any more): a board deleted by a moderator.
UNKNOWN_MESSAGE = 10008
#: And for a channel that does not exist (any more): the game's channel was deleted.
UNKNOWN_CHANNEL = 10003
#: A board posted anew pings the people it mentions (the player to act), never a role or everyone.
PING_PEOPLE = discord.AllowedMentions(everyone=False, roles=False, users=True)
#: How late interactions reach the service, against the quickest recent one (one per process: one clock).
LATENESS = Lateness()
#: All :class:`InteractionRequest` reads of the message a game click was on; the gateway hands it over with these
#: fields alone (``DiceBot._interaction_created``), so a new field read here must be added here.
CLICKED_MESSAGE = ("id", "channel_id", "guild_id", "author", "type", "flags", "interaction_metadata")
#: The key of a game click's ``interaction.data`` under which ``DiceBot._interaction_created`` leaves the games whose
#: controls the clicked message carries (its components are not handed over).
MESSAGE_GAMES = "dicebot_message_games"
#: The callback type that answers a click by editing its message.
UPDATE_MESSAGE = discord.InteractionResponseType.message_update.value


def actor_of(user: discord.abc.User, *, moderator: bool = False) -> Actor:
    """A Discord user as the service sees one: their id as the seat's player id, and their display name as the
    databases can store it (else the user's id: a name of control characters alone)."""
    return Actor(str(user.id), storable_name(user.display_name, str(user.id)), moderator=moderator)


class InteractionRequest:
    """A slash command or a component click, answered through its interaction."""

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        self.actor = actor_of(interaction.user, moderator=interaction.permissions.manage_messages)
        self.locale = str(interaction.locale)
        self.guild_locale = str(interaction.guild_locale) if interaction.guild_locale is not None else None
        self.guild_id = interaction.guild_id
        self.channel_id = interaction.channel_id
        message = interaction.message
        self.message_id = message.id if message is not None else None
        self.message_is_private = bool(message is not None and message.flags.ephemeral)
        metadata = message.interaction_metadata if message is not None else None
        self.message_owner = str(metadata.user.id) if metadata is not None else None
        me = interaction.client.user
        self.message_by_bot = bool(message is not None and me is not None and message.author.id == me.id)
        self.message_games = message_games(interaction)
        #: The message this request's answer showed privately: the clicked one once updated, a new private reply.
        self._answered: int | None = None

    def expired(self) -> bool:
        return LATENESS.too_late(self.interaction.id)

    async def refuse(self, key: str, **params: Any) -> None:
        await self._private_text(t(key, self.locale, **name_in_markdown(params)))

    async def confirm(self, key: str) -> None:
        await self._private_text(t(key, self.locale))

    async def send(self, rendered: Rendered) -> int:
        async with _answering():
            # The callback's answer names the new message: no second request whose failure would lose its id.
            callback = await self.interaction.response.send_message(**rendered.kwargs())
            if callback.message_id is not None:
                return callback.message_id
            message = await self.interaction.original_response()
        return message.id

    async def show_private(self, rendered: Rendered) -> None:
        async with _answering():
            callback = await self.interaction.response.send_message(ephemeral=True, **rendered.kwargs())
        self._answered = callback.message_id

    async def update(self, rendered: Rendered) -> None:
        async with _answering():
            await _edit_clicked_message(self.interaction, rendered)
        self._answered = self.message_id

    async def acknowledge(self) -> None:
        async with _answering():
            await self.interaction.response.defer()

    async def defer_private(self) -> None:
        async with _answering():
            await self.interaction.response.defer(ephemeral=True, thinking=True)

    async def edit_private(self, rendered: Rendered) -> None:
        async with _answering():
            await self.interaction.edit_original_response(**rendered.kwargs())

    def private_message(self) -> OriginalResponse:
        return OriginalResponse(self.interaction, self._answered)

    async def _private_text(self, text: str) -> None:
        async with _answering():
            if self.interaction.response.is_done():
                await self.interaction.followup.send(text, ephemeral=True)
            else:
                await self.interaction.response.send_message(text, ephemeral=True)


def message_games(interaction: discord.Interaction[Any]) -> frozenset[int]:
    """The games whose controls the clicked message carries, from Discord's copy of the message (a forged click
    can name any game in its id, but not change the message it was made on); none for a command."""
    data: Any = interaction.data or {}
    return frozenset(data.get(MESSAGE_GAMES, ()))


async def _edit_clicked_message(interaction: discord.Interaction[Any], rendered: Rendered) -> None:
    """Answer a click by editing its message (callback type 7), without asking Discord to echo the message back.

    ``InteractionResponse.edit_message`` always asks for the response (``?with_response=1``) and parses the echoed
    message into a ``Message``, and it stores the new view for the message in discord.py's view store; the game
    needs neither (every game component is dispatched by its id, whatever the message: ``components.py``). Measured by
    bench.load, about a tenth of the bot's CPU per click went to those. Same request otherwise, made through
    discord.py's own webhook adapter, so rate limits and errors are handled as before.
    """
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    payload = update_payload(rendered, interaction._state.allowed_mentions)
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )
    http = interaction._state.http
    await async_context.get().request(
        route, session=interaction._session, proxy=http.proxy, proxy_auth=http.proxy_auth, payload=payload
    )
    response._response_type = discord.InteractionResponseType.message_update


def update_payload(rendered: Rendered, allowed_mentions: discord.AllowedMentions | None) -> dict[str, Any]:
    """The type-7 callback's JSON, key for key what discord.py's ``interaction_message_response_params`` writes for
    ``Rendered.kwargs()``, built from plain dicts: the layout's components rather than a ``View`` of ``Button`` and
    ``Select`` objects, and each embed's through :func:`~bot.ui.render.embed_payload`. Those parameters' checks and
    branches for files, polls, flags and merged mentions, which an update never uses, and ``Embed.to_dict``'s probe
    of every slot cost more than a percent of a click (docs/benchmarks.md); ``tests/ui/test_payloads.py`` compares
    the JSON with discord.py's for every game.
    """
    data: dict[str, Any] = {
        "tts": False,
        "embeds": [embed_payload(embed) for embed in rendered.embeds],
        "content": rendered.content,
        "components": rendered.layout.components(),
    }
    if allowed_mentions is not None:
        data["allowed_mentions"] = allowed_mentions.to_dict()
    return {"type": UPDATE_MESSAGE, "data": data}


class OriginalResponse:
    """The interaction's original response, edited through its token (``PATCH /webhooks/{app}/{token}/messages/
    @original``): the reply it created, or the message a click on a component updated (type 7)."""

    def __init__(self, interaction: discord.Interaction[Any], message_id: int | None) -> None:
        self._interaction = interaction
        self.id = message_id

    async def edit(self, rendered: Rendered) -> None:
        async with _answering():
            await self._interaction.edit_original_response(**rendered.kwargs())

    async def delete(self) -> None:
        async with _answering():
            await self._interaction.delete_original_response()


@contextlib.asynccontextmanager
async def _answering() -> AsyncIterator[None]:
    """Turn Discord's refusal to take an answer (expired interaction 10062, 5xx, rate limit), or a connection that
    broke on the way, into the port's error."""
    try:
        yield
    except REQUEST_FAILED as error:
        raise ResponseFailed(described(error)) from error


def described(error: BaseException) -> str:
    """A failed request in a log line: Discord's status, code and text, or the connection's error."""
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.code}: {error.text}"
    return f"no answer from Discord: {error!r}"


def failed_write(error: BaseException) -> Edit:
    """What a failed edit (or post) of a message calls for: only a rate limit, a server error or no answer is worth
    another try; a message that is gone is posted anew, a game whose channel is gone ends; any other refusal (400
    invalid payload, 403 not allowed) would be refused again, for ever."""
    if not isinstance(error, discord.HTTPException) or error.status == 429 or error.status >= 500:
        return Edit.RETRY
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_MESSAGE:
        return Edit.GONE
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL:
        return Edit.NO_CHANNEL
    return Edit.REFUSED


class DiscordChannels:
    """Edits, posts and deletes a game's boards and reads what is below them, through the bot's REST client."""

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    async def edit(self, record: GameRecord, rendered: Rendered, message_id: int | None = None) -> Edit:
        target = message_id if message_id is not None else record.message_id
        if target is None:
            return Edit.GONE
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        try:
            await channel.get_partial_message(target).edit(**rendered.kwargs())
        except REQUEST_FAILED as error:
            edit = failed_write(error)
            again = "; not retried" if edit is Edit.REFUSED else ""
            log.warning("could not edit message %s of game %s: %s%s", target, record.id, described(error), again)
            return edit
        return Edit.DONE

    async def send(self, record: GameRecord, rendered: Rendered) -> int | Edit:
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        try:
            message = await channel.send(**rendered.kwargs(), allowed_mentions=PING_PEOPLE)
        except REQUEST_FAILED as error:
            log.warning("could not post the board of game %s: %s", record.id, described(error))
            return failed_write(error)
        return message.id

    async def delete(self, record: GameRecord, message_id: int) -> Edit:
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        try:
            await channel.get_partial_message(message_id).delete()
        except REQUEST_FAILED as error:
            deleted = failed_write(error)
            if deleted is Edit.GONE:
                return Edit.DONE  # deleted already (by a moderator, say): what was asked for
            log.warning("could not delete message %s of game %s: %s", message_id, record.id, described(error))
            return deleted
        return Edit.DONE

    async def below(self, record: GameRecord) -> int | None:
        if record.message_id is None:
            return None
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        try:
            return len([m async for m in channel.history(limit=LOOK_BELOW, after=discord.Object(record.message_id))])
        except REQUEST_FAILED as error:
            # Without Read Message History (or on a server error, or no answer) the board stays where it is.
            log.warning("could not read below the board of game %s: %s", record.id, described(error))
            return None
