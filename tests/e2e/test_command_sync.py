"""Commands are synced to Discord only when they changed; ``python -m bot sync`` forces a sync."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from typing import Any

import pytest
from discord import app_commands

from bot.i18n import CatalogueTranslator
from tests.e2e.conftest import TOKEN, Harness
from tests.e2e.test_entrypoint import SETTINGS

pytestmark = pytest.mark.timeout(90)

BASIC = ("cogs.help", "cogs.kniffel")
IDENTIFY = 2


def identifies(harness: Harness) -> int:
    """Gateway sessions the bot opened so far."""
    return sum(frame.direction == "received" and frame.op == IDENTIFY for frame in harness.server.gateway_frames)


async def test_a_restart_with_the_same_commands_does_not_sync(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    assert harness.syncs() == 1
    await harness.restart()
    assert harness.syncs() == 1
    reply = await harness.command(harness.alice, "help")  # the commands synced before the restart still work
    assert "/kniffel" in (await reply.message()).text


async def test_a_start_that_syncs_translates_the_commands_once(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The payload compared with the last sync's is the one sent: translating every string into Discord's 31
    locales twice made a syncing start cost twice the translation of one that does not sync."""
    calls = 0
    translate = CatalogueTranslator.translate

    async def counted(self: CatalogueTranslator, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return await translate(self, *args, **kwargs)

    monkeypatch.setattr(CatalogueTranslator, "translate", counted)
    await harness.start_bot(BASIC)
    syncing = calls
    await harness.restart()
    assert harness.syncs() == 1
    assert calls - syncing == syncing > 0


async def test_a_refused_sync_is_sent_again_at_the_next_start(harness: Harness) -> None:
    harness.server.inject_rest_error("PUT", r"/commands$", 400, code=50035)
    with pytest.raises(app_commands.CommandSyncFailure):
        await harness.start_bot(BASIC)
    await harness.stop_bot()
    await harness.start_bot(BASIC)
    assert harness.syncs() == 2
    assert "kniffel" in {command["name"] for command in harness.server.commands()}


async def test_a_changed_command_tree_syncs(harness: Harness) -> None:
    await harness.start_bot(("cogs.help",))
    assert "kniffel" not in {command["name"] for command in harness.server.commands()}
    await harness.stop_bot()
    await harness.start_bot(BASIC)
    assert harness.syncs() == 2
    assert {"help", "kniffel"} <= {command["name"] for command in harness.server.commands()}
    lobby = await harness.open_lobby("kniffel", harness.alice)
    assert lobby.button(label="Join") is not None


async def test_a_new_target_syncs_there(harness: Harness) -> None:
    await harness.start_bot(BASIC)
    harness.dev_guild_id = harness.guild.id
    await harness.restart()
    assert harness.syncs() == 2
    assert harness.syncs(rf"/guilds/{harness.guild.id}/commands$") == 1


async def test_the_sync_command_forces_a_sync_and_exits(harness: Harness) -> None:
    await harness.start_bot()
    await harness.stop_bot()
    identified = identifies(harness)
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    env.update(
        DISCORD_TOKEN=TOKEN,
        DATABASE_URL=f"sqlite:///{harness.database}",
        DISCORD_API_BASE=harness.server.api_base,
        DISCORD_GATEWAY_URL=harness.server.gateway_url,
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "sync",
        env=env,
        cwd=harness.database.parent,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()
    assert harness.syncs() == 2
    # Said only as an INFO log line, which LOG_LEVEL=WARNING left out: a success said nothing (QA).
    assert re.fullmatch(r"dicebot: synced \d+ commands globally\n", stdout.decode())
    assert identifies(harness) == identified  # it never connected to the gateway, so it played no game either
    await harness.start_bot()  # the forced sync stored its hash: the next start does not sync again
    assert harness.syncs() == 2


async def test_an_unknown_subcommand_stops_with_one_line() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "synk", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    assert stdout == b""
    assert stderr.decode().count("\n") == 1
    assert stderr.decode().startswith("dicebot: ")
