"""End to end: the unmodified discord.py client against fakediscord, through every interaction flow."""

from __future__ import annotations

import io

import aiohttp
import discord
import pytest

from fakediscord import InteractionFailed, InvalidInput, UnknownCommand
from fakediscord.messages import LOADING

from .conftest import TOKEN, Scene, StubBot

pytestmark = pytest.mark.timeout(20)


async def test_login_ready_and_guild_create(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    paths = [(r.method, r.path) for r in server.requests[:2]]
    assert paths == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    sent = [f.t or f.op for f in server.gateway_frames if f.direction == "sent" and f.op != 11]
    assert sent[:3] == [10, "READY", "GUILD_CREATE"]
    assert [f.op for f in server.gateway_frames if f.direction == "received"][:2] == [1, 2]  # heartbeat, identify
    # the heartbeat's ACK comes a round trip later (HEARTBEAT_ACK_DELAY)
    await server.wait_for(lambda: 11 in [f.op for f in server.gateway_frames if f.direction == "sent"] or None)
    assert bot.user is not None
    assert bot.user.id == server.bot.id
    guild = await server.wait_for(lambda: bot.get_guild(scene.guild.id), what="the bot to cache the guild")
    assert [c.name for c in guild.text_channels] == ["dice"]
    assert guild.member_count == 3
    assert guild.me is not None


async def test_command_sync_stores_commands_with_ids(scene: Scene, bot: StubBot) -> None:
    (command,) = scene.server.commands()
    assert command["name"] == "game"
    assert int(command["id"]) > 0
    subcommands = {o["name"]: o for o in command["options"]}
    assert {"start", "score", "secret", "slow"} <= set(subcommands)
    assert [o["name"] for o in subcommands["start"]["options"]] == ["rules", "players"]
    assert scene.server.find_requests("PUT", r"^/applications/\d+/commands$")[0].status == 200


async def test_slash_command_gets_a_reply(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game start", rules="classic", players=3)
    message = await reply.message()
    assert reply.response_type == 4
    assert message.content == "new game (classic)"
    assert message.embeds[0]["title"] == "Kniffel"
    assert message.embeds[0]["description"] == "3 players"
    assert message.button(label="Join").custom_id == f"join:{reply.id}"
    assert message.author is scene.server.bot
    assert message.interaction_metadata["user"]["id"] == str(scene.alice.id)
    assert scene.server.channel_messages(scene.channel) == [message]
    assert any(f.t == "MESSAGE_CREATE" for f in scene.server.gateway_frames)


async def test_button_click_edits_the_message_in_place(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game start", rules="classic")
    message = await reply.message()
    click = await scene.server.click_button(scene.bob, message, prefix="join:")
    assert await click.message() is message
    assert click.response_type == 7
    assert message.content == f"Bob joined game {reply.id}"
    assert message.edits == 1
    assert message.edited_timestamp is not None


async def test_select_sends_the_chosen_values(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game score")
    message = await reply.message()
    assert message.select().values == ["full_house", "chance", "kniffel"]
    pick = await scene.server.select(scene.alice, message, "score:pick", ["full_house", "kniffel"])
    assert (await pick.message()).content == "scored full_house, kniffel"
    assert pick.response_type == 6  # deferred update, then PATCH @original
    with pytest.raises(InvalidInput):
        await scene.server.select(scene.alice, message, "score:pick", ["yahtzee"])


async def test_ephemeral_reply_is_visible_only_to_its_user(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    reply = await server.slash(scene.alice, scene.channel, "game secret")
    message = await reply.message()
    assert message.ephemeral
    assert reply.ephemeral_messages == [message]
    assert message in server.visible_messages(scene.channel, scene.alice)
    assert message not in server.visible_messages(scene.channel, scene.bob)
    assert server.channel_messages(scene.channel) == []
    with pytest.raises(InvalidInput, match="cannot see"):
        await server.click_button(scene.bob, message, label="Join")


async def test_deferral_then_followup_replaces_the_thinking_message(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game slow")
    assert await reply.response() == 5
    assert reply.original is not None
    message = await reply.message()
    assert message.content == "done thinking"
    assert not message.flags & LOADING
    assert reply.followups == [message]
    assert message is reply.original


async def test_user_option_is_resolved_to_a_member(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game challenge", opponent=scene.bob)
    assert (await reply.message()).content == "Alice challenges Bob"
    resolved = reply.payload["data"]["resolved"]
    assert str(scene.bob.id) in resolved["users"]
    assert str(scene.bob.id) in resolved["members"]


async def test_autocomplete_suggestions_reach_the_user_and_a_pick_is_sent_typed(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    typing = await server.autocomplete(scene.alice, scene.channel, "game resume", "save", "1")
    assert await typing.suggestions() == [{"name": "Save #1", "value": 1}, {"name": "Save #12", "value": 12}]
    assert typing.response_type == 8 and typing.messages == [] and server.channel_messages(scene.channel) == []
    nothing_typed = await server.autocomplete(scene.alice, scene.channel, "game resume", "save", "")
    assert [choice["value"] for choice in await nothing_typed.suggestions()] == [1, 12, 20]
    assert await (await server.autocomplete(scene.alice, scene.channel, "game resume", "save", "3")).suggestions() == []
    reply = await server.slash(scene.alice, scene.channel, "game resume", save=12)
    assert (await reply.message()).content == "resuming save 12"
    with pytest.raises(InvalidInput, match="has no autocomplete"):
        await server.autocomplete(scene.alice, scene.channel, "game start", "rules", "c")


async def test_modal_is_opened_and_submitted(scene: Scene, bot: StubBot) -> None:
    opened = await scene.server.slash(scene.alice, scene.channel, "game name")
    assert await opened.response() == 9
    assert opened.modal is not None
    submitted = await scene.server.submit_modal(scene.alice, opened, {"name": "Alice the Bold"})
    assert (await submitted.message()).content == "hello Alice the Bold"


async def test_attachments_arrive_through_multipart(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game log")
    (attachment,) = (await reply.message()).attachments
    assert (attachment.filename, attachment.data) == ("roll.txt", b"6 6 6 6 6")
    callback = reply.requests[0]
    assert callback.json["data"]["attachments"] == [{"id": 0, "filename": "roll.txt"}]


async def test_channel_send_and_edit(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    await (await server.slash(scene.alice, scene.channel, "game board")).message()
    message = await server.wait_for(
        lambda: next((m for m in server.channel_messages(scene.channel) if m.edits), None), what="the board edit"
    )
    assert message.content == "scoreboard v2"
    assert [r.method for r in server.find_requests(path=r"^/channels/\d+/messages")] == ["POST", "PATCH"]


async def test_invalid_slash_input_is_refused_before_dispatch(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    with pytest.raises(UnknownCommand):
        await server.slash(scene.alice, scene.channel, "kniffel start")
    with pytest.raises(UnknownCommand):
        await server.slash(scene.alice, scene.channel, "game stop")
    with pytest.raises(InvalidInput, match="no option"):
        await server.slash(scene.alice, scene.channel, "game start", rules="classic", colour="red")
    with pytest.raises(InvalidInput, match="missing"):
        await server.slash(scene.alice, scene.channel, "game start")
    with pytest.raises(InvalidInput, match="one of"):
        await server.slash(scene.alice, scene.channel, "game start", rules="chaos")
    with pytest.raises(InvalidInput, match="within"):
        await server.slash(scene.alice, scene.channel, "game start", rules="classic", players=9)
    assert server.interactions == []


async def test_late_response_fails_the_interaction(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game sleepy")
    scene.server.advance_time(scene.server.interaction_timeout)
    assert "not acknowledged" in await reply.wait_failed()
    bot.answer_now.set()
    with pytest.raises(InteractionFailed):
        await reply.message()
    await scene.server.wait_for(lambda: bot.api_errors, what="the bot to see the error")
    assert bot.api_errors[0].code == 10062
    assert bot.api_errors[0].status == 404
    assert scene.server.channel_messages(scene.channel) == []


async def test_second_acknowledgement_is_rejected(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game score")
    await reply.message()
    # A second bot process answering the same interaction (a classic cause of 40060).
    url = f"{scene.server.api_base}/interactions/{reply.id}/{reply.token}/callback"
    async with aiohttp.ClientSession() as http, http.post(url, json={"type": 4, "data": {"content": "me too"}}) as r:
        assert r.status == 400
        assert (await r.json())["code"] == 40060
    assert reply.api_errors[0].response["message"] == "Interaction has already been acknowledged."


async def test_component_limit_violation_is_invalid_form_body(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game broken")
    await scene.server.wait_for(lambda: bot.api_errors, what="the bot to see the error")
    error = bot.api_errors[0]
    assert (error.status, error.code) == (400, 50035)
    label_errors = reply.api_errors[0].response["errors"]["data"]["components"]["0"]["components"]["0"]["label"]
    assert label_errors["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert not reply.acknowledged
    scene.server.advance_time(scene.server.interaction_timeout)
    await reply.wait_failed()


async def test_rate_limited_callback_is_retried(scene: Scene, bot: StubBot) -> None:
    fault = scene.server.inject_rest_error("POST", r"^/interactions/\d+/[^/]+/callback$", 429, retry_after=0.01)
    reply = await scene.server.slash(scene.alice, scene.channel, "game score")
    assert (await reply.message()).content == "score sheet"
    assert fault.hits == 1
    assert [r.status for r in reply.requests] == [429, 200]


async def test_expired_token_rejects_followups(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game score")
    await reply.message()
    scene.server.advance_time(15 * 60 + 1)
    async with aiohttp.ClientSession() as http:
        webhook = discord.Webhook.partial(scene.server.application_id, reply.token, session=http)
        with pytest.raises(discord.HTTPException) as caught:
            await webhook.send("too late", wait=True)
    assert (caught.value.status, caught.value.code) == (401, 50027)


async def test_wrong_token_fails_login(scene: Scene) -> None:
    from bot.endpoints import configure_endpoints

    configure_endpoints(scene.server.api_base, scene.server.gateway_url)
    client = discord.Client(intents=discord.Intents.none())
    try:
        with pytest.raises(discord.LoginFailure):
            await client.login(TOKEN + "-wrong")
    finally:
        await client.close()
        configure_endpoints(None, None)
    assert scene.server.requests[-1].status == 401


async def test_rest_reads_and_dms_parse_in_discord_py(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    user = await bot.fetch_user(scene.alice.id)
    dm = await user.send("your turn")
    assert server.channel_messages(server.dm_channel(scene.alice))[0].content == "your turn"
    assert dm.channel.id == server.dm_channel(scene.alice).id
    channel = await bot.fetch_channel(scene.channel.id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("hello")
    assert (await channel.fetch_message(sent.id)).content == "hello"
    assert [m.content async for m in channel.history(limit=5)] == ["hello"]
    guild = await bot.fetch_guild(scene.guild.id)
    member = await guild.fetch_member(scene.bob.id)
    assert member.display_name == "Bob"
    (command,) = await bot.tree.fetch_commands()
    assert command.name == "game"
    await sent.delete()
    assert server.channel_messages(scene.channel) == []
    assert server.unhandled_requests == []


async def test_followup_with_file_then_edit_attachments(scene: Scene, bot: StubBot) -> None:
    reply = await scene.server.slash(scene.alice, scene.channel, "game score")
    await reply.message()
    async with aiohttp.ClientSession() as http:
        webhook = discord.Webhook.partial(scene.server.application_id, reply.token, session=http)
        sent = await webhook.send("sheet", file=discord.File(io.BytesIO(b"csv"), filename="sheet.csv"), wait=True)
        followup = await reply.followup(0)
        assert followup.attachments[0].data == b"csv"
        assert sent.attachments[0].filename == "sheet.csv"
        await webhook.edit_message(sent.id, content="no sheet", attachments=[])
    assert followup.content == "no sheet"
    assert followup.attachments == []
    assert reply.messages == [reply.original, followup]


# -- editing an ephemeral message through the interaction's token (as Discord does: the only way to edit one) --


async def patch_original(scene: Scene, token: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    """``PATCH /webhooks/{app}/{token}/messages/@original`` (no bot token: the interaction token is the key)."""
    url = f"{scene.server.api_base}/webhooks/{scene.server.application_id}/{token}/messages/@original"
    async with aiohttp.ClientSession() as http, http.patch(url, json=body) as response:
        return response.status, await response.json()


async def test_an_ephemeral_reply_is_edited_through_its_token(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    reply = await server.slash(scene.alice, scene.channel, "game secret")
    message = await reply.message()
    status, payload = await patch_original(scene, reply.token, {"content": "your grid, round 2"})
    assert status == 200
    assert payload["id"] == str(message.id)
    assert payload["flags"] & 64  # still ephemeral: an edit never changes that
    assert message.content == "your grid, round 2"
    assert message.button(label="Join")  # fields absent from the PATCH are kept
    assert message.ephemeral
    assert message in server.visible_messages(scene.channel, scene.alice)
    assert message not in server.visible_messages(scene.channel, scene.bob)
    assert not [f for f in server.gateway_frames if f.t == "MESSAGE_UPDATE" and f.d["id"] == str(message.id)]
    # The channel routes do not know ephemeral messages: 404 Unknown Message, even for the bot.
    url = f"{server.api_base}/channels/{scene.channel.id}/messages/{message.id}"
    headers = {"Authorization": f"Bot {TOKEN}"}
    async with aiohttp.ClientSession() as http, http.patch(url, json={"content": "x"}, headers=headers) as response:
        assert (response.status, (await response.json())["code"]) == (404, 10008)
    assert message.content == "your grid, round 2"


async def test_a_click_on_an_ephemeral_message_gives_a_token_that_edits_it(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    reply = await server.slash(scene.alice, scene.channel, "game secret")
    message = await reply.message()
    click = await server.click_button(scene.alice, message, label="Join")
    assert await click.message() is message  # type 7: the clicked message is the click's original response
    status, _ = await patch_original(scene, click.token, {"content": "edited through the click's token"})
    assert status == 200
    assert message.content == "edited through the click's token"
    assert message.ephemeral
    assert message.edits == 2


async def test_an_expired_token_cannot_edit_the_ephemeral_reply(scene: Scene, bot: StubBot) -> None:
    server = scene.server
    reply = await server.slash(scene.alice, scene.channel, "game secret")
    message = await reply.message()
    server.advance_time(server.token_lifetime + 1)
    status, payload = await patch_original(scene, reply.token, {"content": "too late"})
    assert (status, payload["code"]) == (401, 50027)
    assert message.content == "only for you"
