"""/dicepoker end to end: a whole scripted game through clicks and the select, the part-1/part-2 restriction
(also against forged select values), the final cards and settlement, a restart mid-turn, and timeouts."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction

import pytest

from bot.engine import dicepoker
from fakediscord import Message, User
from fakediscord.errors import InvalidInput
from tests.e2e.board import ALREADY, CHANGED
from tests.e2e.conftest import Harness
from tests.e2e.dice import forge, play_turn

pytestmark = pytest.mark.timeout(60)

MINUS = "−"

Reroll = tuple[Sequence[int], Sequence[int]]
"""Before a reroll: the indices of the dice to hold, then the fresh faces of the other dice, left to right."""


@dataclasses.dataclass(frozen=True)
class Turn:
    """One scripted turn: the first roll, the rerolls, the row to pick and the select label it must show."""

    first: Sequence[int]
    row: str
    label: str
    rerolls: Sequence[Reroll] = ()
    forged: str = ""
    """A lower row the dice make, forged into the select in turn 3 (part 1)."""


# --------------------------------------------------------------------------------------------------
# playing through the message, as a user would


async def roll(h: Harness, message: Message, user: User, faces: Sequence[int]) -> None:
    """Script the fresh faces and press Roll / Roll (n/3)."""
    state = await h.state()
    h.rng.script(*faces)
    handle = await h.click(user, message, "Roll" if state.rolls == 0 else f"Roll ({state.rolls + 1}/3)")
    assert not handle.ephemeral_messages, handle.ephemeral_messages[0].text
    assert not h.rng.queue, "the bot did not use every scripted die"


async def hold_exactly(h: Harness, message: Message, user: User, keep: Sequence[int]) -> None:
    """Tap the dice buttons until exactly ``keep`` are held."""
    record = await h.record()
    assert record is not None
    state = await h.state()
    for index in range(dicepoker.DICE):
        if (index in keep) != state.held[index]:
            handle = await h.server.click_button(user, message, prefix=f"g:{record.id}:hold:{index}.")
            await handle.response()
            assert not handle.ephemeral_messages, handle.ephemeral_messages[0].text
    assert (await h.state()).held == [index in keep for index in range(dicepoker.DICE)]


def options(message: Message) -> dict[str, str]:
    """The Score… select as value -> label."""
    return {option.value: option.label for option in message.select().options}


async def pick(h: Harness, message: Message, user: User, value: str) -> None:
    handle = await h.server.select(user, message, message.select().custom_id, [value])
    await handle.response()
    assert not handle.ephemeral_messages, handle.ephemeral_messages[0].text


async def roll_turn(h: Harness, message: Message, user: User, turn: Turn) -> dict[str, str]:
    """Make every roll of ``turn`` and return the select the player sees afterwards."""
    await roll(h, message, user, turn.first)
    for keep, fresh in turn.rerolls:
        await hold_exactly(h, message, user, keep)
        await roll(h, message, user, fresh)
    return options(message)


def card_block(message: Message, name: str) -> list[tuple[str, str]]:
    """A player's card in the final embed as (row label, value) lines."""
    fields = {field["name"]: field["value"] for field in message.embeds[0]["fields"]}
    lines = fields[name].strip("`\n").splitlines()
    return [tuple(line.rsplit(None, 1)) for line in lines]  # type: ignore[misc]


def _signed(value: int) -> str:
    return f"{value:+d}".replace("-", MINUS) if value else "0"


def seats(state: dicepoker.State, h: Harness) -> tuple[User, User]:
    first, second = (h.user(player) for player in state.players)
    return first, second


# --------------------------------------------------------------------------------------------------
# the complete game

# First seat: a bonus-making upper part with one negative row, then a first-roll straight, a poker after a reroll.
FIRST = [
    Turn((1, 1, 1, 1, 2), "ones", "Ones — +1"),
    Turn((2, 3, 3, 3, 1), "threes", "Threes — +3", [((1, 2, 3), (3, 2))]),
    Turn((6, 6, 6, 6, 1), "sixes", "Sixes — +6", forged="four_of_a_kind"),
    Turn((4, 4, 4, 4, 4), "fours", "Fours — +8"),
    Turn((5, 5, 5, 1, 2), "fives", "Fives — 0"),
    Turn((1, 3, 4, 5, 6), "twos", f"Twos — {MINUS}6"),
    Turn((2, 3, 4, 5, 6), "large_straight", "Large straight — 40 (×2 first roll)"),
    Turn((6, 6, 6, 1, 2), "poker", "Poker — 80", [((0, 1, 2), (6, 6))]),
    Turn((5, 5, 5, 5, 2), "four_of_a_kind", "Four of a kind — 40 (×2 first roll)"),
    Turn((3, 3, 3, 2, 1), "full_house", "Full house — 13", [((0, 1, 2, 3), (2,))]),
    Turn((1, 2, 3, 4, 5), "small_straight", "Small straight — 30 (×2 first roll)"),
    Turn((4, 4, 5, 5, 1), "two_pairs", "Two pairs — 18", [((0, 1, 2, 3), (6,))]),
    Turn((1, 1, 1, 2, 3), "three_of_a_kind", "Three of a kind — 6 (×2 first roll)"),
    Turn((6, 6, 1, 2, 3), "pair", "Pair — 24 (×2 first roll)"),
    Turn((6, 6, 5, 5, 3), "chance", "Chance — 25"),
]
FIRST_CARD = {
    "ones": 1,
    "twos": -6,
    "threes": 3,
    "fours": 8,
    "fives": 0,
    "sixes": 6,
    "pair": 24,
    "two_pairs": 18,
    "three_of_a_kind": 6,
    "small_straight": 30,
    "large_straight": 40,
    "full_house": 13,
    "four_of_a_kind": 40,
    "poker": 80,
    "chance": 25,
}

# Second seat: a negative upper sum (bonus lost), chance early, then a pass, a first-roll poker of sixes.
SECOND = [
    Turn((2, 3, 4, 5, 6), "ones", f"Ones — {MINUS}3"),
    Turn((2, 2, 3, 4, 5), "twos", f"Twos — {MINUS}2"),
    Turn((3, 3, 1, 1, 1), "threes", f"Threes — {MINUS}3", forged="full_house"),
    Turn((4, 4, 4, 1, 1), "fours", "Fours — 0"),
    Turn((5, 1, 1, 1, 1), "fives", f"Fives — {MINUS}10"),
    Turn((6, 6, 6, 6, 1), "sixes", "Sixes — +6"),
    Turn((1, 2, 3, 4, 6), "chance", "Chance — 16"),
    Turn((1, 2, 3, 4, 6), "pass", "Pass — nothing fits"),
    Turn((6, 6, 6, 6, 6), "poker", "Poker — 110 (×2 first roll)"),
    Turn((2, 2, 1, 3, 5), "pair", "Pair — 4", [((0, 1), (1, 3, 4)), ((0, 1), (5, 6, 1))]),
    Turn((1, 1, 2, 2, 3), "two_pairs", "Two pairs — 12 (×2 first roll)"),
    Turn((4, 4, 4, 1, 2), "three_of_a_kind", "Three of a kind — 24 (×2 first roll)"),
    Turn((1, 1, 1, 1, 2), "four_of_a_kind", "Four of a kind — 8 (×2 first roll)"),
    Turn((2, 3, 4, 5, 5), "large_straight", "Large straight — 20", [((0, 1, 2, 3), (6,))]),
    Turn((5, 5, 5, 6, 1), "full_house", "Full house — 27", [((0, 1, 2, 3), (6,))]),
]
SECOND_CARD = {
    "ones": -3,
    "twos": -2,
    "threes": -3,
    "fours": 0,
    "fives": -10,
    "sixes": 6,
    "pair": 4,
    "two_pairs": 12,
    "three_of_a_kind": 24,
    "small_straight": 0,  # the pass left it empty: a dash worth 0
    "large_straight": 20,
    "full_house": 27,
    "four_of_a_kind": 8,
    "poker": 110,
    "chance": 16,
}


async def check_part_one_restriction(h: Harness, message: Message, user: User, forged: str) -> None:
    """Turn 3: only the open upper rows are offered, and a forged lower row is refused without effect."""
    state = await h.state()
    assert state.turn == 3 and state.part == 1
    card = state.cards[str(user.id)]
    offered = options(message)
    assert list(offered) == [row for row in dicepoker.UPPER if row not in card]
    assert "Part 1: School" in message.text and "turn 3/15" in message.text
    # the dice make the combination, yet no combination row is offered
    assert dicepoker.score(state.dice, forged) is not None

    with pytest.raises(InvalidInput):  # fakediscord, like Discord, only sends values the select offers
        await h.server.select(user, message, message.select().custom_id, [forged])
    record = await h.record()
    refused = await forge(h, message, user, forged, "Forged — 99")
    reply = await refused.message()
    assert reply.ephemeral and reply.text == "You cannot score these dice there."
    assert await h.state() == state
    assert (await h.record()).version == record.version
    assert options(message) == offered


async def check_part_two_restriction(h: Harness, message: Message, user: User) -> None:
    """Turn 9: no upper row is offered; a forged one is refused without effect."""
    state = await h.state()
    assert state.turn == 9 and state.part == 2
    offered = options(message)
    assert offered
    assert not set(offered) & set(dicepoker.UPPER)
    assert set(offered) <= set(dicepoker.LOWER)
    assert "Part 2: Combinations" in message.text and "turn 9/15" in message.text

    record = await h.record()
    refused = await forge(h, message, user, "fives", "Fives — +5")
    reply = await refused.message()
    assert reply.ephemeral and reply.text == "That box is already filled."
    refused = await forge(h, message, user, "pass", "Pass — nothing fits")
    assert (await refused.message()).text == "That is not allowed right now."
    assert await h.state() == state
    assert (await h.record()).version == record.version


async def test_complete_two_player_game(running: Harness) -> None:
    h = running
    message = await h.start_game("dicepoker", [h.alice, h.bob])
    state = await h.state()
    first, second = seats(state, h)
    await h.wait_post(f"Order of play: {first.name}, {second.name}")
    game_message_id = message.id

    for number in range(1, dicepoker.TURNS + 1):
        for user, turn in ((first, FIRST[number - 1]), (second, SECOND[number - 1])):
            state = await h.state()
            assert state.current_player == str(user.id) and state.turn == number
            assert f"turn {number}/15" in message.text
            offered = await roll_turn(h, message, user, turn)
            assert offered.get(turn.row) == turn.label, offered
            if number == 3:
                await check_part_one_restriction(h, message, user, turn.forged)
            if number == 9:
                await check_part_two_restriction(h, message, user)
            if turn.row == "pass":
                assert offered == {"pass": "Pass — nothing fits"}
            if turn.row == "chance":
                assert "×2" not in turn.label  # chance is never doubled
            await pick(h, message, user, turn.row)

            if number == 6 and user.id == second.id:
                # part 1 is over for both: the bonus status is final
                assert f"{first.name}: School +12 · bonus +50 made ✅" in message.text
                assert f"{second.name}: School {MINUS}12 · bonus +50 lost" in message.text
                assert "Part 2: Combinations" in message.text
            if number == 2 and user.id == second.id:
                assert f"{first.name}: School +4 · bonus +50 still possible" in message.text
                assert f"{second.name}: School {MINUS}5 · bonus +50 still possible" in message.text

    await h.wait_post(f"{first.name}: 40 in Large straight (doubled, first roll!)")
    await h.wait_post(f"{first.name}: 80 in Poker")
    await h.wait_post(f"{second.name}: 110 in Poker (doubled, first roll!)")
    await h.wait_post(f"{second.name} passes: nothing fits.")
    await h.wait_post(f"{second.name}: {MINUS}10 in Fives")
    await h.wait_post(f"Winner: {first.name}")

    # the engine state the bot stored
    state = await h.state()
    record = await h.record()
    assert record is not None and record.status == "finished" and record.message_id == game_message_id
    a, b = str(first.id), str(second.id)
    assert state.over
    assert state.cards == {a: FIRST_CARD, b: SECOND_CARD}
    assert state.dashes == {a: [], b: ["small_straight"]}
    sums = {player: dicepoker.card_totals(state, player) for player in (a, b)}
    assert sums[a] == dicepoker.CardTotals(upper=12, upper_bonus=50, lower=276, total=338)
    assert sums[b] == dicepoker.CardTotals(upper=-12, upper_bonus=0, lower=221, total=209)
    shares = dicepoker.settlements(state)
    assert shares == {a: Fraction(129, 2), b: Fraction(-129, 2)}  # average 273.5

    # the final embed: standings with the settlement, then both full cards; Review and Rematch are left
    assert [button.label for button in message.buttons] == ["🔍 Review", "Rematch"]
    embed = message.embeds[0]
    assert embed["title"] == "Dice poker — final scores"
    assert embed["description"].replace("\N{NO-BREAK SPACE}", " ").splitlines() == [
        f"🥇 {first.name} — **338** (+64.5)",
        f"🥈 {second.name} — **209** ({MINUS}64.5)",
        "In brackets: total − average (273.5)",
    ]
    short = [
        "Ones",
        "Twos",
        "Threes",
        "Fours",
        "Fives",
        "Sixes",
        "School",
        "Bonus",
        "Pair",
        "2 pairs",
        "3 kind",
        "Sm. str.",
        "Lg. str.",
        "Full h.",
        "4 kind",
        "Poker",
        "Chance",
        "Combos",
        "Total",
    ]
    for user, player, card in ((first, a, FIRST_CARD), (second, b, SECOND_CARD)):
        upper = [_signed(card[row]) for row in dicepoker.UPPER]
        lower = ["—" if row in state.dashes[player] else str(card[row]) for row in dicepoker.LOWER]
        totals = sums[player]
        values = [*upper, _signed(totals.upper), str(totals.upper_bonus), *lower, str(totals.lower), str(totals.total)]
        assert card_block(message, user.name) == list(zip(short, values, strict=True))
    assert card_block(message, first.name)[7] == ("Bonus", "50")
    assert card_block(message, second.name)[11] == ("Sm. str.", "—")

    # the stored results, for the leaderboards
    stored = {row.user_id: row for row in await h.bot.results.for_game(record.id)}
    results = {result.player: result for result in dicepoker.results(state)}
    assert {user: (row.score, row.rank, row.won, row.counters["settlement"]) for user, row in stored.items()} == {
        first.id: (338, 1, True, 64.5),
        second.id: (209, 2, False, -64.5),
    }
    for player, result in results.items():
        row = stored[int(player)]
        assert (row.score, row.rank, row.won) == (result.score, result.rank, result.won)
        assert row.counters["settlement"] == round(float(shares[player]), 2) == result.counters["settlement"]
        assert row.kind == "dicepoker" and row.variant == "russian"
    assert sum(row.counters["settlement"] for row in stored.values()) == 0


# --------------------------------------------------------------------------------------------------
# restart, timeouts


async def test_restart_mid_turn_continues_on_the_same_message(running: Harness) -> None:
    h = running
    message = await h.start_game("dicepoker", [h.alice, h.bob])
    first, second = seats(await h.state(), h)
    for _ in range(2 * dicepoker.UPPER_TURNS):  # part 1 for both, with whatever the dice give
        await play_turn(h, message, chase=False)

    # turn 7 of the first seat: roll, hold a pair, then the bot restarts
    await roll(h, message, first, (2, 2, 3, 4, 5))
    assert options(message)["pair"] == "Pair — 8 (×2 first roll)"
    shown = h.snapshot(message)  # what a second client still shows: the doubled pair
    await hold_exactly(h, message, first, (0, 1))
    before = await h.state()
    record = await h.record()
    posts = len(h.server.channel_messages(h.channel))
    await h.restart()
    assert await h.state() == before
    assert (await h.record()).version == record.version

    # the same message keeps working: the held dice stay, the reroll ends the first-roll doubling
    await roll(h, message, first, (2, 6, 6))
    after = await h.state()
    assert after.dice == [2, 2, 2, 6, 6] and after.rolls == 2
    offered = options(message)
    assert offered["full_house"] == "Full house — 18"
    assert offered["two_pairs"] == "Two pairs — 16"
    assert not set(offered) & set(dicepoker.UPPER)
    stale = await h.server.select(first, shown, shown.select().custom_id, ["pair"])
    assert (await stale.message()).text == CHANGED  # the same message, shown before the reroll
    assert await h.state() == after
    await pick(h, message, first, "full_house")
    state = await h.state()
    assert state.cards[str(first.id)]["full_house"] == 18
    assert state.current_player == str(second.id)
    await play_turn(h, message, chase=False)
    assert (await h.state()).turns == {str(first.id): 7, str(second.id): 7}
    assert h.server.channel_messages(h.channel)[0].id == message.id
    assert all(m.components == [] for m in h.server.channel_messages(h.channel)[posts:])


async def test_a_double_click_on_roll_rolls_once_and_says_the_first_press_went_through(running: Harness) -> None:
    """QA: the second press of a double click was told "nothing was done", read as the roll failing."""
    h = running
    message = await h.start_game("dicepoker", [h.alice, h.bob])
    first, _ = seats(await h.state(), h)
    shown = h.snapshot(message)
    h.rng.script(1, 2, 3, 4, 6)
    press = await h.server.click_button(first, shown, label="Roll")
    again = await h.server.click_button(first, shown, label="Roll")  # sent before the first one is answered
    await press.response()
    await again.response()
    assert [m.text for handle in (press, again) for m in handle.ephemeral_messages] == [ALREADY]
    state = await h.state()
    assert state.rolls == 1 and state.dice == [1, 2, 3, 4, 6]


async def test_timeout_scores_the_best_allowed_row_or_the_pass(running: Harness) -> None:
    h = running
    message = await h.start_game("dicepoker", [h.alice], turn_timeout=1)
    alice = str(h.alice.id)

    # turn 1: nothing pressed; the bot rolls and takes the best upper row
    h.rng.script(6, 6, 6, 6, 1)
    await h.advance(59)
    assert (await h.state()).turns[alice] == 0
    await h.advance(2)
    state = await h.state()
    assert state.cards[alice] == {"sixes": 6} and state.turns[alice] == 1
    await h.wait_post("Alice ran out of time")
    await h.wait_post("Alice: +6 in Sixes")

    # turn 2: rolled, then idle; every row is negative, the least bad one is written
    await roll(h, message, h.alice, (1, 2, 3, 4, 5))
    await h.advance(61)
    state = await h.state()
    assert state.cards[alice] == {"sixes": 6, "ones": -2}

    # turns 3-6 by hand
    for faces, row in (
        ((2, 2, 2, 2, 1), "twos"),
        ((3, 3, 3, 1, 1), "threes"),
        ((4,) * 5, "fours"),
        ((5,) * 5, "fives"),
    ):
        await roll(h, message, h.alice, faces)
        await pick(h, message, h.alice, row)

    # turn 7: idle after a first roll; only lower rows, with the first-roll doubling
    await roll(h, message, h.alice, (2, 2, 3, 3, 6))
    assert options(message) == {
        "pair": "Pair — 12 (×2 first roll)",
        "two_pairs": "Two pairs — 20 (×2 first roll)",
        "chance": "Chance — 16",
    }
    await h.advance(61)
    state = await h.state()
    assert state.cards[alice]["two_pairs"] == 20 and state.turns[alice] == 7
    await h.wait_post("Alice: 20 in Two pairs (doubled, first roll!)")

    # turn 8: chance by hand; turn 9: nothing fits and the player idles, so the bot passes
    await roll(h, message, h.alice, (1, 2, 3, 4, 6))
    await pick(h, message, h.alice, "chance")
    card = dict((await h.state()).cards[alice])
    await roll(h, message, h.alice, (1, 2, 3, 4, 6))
    assert options(message) == {"pass": "Pass — nothing fits"}
    await h.advance(61)
    state = await h.state()
    assert state.turns[alice] == 9 and state.cards[alice] == card
    await h.wait_post("Alice passes: nothing fits.")
    record = await h.record()
    assert record.status == "running" and record.seat(str(h.alice.id)).status == "active"
