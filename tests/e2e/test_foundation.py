"""The bot boots against the local Discord server, syncs commands, answers /help and survives restarts."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot import registry
from bot.i18n import t
from tests.discord_limits import assert_every_message_fits
from tests.e2e.board import CHANGED
from tests.e2e.conftest import Harness

pytestmark = pytest.mark.timeout(60)

BASIC = ("cogs.help", "cogs.kniffel")


async def test_boot_syncs_commands_and_answers_help(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    names = {command["name"] for command in harness.server.commands()}
    assert {"help", "kniffel"} <= names
    kniffel = next(command for command in harness.server.commands() if command["name"] == "kniffel")
    assert {option["name"] for option in kniffel["options"]} >= {"start", "leave", "end", "rules", "scorecard"}

    reply = await harness.command(harness.alice, "help")
    message = await reply.message()
    assert message.ephemeral
    assert "/kniffel" in message.text
    assert "Kniffel" in message.text


async def test_a_restart_in_the_same_process_reuses_the_cog_modules(harness: Harness) -> None:
    """Each cog module runs once per process: its game's spec is the one the service plays with, and a second bot
    (a restart; the tests start hundreds in one process) adds the cogs of the same module again. discord.py's
    ``load_extension`` executed a game's module twice per start (once more after the registry imported it)."""
    first = await harness.start_bot()
    module = sys.modules["cogs.kniffel"]
    assert first.service.specs["kniffel"] is module.SPEC
    second = await harness.restart()
    assert sys.modules["cogs.kniffel"] is module
    assert second.service.specs["kniffel"] is module.SPEC
    assert type(second.get_cog("KniffelCog")) is module.KniffelCog


async def test_rules_are_shown_privately(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    message = await (await harness.command(harness.bob, "kniffel rules")).message()
    assert message.ephemeral
    assert "Kniffel — rules" in message.text
    assert "Full house" in message.text


async def test_lobby_button_posted_before_a_restart_still_works(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    await harness.restart()
    join = await harness.click(harness.bob, lobby, "Join")
    assert not join.failed
    assert "Bob" in lobby.text or str(harness.bob.id) in lobby.text


async def test_stale_click_is_refused(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    before = harness.snapshot(lobby)
    await harness.click(harness.bob, lobby, "Join")
    # Start means "start with the players shown", which Bob's join changed (a stale Join is applied: issue 12).
    again = await harness.click(harness.alice, before, "Start")
    reply = await again.message()
    assert reply.ephemeral
    assert reply.text == CHANGED
    record = await harness.record()
    assert record is not None
    assert [seat.display_name for seat in record.seats] == ["Alice", "Bob"]


async def test_rate_limited_callback_is_retried(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    fault = harness.server.inject_rest_error("POST", r"/callback$", 429, retry_after=0.01)
    reply = await harness.command(harness.alice, "help")
    message = await reply.message(timeout=10)
    assert "/kniffel" in message.text
    assert fault.hits == 1


async def test_game_continues_across_a_gateway_reconnect_and_invalid_session(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    await harness.server.reconnect_gateway()
    await harness.click(harness.bob, lobby, "Join")
    await harness.server.invalidate_session(resumable=False)
    await harness.click(harness.alice, lobby, "Start")
    record = await harness.record()
    assert record is not None
    assert record.status == "running"
    assert [seat.display_name for seat in record.seats] == ["Alice", "Bob"]


async def test_outdated_click_repairs_a_game_message_that_missed_an_edit(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    record = await harness.record()
    while record is None or record.message_id != lobby.id:  # the id is stored just after the lobby is answered
        await asyncio.sleep(0.01)
        record = await harness.record()
    assert harness.bot is not None
    await harness.bot.games.save(record)  # a change whose message edit never happened
    refused = await harness.click(harness.alice, lobby, "Start")
    assert (await refused.message()).text == CHANGED
    await harness.server.wait_for(lambda: lobby.button(label="Join").custom_id.endswith(":1"))
    await harness.click(harness.bob, lobby, "Join")
    record = await harness.record()
    assert [seat.display_name for seat in record.seats] == ["Alice", "Bob"]


async def test_shutdown_waits_for_a_command_in_progress(harness: Harness) -> None:
    bot = await harness.start_bot(BASIC)
    reply = await harness.command(harness.alice, "kniffel start")
    await reply.response()  # the lobby is posted; storing its message id may still be under way
    await harness.stop_bot()
    assert bot.is_closed()
    await harness.start_bot()
    record = await harness.record()
    assert record is not None
    assert record.message_id == (await reply.message()).id


async def test_the_host_role_passes_on_when_the_host_leaves_the_lobby(harness: Harness) -> None:
    """The new host was only ever kept in memory: after the host left, nobody could start the game."""
    await harness.start_bot()
    lobby = await harness.open_lobby("kniffel", harness.alice)
    await harness.click(harness.bob, lobby, "Join")
    await harness.click(harness.carol, lobby, "Join")
    await harness.click(harness.alice, lobby, "Leave")
    await harness.restart()
    started = await harness.click(harness.bob, lobby, "Start")
    assert await started.response() == 7
    record = await harness.record()
    assert record is not None and record.status == "running" and record.host == str(harness.bob.id)


@pytest.mark.parametrize("language", ["en-US", "de", "hu", "pl"])
async def test_help_lists_subcommands_in_the_order_players_meet_them_and_describes_settings(
    harness: Harness, language: str
) -> None:
    """Subcommands came in the order the cogs declared them ("leave, end, ..., start": start last) and
    ``/settings language`` alone had no description."""
    await harness.start_bot(registry.extensions())
    harness.alice.locale = language
    text = (await (await harness.command(harness.alice, "help")).message()).text
    lines = {line.split()[0]: line for line in text.splitlines() if line.startswith("**/")}

    def subs(*keys: str) -> str:
        return ", ".join(f"`{t(key, language)}`" for key in keys)

    kniffel, knister, settings = (
        f"**/{t(f'cmd.{group}.name', language)}**" for group in ("kniffel", "knister", "settings")
    )
    order = ("cmd.rules.name", "cmd.scorecard.name", "cmd.review.name", "cmd.leave.name", "cmd.end.name")
    assert lines[kniffel] == f"{kniffel} {subs('cmd.start.name', *order)}"
    grid = "cmd.knister.grid.name"
    assert lines[knister] == f"{knister} {subs('cmd.start.name', order[0], grid, *order[2:])}"
    assert lines[settings] == (
        f"{settings} {subs('cmd.settings.language.name')} — {t('cmd.settings.description', language)}"
    )
    assert_every_message_fits(harness.server)  # every game's line and the descriptions fit the embed's field
