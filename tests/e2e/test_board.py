"""The live board end to end: it stays at the bottom of a chatty channel, moves restart-safely, leaves no dead
buttons behind, points old clicks to the live game, and offers a rematch."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import kniffel
from bot.engine import knister as kn
from bot.play.ports import Edit
from bot.storage import StorageUnavailable
from fakediscord import Message, User
from tests.e2e.board import controlled, has_controls, live_board, no_controls_left, settle
from tests.e2e.conftest import Harness
from tests.e2e.dice import best_option, play_to_end, play_turn
from tests.reliability.conftest import forged

pytestmark = pytest.mark.timeout(240)

CHATTER = ("gg", "nice roll", "brb")


async def chat(h: Harness, count: int) -> None:
    """Carol and friends talk in the channel: messages the bot does not post, below the board."""
    for index in range(count):
        await h.server.post_message(h.users[index % len(h.users)], h.channel, CHATTER[index % len(CHATTER)])


def labels(message: Message) -> list[str | None]:
    return [button.label for button in message.buttons]


def mention(user: User | str) -> str:
    return f"<@{user.id if isinstance(user, User) else user}>"


async def kniffel_turn(h: Harness, board: Message, talk: int) -> Message:
    """Roll, let the channel talk ``talk`` messages, score the best box; the invariant holds after each action."""
    state = await h.state()
    user = h.user(state.current_player)
    await h.click(user, board, "Roll")
    board = await live_board(h)
    await chat(h, talk)
    board = await live_board(h)
    before = board.id
    await (await h.server.select(user, board, board.select().custom_id, [best_option(board)])).response()
    board = await live_board(h)
    record = await h.record()
    assert record is not None
    if talk:
        # A new turn began below chatter: the board moved down and pings the player to act (no ping message).
        assert board.id != before
        old = next(m for m in h.server.channel_messages(h.channel) if m.id == before)
        assert not has_controls(old) and not old.embeds and old.content
        if record.status == "running":
            assert mention((await h.state()).current_player) in (board.content or "")
    else:
        assert board.id == before
    return board


async def test_three_player_kniffel_keeps_its_board_at_the_bottom(running: Harness) -> None:
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob, h.carol])
    board = await live_board(h)
    messages_at_start = len(h.server.channel_messages(h.channel))
    turns = 0
    while not kniffel.is_over(await h.state()):
        board = await kniffel_turn(h, board, talk=turns % 3)
        turns += 1
    assert turns == 3 * 13
    chatter = sum(turn % 3 for turn in range(turns))
    moved = sum(1 for turn in range(turns) if turn % 3)
    # The bot added one message per move and nothing else: announcements fold into the board.
    assert len(h.server.channel_messages(h.channel)) == messages_at_start + chatter + moved
    assert "final scores" in board.text
    assert [button.label for button in board.buttons] == ["🔍 Review", "Rematch"]
    await h.wait_post("Winner")


@pytest.mark.parametrize("game", ["kniffel", "dicepoker"])
async def test_the_board_names_the_player_to_act_once(running: Harness, game: str) -> None:
    """The board's own content pings the player to act; its news (what the last move did) does not say it again."""
    h = running
    board = await h.start_game(game, [h.alice, h.bob])
    for _ in range(3):
        await play_turn(h, board, chase=False)
        board = await live_board(h)
        player = (await h.state()).current_player
        assert (board.content or "").count(mention(player)) == 1, board.content
        assert (board.content or "").splitlines()[-1] == f"{mention(player)}, your turn."
    assert all(text.count("your turn") <= 1 for text in h.said()), h.said()


async def test_knister_keeps_its_board_at_the_bottom(harness: Harness) -> None:
    h = harness
    await h.start_bot(("cogs.help", "cogs.knister"))
    players = [h.alice, h.bob, h.carol]
    board = await h.start_game("knister", players)
    game_id = (await h.record()).id  # type: ignore[union-attr]
    for round_number in range(1, kn.ROUNDS + 1):
        board = await live_board(h)
        state = await h.state()
        assert state.round == round_number
        before = board.id
        await h.click(h.user(state.roller), board, "Roll")
        board = await live_board(h)
        talk = round_number % 3
        await chat(h, talk)
        for user in players:
            board = await live_board(h)
            state = await h.state()
            assert state.number is not None
            grid = await (await h.server.click_button(user, board, prefix=f"g:{game_id}:grid:")).message()
            cell = kn.best_cell(state.grids[str(user.id)], state.number)
            button = grid.button(prefix=f"g:{game_id}:place:{cell}:")
            await (await h.server.click(user, grid, button.custom_id)).message()
        board = await live_board(h)
        assert (board.id != before) == bool(talk)
    record = await h.record()
    assert record is not None and record.status == "finished"
    assert [button.label for button in board.buttons] == ["🔍 Review", "Rematch"]


async def kniffel_with_moved_board(h: Harness, killed: list[Any]) -> tuple[Message, Message]:
    """A 2-player Kniffel whose first turn ends below chatter, with the old board's edit "killed" (skipped) once.

    Returns the old board (still with its controls) and the new one.
    """
    assert h.bot is not None
    service = h.bot.service
    strip = service._strip

    async def killed_once(*args: Any, **kwargs: Any) -> None:
        if not killed:
            killed.append(args)  # the process died here: the new board is stored, the old one not yet stripped
            return
        await strip(*args, **kwargs)

    service._strip = killed_once  # type: ignore[method-assign]
    old = await h.start_game("kniffel", [h.alice, h.bob])
    user = h.user((await h.state()).current_player)
    await h.click(user, old, "Roll")
    await chat(h, 1)
    await (await h.server.select(user, old, old.select().custom_id, [best_option(old)])).response()
    await settle(h)
    assert killed
    live = controlled(h)
    assert [m.id for m in live] == [old.id, live[1].id]
    record = await h.record()
    assert record is not None and record.retired_message_id == old.id and record.message_id == live[1].id
    return old, live[1]


async def test_a_restart_between_the_new_board_and_the_old_ones_edit_leaves_one_live_board(
    running: Harness,
) -> None:
    h = running
    old, new = await kniffel_with_moved_board(h, [])
    await h.restart()
    await h.server.wait_for(lambda: len(controlled(h)) == 1, what="the old board to lose its controls")
    board = await live_board(h)
    assert board.id == new.id
    # Stripped at start-up into the short record: what the turn it ended did, no embed, no controls.
    record = await h.record()
    assert record is not None
    assert not has_controls(old) and not old.embeds
    assert old.content == "\n".join(record.options["news"]) and " in " in (old.content or "")
    user = h.user((await h.state()).current_player)
    await h.click(user, board, "Roll")
    assert (await h.state()).rolls == 1


async def test_a_click_on_an_old_board_points_to_the_live_one_and_strips_it(running: Harness) -> None:
    h = running
    old, new = await kniffel_with_moved_board(h, [])
    before = await h.state()
    user = h.user(before.current_player)
    handle = await h.server.click_button(user, old, label="Roll")
    reply = await handle.message()
    assert reply.ephemeral
    assert (
        reply.text
        == f"The game has moved down the channel: https://discord.com/channels/{h.guild.id}/{h.channel.id}/{new.id}"
    )
    assert await h.state() == before
    board = await live_board(h)
    assert board.id == new.id and not has_controls(old)


async def test_rematch_from_the_final_scores(running: Harness) -> None:
    h = running
    final = await h.start_game("kniffel", [h.alice, h.bob], rules="classic", turn_timeout=7)
    await play_to_end(h, final, kniffel, chase=False)
    await live_board(h)
    finished = await h.record()
    assert finished is not None and finished.status == "finished"
    stale = h.snapshot(final)

    outsider = await h.click(h.carol, final, "Rematch")
    assert (await outsider.message()).text == "Only the players of this game can start a rematch."
    rematch_id = final.button(label="Rematch").custom_id
    assert rematch_id is not None
    elsewhere = forged(final, rematch_id, channel=h.server.add_channel(h.guild, "elsewhere"))
    refused = await h.server.click(h.bob, elsewhere, rematch_id)
    assert "does not belong to this channel's game" in (await refused.message()).text
    assert (await h.record()) == finished  # nothing opened anywhere

    handle = await h.server.click_button(h.bob, final, label="Rematch")
    lobby = await handle.message()
    assert not lobby.ephemeral
    assert mention(h.alice) in (lobby.content or "") and "Rematch" in (lobby.content or "")
    assert "Classic" in lobby.text and "7 min" in lobby.text
    record = await h.record()
    assert record is not None and record.id != finished.id and record.status == "lobby"
    assert record.host == str(h.bob.id) and [s.player for s in record.seats] == [str(h.bob.id)]
    assert record.variant == "classic" and record.options["timeout"] == 7
    await h.server.wait_for(lambda: "Rematch" not in labels(final), what="the old final board to lose Rematch")
    assert labels(final) == ["🔍 Review"]  # the old game's review stays available
    assert await live_board(h) == lobby

    await h.click(h.alice, lobby, "Join")
    assert [s.player for s in (await h.record()).seats] == [str(h.bob.id), str(h.alice.id)]  # type: ignore[union-attr]
    assert mention(h.alice) not in (lobby.content or "")  # invited once; joined now

    again = await h.server.click_button(h.alice, stale, label="Rematch")
    link = f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{lobby.id}"
    assert (await again.message()).text == f"That game is over. The game in this channel now: {link}"
    await h.click(h.bob, lobby, "Start")
    await live_board(h)


async def test_no_control_is_left_after_an_abandoned_game_and_old_clicks_say_so(running: Harness) -> None:
    h = running
    first = await h.start_game("kniffel", [h.alice, h.bob])
    stale = h.snapshot(first)
    user = h.user((await h.state()).current_player)
    await h.click(user, first, "Roll")
    await chat(h, 2)
    await (await h.server.select(user, first, first.select().custom_id, [best_option(first)])).response()
    board = await live_board(h)
    assert board.id != first.id
    assert (await (await h.command(h.alice, "kniffel end")).message()).text == "The game was ended."
    await no_controls_left(h)
    reply = await h.server.click_button(user, stale, label="Roll")
    assert (await reply.message()).text == "That game is over, and no game is running in this channel now."


async def test_an_expired_lobby_keeps_no_controls(running: Harness) -> None:
    h = running
    await h.open_lobby("kniffel", h.alice)
    await chat(h, 3)
    await h.advance(15 * 60 + 1)
    await no_controls_left(h)
    await h.wait_post("expired")


async def test_chatter_that_buries_the_board_mid_turn_moves_it_at_the_next_click(running: Harness) -> None:
    h = running
    board = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, board, "Roll")
    await chat(h, 3)
    record = await h.record()
    assert record is not None
    # The gateway reported the chatter: the next click (a hold, in the middle of the turn) brings the board down.
    await h.server.wait_for(
        lambda: h.bot is not None and h.bot.service.tail.below(h.channel.id, board.id) == 3, what="the chatter"
    )
    hold = await h.server.click_button(h.alice, board, prefix=f"g:{record.id}:hold:0.")
    await hold.response()
    moved = await live_board(h)
    assert moved.id != board.id
    assert (await h.state()).held[0]
    await (await h.server.select(h.alice, moved, moved.select().custom_id, [best_option(moved)])).response()
    assert (await live_board(h)).id == moved.id  # nothing below it: the new turn stays where it is


async def test_a_new_game_in_the_channel_takes_rematch_off_the_last_final_scores(running: Harness) -> None:
    h = running
    final = await h.start_game("kniffel", [h.alice])
    await play_to_end(h, final, kniffel, chase=False)
    stale = h.snapshot(await live_board(h))
    other = await h.open_lobby("kniffel", h.bob)
    await h.server.wait_for(lambda: "Rematch" not in labels(final), what="the final scores to lose Rematch")
    assert await live_board(h) == other
    reply = await h.server.click_button(h.alice, stale, label="Rematch")
    link = f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{other.id}"
    assert (await reply.message()).text == f"That game is over. The game in this channel now: {link}"
    record = await h.record()
    assert record is not None and record.status == "lobby" and record.message_id == other.id  # nothing else opened


async def test_a_new_lobby_opens_cleanly_when_the_previous_game_cannot_be_read(running: Harness) -> None:
    """The lobby is posted before the previous game's Rematch is taken off: a database that refuses that read
    must not tell the host their lobby failed."""
    h = running
    final = await h.start_game("kniffel", [h.alice])
    await play_to_end(h, final, kniffel, chase=False)
    assert h.bot is not None

    async def unavailable(*args: Any) -> None:
        raise StorageUnavailable("disk I/O error")

    h.bot.service._games.previous_in_channel = unavailable  # type: ignore[method-assign]
    handle = await h.command(h.bob, "kniffel start")
    lobby = await handle.message()
    await settle(h)
    assert lobby.button(label="Join") is not None
    assert handle.followups == []
    record = await h.record()
    assert record is not None and record.status == "lobby" and record.message_id == lobby.id


async def test_a_board_whose_old_copy_cannot_be_stripped_stays_put(running: Harness) -> None:
    """While the retired board's strip keeps failing the board does not move again: a move would overwrite the
    retired board's id and leave its buttons live for good."""
    h = running
    board = await h.start_game("kniffel", [h.alice])
    await h.click(h.alice, board, "Roll")
    assert h.bot is not None
    channels = h.bot.service._channels
    real_edit = channels.edit

    async def refused_for_old_boards(record: Any, rendered: Any, message_id: int | None = None) -> Edit:
        if message_id is not None and message_id != record.message_id:
            return Edit.RETRY  # every edit of an earlier board fails (a server error each time)
        return await real_edit(record, rendered, message_id)

    channels.edit = refused_for_old_boards  # type: ignore[method-assign]
    await chat(h, 3)
    await h.server.wait_for(
        lambda: h.bot is not None and h.bot.service.tail.below(h.channel.id, board.id) == 3, what="the chatter"
    )
    record = await h.record()
    assert record is not None
    await (await h.server.click_button(h.alice, board, prefix=f"g:{record.id}:hold:0.")).response()
    await settle(h)
    moved = await h.record()
    assert moved is not None and moved.message_id != board.id and moved.retired_message_id == board.id
    # More chatter buries the new board too; the next click must not move it while the old one keeps its buttons.
    await chat(h, 3)
    await h.server.wait_for(
        lambda: h.bot is not None and h.bot.service.tail.below(h.channel.id, moved.message_id or 0) == 3,
        what="more chatter",
    )
    live = next(message for message in h.server.channel_messages(h.channel) if message.id == moved.message_id)
    await (await h.server.click_button(h.alice, live, prefix=f"g:{record.id}:hold:1.")).response()
    await settle(h)
    after = await h.record()
    assert after is not None and after.retired_message_id == board.id and after.message_id == moved.message_id


async def test_a_turn_start_asks_the_history_only_when_the_tail_missed_part_of_the_channel(running: Harness) -> None:
    h = running
    assert h.bot is not None
    service = h.bot.service
    asked: list[int] = []
    history = service._channels.below

    async def counted(record: Any) -> int | None:
        asked.append(record.id)
        return await history(record)

    service._channels.below = counted  # type: ignore[method-assign]
    board = await h.start_game("kniffel", [h.alice, h.bob])
    await settle(h)
    # The tail saw the board posted and everything after it: turns start without a history request.
    board = await kniffel_turn(h, board, talk=0)
    board = await kniffel_turn(h, board, talk=1)
    assert asked == []
    # A new gateway session may have missed messages: the next turn's start asks the channel's history.
    await h.bot.on_shard_connect(0)
    board = await kniffel_turn(h, board, talk=1)  # and the chatter it finds there moves the board
    record = await h.record()
    assert record is not None and asked == [record.id]
    assert board.id == record.message_id


async def test_chatter_deleted_again_does_not_move_the_board_at_the_next_turn(running: Harness) -> None:
    h = running
    board = await h.start_game("kniffel", [h.alice, h.bob])
    board = await live_board(h)
    player = h.user((await h.state()).current_player)
    await h.click(player, board, "Roll")
    board = await live_board(h)
    await chat(h, 2)
    await h.server.wait_for(
        lambda: h.bot is not None and h.bot.service.tail.below(h.channel.id, board.id) == 2, what="the chatter"
    )
    for message in h.server.channel_messages(h.channel)[-2:]:
        h.server.delete_message(message.author, message)  # each their own, as anybody may
    await h.server.wait_for(
        lambda: h.bot is not None and h.bot.service.tail.below(h.channel.id, board.id) == 0, what="the deletions"
    )
    await (await h.server.select(player, board, board.select().custom_id, [best_option(board)])).response()
    assert (await live_board(h)).id == board.id  # the next turn began where the board is: nothing is below it
