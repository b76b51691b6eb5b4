"""The live board when Discord loses or refuses it: a moderator deletes it, an edit finds it gone or is refused for
good, the channel itself is deleted. Each test reproduces one defect once."""

from __future__ import annotations

import logging
from collections.abc import Collection

import discord
import pytest

from bot.play.service import GameService
from bot.play.transitions import Game
from bot.storage import GameRecord, HistoryRepository, ResultsRepository, StorageUnavailable
from fakediscord import Message, User
from tests.e2e.board import controlled, live_board, settle
from tests.e2e.conftest import Harness
from tests.e2e.dice import best_option, play_turn
from tests.reliability.conftest import lobby as lobby_stored

pytestmark = pytest.mark.timeout(120)

MANAGE_MESSAGES = int(discord.Permissions(manage_messages=True).value)


def moderator(h: Harness) -> User:
    return h.server.add_user("Mod", permissions=MANAGE_MESSAGES)


def next_read_fails(service: GameService, game_id: int) -> None:
    """The game is read from the database next (as after a restart), and that read finds the database out of reach."""
    service.cache.drop(game_id)
    reads = service._games.get

    async def unreachable(game_id: int) -> None:
        service._games.get = reads  # type: ignore[method-assign]
        raise StorageUnavailable("the database server is gone")

    service._games.get = unreachable  # type: ignore[method-assign]


async def reposted(h: Harness, game_id: int, gone: Message) -> Message:
    """Wait for the game's board to be posted anew (the deleted one stays gone) and check the invariant."""
    await h.server.wait_for(
        lambda: [m for m in controlled(h, game_id) if m.id != gone.id], what="the board posted anew"
    )
    board = await live_board(h)
    assert board.id > gone.id and h.server.channel_messages(h.channel)[-1] is board
    return board


@pytest.mark.parametrize("purge", [False, True], ids=["deleted", "purged"])
async def test_a_board_a_moderator_deletes_is_posted_anew(running: Harness, purge: bool) -> None:
    """Nobody could click any more: the game waited for a board that was gone until its timeouts ended it."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None
    chatter = await h.server.post_message(h.carol, h.channel, "spam")
    if purge:
        h.server.bulk_delete(moderator(h), [board, chatter])
    else:
        h.server.delete_message(moderator(h), board)
    board = await reposted(h, record.id, board)
    player = h.user((await h.state()).current_player)
    assert f"<@{player.id}>" in (board.content or "")
    await h.click(player, board, "Roll")
    assert (await h.state()).rolls == 1


async def test_a_lobby_a_moderator_deletes_is_posted_anew(running: Harness) -> None:
    """The lobby is the board before the start: nobody could join or start until it expired."""
    h = running
    lobby = await lobby_stored(h, "kniffel", h.alice)
    record = await h.record()
    assert record is not None
    h.server.delete_message(moderator(h), lobby)
    lobby = await reposted(h, record.id, lobby)
    await h.click(h.bob, lobby, "Join")
    await h.click(h.alice, lobby, "Start")
    started = await h.record()
    assert started is not None and started.status == "running"
    await live_board(h)


async def test_an_edit_that_finds_the_board_gone_posts_it_anew(running: Harness) -> None:
    """The board was deleted while the bot was away (it never heard of it): the timeout's edit answered 404 Unknown
    Message, was counted as done, and the game went on with no board to click until its timeouts ended it."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None
    timed_out = (await h.state()).current_player
    await h.stop_bot()
    h.server.delete_message(moderator(h), board)
    await h.start_bot()
    await h.advance(record.deadline_at - h.clock.now + 1)
    board = await reposted(h, record.id, board)
    state = await h.state()
    assert state.current_player != timed_out and f"<@{state.current_player}>" in (board.content or "")
    assert len(h.server.find_requests("PATCH", rf"/messages/{record.message_id}$")) == 1  # no edit retried


@pytest.mark.parametrize(("status", "code"), [(400, 50035), (403, 50001)], ids=["invalid", "missing_access"])
async def test_an_edit_discord_refuses_for_good_is_not_retried(
    running: Harness, caplog: pytest.LogCaptureFixture, status: int, code: int
) -> None:
    """A 400 (the payload is invalid: Discord will never take it) was retried every few seconds, for ever. A 403
    Missing Access is refused alike and ends no game: it may be an admin hiding the channel from the bot, which
    they can undo (a server that removed the bot is told by the gateway)."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None and h.bot is not None
    refused = h.server.inject_rest_error("PATCH", rf"/messages/{board.id}$", status, code=code, times=5)
    caplog.set_level(logging.WARNING)
    await h.advance(record.deadline_at - h.clock.now + 1)  # the timeout's edit goes through the channel
    assert refused.hits == 1
    await h.bot.service.shown.repair()  # what the background task does every few seconds
    assert refused.hits == 1, "a refused edit was retried"
    logged = [r.getMessage() for r in caplog.records if str(board.id) in r.getMessage()]
    assert len(logged) == 1 and f"game {record.id}" in logged[0] and str(code) in logged[0], logged
    going_on = await h.record()
    assert going_on is not None and going_on.status == "running"


async def test_a_board_discord_refuses_to_post_anew_is_not_tried_again(running: Harness) -> None:
    """The bot may no longer post in the channel (403): posting the deleted board anew is not retried for ever."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    assert h.bot is not None
    refused = h.server.inject_rest_error("POST", r"^/channels/\d+/messages$", 403, code=50013, times=5)
    h.server.delete_message(moderator(h), board)
    await h.server.wait_for(lambda: refused.hits == 1, what="the refused post")
    await settle(h)
    await h.bot.service.shown.repair()  # what the background task does every few seconds
    assert refused.hits == 1, "a refused post was retried"
    record = await h.record()
    assert record is not None and (record.status, record.message_id) == ("running", board.id)


async def test_a_board_another_process_posted_anew_first_is_the_one_left(running: Harness) -> None:
    """A shard hand-over: another process (the same bot user, through the same API) posted the deleted board anew
    and stored it first. This process's post was left as the one-line record saying the game continues below,
    with the live board above it; now it is deleted, and that deletion, which the gateway reports back, posts
    nothing anew: the deleted message is no game's board."""
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and h.bot is not None
    service = h.bot.service
    games, spec = service._games, service.specs["kniffel"]
    store = games.replace_message
    ours: list[int] = []

    async def another_process_first(game_id: int, gone: int, message_id: int, shown_version: int) -> bool:
        games.replace_message = store  # type: ignore[method-assign]
        stored = await games.get(game_id)
        assert stored is not None
        theirs = await service._channels.send(stored, service.render(spec, Game.load(spec, stored)))
        assert isinstance(theirs, int) and await store(game_id, gone, theirs, shown_version)
        ours.append(message_id)
        return await store(game_id, gone, message_id, shown_version)

    games.replace_message = another_process_first  # type: ignore[method-assign]
    heard: list[set[int]] = []
    deleted = service.on_messages_deleted

    async def hearing(message_ids: Collection[int]) -> None:
        heard.append(set(message_ids))
        await deleted(message_ids)

    service.on_messages_deleted = hearing  # type: ignore[method-assign]
    h.server.delete_message(moderator(h), board)
    await h.server.wait_for(lambda: ours and {ours[0]} in heard, what="our own post's deletion reported back")
    live = await live_board(h)
    assert [message.id for message in h.server.channel_messages(h.channel)] == [live.id], "no record, no repost"
    assert heard == [{board.id}, {ours[0]}]
    assert len(h.server.find_requests("DELETE", rf"/messages/{ours[0]}$")) == 1
    after = await h.record()
    assert after is not None and (after.message_id, after.version) == (live.id, record.version)


@pytest.mark.parametrize("heard", [True, False], ids=["channel_delete", "unknown_channel"])
async def test_a_game_whose_channel_is_deleted_is_abandoned(running: Harness, heard: bool) -> None:
    """Nobody can play in a channel that is gone, yet the game went on timing out turn after turn for ever (each
    timeout a save and an edit Discord refused): it ends abandoned, with no result, whether the bot heard of the
    deletion (CHANNEL_DELETE) or finds out from an edit (404 Unknown Channel, the deletion missed while away)."""
    h = running
    await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None and h.bot is not None
    if heard:
        h.server.delete_channel(h.channel)
        await over(h, record)
    else:
        await h.stop_bot()
        h.server.delete_channel(h.channel)
        await h.start_bot()
        await h.advance(record.deadline_at - h.clock.now + 1)  # its edit answers 404 Unknown Channel
    await abandoned(h, record)


@pytest.mark.parametrize("deleted", ["thread", "parent"])
async def test_a_game_whose_thread_is_deleted_is_abandoned(running: Harness, deleted: str) -> None:
    """A game played in a thread went on timing out for ever once a moderator deleted the thread (THREAD_DELETE,
    which discord.py reports as a raw thread deletion, not as a channel's) or the channel holding it (only a
    CHANNEL_DELETE of the parent, for which discord.py reports the threads it knew as deleted)."""
    h = running
    parent = h.channel
    h.channel = h.server.add_thread(parent, "dice night")
    await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.channel_id == h.channel.id
    if deleted == "thread":
        h.server.delete_thread(h.channel)
    else:
        h.server.delete_channel(parent)
    await over(h, record)
    await abandoned(h, record)


async def over(h: Harness, record: GameRecord) -> None:
    """Wait until the bot no longer keeps the game in progress (it ended), and for it to be idle."""
    assert h.bot is not None
    service = h.bot.service
    await h.server.wait_for(lambda: service.cache.get(record.id) is None, what=f"game {record.id} to be over")
    await settle(h)


async def abandoned(h: Harness, record: GameRecord) -> None:
    """The game ended abandoned: no result counted, no deadline left to fire."""
    assert h.bot is not None
    ended = await h.bot.games.get(record.id)
    assert ended is not None and (ended.status, ended.deadline_at) == ("abandoned", None)
    assert await ResultsRepository(h.bot.db).for_game(record.id) == []
    assert record.id not in await h.bot.games.due(h.clock.now + 10**9)  # no timeout left to fire


async def test_the_games_of_a_server_that_removes_the_bot_are_abandoned(running: Harness) -> None:
    """Kicked from a server (GUILD_DELETE), the bot went on timing out its lobbies and games there for ever, each
    timeout a save and an edit Discord refused (403 Missing Access): they end abandoned with no result, nothing is
    tried there again, and another server's game goes on."""
    h = running
    first = h.channel
    await h.start_game("kniffel", [h.alice, h.bob])
    game = await h.record()
    second = h.channel = h.server.add_channel(h.guild, "more dice")
    await h.open_lobby("kniffel", h.carol)
    lobby = await h.record()
    h.channel = h.server.add_channel(h.server.add_guild("Elsewhere"), "games")
    await h.start_game("kniffel", [h.alice, h.bob])
    kept = await h.record()
    assert game is not None and lobby is not None and kept is not None and kept.deadline_at is not None
    sent = len(h.server.requests)
    h.server.remove_bot(h.guild)
    await over(h, game)  # the lobby is abandoned by the same event, which settling waits for
    for record in (game, lobby):
        await abandoned(h, record)
    assert h.bot is not None
    await h.advance(kept.deadline_at - h.clock.now + 1)  # the other server's timeout, and any left here
    await h.bot.service.shown.repair()  # what the background task does every few seconds
    there = [r.path for r in h.server.requests[sent:] if str(first.id) in r.path or str(second.id) in r.path]
    assert there == [], "the bot still wrote to a server it was removed from"
    going_on = await h.record()
    assert going_on is not None and (going_on.status, going_on.version > kept.version) == ("running", True)


async def test_a_server_outage_leaves_its_games_alone(running: Harness) -> None:
    """A GUILD_DELETE marked unavailable is Discord losing the server for a while, not the bot's removal: its games
    neither end nor change, and go on at their next deadline."""
    h = running
    await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None and h.bot is not None
    timed_out = (await h.state()).current_player
    bot = h.bot
    h.server.guild_outage(h.guild)
    await h.server.wait_for(lambda: getattr(bot.get_guild(h.guild.id), "unavailable", False), what="the outage")
    await settle(h)
    assert await h.record() == record
    await h.advance(record.deadline_at - h.clock.now + 1)
    going_on = await h.record()
    assert going_on is not None and going_on.status == "running"
    assert (await h.state(going_on)).current_player != timed_out


async def test_a_server_that_removed_the_bot_while_it_was_away(running: Harness) -> None:
    """Kicked while the bot was down, no GUILD_DELETE ever comes: the new session's READY simply no longer lists the
    server. Its game is abandoned at once rather than timing out for ever against 403 Missing Access; the game of a
    server that still lists the bot is kept."""
    h = running
    await h.start_game("kniffel", [h.alice, h.bob])
    game = await h.record()
    h.channel = h.server.add_channel(h.server.add_guild("Elsewhere"), "games")
    await h.start_game("kniffel", [h.alice, h.bob])
    kept = await h.record()
    assert game is not None and kept is not None
    await h.stop_bot()
    h.server.remove_bot(h.guild)
    await h.start_bot()
    await settle(h)  # the session's start (READY) already reached the service, which settling waits for
    await abandoned(h, game)
    assert h.bot is not None
    assert await h.bot.games.get(kept.id) == kept


async def last_turn_with_the_board_deleted_while_away(h: Harness) -> tuple[Message, GameRecord]:
    """A solo classic Kniffel game in its last turn, the bot stopped and its board deleted meanwhile: the board and
    the game as stored (its deadline the last turn's)."""
    board = await h.start_game("kniffel", [h.alice], rules="classic")
    for _ in range(12):
        await play_turn(h, board, chase=False)
    record = await h.record()
    assert record is not None and record.deadline_at is not None
    await h.stop_bot()
    h.server.delete_message(moderator(h), board)
    return board, record


async def test_final_scores_whose_board_is_gone_are_posted_anew_once(running: Harness) -> None:
    """The board was deleted while the bot was away and the last turn then timed out: the final edit answered 404
    Unknown Message and the final scores were never shown anywhere. They are posted anew, once: a moderator who
    deletes the final scores after they were shown has the last word."""
    h = running
    board, record = await last_turn_with_the_board_deleted_while_away(h)
    await h.start_bot()
    await h.advance(record.deadline_at - h.clock.now + 1)  # the last turn times out: the game is over
    final = await reposted(h, record.id, board)
    ended = await h.record()
    assert ended is not None and (ended.status, ended.message_id) == ("finished", final.id)
    assert final.button(label="Rematch") is not None and "Alice" in final.text
    posts = len(h.server.find_requests("POST", r"^/channels/\d+/messages$"))
    h.server.delete_message(moderator(h), final)
    await settle(h)
    assert h.bot is not None
    await h.bot.service.shown.repair()  # what the background task does every few seconds
    assert len(h.server.find_requests("POST", r"^/channels/\d+/messages$")) == posts, "posted again"


async def test_final_scores_whose_channel_is_gone_when_posted_anew_stay_a_finished_game(running: Harness) -> None:
    """The final edit found the board deleted, and posting the final scores anew found the channel deleted too
    (404 Unknown Channel): the finished game was saved as abandoned, its review history deleted with it."""
    h = running
    _, record = await last_turn_with_the_board_deleted_while_away(h)
    refused = h.server.inject_rest_error("POST", r"^/channels/\d+/messages$", 404, code=10003)
    await h.start_bot()
    await h.advance(record.deadline_at - h.clock.now + 1)  # the last turn times out: the game is over
    await h.server.wait_for(lambda: refused.hits == 1, what="the refused post")
    await settle(h)
    assert h.bot is not None
    ended = await h.bot.games.get(record.id)
    assert ended is not None and ended.status == "finished"
    assert await HistoryRepository(h.bot.db).moves(record.id), "the finished game's history was deleted"


async def test_a_board_deleted_as_often_as_it_appears_is_posted_anew_only_a_few_times(
    running: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot or rule deleting each board as it appears had it posted anew, and the player pinged, every time."""
    h = running
    caplog.set_level(logging.WARNING, logger="bot.play.service")
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None and h.bot is not None
    budget = h.bot.service.reposts.per_version
    for _ in range(budget):
        h.server.delete_message(moderator(h), board)
        board = await reposted(h, record.id, board)
    h.server.delete_message(moderator(h), board)
    await h.server.wait_for(
        lambda: any("deleted again" in r.getMessage() for r in caplog.records), what="the spent budget"
    )
    await settle(h)
    assert controlled(h, record.id) == []
    await h.advance(record.deadline_at - h.clock.now + 1)  # the timeout moves the game on; its edit finds no board
    await reposted(h, record.id, board)


async def test_a_deleted_board_the_database_could_not_load_is_posted_anew_by_the_repair(
    running: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The game's row could not be read after the deletion (the database out of reach): the error escaped as a
    traceback and the board stayed gone until the next deadline."""
    h = running
    caplog.set_level(logging.WARNING, logger="bot.play.service")
    board = await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and h.bot is not None
    service = h.bot.service
    next_read_fails(service, record.id)
    h.server.delete_message(moderator(h), board)
    await h.server.wait_for(
        lambda: any("posted anew later" in r.getMessage() for r in caplog.records), what="the failed read"
    )
    await settle(h)
    await service.shown.repair()  # what the background task does every few seconds
    await reposted(h, record.id, board)


async def test_a_deleted_channels_game_the_database_could_not_read_ends_at_its_next_deadline(
    running: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """The game's row could not be read when the channel's deletion came (the database out of reach): the error
    escaped the event handler as a traceback. It is logged, and the game's next deadline finds the channel gone."""
    h = running
    caplog.set_level(logging.WARNING, logger="bot.play.service")
    await h.start_game("kniffel", [h.alice, h.bob])
    record = await h.record()
    assert record is not None and record.deadline_at is not None and h.bot is not None
    next_read_fails(h.bot.service, record.id)
    h.server.delete_channel(h.channel)
    await h.server.wait_for(
        lambda: any("could not be read to abandon it" in r.getMessage() for r in caplog.records),
        what="the failed read",
    )
    await settle(h)
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    await h.advance(record.deadline_at - h.clock.now + 1)  # its edit answers 404 Unknown Channel
    await abandoned(h, record)


async def moved_board_lost_while_away(h: Harness) -> tuple[Message, Message]:
    """A 2-player Kniffel whose first turn ended below chatter (the board moved down), then the bot stopped and the
    live board was deleted meanwhile: the first board as a client still shows it (with its controls) and the board
    that is gone."""
    first = await h.start_game("kniffel", [h.alice, h.bob])
    seen_then = h.snapshot(first)
    user = h.user((await h.state()).current_player)
    await h.click(user, first, "Roll")
    await h.server.post_message(h.carol, h.channel, "gg")
    await (await h.server.select(user, first, first.select().custom_id, [best_option(first)])).response()
    await settle(h)
    gone = await live_board(h)
    assert gone.id != first.id
    await h.stop_bot()
    h.server.delete_message(moderator(h), gone)
    await h.start_bot()
    return seen_then, gone


def link(h: Harness, message: Message) -> str:
    return f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{message.id}"


async def test_a_click_on_an_old_board_posts_the_live_one_anew_when_it_was_deleted_while_away(
    running: Harness,
) -> None:
    """QA (a playground killed just after a move): the live board was lost while the bot was down and an older
    board still showed controls. A click there was pointed to a message that no longer existed, and nothing could
    be played until the turn timed out. The click checks the live board first and posts it anew."""
    h = running
    seen_then, gone = await moved_board_lost_while_away(h)
    before = await h.state()
    handle = await h.server.click_button(h.user(before.current_player), seen_then, label="Roll")
    reply = await handle.message()
    record = await h.record()
    assert record is not None
    board = await reposted(h, record.id, gone)
    assert reply.ephemeral and reply.text.endswith(link(h, board))
    assert await h.state() == before
    await h.click(h.user(before.current_player), board, "Roll")
    assert (await h.state()).rolls == 1


async def test_a_start_in_a_channel_whose_board_was_deleted_while_away_links_the_board_posted_anew(
    running: Harness,
) -> None:
    h = running
    _, gone = await moved_board_lost_while_away(h)
    reply = await h.reply_text(await h.command(h.carol, "kniffel start"))
    record = await h.record()
    assert record is not None and record.status == "running"
    board = await reposted(h, record.id, gone)
    assert reply.endswith(f"Start yours in another channel, or here once that one is over: {link(h, board)}")


async def test_an_old_board_clicked_again_does_not_check_the_live_board_again(running: Harness) -> None:
    """Each check is an edit of the live board before the click is answered, and edits share the channel's rate
    limit with the moves: a board this process checked is not checked again while it stays the live board."""
    h = running
    seen_then, gone = await moved_board_lost_while_away(h)
    before = await h.state()
    player = h.user(before.current_player)
    await (await h.server.click_button(player, seen_then, label="Roll")).message()
    record = await h.record()
    assert record is not None
    board = await reposted(h, record.id, gone)
    edits = len(h.server.find_requests("PATCH", rf"/messages/{board.id}$"))
    reply = await (await h.server.click_button(player, seen_then, label="Roll")).message()
    assert reply.text.endswith(link(h, board))
    assert len(h.server.find_requests("PATCH", rf"/messages/{board.id}$")) == edits
