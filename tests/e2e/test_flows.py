"""Lobby and host flows as people really use them: the host walks away, the server's language changes between
games, a lobby button is pressed after the start, a private view is asked for while the database is away."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.engine import kniffel
from bot.i18n import t
from fakediscord import User
from tests.e2e.board import live_board, settle
from tests.e2e.conftest import Harness, world
from tests.e2e.dice import play_to_end, play_turn
from tests.e2e.test_board import chat
from tests.postgres import fresh_schema, server_url
from tests.tcp_proxy import Relay

pytestmark = pytest.mark.timeout(180)

MANAGE_GUILD = 1 << 5


async def host(h: Harness) -> User:
    record = await h.record()
    assert record is not None
    return h.user(record.host)


async def test_the_host_role_passes_to_the_earliest_joined_player_still_seated(running: Harness) -> None:
    h = running
    dan = h.server.add_user("Dan")
    h.users.append(dan)
    lobby = await h.open_lobby("kniffel", h.alice, turn_timeout=1)
    for player in (h.bob, h.carol, dan):
        await h.click(player, lobby, "Join")

    await h.click(h.alice, lobby, "Leave")
    assert await host(h) == h.bob  # the lobby can still be started
    await h.click(h.bob, lobby, "Start")
    assert (await h.record()).status == "running"  # type: ignore[union-attr]

    left = await h.command(h.bob, "kniffel leave")
    assert (await left.message()).text == t("play.you_left", "en")
    assert await host(h) == h.carol  # the running game still has a host who may end it

    while (await h.record()).seat(str(h.carol.id)).status == "active":  # type: ignore[union-attr]
        if (await h.state()).current_player == str(h.carol.id):
            await h.advance(61)  # Carol is away: three timeouts in a row remove her
        else:
            await play_turn(h, await live_board(h), chase=False)
    assert await host(h) == dan

    refused = await h.command(h.alice, "kniffel end")
    assert (await refused.message()).text == t("play.end_not_allowed", "en")
    ended = await h.command(dan, "kniffel end")
    assert (await ended.message()).text == t("play.you_ended", "en")
    assert (await h.record()).status == "abandoned"  # type: ignore[union-attr]


async def test_a_rematch_lobby_speaks_the_servers_current_language(running: Harness) -> None:
    h = running
    dora = h.server.add_user("Dora", permissions=MANAGE_GUILD)
    final = await h.start_game("kniffel", [h.alice])
    await play_to_end(h, final, kniffel, chase=False)
    await live_board(h)
    assert (await h.record()).locale == "en-US"  # type: ignore[union-attr]

    chosen = await h.command(dora, "settings language", language="de")
    assert (await chosen.message()).text == t("settings.set", "en", language="German")
    handle = await h.click(h.alice, final, "Rematch")
    lobby = await handle.message()
    assert lobby.embeds[0]["title"] == t("lobby.title", "de", game="Kniffel")
    assert [button.label for button in lobby.buttons][:2] == [t("lobby.join", "de"), t("lobby.leave", "de")]
    record = await h.record()
    assert record is not None and record.status == "lobby" and record.locale == "de"


async def test_join_or_start_after_the_start_is_refused_and_changes_nothing(running: Harness) -> None:
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    await h.click(h.bob, lobby, "Join")
    raced = h.snapshot(lobby)  # what a client still shows when its click races the Start
    await h.click(h.alice, lobby, "Start")
    await settle(h)
    before = await h.record()
    assert before is not None and before.status == "running"
    link = f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{before.message_id}"
    started = t("lobby.already_started", "en", link=link)

    for user, label in ((h.carol, "Join"), (h.alice, "Start"), (h.bob, "Join")):
        handle = await h.click(user, raced, label)
        assert [message.text for message in handle.ephemeral_messages] == [started]
    await settle(h)
    assert await h.record() == before

    # The lobby message left behind once the game's board moved down the channel.
    await chat(h, 2)
    await play_turn(h, lobby, chase=False)
    board = await live_board(h)
    assert board.id != lobby.id
    before = await h.record()
    assert before is not None
    link = f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{board.id}"
    handle = await h.click(h.carol, raced, "Join")
    assert [message.text for message in handle.ephemeral_messages] == [t("lobby.already_started", "en", link=link)]
    await settle(h)
    assert await h.record() == before


async def test_private_views_during_a_database_outage_say_try_again(tmp_path: Path) -> None:
    async with fresh_schema(server_url()) as url, Relay.to(url) as relay, world(tmp_path, relay.url(url)) as h:
        await h.start_bot()
        knister_channel = h.server.add_channel(h.guild, "knister")
        opened = await h.server.slash(h.bob, knister_channel, "knister start")
        await h.click(h.bob, await opened.message(), "Start")
        board = await h.start_game("kniffel", [h.alice])
        await h.click(h.alice, board, "Roll")
        await settle(h)
        before = await h.record()

        await relay.down()
        try_again = t("play.storage_unavailable", "en")
        for user, channel, command in (
            (h.alice, h.channel, "kniffel scorecard"),
            (h.bob, knister_channel, "knister grid"),
            (h.alice, h.channel, "kniffel review"),
        ):
            handle = await h.server.slash(user, channel, command)
            reply = await handle.message()
            assert reply.ephemeral and reply.text == try_again, command

        relay.up()
        assert await h.record() == before
        card = await (await h.command(h.alice, "kniffel scorecard")).message()
        assert card.ephemeral and "Alice" in card.text


async def test_the_last_person_leaving_a_lobby_closes_it_and_says_why(running: Harness) -> None:
    """QA: the lobby only turned into "This lobby is closed." with nobody told what happened."""
    h = running
    lobby = await h.open_lobby("kniffel", h.alice)
    await h.click(h.alice, lobby, "Leave")
    await h.wait_post("Everyone left the Kniffel lobby, so it is closed.")
    assert (await h.record()).status == "abandoned"  # type: ignore[union-attr]


@pytest.mark.parametrize(("game", "buttons"), [("kniffel", ["Roll", "💡 Hint"]), ("knister", ["My grid"])])
async def test_someone_not_in_the_game_reads_one_refusal_whatever_they_press(
    running: Harness, game: str, buttons: list[str]
) -> None:
    """QA: Roll and Hint told Bob "You are not playing in this game." and the grid's button "Bob, you are not playing
    in this game.": one private refusal, without the name the reader knows (so is /<game> leave). Scorecard shows
    them the card of the player to act (``test_kniffel.py``); Knister's grids stay secret."""
    h = running
    board = await h.start_game(game, [h.alice])
    answers = [(await (await h.server.click_button(h.bob, board, label=label)).message()) for label in buttons]
    refusal = (True, "You are not playing in this game.")
    assert [(answer.ephemeral, answer.text) for answer in answers] == [refusal] * len(buttons)
    left = await h.command(h.bob, f"{game} leave")
    assert (await left.message()).text == "You are not playing in this game."
