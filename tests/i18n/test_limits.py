"""Every message fits Discord's limits in every language: the longest translation decides.

Each game is played to its end at its largest table of 32-character names by the engine's own timeout moves, and
every board (as the service shows it: with the news of the worst action on top and the Hint, Review and Rematch
buttons), private view, announcement, the lobby (full, with computers, with a rematch's invitations) and the
retired board is rendered in each shipped language and measured by fakediscord's validation
(``tests/discord_limits.py``); so are full leaderboard pages, statistics with huge figures and the forget-me prompt.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import replace
from functools import cache
from typing import Any

import discord
import pytest

from bot.i18n import languages, t
from bot.i18n.check import rules_sections, rules_text
from bot.play import board
from bot.play.computer import LEVELS
from bot.play.service import GameService, computer_name, lobby, table
from bot.play.spec import AnySpec
from bot.play.transitions import HINTED, MAX_TIMEOUTS, Game
from bot.rankings import HINTS_USED, PAGE_SIZE
from bot.storage import CounterTotal, GameRecord, GameStats, LeaderboardPage, Seat, Standing
from bot.ui import board as board_ui
from bot.ui import lobby as lobby_ui
from bot.ui.leaderboard import BoardRequest, render_board, render_forget_prompt, render_forgotten, render_stats
from bot.ui.render import Rendered
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.knister import SPEC as KNISTER
from cogs.tutto import SPEC as TUTTO
from tests.discord_limits import assert_fits, limit_errors

#: Discord's longest display name, of the character that lengthens a name most where it is shown: LEFT-TO-RIGHT
#: ISOLATE is kept, put between FIRST STRONG ISOLATE and as many closing isolates plus one (66 characters), in
#: markdown and code blocks alike, where a markdown character is only doubled (64) and not at all in a code block.
LONG_NAME = "\u2066" * 32
MAX_STEPS = 5000
SPECS: dict[str, AnySpec] = {spec.kind: spec for spec in (KNIFFEL, DICEPOKER, KNISTER, TUTTO)}
VARIANTS = {"kniffel": "kniffel", "dicepoker": "russian", "knister": "standard", "tutto": "standard"}


def record(spec: AnySpec, players: list[str], language: str, status: str) -> GameRecord:
    """A full table of the longest names, every one of whom used a hint (the final board marks them all)."""
    seats = tuple(Seat(player, f"{LONG_NAME[:-2]}{index:02d}") for index, player in enumerate(players))
    now = time.time()
    return GameRecord(
        id=987654321, kind=spec.kind, variant=VARIANTS[spec.kind], guild_id=1, channel_id=2,
        host=players[0], status=status, version=123456, created_at=now, updated_at=now, locale=language,
        options={"timeout": 60, "target": 20000, HINTED: players}, seats=seats,
    )  # fmt: skip


def game(spec: AnySpec, state: Any, players: list[str], language: str, status: str = "running") -> Game:
    return Game(record(spec, players, language, status), state)


@cache
def played(kind: str) -> tuple[tuple[Any, str], ...]:
    """Every state of a full table's game played to its end by timeout moves, each with the player who just moved.

    The same in every language: each worker plays it once, and the languages only render it.
    """
    spec = SPECS[kind]
    players = [str(10**17 + index) for index in range(spec.max_players)]
    rng = random.Random(11)
    engine = spec.engine
    state = engine.new_game(players, rng, **spec.engine_options({"target": 2000}, VARIANTS[spec.kind]))
    states = []
    while not engine.is_over(state):
        assert len(states) < MAX_STEPS
        player = engine.to_act(state)[0]
        state = engine.apply(state, player, engine.timeout_action(state, player), rng)
        states.append((state, player))
    return tuple(states)


def notices(spec: AnySpec, players: list[str], language: str) -> list[str]:
    """The most the plumbing adds to one action's news: every player timed out and removed, in the game's language."""
    names = [seat.display_name for seat in record(spec, players, language, "running").seats]
    return [
        line
        for name in names
        for line in (
            t("play.timed_out", language, name=name),
            t("play.removed", language, name=name, count=MAX_TIMEOUTS),
        )
    ]


def with_news(running: GameRecord, news: list[str]) -> GameRecord:
    """The game with ``news`` on its board and the Hint button offered, as the service stores it."""
    return replace(running, options={**running.options, board.NEWS: news, "hints": True})


def lobbies(spec: AnySpec, players: list[str], language: str) -> list[Rendered]:
    """The lobby full, with computer players (their select and the remove button) and with a rematch's invitations."""
    full = record(spec, players, language, "lobby")
    ids = [f"cpu-{level}-{index}" for index, level in enumerate(LEVELS, 1)]
    computers = tuple(Seat(player, computer_name(player, language), kind="computer") for player in ids)
    mixed = replace(full, seats=(*full.seats[:1], *computers))
    invited = replace(full, seats=full.seats[:1], options={**full.options, board.INVITED: players[1:]})
    return [lobby_ui.render(lobby(spec, shown)) for shown in (full, mixed, invited)]


def play(spec: AnySpec, language: str) -> int:
    """Play a full table to the end, checking every render; returns how many states were measured."""
    players = [str(10**17 + index) for index in range(spec.max_players)]
    for rendered in lobbies(spec, players, language):
        assert_fits(rendered)
    service = GameService.__new__(GameService)  # only its pure render (news, Hint, Review, Rematch) is used
    service.specs = {spec.kind: spec}
    worst = notices(spec, players, language)
    states = played(spec.kind)
    running = record(spec, players, language, "running")  # one for every state: they differ only in the state
    for state, player in states:
        current = table(Game(running, state))
        announced = spec.ui.announce(current)
        assert all(len(line) <= 2000 for line in announced)
        assert_fits(service.render(spec, Game(with_news(running, [*announced, *worst]), state)))
        for view in spec.private_views.values():
            assert_fits(view.render(current, player))
    final = game(spec, states[-1][0], players, language, status="finished")
    news = [*spec.ui.announce(table(final)), *worst]
    assert_fits(service.render(spec, Game(with_news(final.record, news), final.state)))
    assert_fits(board_ui.retired(spec.kind, language, news))
    for view in spec.private_views.values():
        assert_fits(view.render(table(final), players[0]))
    return len(states)


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_a_whole_game_fits_discord_in_every_language(spec: AnySpec, language: str) -> None:
    assert play(spec, language) > 10


@pytest.mark.parametrize("language", languages())
def test_every_rules_section_fits_one_embed(language: str) -> None:
    text = rules_text(language)
    assert text is not None
    bodies = re.split(r"^## .*$", text, flags=re.MULTILINE)[1:]
    assert len(bodies) == len(rules_sections(text))
    assert all(len(body.strip()) <= 4096 for body in bodies)


def embed_fits(embed: discord.Embed) -> None:
    assert_fits(Rendered(embeds=[embed]))


@pytest.mark.parametrize("language", languages())
@pytest.mark.parametrize("metric", ["wins", "best", "average", "games"])
def test_leaderboards_fit_discord_in_every_language(language: str, metric: str) -> None:
    rows = tuple(Standing(rank, 10**17 + rank, LONG_NAME, 123456.75, 98765) for rank in range(1, PAGE_SIZE + 1))
    for scope in ("server", "global"):
        request = BoardRequest("tutto", metric, "month", scope, 3, 10**17)
        page = LeaderboardPage("tutto", metric, "month", 1, 3, 10 * PAGE_SIZE, rows, rows[0], 98765)  # type: ignore[arg-type]
        embed, view = render_board(page, request, language)
        embed_fits(embed)
        assert not limit_errors({"components": view.to_components()})
        empty = LeaderboardPage("tutto", metric, "week", None, 0, 0, (), None, 3)  # type: ignore[arg-type]
        embed_fits(render_board(empty, request, language)[0])


HUGE_COUNTERS = {
    "kniffels": CounterTotal(4321, 98765),
    "upper_bonus": CounterTotal(1234, 2345),
    "tuttos": CounterTotal(5678, 98765),
    "settlement": CounterTotal(-12345.678, 98765),
    HINTS_USED: CounterTotal(98765, 98765),
}


@pytest.mark.parametrize("language", languages())
def test_statistics_and_forget_me_fit_discord_in_every_language(language: str) -> None:
    stats = [
        GameStats(kind, 98765, 54321, 123456, 9876543210, time.time(), HUGE_COUNTERS)
        for kind in ("kniffel", "dicepoker", "knister", "tutto")
    ]
    embed_fits(render_stats(LONG_NAME, stats, None, language, own=True))
    embed_fits(render_stats(LONG_NAME, [], "tutto", language, own=True))
    for count in (0, 1, 3, 22, 12345):
        for games in (0, 1, 3, 22):
            text, _ = render_forget_prompt(count, games, 10**17, language)
            assert 1 <= len(text) <= 2000
            assert 1 <= len(render_forgotten(count, games, language)) <= 2000
