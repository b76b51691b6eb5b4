"""Computer opponents end to end: added in the lobby, playing their turns on stored deadlines, surviving a restart."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from bot import strategy
from bot.engine import dicepoker, kniffel
from bot.play import computer
from bot.storage import StorageUnavailable
from fakediscord import Message
from tests.e2e.board import live_board
from tests.e2e.conftest import Harness
from tests.e2e.dice import play_turn
from tests.e2e.test_tutto import TURN_SECONDS, Script, news
from tests.e2e.test_tutto import Table as TuttoTable

pytestmark = pytest.mark.timeout(180)

#: A little more than the default computer delay: one computer step per advance.
STEP = 1.5
#: A bound on loading the tables and numba's compiled code: the load waits while another process of the
#: installation compiles (the machine-wide compiler lock), seconds at a time when a fresh clone's tests compile.
LOADING = 120.0


@pytest.fixture(scope="session")
def strategy_dir(shared_tables: Path) -> Path:
    """Every table, built once for the run (see ``tests/conftest.py``)."""
    return shared_tables


@pytest.fixture
async def bot(harness: Harness, strategy_dir: Path) -> Harness:
    harness.strategy_dir = strategy_dir
    await harness.start_bot()
    return harness


async def add_computer(h: Harness, lobby: Message, level: str) -> None:
    handle = await h.server.select(h.alice, lobby, lobby.select(prefix="g:").custom_id, [level])
    await handle.response()


async def computer_to_act(h: Harness) -> bool:
    record = await h.record()
    assert record is not None
    if record.status != "running":
        return False
    state = await h.state()
    engine = h.bot.service.specs[record.kind].engine if h.bot else None
    assert engine is not None
    return any(record.seat(player).kind == "computer" for player in engine.to_act(state))


async def play_solo(h: Harness, message: Message, engine: object) -> None:
    """Alice plays her turns; the clock moves on whenever a computer is to act, until the game ends."""
    for _ in range(400):
        record = await h.record()
        assert record is not None
        if record.status != "running":
            return
        if await computer_to_act(h):
            await h.advance(STEP)
        else:
            await play_turn(h, message)
    raise AssertionError("the game did not end")


async def test_on_a_computers_turn_the_board_offers_nobody_a_move(bot: Harness) -> None:
    """QA: Roll and Hint stayed live while the computer played; a press only answered "not your turn". The
    scorecard, which anyone may open, stays."""
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic", opponents=1, level="easy")
    await h.click(h.alice, lobby, "Start")
    for _ in range(60):  # play until the computer is to act (it moves only when the clock passes its step)
        if await computer_to_act(h):
            break
        await play_turn(h, lobby)
    assert await computer_to_act(h)
    board = await live_board(h)
    live = {button.label: button.disabled for button in board.buttons}
    assert live["Roll"] and live["💡 Hint"], live  # disabled
    assert not live["Scorecard"], live


async def test_someone_watching_sees_the_computer_s_card_on_its_turn_and_no_card_once_the_game_is_over(
    bot: Harness,
) -> None:
    """Review: a watcher's Scorecard shows the card of the player to act, and a computer is one. Once the game is
    over there is nobody to act and no game to ask about: the watcher is told so as the players are, not that they
    are not playing. A watcher's card is opened, not kept: the five-dice cards follow nobody's game."""
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic", opponents=1, level="easy")
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    for _ in range(60):
        if await computer_to_act(h):
            break
        await play_turn(h, lobby)
    assert await computer_to_act(h)
    watched = await (await h.click(h.carol, await live_board(h), "Scorecard")).message()
    assert watched.ephemeral and "🤖 Easy" in watched.text and "Total" in watched.text, watched.text
    assert "Alice" not in watched.text
    commanded = await (await h.command(h.carol, "kniffel scorecard")).message()
    assert commanded.ephemeral and "🤖 Easy" in commanded.text
    record = await h.record()
    assert record is not None and h.bot is not None
    assert h.bot.service.followers.following(record.id, str(h.carol.id)) is None

    await play_solo(h, lobby, kniffel)
    assert (await h.record()).status == "finished"  # type: ignore[union-attr]
    over = [await (await h.command(user, "kniffel scorecard")).message() for user in (h.carol, h.alice)]
    assert over[0].text == over[1].text == "There is no Kniffel game in this channel."
    assert all(answer.ephemeral for answer in over)


async def test_a_solo_classic_game_against_an_easy_computer_is_played_to_the_end(
    bot: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic", opponents=1, level="easy")  # seated at once
    assert "🤖 Easy" in lobby.text
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    await play_solo(h, lobby, kniffel)
    record = await h.record()
    assert record is not None and record.status == "finished"
    state = await h.state()
    assert state.turns == {"cpu-easy-1": 13, str(h.alice.id): 13}
    posts = "\n".join(h.said())
    assert "**🤖 Easy** is playing…" in posts and "<@cpu" not in posts  # named in bold, never mentioned
    assert "🤖 Easy**, your turn" not in posts  # a computer is not asked to act
    assert all(text.count("your turn") <= 1 for text in h.said())  # the board's own content says it, the news not
    assert "still loading" not in caplog.text  # every decision came from the strategy, none from the fallback

    # Rematch: the same rules with the same computer player, started at once: a lobby would wait for nobody (QA 37).
    rematch = await (await h.server.click_button(h.alice, lobby, label="Rematch")).message()
    await h.bot.service.drain(10)  # type: ignore[union-attr]
    again = await h.record()
    assert again is not None and again.id != record.id
    assert (again.status, again.variant, again.host) == ("running", "classic", str(h.alice.id))
    assert [(seat.player, seat.kind) for seat in again.seats] == [(str(h.alice.id), "user"), ("cpu-easy-1", "computer")]
    assert again.message_id == rematch.id and "Kniffel — turn 1/13" in rematch.text and "🤖 Easy" in rematch.text
    labels = [button.label for button in rematch.buttons]
    assert "Roll" in labels and "Start" not in labels and "Join" not in labels
    await h.server.wait_for(lambda: all(b.label != "Rematch" for b in lobby.buttons), what="the old Rematch to go")
    await play_solo(h, rematch, kniffel)  # the new game plays to its end like the first
    assert (await h.record()).status == "finished"  # type: ignore[union-attr]


async def test_a_solo_dice_poker_game_against_a_perfect_computer_is_played_to_the_end(bot: Harness) -> None:
    h = bot
    lobby = await h.open_lobby("dicepoker", h.alice)
    await add_computer(h, lobby, "perfect")
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    await play_solo(h, lobby, dicepoker)
    record = await h.record()
    assert record is not None and record.status == "finished"
    rows = await h.bot.db.fetch_all("SELECT user_id, kind, won FROM results WHERE game_id = ?", (record.id,))
    assert [tuple(row)[:2] for row in rows] == [(h.alice.id, "dicepoker+computer")]  # no result row for the computer
    won = rows[0][2]
    board = await (await h.command(h.alice, "leaderboard", game="dicepoker")).message()
    assert "Alice" not in board.text  # people are ranked against people only
    assert "Games with a computer count in `/stats`, not here." in board.text  # where her game went
    knister = await (await h.command(h.alice, "leaderboard", game="knister")).message()
    assert "/stats" not in knister.text  # no Knister with a computer anywhere
    stats = await (await h.command(h.alice, "stats")).message()
    fields = {field["name"]: field["value"] for field in stats.embeds[0]["fields"]}
    assert list(fields) == ["Dice poker against the computer"]
    assert f"🤖 Wins against Perfect {won} of 1" in fields["Dice poker against the computer"]


async def test_the_host_adds_and_removes_computers_within_the_seat_limit(bot: Harness) -> None:
    h = bot
    lobby = await h.open_lobby("knister", h.alice)
    await add_computer(h, lobby, "normal")
    await add_computer(h, lobby, "normal")
    assert "🤖 Normal" in lobby.text and "🤖 Normal 2" in lobby.text
    refused = await h.server.select(h.bob, lobby, lobby.select(prefix="g:").custom_id, ["easy"])
    assert "Only the host" in (await refused.message()).text
    await h.click(h.alice, lobby, "Remove computer")
    assert "🤖 Normal 2" not in lobby.text
    record = await h.record()
    assert record is not None and [seat.player for seat in record.seats] == [str(h.alice.id), "cpu-normal-1"]
    await h.click(h.alice, lobby, "Remove computer")
    assert not any(button.label == "Remove computer" for button in lobby.buttons)


async def test_a_lobby_full_of_computers_tells_a_joiner_how_the_host_makes_room(bot: Harness) -> None:
    """QA: a rematch lobby the host filled with computers answered the invited player's Join with "This game is
    full" alone. The seat is the host's to free: the refusal names the host and the button as it reads."""
    h = bot
    lobby = await h.open_lobby("dicepoker", h.alice, opponents=5)
    refused = await (await h.server.click_button(h.bob, lobby, label="Join")).message()
    assert refused.ephemeral
    assert refused.text == (
        "This game is full, but a computer holds a seat: the host (Alice) can press **Remove computer** to make room."
    )
    await h.click(h.alice, lobby, "Remove computer")
    await h.click(h.bob, lobby, "Join")
    record = await h.record()
    assert record is not None and len(record.seats) == 6 and record.seat(str(h.bob.id)) is not None


async def test_a_mixed_game_survives_a_restart_while_the_computer_is_to_move(bot: Harness) -> None:
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic")
    await h.click(h.bob, lobby, "Join")
    await add_computer(h, lobby, "normal")
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    for _ in range(6):
        if await computer_to_act(h):
            break
        await play_turn(h, lobby)
    assert await computer_to_act(h)
    before = await h.state()
    turns = before.turns["cpu-normal-1"]
    record = await h.record()
    assert record is not None and record.deadline_at == pytest.approx(h.clock.now + 1.2)  # stored, not in memory
    await h.restart()
    await h.tables_ready()
    for _ in range(10):
        if not await computer_to_act(h):
            break
        await h.advance(STEP)
    after = await h.state()
    assert after.turns["cpu-normal-1"] == turns + 1  # played once, after the restart
    await play_solo(h, lobby, kniffel)
    record = await h.record()
    assert record is not None and record.status == "finished"
    rows = await h.bot.db.fetch_all("SELECT user_id FROM results WHERE game_id = ?", (record.id,))
    assert sorted(row[0] for row in rows) == sorted([h.alice.id, h.bob.id])


async def test_knister_computers_place_as_soon_as_the_roll_is_announced(bot: Harness) -> None:
    h = bot
    lobby = await h.open_lobby("knister", h.alice)
    await add_computer(h, lobby, "normal")
    await add_computer(h, lobby, "perfect")
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    state = await h.state()
    assert state.roller == str(h.alice.id)
    await h.click(h.alice, lobby, "Roll")
    await h.advance(STEP)
    state = await h.state()
    assert set(state.placed) == {"cpu-normal-1", "cpu-perfect-1"}  # both at once, in one step
    assert str(h.alice.id) not in state.placed
    record = await h.record()
    assert record is not None and record.deadline_at is not None and record.deadline_at > h.clock.now + 60
    grid_button = lobby.button(prefix=f"g:{record.id}:grid:")
    grid = await (await h.server.click(h.alice, lobby, grid_button.custom_id or "")).message()
    cell = next(button for button in grid.buttons if not button.disabled)
    await (await h.server.click(h.alice, grid, cell.custom_id or "")).message()
    state = await h.state()
    assert state.roller == "cpu-normal-1" and state.dice is None
    # Nobody is told to press the Roll button nobody can press (QA: "🤖 Normal, roll the dice! … press Roll").
    await h.server.wait_for(lambda: "rolls this round" in lobby.text, what="the computer's round on the board")
    assert lobby.button(prefix="g:").disabled
    assert "**🤖 Normal** is playing…" in lobby.text and "press **Roll**" not in lobby.text, lobby.text
    await h.advance(STEP)  # the computer rolls
    rolled = await h.state()
    await h.server.wait_for(  # Alice's open grid follows the computer's roll (a deadline, not a click)
        lambda: (
            "round 2/" in grid.text
            and f"= {rolled.number}" in grid.text
            and any(not button.disabled for button in grid.buttons)
        ),
        what="Alice's grid to show the computer's roll",
    )
    await h.advance(STEP)  # both computers place
    state = await h.state()
    assert state.dice is not None and set(state.placed) == {"cpu-normal-1", "cpu-perfect-1"}


async def test_a_tutto_computer_plays_its_whole_turn_step_by_step(bot: Harness) -> None:
    h = bot
    # The computer (second seat) starts under Fireworks: a single 1 scores, then the five dice left show a null.
    h.rng = Script(cards=("fireworks",), faces=(1, 2, 3, 4, 6, 6, 2, 3, 4, 6, 6), start=1)
    lobby = await h.open_lobby("tutto", h.alice)
    await add_computer(h, lobby, "normal")
    await h.click(h.alice, lobby, "Start")
    assert (await h.state()).current == "cpu-normal-1"
    steps = 0
    while (await h.state()).current == "cpu-normal-1":
        await h.advance(STEP)
        steps += 1
        assert steps < 100
    assert steps == 3  # the draw, the first roll, then taking the 1 and rolling on: each its own paced step
    state = await h.state()
    assert state.current == str(h.alice.id) and state.scores["cpu-normal-1"] == 100  # Fireworks keep the haul
    assert "Fireworks" in "\n".join([*h.posts(), *h.said()])


async def test_a_persons_bust_stays_in_the_news_only_until_the_computers_turn_ends(bot: Harness) -> None:
    """Alice's Draw & roll is a null; the computer's first step, 1.2 seconds later, draws a card. The news keeps how
    Alice's turn ended above the computer's line, so a glance away does not miss it. Once the computer's turn ends
    (its roll is a null too) and Alice's starts, her bust is two turns old and goes: only the computer's ending
    stays, above her new turn's news (QA: the bust stayed on top)."""
    h = bot
    h.rng = Script(
        cards=("bonus_300", "bonus_200", "bonus_200"), faces=(2, 2, 3, 3, 4, 6, 2, 3, 4, 6, 2, 3, 1, 2, 3, 4, 6, 6)
    )
    lobby = await h.open_lobby("tutto", h.alice)
    await add_computer(h, lobby, "normal")
    await h.click(h.alice, lobby, "Start")
    game = TuttoTable(h, await live_board(h))
    await game.press(h.alice, "draw")
    bust = ["🃏 Alice drew **Bonus 300** and rolled ⚁ ⚁ ⚂ ⚂ ⚃ ⚅.", "💥 Alice: Null — the turn ends with nothing."]
    assert news(game)[-2:] == bust

    await h.advance(STEP)
    game = TuttoTable(h, await live_board(h))
    assert news(game) == [*bust, "🃏 🤖 Normal drew **Bonus 200**."]

    await h.advance(STEP)
    game = TuttoTable(h, await live_board(h))
    assert (await h.state()).current == str(h.alice.id)
    ended = news(game)
    assert ended == ["💥 🤖 Normal rolled ⚁ ⚂ ⚃ ⚅ ⚁ ⚂: Null — the turn ends with nothing."]

    await game.press(h.alice, "draw")
    assert news(game) == [*ended, "🃏 Alice drew **Bonus 200** and rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅."]


async def test_a_timed_out_person_is_played_by_the_normal_computer(bot: Harness) -> None:
    """docs/RULES.md, "Turn timeouts": once the tables are in memory the `normal` computer plays the absent
    person's turn. Under Bonus 200 it rolls on from 150 with four dice and banks the Tutto (1,400), where the
    engine's plain timeout action (the fallback while the tables load) would have banked the 150 at once."""
    h = bot
    h.rng = Script(cards=("bonus_200",), faces=(1, 5, 2, 3, 4, 6, 1, 1, 1, 5), start=1)
    await h.start_game("tutto", [h.alice, h.bob])
    await h.tables_ready(str(h.bob.id))
    await h.advance(TURN_SECONDS + 1)
    await h.wait_post("Bob ran out of time")
    await h.wait_post("Bob banks 1,400 — 1,400 in all.")
    state = await h.state()
    assert (state.current, state.scores[str(h.bob.id)]) == (str(h.alice.id), 1400)


async def test_a_hint_for_a_scripted_roll_shows_the_exact_best_action(bot: Harness, strategy_dir: Path) -> None:
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="classic")  # alone: hints are on by default
    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")
    hint = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert hint.ephemeral and "Preparing the hint" in hint.text  # loading in a worker thread meanwhile
    # The press is answered once the tables are in memory: "preparing" becomes the hint, no second press asked for
    await h.server.wait_for(lambda: "Best move" in hint.text, what="'preparing' to become the hint", timeout=LOADING)
    state = await h.state()
    best = strategy.evaluate(state, str(h.alice.id), directory=strategy_dir)[0]
    assert best.action == kniffel.Score(box="kniffel")
    expected = f"**score Kniffel (50 points)** → {best.value:,.1f} expected"
    assert hint.ephemeral and hint.text.replace("\N{NO-BREAK SPACE}", " ").splitlines()[1] == expected, hint.text
    keeps = [line for line in hint.text.replace("\N{NO-BREAK SPACE}", " ").splitlines() if line.startswith("**keep")]
    assert keeps and keeps[0].startswith("**keep ⚅ ⚅ ⚅ ⚅ and roll**")  # keeps shown as dice, not die toggles
    # The roll with the dice held as now is not among the best three, so it has a line of its own.
    assert hint.text.splitlines()[-1].startswith("If you roll now (roll all five dice): ")
    refused = await (await h.server.click_button(h.bob, message, label="💡 Hint")).message()
    assert "not playing" in refused.text
    assert h.bot is not None
    await h.bot.service.drain(10)  # the press's second part marks her result after showing the hint
    record = await h.record()
    assert record is not None and record.options["hinted"] == [str(h.alice.id)]  # her result will be marked
    handle = await h.click(h.alice, message, "Roll (2/3)")  # the message was redrawn with the new version
    assert not handle.ephemeral_messages and (await h.state()).rolls == 2


async def test_a_press_that_waited_for_a_failed_warm_up_still_gets_its_hint(bot: Harness) -> None:
    """The press waits for whatever load is under way, the start-up warm-up too: when that fails, the game's own
    tables are loaded next and "preparing" still turns into the hint (it had stayed for good, its task dead)."""
    h = bot
    assert h.bot is not None and h.bot.brain is not None
    warm_up: asyncio.Future[dict[str, float]] = asyncio.get_running_loop().create_future()
    h.bot.brain._warming = warm_up  # a start-up build still running
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    hint = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert "Preparing the hint" in hint.text
    warm_up.set_exception(RuntimeError("the build failed"))
    await h.server.wait_for(
        lambda: "Expected final score" in hint.text, what="'preparing' to become the hint", timeout=LOADING
    )
    assert isinstance(warm_up.exception(), RuntimeError)  # the warm-up's own failure, read (the bot logs it)


async def test_a_press_answered_preparing_is_dropped_when_the_player_moves_on_meanwhile(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The press waits for the tables outside the game's lock, so the player may roll meanwhile: the advice asked
    for is then out of date, and "preparing" goes rather than turn into a hint nobody asked for."""
    h = bot
    release = threading.Event()
    evaluate = computer._evaluate

    def held(state: object, player: str, directory: Path) -> object:
        release.wait(timeout=60)
        return evaluate(state, player, directory)

    monkeypatch.setattr(computer, "_evaluate", held)
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    preparing = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert "Preparing the hint" in preparing.text
    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")  # answered at once: the load holds no lock
    await h.server.wait_for(lambda: preparing.deleted, what="'preparing' to go")
    release.set()
    assert h.bot is not None
    await h.tables_ready(str(h.alice.id))
    await h.bot.service.drain(10)
    record = await h.record()
    assert record is not None and "hinted" not in record.options  # no hint was shown
    hint = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert hint.text.splitlines()[1].startswith("**score Kniffel (50 points)** →\N{NO-BREAK SPACE}"), hint.text


async def test_a_hint_names_the_roll_as_held_now_once(bot: Harness) -> None:
    """The roll with the dice held as they are is among the best three here: it is not repeated below them."""
    h = bot
    message = await h.start_game("kniffel", [h.alice], rules="kniffel")
    h.rng.script(2, 1, 3, 1, 2)  # rolling all five again is the third best
    await h.click(h.alice, message, "Roll")
    state = await h.state()
    loading = h.bot.brain.prepare(state, str(h.alice.id))
    if loading is not None:
        await loading
    hint = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    lines = hint.text.replace("\N{NO-BREAK SPACE}", " ").splitlines()
    assert len(lines) == 4 and any(line.startswith("**roll all five dice** → ") for line in lines), hint.text
    assert hint.text.count("roll all five dice") == 1, hint.text


async def test_a_hint_after_the_tables_failed_to_load_says_hints_are_unavailable(
    bot: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed load is not tried again before a restart: "preparing" would never end, so the hint says so."""
    h = bot

    def failing(state: object, player: str, directory: Path) -> None:
        raise MemoryError("no room for the table")

    monkeypatch.setattr(computer, "_evaluate", failing)
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    await h.click(h.alice, message, "Roll")
    before = await h.record()
    first = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert first.ephemeral and "Preparing the hint" in first.text
    await h.server.wait_for(lambda: "Hints are unavailable" in first.text, what="'preparing' to say so")
    again = await (await h.server.click_button(h.alice, message, label="💡 Hint")).message()
    assert again.ephemeral and "Hints are unavailable" in again.text, again.text
    assert await h.record() == before  # no hint was shown, so the player's result is not marked


async def test_the_host_switches_hints_off_in_the_lobby(bot: Harness) -> None:
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic")
    await h.click(h.alice, lobby, "💡 Hints: on")
    assert any(button.label == "💡 Hints: off" for button in lobby.buttons)
    await h.click(h.alice, lobby, "Start")
    assert not any(button.label == "💡 Hint" for button in lobby.buttons)


async def test_the_lobby_says_why_hints_went_off_when_a_second_person_joined(bot: Harness) -> None:
    """Hints follow the people seated until the host chooses: the button turning off by itself needs a word why."""
    h = bot
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic")
    assert "Hints are off" not in lobby.text
    await h.click(h.bob, lobby, "Join")
    assert any(button.label == "💡 Hints: off" for button in lobby.buttons)
    assert "💡 Hints are off while people play each other; the host can turn them on." in lobby.text
    await h.click(h.alice, lobby, "💡 Hints: off")
    assert "Hints are off" not in lobby.text
    await h.click(h.alice, lobby, "💡 Hints: on")
    assert any(button.label == "💡 Hints: off" for button in lobby.buttons)
    assert "Hints are off" not in lobby.text  # the host's own choice needs no explanation


async def rematch_refused_once(h: Harness, method: str) -> Message:
    """Alice's classic Kniffel game against an easy computer played to its end, then Rematch while the storage's
    next call of ``method`` fails as a database out of reach would (later calls go through); the message it gave."""
    lobby = await h.open_lobby("kniffel", h.alice, rules="classic", opponents=1, level="easy")
    await h.click(h.alice, lobby, "Start")
    await h.tables_ready()
    await play_solo(h, lobby, kniffel)
    assert h.bot is not None
    games = h.bot.service._games
    real = getattr(games, method)

    async def refused_once(*args: Any, **kwargs: Any) -> Any:
        setattr(games, method, real)
        raise StorageUnavailable("disk I/O error")

    setattr(games, method, refused_once)
    message = await (await h.server.click_button(h.alice, lobby, label="Rematch")).message()
    await h.bot.service.drain(10)
    return message


async def test_a_rematch_whose_start_is_not_saved_opens_its_lobby_instead(bot: Harness) -> None:
    """The one-tap rematch (QA 37) when the database refuses the start: the lobby it came from, with Start."""
    h = bot
    rematch = await rematch_refused_once(h, "save")
    record = await h.record()
    assert record is not None and record.status == "lobby" and record.message_id == rematch.id
    assert [(seat.player, seat.kind) for seat in record.seats] == [
        (str(h.alice.id), "user"),
        ("cpu-easy-1", "computer"),
    ]
    await h.click(h.alice, rematch, "Start")
    assert (await h.record()).status == "running"  # type: ignore[union-attr]


async def test_a_rematch_started_at_once_whose_board_was_not_stored_is_linked_by_the_hosts_click(
    bot: Harness,
) -> None:
    """The one-tap rematch when storing its board's message fails: after a restart the host's first click on that
    board links it (as for a lobby), instead of every click being refused as not this game's message."""
    h = bot
    board = await rematch_refused_once(h, "attach_message")
    record = await h.record()
    assert record is not None and record.status == "running" and record.message_id is None
    await h.restart()
    rolled = await h.click(h.alice, board, "Roll")
    assert not rolled.ephemeral_messages, [m.text for m in rolled.ephemeral_messages]
    record = await h.record()
    assert record is not None and record.message_id == board.id
