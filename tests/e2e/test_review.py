"""Post-game reviews end to end: the Review button and ``/kniffel review`` after a restart, the suggestions for its
``game`` option, and forget-me (also during a game).

A solo classic Kniffel game is played through the buttons with scripted dice: the first turn writes five sixes as
Chance (a costly decision whose loss the test computes from the strategy's values), the rest is played by the
harness's simple chase. The bot is restarted before the review, so the review reads only the stored history.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import strategy
from bot.engine import kniffel
from bot.engine import tutto as tutto_engine
from bot.storage.forgotten import FORGOTTEN_NAME
from bot.strategy import tutto as tutto_strategy
from bot.strategy.tutto import Plan
from fakediscord import Message, User
from tests.e2e.conftest import Harness
from tests.e2e.dice import play_to_end
from tests.e2e.test_tutto import TURN_SECONDS, Script, Table, play
from tests.results import store_finished_game

pytestmark = pytest.mark.timeout(240)

REVIEW = "🔍 Review"
#: Something a test does in the middle of a scripted game.
Step = Callable[[], Awaitable[None]]


@pytest.fixture
async def bot(harness: Harness, shared_tables: Path) -> Harness:
    harness.strategy_dir = shared_tables
    await harness.start_bot()
    return harness


async def finished_game(h: Harness, after_the_first_turn: Step | None = None) -> Message:
    """Alice's solo classic game: five sixes written as Chance first, then ``after_the_first_turn``, then the
    chase to the end."""
    message = await h.start_game("kniffel", [h.alice], rules="classic")
    h.rng.script(6, 6, 6, 6, 6)
    await h.click(h.alice, message, "Roll")
    await (await h.server.select(h.alice, message, message.select().custom_id, ["chance"])).response()
    if after_the_first_turn is not None:
        await after_the_first_turn()
    await play_to_end(h, message, kniffel)
    record = await h.record()
    assert record is not None and record.status == "finished"
    return message


async def alice_wins_at_tutto(h: Harness, after_her_first_turn: Step | None = None, alice: User | None = None) -> Table:
    """Alice and Bob's scripted Tutto game to 1,000, which Alice (or ``alice``, under another name) wins in her
    second turn.

    Alice draws Bonus 200, rolls ⚄ ⚁ ⚂ ⚃ ⚅ ⚅, takes the ⚄ and stops (banking 50 where rolling on five dice is
    worth more); then ``after_her_first_turn`` runs; Bob draws Stop; Alice draws Bonus 400, takes three ⚀ and
    stops. Two decisions of Alice's to review.
    """
    alice = alice or h.alice
    script = Script(["bonus_200", "stop", "bonus_400"], [5, 2, 3, 4, 6, 6, 1, 1, 1, 2, 3, 4])
    game = await play(h, script, [alice, h.bob], target=1000)
    await game.press(alice, "draw")
    await game.pick(alice, 5)
    await game.press(alice, "stop")
    if after_her_first_turn is not None:
        await after_her_first_turn()
    await game.press(h.bob, "draw")
    await h.wait_post("🛑 Bob drew Stop — turn over.")
    await game.press(alice, "draw")
    await game.pick(alice, 1, 1, 1)
    await game.press(alice, "stop")
    await h.wait_post(f"🏆 Winner: {alice.name}!")
    return game


async def stored_moves(h: Harness) -> list[tuple[str, dict[str, object], str]]:
    assert h.bot is not None
    record = await h.record()
    assert record is not None
    rows = await h.bot.db.fetch_all(
        "SELECT player, action, state FROM game_moves WHERE game_id = ? ORDER BY version, step", (record.id,)
    )
    return [(row[0], json.loads(row[1]), row[2]) for row in rows]


def decisions(moves: list[tuple[str, dict[str, object], str]]) -> int:
    """Rerolls and boxes: toggles and a turn's first roll are no decisions."""
    count = 0
    for _, action, state in moves:
        rolls = kniffel.State.load(state).rolls
        count += action["kind"] == "score" or (action["kind"] == "roll" and rolls > 0)
    return count


def read(message: Message) -> str:
    """A review as a player reads it: the no-break spaces that hold a group of dice and a ✓ together on a phone
    read as spaces (tests/ui/test_hint.py checks where they are)."""
    return message.text.replace("\N{NO-BREAK SPACE}", " ")


async def review_message(h: Harness, handle: object) -> Message:
    """The deferred private answer once it shows the review (it may say "preparing" first)."""
    first = await handle.message(timeout=30)  # type: ignore[attr-defined]
    return await h.server.wait_for(lambda: first if first.embeds else None, timeout=60, what="the review embed")


async def test_the_review_button_after_a_restart_lists_the_scripted_games_regrets(
    bot: Harness, shared_tables: Path
) -> None:
    h = bot
    message = await finished_game(h)
    moves = await stored_moves(h)
    player = str(h.alice.id)
    assert {source for source, _, _ in moves} == {player}
    assert sum(1 for _, action, _ in moves if action["kind"] == "score") == 13  # every turn's box is stored
    chance_state = kniffel.State.load(moves[1][2])
    assert moves[1][1] == {"kind": "score", "box": "chance"} and chance_state.dice == [6, 6, 6, 6, 6]
    values = {entry.action: entry.value for entry in strategy.evaluate(chance_state, player, directory=shared_tables)}
    loss = values[kniffel.Score(box="kniffel")] - values[kniffel.Score(box="chance")]

    await h.restart()
    assert any(button.label == REVIEW for button in message.buttons)
    clicked = await h.server.click_button(h.alice, message, label=REVIEW)
    review = await review_message(h, clicked)
    edits = [r.json.get("content") for r in clicked.requests if r.method == "PATCH"]
    # deferred at once; the tables are not in memory after a restart: "preparing" first, then the review
    assert clicked.response_type == 5 and edits[0].startswith("⏳ Preparing the review") and len(edits) == 2

    assert review.ephemeral
    text = review.text.replace("\N{NO-BREAK SPACE}", " ")  # as read; kept together on a phone
    assert f"Decisions: **{decisions(moves)}**" in text
    fields = review.embeds[0]["fields"]
    assert review.embeds[0]["description"].endswith("\n\n**The most costly decisions**")  # their fields follow
    nb = "\N{NO-BREAK SPACE}"
    sixes = nb.join("⚅" * 5)  # one group on a phone
    at = f"Turn{nb}1{nb}·{nb}roll{nb}1/3"  # where it was made: rolls were left
    assert fields[0]["name"] == f"{at} · {sixes} · −{loss:.1f}"  # the costliest decision, with its dice
    # the points each box scores with the dice (QA: a forced zero read like a real straight)
    assert fields[0]["value"] == "Chosen: score Chance (30 points)\nBest: score Kniffel (50 points)"
    assert text.count("score Chance (30 points)") == 1  # shown once: the list above leaves the costliest out
    assert len(fields) <= 3

    refused = await (await h.server.click_button(h.bob, message, label=REVIEW)).message(timeout=10)
    assert refused.ephemeral and "Only the people who played this game" in refused.text

    latest = await review_message(h, await h.command(h.alice, "kniffel review"))
    assert latest.embeds[0]["description"] == review.embeds[0]["description"]
    record = await h.record()
    assert record is not None
    chosen = await review_message(h, await h.command(h.alice, "kniffel review", game=record.id))
    # named by what players know, the channel and when it ended, never by the bot's global game id (QA)
    assert chosen.embeds[0]["title"] == "🔍 Review · Kniffel"
    assert record.finished_at is not None
    played = f"<#{record.channel_id}> · ended <t:{int(record.finished_at)}:f>"
    assert chosen.embeds[0]["description"].splitlines()[0] == played
    other = await (await h.command(h.bob, "kniffel review", game=record.id)).message()
    assert other.ephemeral and "That is not a finished Kniffel game of yours." in other.text
    none = await (await h.command(h.alice, "dicepoker review")).message()
    assert "You have no finished games of Dice poker to review yet." in none.text


async def test_typing_into_the_review_command_s_game_option_suggests_one_s_finished_games(bot: Harness) -> None:
    """Discord asks the bot for the ``game`` option's choices as the person types (an autocomplete interaction)."""
    h = bot
    await finished_game(h)
    record = await h.record()
    assert record is not None and record.finished_at is not None
    ended = datetime.datetime.fromtimestamp(record.finished_at, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    game = {"name": f"#{record.id} · {ended}", "value": record.id}
    for typed in ("", str(record.id)):
        typing = await h.server.autocomplete(h.alice, h.channel, "kniffel review", "game", typed)
        assert game in await typing.suggestions()
    nothing_played = await h.server.autocomplete(h.bob, h.channel, "kniffel review", "game", "")
    assert await nothing_played.suggestions() == []


async def test_forget_me_deletes_the_move_history(bot: Harness) -> None:
    h = bot
    message = await finished_game(h)
    assert await stored_moves(h)
    prompt = await (await h.command(h.alice, "forget-me")).message()
    await h.click(h.alice, prompt, "Delete my results")
    assert await stored_moves(h) == []
    answer = await (await h.server.click_button(h.alice, message, label=REVIEW)).message(timeout=10)
    assert "No moves of this game are stored" in answer.text


async def test_a_game_played_alone_and_forgotten_while_it_ran_keeps_neither_result_nor_history(bot: Harness) -> None:
    """forget-me leaves a game in progress to the game: its end stores no result for the person and, with
    nobody else to review it, drops its history."""
    h = bot

    async def forget_alice() -> None:
        # No stored result yet: forget-me still has the game's result to refuse.
        prompt = await (await h.command(h.alice, "forget-me")).message()
        assert prompt.text.startswith("You have no stored game results. Confirm, and the game you are playing now")
        await h.click(h.alice, prompt, "Delete my results")
        assert prompt.text == "Done: the game you are playing now stores no result of yours."
        assert len(await stored_moves(h)) == 2, "the game in progress keeps its history"

    message = await finished_game(h, after_the_first_turn=forget_alice)
    record = await h.record()
    assert record is not None and h.bot is not None
    assert await h.bot.results.for_game(record.id) == []
    assert await stored_moves(h) == []
    answer = await (await h.server.click_button(h.alice, message, label=REVIEW)).message(timeout=10)
    assert "No moves of this game are stored" in answer.text


@pytest.mark.parametrize("name", ["Alice", FORGOTTEN_NAME])
async def test_forget_me_during_a_game_with_another_person_leaves_them_its_review(harness: Harness, name: str) -> None:
    """Bob asks to be forgotten in the middle of a game with Alice: its end stores Alice's result alone and
    Bob's seat without his name, and Alice reviews the whole game. Also when she calls herself "—", the name a
    forgotten seat shows: a seat is forgotten by a mark of its own, not by its name."""
    h = harness
    await h.start_bot(("cogs.help", "cogs.tutto", "cogs.leaderboard"))
    assert h.bot is not None
    alice = h.alice if name == h.alice.name else h.server.add_user(name)
    await store_finished_game(
        h.bot.games, {h.bob.id: 300}, kind="tutto", variant="standard", guild_id=h.guild.id, channel_id=1,
        finished_at=h.clock.now,
    )  # fmt: skip

    async def forget_bob() -> None:
        prompt = await (await h.command(h.bob, "forget-me")).message()
        await h.click(h.bob, prompt, "Delete my results")
        assert prompt.text == "Done: 1 stored game result was deleted."

    game = await alice_wins_at_tutto(h, after_her_first_turn=forget_bob, alice=alice)

    record = await h.record()
    assert record is not None and record.status == "finished"
    assert [(row.user_id, row.display_name) for row in await h.bot.results.for_game(record.id)] == [(alice.id, name)]
    assert await h.bot.db.fetch_all("SELECT * FROM results WHERE user_id = ?", (h.bob.id,)) == []
    assert await h.bot.db.fetch_all("SELECT * FROM player_names WHERE user_id = ?", (h.bob.id,)) == []
    assert [seat.display_name for seat in record.seats] == [name, FORGOTTEN_NAME]
    review = await review_message(h, await h.server.click_button(alice, game.message, label=REVIEW))
    assert "Decisions: **2**" in read(review)


async def plans_at_first_stop(h: Harness, user: User) -> dict[Plan, float]:
    """The Tutto plans as the hint values them on the roll where ``user`` first pressed Stop in the channel's latest
    game, read from its stored moves."""
    assert h.bot is not None
    record = await h.record()
    assert record is not None
    rows = await h.bot.db.fetch_all(
        "SELECT state FROM game_moves WHERE game_id = ? AND player = ? AND action = ? ORDER BY version",
        (record.id, str(user.id), '{"kind":"stop"}'),
    )
    first = tutto_engine.State.load(rows[0][0])
    return {entry.action: entry.value for entry in tutto_strategy.plan_values(first, str(user.id))}


async def test_a_tutto_review_values_each_selection_and_stop_as_one_plan(harness: Harness) -> None:
    h = harness
    game = await alice_wins_at_tutto(h)
    plans = await plans_at_first_stop(h, h.alice)
    roll_on, stop = plans[Plan((5,), "roll_on")], plans[Plan((5,), "stop")]
    assert roll_on > stop

    review = await review_message(h, await h.server.click_button(h.alice, game.message, label=REVIEW))

    assert "Decisions: **2**" in read(review)  # drawing a card and the first roll are no decisions
    # each line names the turn's card; the stop that reached the target won the game: nothing was better
    lines = read(review).splitlines()
    costly = ["Turn 1 · Bonus 200: ⚄ ⚁ ⚂ ⚃ ⚅ ⚅ · −" + f"{roll_on - stop:,.1f}", "Chosen: take ⚄ and stop"]
    assert lines[lines.index(costly[0]) + 1] == costly[1], read(review)  # its field, below the list
    assert "Best: take ⚄ and roll on" in lines, read(review)
    assert "`Turn 2` Bonus 400: ⚀ ⚀ ⚀ ⚁ ⚂ ⚃ · take ⚀ ⚀ ⚀ and stop ✓" in lines, read(review)
    assert "Values: the expected points banked this turn" in read(review)


async def test_a_tutto_review_names_the_buttons_of_the_better_plan_after_a_tutto(harness: Harness) -> None:
    """QA: Bob took the last scoring die under a Bonus card and pressed "Stop · N" instead of "Tutto!"; his review
    read "take ⚄ and stop → best: take ⚄: Tutto", though both make the Tutto and bank its bonus. What was better
    is to draw again after it, and the review says so as the buttons read: Tutto!, then Continue."""
    h = harness
    script = Script(
        ["bonus_200", "stop", "bonus_400", "stop", "bonus_400"],
        [1, 1, 5, 5, 2, 3, 1, 5, 1, 1, 1, 2, 3, 4, 1, 1, 1, 2, 3, 4],
    )
    game = await play(h, script, [h.alice, h.bob], target=2000)
    await game.press(h.alice, "draw")
    await game.pick(h.alice, 1, 1, 5, 5)
    await game.press(h.alice, "roll_on")
    await game.pick(h.alice, 1, 5)
    assert {"Tutto!", "Stop · bank 650"} <= {button.label for button in game.message.buttons}, game.text
    await game.press(h.alice, "stop")
    for _ in range(2):
        await game.press(h.bob, "draw")
        await game.press(h.alice, "draw")
        await game.pick(h.alice, 1, 1, 1)
        await game.press(h.alice, "stop")
    await h.wait_post("🏆 Winner: Alice!")
    plans = await plans_at_first_stop(h, h.alice)
    loss = plans[Plan((1, 5), "roll_on")] - plans[Plan((1, 5), "stop")]

    review = await review_message(h, await h.server.click_button(h.alice, game.message, label=REVIEW))

    lines = read(review).splitlines()
    at = lines.index(f"Turn 1 · Bonus 200: ⚀ ⚄ · −{loss:,.1f}")  # the costliest decision's field
    assert lines[at + 1 : at + 3] == ["Chosen: take ⚀ ⚄ and stop", "Best: take ⚀ ⚄: Tutto!, then Continue"]


async def test_a_tutto_review_lists_a_fireworks_turn_the_bot_played_after_a_timeout(harness: Harness) -> None:
    """QA (the playground, in Polish): Alice drew Fireworks and ran out of time; the bot played her turn, and her
    review read "Decisions: 0 · expected points lost: 0.0 · average loss per decision: 0.00" over an empty box, as
    if she had played perfectly. The card left no choice, but what the bot played for her is listed with ⏱ and
    the review says she made no decision of her own."""
    h = harness
    script = Script(["fireworks", "bonus_400"], [4, 3, 1, 5, 4, 6, 5, 6, 5, 6, 2, 3, 1, 1, 1, 2, 3, 4])
    game = await play(h, script, [h.alice, h.bob], target=1000)
    await game.press(h.alice, "draw")
    await h.advance(TURN_SECONDS + 1)
    await h.wait_post("Alice ran out of time")
    await game.press(h.bob, "draw")
    await game.pick(h.bob, 1, 1, 1)
    await game.press(h.bob, "stop")
    await h.wait_post("🏆 Winner: Bob!")

    review = await review_message(h, await h.server.click_button(h.alice, game.message, label=REVIEW))

    lines = read(review).splitlines()
    assert "No decisions of your own to judge in this game." in lines, read(review)
    assert not any("0.00" in line for line in lines), read(review)
    assert "⏱ played for you after a timeout, not counted: 2" in lines, read(review)
    assert "⏱ `Turn 1` Fireworks: ⚃ ⚂ ⚀ ⚄ ⚃ ⚅ · take ⚀ ⚄ and roll on ✓" in lines, read(review)
    assert "⏱ `Turn 1` Fireworks: ⚄ ⚅ ⚄ ⚅ · take ⚄ ⚄ and roll on ✓" in lines, read(review)
    assert lines[-1].strip(), "no empty box below the figures"
