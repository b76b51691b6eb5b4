"""Defects 5 and 6: forged ids, out-of-range options and clicks from the wrong place are refused and change nothing."""

from __future__ import annotations

import dataclasses

import pytest

from bot.engine import knister
from fakediscord import InteractionHandle, InvalidInput, Message
from tests.reliability.conftest import Harness, forged, lobby

WRONG_PLACE = "does not belong to this channel's game"


async def refusal(handle: InteractionHandle) -> str:
    reply = await handle.message()
    assert reply.ephemeral
    return reply.text


async def unchanged(h: Harness, before: object) -> None:
    after = await h.record()
    assert after == before


async def test_forged_component_ids_are_refused(running: Harness) -> None:
    h = running
    message = await lobby(h, "kniffel", h.alice)
    before = await h.record()
    assert before is not None
    too_long = f"g:{before.id}:join::{'0' * 100}"
    too_big = f"g:{2**63}:join::0"
    for custom_id in (too_long, too_big):
        handle = await h.server.click(h.bob, forged(message, custom_id), custom_id)
        assert "not allowed" in await refusal(handle)
    await unchanged(h, before)


async def test_start_options_outside_their_ranges_are_refused(running: Harness) -> None:
    h = running
    forgeries = [
        ("kniffel start", {"turn_timeout": 0}),
        ("kniffel start", {"turn_timeout": -5}),
        ("kniffel start", {"turn_timeout": 10**9}),
        ("kniffel start", {"rules": "bogus"}),
        ("dicepoker start", {"turn_timeout": "5"}),
        ("knister start", {"round_timeout": 61}),
        ("tutto start", {"target": -1}),
        ("tutto start", {"target": 0}),
        ("tutto start", {"target": 20001}),
    ]
    for command, options in forgeries:
        handle = await h.server.forge_slash(h.alice, h.channel, command, **options)
        assert "Nothing was started" in await refusal(handle), (command, options)
    assert await h.record() is None
    accepted = await h.server.forge_slash(h.alice, h.channel, "tutto start", target=20000, turn_timeout=60)
    assert not (await accepted.message()).ephemeral


async def test_a_refused_start_option_is_named_as_the_users_client_shows_it(running: Harness) -> None:
    """QA: "Die Option opponents muss 0–5 sein" named the option by its internal English name; a German client
    shows the field as "gegner" (Knister's turn time as "rundenzeit"). Discord itself refuses what the command
    declares out of range, so only a forged request gets here."""
    h = running
    h.alice.locale = "de"
    with pytest.raises(InvalidInput):
        await h.server.slash(h.alice, h.channel, "dicepoker start", opponents=6)
    handle = await h.server.forge_slash(h.alice, h.channel, "dicepoker start", opponents=7)
    assert await refusal(handle) == "Die Option gegner muss 0–5 sein. Es wurde nichts gestartet."
    handle = await h.server.forge_slash(h.alice, h.channel, "knister start", round_timeout=61)
    assert await refusal(handle) == "Die Option rundenzeit muss 1–60 sein. Es wurde nichts gestartet."
    assert await h.record() is None


async def test_a_refused_start_option_lists_what_it_may_be_as_the_users_client_shows_it(running: Harness) -> None:
    """The allowed values were internal ids ("russian", "easy / normal / perfect") and unformatted numbers
    ("1000–20000") beside the German field name."""
    h = running
    h.alice.locale = "de"
    handle = await h.server.forge_slash(h.alice, h.channel, "dicepoker start", opponents=1, level="godlike")
    level = await refusal(handle)
    assert level.startswith("Die Option ") and "muss Leicht / Normal / Perfekt sein" in level, level
    handle = await h.server.forge_slash(h.alice, h.channel, "tutto start", target=999)
    assert "muss 1.000–20.000 sein" in await refusal(handle)
    assert await h.record() is None


async def test_a_control_sent_from_another_channel_guild_or_message_is_refused(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice, h.bob])
    before = await h.record()
    assert before is not None
    roll = message.button(label="Roll").custom_id
    assert roll is not None
    elsewhere = h.server.add_channel(h.guild, "elsewhere")
    far = h.server.add_channel(h.server.add_guild("Other club"), "far")
    other_message = await h.server.post_message(h.alice, h.channel, "my own message")
    forgeries = [
        forged(message, roll, channel=elsewhere),
        forged(message, roll, channel=far),
        forged(other_message, roll),
    ]
    for forgery in forgeries:
        handle = await h.server.click(h.alice, forgery, roll)
        assert WRONG_PLACE in await refusal(handle)
    await unchanged(h, before)


async def test_a_public_control_sent_through_a_private_view_is_refused(running: Harness) -> None:
    h = running
    message = await h.start_game("kniffel", [h.alice])
    before = await h.record()
    assert before is not None
    card = await (await h.server.click_button(h.alice, message, prefix=f"g:{before.id}:card:")).message()
    roll = message.button(label="Roll").custom_id
    assert card.ephemeral and roll is not None
    handle = await h.server.click(h.alice, forged(card, roll), roll)
    assert WRONG_PLACE in await refusal(handle)
    await unchanged(h, before)


async def test_a_cell_placed_through_another_players_grid_is_refused(running: Harness) -> None:
    h = running
    message = await h.start_game("knister", [h.alice, h.bob])
    record = await h.record()
    assert record is not None
    roller = h.user((await h.state()).roller)
    await h.click(roller, message, "Roll")
    bobs_grid = await (await h.server.click_button(h.bob, message, prefix=f"g:{record.id}:grid:")).message()
    state = await h.state()
    assert state.number is not None
    cell = knister.best_cell(state.grids[str(h.alice.id)], state.number)
    place = bobs_grid.button(prefix=f"g:{record.id}:place:{cell}:").custom_id
    assert place is not None
    before = await h.record()
    stolen: Message = dataclasses.replace(bobs_grid, visible_to=h.alice)  # Bob's grid, in Alice's hands
    handle = await h.server.click(h.alice, stolen, place)
    assert WRONG_PLACE in await refusal(handle)
    await unchanged(h, before)


async def test_only_the_host_in_the_games_channel_links_a_lobby_to_its_message(running: Harness) -> None:
    """Posting the lobby was interrupted before its message id was stored; nobody else may re-point it."""
    h = running
    assert h.bot is not None
    message = await lobby(h, "kniffel", h.alice)
    record = await h.record()
    assert record is not None
    async with h.bot.db.transaction() as tx:
        tx.execute("UPDATE games SET message_id = NULL WHERE id = ?", (record.id,))
    start = message.button(label="Start").custom_id
    assert start is not None
    elsewhere = h.server.add_channel(h.guild, "elsewhere")
    carols = await h.server.post_message(h.carol, elsewhere, "look, a lobby")
    handle = await h.server.click(h.carol, forged(carols, start), start)
    assert WRONG_PLACE in await refusal(handle)
    handle = await h.server.click_button(h.bob, message, label="Join")
    assert WRONG_PLACE in await refusal(handle)
    stored = await h.record()
    assert stored is not None and stored.message_id is None and len(stored.seats) == 1

    await h.click(h.alice, message, "Start")
    started = await h.record()
    assert started is not None and started.message_id == message.id and started.status == "running"


def shown(h: Harness, message: Message) -> tuple[str, list[str | None]]:
    """What the channel shows of ``message`` now: its text and its buttons' ids."""
    current = next(m for m in h.server.channel_messages(h.channel) if m.id == message.id)
    return current.text, [button.custom_id for button in current.buttons]


async def test_a_forged_id_never_strips_a_message_that_is_not_that_game_s_board(running: Harness) -> None:
    """A click naming an earlier game on today's board (or today's game on an earlier game's message) is answered
    with a pointer, and the message it was made on keeps what it shows: only a game's own boards are ever turned
    into a record without controls, as told by the controls Discord says the message carries."""
    h = running
    cancelled = await lobby(h, "kniffel", h.alice)
    old = await h.record()
    assert old is not None
    await h.click(h.alice, cancelled, "Cancel")
    await h.bot.service.drain(5)
    board = await h.start_game("kniffel", [h.alice, h.bob])
    live = await h.record()
    assert live is not None and live.id != old.id and live.message_id == board.id
    board_before, cancelled_before = shown(h, board), shown(h, cancelled)
    assert board_before[1], "the live board has its controls"

    earlier_game = f"g:{old.id}:roll::0"
    handle = await h.server.click(h.carol, forged(board, earlier_game), earlier_game)
    assert (await handle.message()).ephemeral
    todays_game = f"g:{live.id}:roll::{live.version}"
    handle = await h.server.click(h.carol, forged(cancelled, todays_game), todays_game)
    assert (await handle.message()).ephemeral
    await h.bot.service.drain(5)

    assert shown(h, board) == board_before
    assert shown(h, cancelled) == cancelled_before
    await unchanged(h, live)


MANAGE_GUILD = 1 << 5


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"game": "bogus"}, "Option game must be Kniffel / Dice poker / Knister / Tutto."),
        (
            {"game": "kniffel", "metric": "bogus"},
            "Option metric must be Wins / Best score / Average score / Games played.",
        ),
        ({"game": "kniffel", "period": "bogus"}, "Option period must be All time / Last 30 days / Last 7 days."),
        ({"game": "kniffel", "scope": "bogus"}, "Option scope must be This server / All servers."),
    ],
)
async def test_a_forged_leaderboard_option_is_refused_privately(
    running: Harness, options: dict[str, str], refused: str
) -> None:
    """An unknown game's board was posted in the channel titled with a catalogue key; an unknown metric or period
    was answered as an internal error (QA)."""
    h = running
    assert await refusal(await h.server.forge_slash(h.alice, h.channel, "leaderboard", **options)) == refused


async def test_a_forged_stats_game_is_refused_privately(running: Harness) -> None:
    h = running
    text = await refusal(await h.server.forge_slash(h.alice, h.channel, "stats", game="bogus"))
    assert text == "Option game must be Kniffel / Dice poker / Knister / Tutto."


async def test_a_forged_settings_language_is_refused_and_not_stored(running: Harness) -> None:
    """It was stored, and every new game of the server spoke a language nobody ships (QA)."""
    h = running
    dora = h.server.add_user("Dora", permissions=MANAGE_GUILD)
    text = await refusal(await h.server.forge_slash(dora, h.channel, "settings language", language="xx"))
    assert text == "Option language must be English / German / Hungarian / Polish / Server default."
    assert await h.bot.guild_settings.language(h.guild.id) is None
    await lobby(h, "kniffel", h.alice)
    record = await h.record()
    assert record is not None and record.locale == "en-US"


async def test_a_forged_review_game_past_the_databases_range_is_an_unknown_game(running: Harness) -> None:
    """SQLite raised OverflowError, answered as an internal error (QA)."""
    h = running
    text = await refusal(await h.server.forge_slash(h.alice, h.channel, "kniffel review", game=2**63))
    assert text == "That is not a finished Kniffel game of yours."
