"""Tutto end to end: games played through clicks on the local Discord server, with a scripted deck and dice."""

from __future__ import annotations

import unicodedata
from collections.abc import MutableSequence, Sequence
from typing import Any

import pytest

from bot.engine import tutto as tu
from bot.i18n import t
from fakediscord import Button, InteractionHandle, Message, User
from fakediscord.errors import ComponentNotFound, InvalidInput
from tests.discord_limits import pinged
from tests.e2e.board import live_board
from tests.e2e.conftest import Harness, ScriptedRandom
from tests.reliability.conftest import forged

pytestmark = pytest.mark.timeout(60)

EXTENSIONS = ("cogs.help", "cogs.tutto")
LOCALE = "en-US"
TURN_SECONDS = 5 * 60
PRIMARY, SECONDARY = 1, 2
"""Button styles of a selected die and of a die not yet selected."""


class Script(ScriptedRandom):
    """The bot's random source for a test: the deck starts with ``cards``, the dice show ``faces`` in order.

    ``start`` is the seat index of the first player (the engine draws it with ``randrange``).
    """

    def __init__(self, cards: Sequence[str] = (), faces: Sequence[int] = (), start: int = 0) -> None:
        super().__init__()
        self.cards = list(cards)
        self.start = start
        self.script(*faces)

    def shuffle(self, x: MutableSequence[Any]) -> None:
        rest = list(x)
        for card in self.cards:
            rest.remove(card)
        x[:] = self.cards + rest
        self.cards = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return self.start


class Table:
    """One Tutto game message and the moves players make on it."""

    def __init__(self, harness: Harness, message: Message) -> None:
        self.harness = harness
        self.message = message
        self.game_id = int(message.buttons[0].custom_id.split(":")[1]) if message.buttons else 0

    @property
    def text(self) -> str:
        return self.message.text

    def prefix(self, action: str, arg: str | int | None = None) -> str:
        """The start of a component id: any argument, or exactly ``arg``."""
        return f"g:{self.game_id}:{action}:" + ("" if arg is None else f"{arg}:")

    def has(self, action: str, arg: str | int | None = None) -> bool:
        return any((b.custom_id or "").startswith(self.prefix(action, arg)) for b in self.message.buttons)

    def button(self, action: str, arg: str | int | None = None) -> Button:
        return self.message.button(prefix=self.prefix(action, arg))

    async def press(self, user: User, action: str, arg: str | int | None = None) -> InteractionHandle:
        """Click a button and expect the game message to change (no refusal)."""
        handle = await self.harness.server.click_button(user, self.message, prefix=self.prefix(action, arg))
        await handle.response()
        assert not handle.ephemeral_messages, handle.ephemeral_messages[0].text
        return handle

    async def refused(self, user: User, action: str, arg: str | int | None = None) -> str:
        """Click a button the bot must refuse; returns its private answer."""
        handle = await self.harness.server.click_button(user, self.message, prefix=self.prefix(action, arg))
        return (await handle.message()).text

    async def pick(self, user: User, *faces: int) -> None:
        """Toggle dice of the current roll showing ``faces`` (the leftmost not yet selected that may be)."""
        for face in faces:
            die = next(
                b
                for b in self.message.buttons
                if (b.custom_id or "").startswith(self.prefix("die"))
                and b.label == f"{'⚀⚁⚂⚃⚄⚅'[face - 1]} {face}"
                and b.style == SECONDARY
                and not b.disabled
            )
            handle = await self.harness.server.click(user, self.message, die.custom_id or "")
            await handle.response()
            assert not handle.ephemeral_messages, handle.ephemeral_messages[0].text


async def play(harness: Harness, script: Script, players: Sequence[User], **options: Any) -> Table:
    """Open a lobby, let ``players`` join and start; the game's randomness comes from ``script``."""
    harness.rng = script
    if harness.bot is None:
        await harness.start_bot(EXTENSIONS)
    message = await harness.start_game("tutto", players, **options)
    assert message.buttons[0].label == t("tutto.draw", LOCALE), message.text
    return Table(harness, message)


async def score(harness: Harness, user: User) -> int:
    state = await harness.state()
    return state.scores[str(user.id)]


async def stored_actions(harness: Harness, user: User) -> list[str]:
    """The actions of ``user`` in the game's stored move history, in order."""
    record = await harness.record()
    assert record is not None and harness.bot is not None
    rows = await harness.bot.db.fetch_all(
        "SELECT action FROM game_moves WHERE game_id = ? AND player = ? ORDER BY version, step",
        (record.id, str(user.id)),
    )
    return [row[0] for row in rows]


# --------------------------------------------------------------------------------------------------


async def test_worked_example_bonus_tutto_then_a_failed_street(harness: Harness) -> None:
    """docs/RULES.md's worked example: Bonus 600 to a 1050 Tutto, continue, and lose it all on the Street."""
    script = Script(
        ["bonus_600", "street"],
        [1, 2, 3, 4, 5, 6, 2, 2, 2, 3, 6, 1, 5, 2, 3, 3, 3, 5, 5, 1, 2, 3, 1, 6, 1],
    )
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    assert "Press **Draw & roll**" in game.text
    await harness.wait_post(t("tutto.order", LOCALE, players="Alice, Bob"))

    await game.press(alice, "draw")
    assert "Bonus 600" in game.text
    assert t("tutto.rule.bonus", LOCALE, bonus=600) in game.text
    assert not game.has("stop") or game.button("stop").disabled
    await game.pick(alice, 1)
    assert "Selected: ⚀ → **+100**" in game.text
    assert game.button("stop").label == "Stop · bank 100"
    await game.press(alice, "roll_on")
    assert game.button("aside", 0).disabled

    await game.pick(alice, 2, 2, 2)
    assert game.button("stop").label == "Stop · bank 300"
    await game.press(alice, "roll_on")
    await game.pick(alice, 1, 5)
    assert game.button("roll_on").label == "Tutto!"
    await game.press(alice, "roll_on")
    await harness.wait_post("Alice: Tutto! +600 bonus — 1,050 secured.")
    assert game.button("stop").label == "Stop · bank 1,050"

    await game.press(alice, "continue")
    assert "**Street**" in game.text
    assert not game.has("stop")
    await game.pick(alice, 2, 3, 5)
    await game.press(alice, "roll_on")
    await game.pick(alice, 1)
    await game.press(alice, "roll_on")
    await game.pick(alice, 6)
    await game.press(alice, "roll_on")
    await harness.wait_post("Alice rolled ⚀: Null — the turn's 1,050 points are lost.")
    assert await score(harness, alice) == 0
    assert game.message.content.splitlines()[-1] == f"<@{bob.id}>, your turn."
    assert "Press **Draw & roll**" in game.text


async def test_one_tap_on_draw_shows_the_card_and_the_rolled_dice(harness: Harness) -> None:
    """The roll after a card has nothing to choose: Draw & roll draws and rolls in one tap and one save, and the
    stored history keeps both steps for the review."""
    script = Script(["bonus_300"], [1, 2, 3, 4, 6, 6])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    assert game.button("draw").label == "Draw & roll"
    before = await harness.record()
    assert before is not None

    await game.press(alice, "draw")
    assert "**Bonus 300**" in game.text and "# ⚀ ⚁ ⚂ ⚃ ⚅ ⚅" in game.text
    assert [game.button("die", index).label for index in range(6)] == ["⚀ 1", "⚁ 2", "⚂ 3", "⚃ 4", "⚅ 6", "⚅ 6"]
    assert not game.has("roll") and not game.has("draw")
    await harness.wait_post("🃏 Alice drew **Bonus 300** and rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅.")
    record = await harness.record()
    assert record is not None and record.version == before.version + 1
    assert harness.bot is not None
    rows = await harness.bot.db.fetch_all(
        "SELECT player, source, action, version FROM game_moves WHERE game_id = ? ORDER BY version, step", (record.id,)
    )
    assert [tuple(row) for row in rows] == [
        (str(alice.id), "player", '{"kind":"draw"}', record.version),
        (str(alice.id), "player", '{"kind":"roll"}', record.version),
    ]


async def test_the_hint_lists_whole_moves_that_can_score(harness: Harness) -> None:
    """The playground's roll ⚁ ⚁ ⚂ ⚀ ⚀ ⚁: the hint listed die toggles, "take ⚂ → 0.0 expected this turn" among them."""
    alice = harness.alice
    game = await play(harness, Script(["bonus_600"], [2, 2, 3, 1, 1, 2]), [alice], target=1000)  # alone: hints on
    await game.press(alice, "draw")
    await game.pick(alice, 1)
    assert harness.bot is not None
    loading = harness.bot.brain.prepare(await harness.state(), str(alice.id))
    if loading is not None:
        await loading

    hint = await (await harness.server.click_button(alice, game.message, label="💡 Hint")).message()

    assert hint.ephemeral and hint.text.replace("\N{NO-BREAK SPACE}", " ").splitlines() == [
        "💡 Best moves (expected points this turn):",
        "**take ⚀ ⚀ ⚁ ⚁ ⚁ and stop** → 400",
        "**take ⚀ and roll on** → 372",  # as selected now: no line of its own below
        "**take ⚀ ⚀ ⚁ ⚁ ⚁ and roll on** → 333",
    ], hint.text

    # The best three, as the README says and Kniffel's hint shows (QA: Tutto listed four); the plan selected now,
    # when not among them, gets its own labelled line, as Kniffel's "If you roll now".
    await game.pick(alice, 1)
    hint = await (await harness.server.click_button(alice, game.message, label="💡 Hint")).message()
    assert hint.text.replace("\N{NO-BREAK SPACE}", " ").splitlines() == [
        "💡 Best moves (expected points this turn):",
        "**take ⚀ ⚀ ⚁ ⚁ ⚁ and stop** → 400",
        "**take ⚀ and roll on** → 372",
        "**take ⚀ ⚀ ⚁ ⚁ ⚁ and roll on** → 333",
        "With the dice selected now (take ⚀ ⚀ and roll on): 329",
    ], hint.text


async def test_take_all_selects_every_scoring_die_in_one_tap(harness: Harness) -> None:
    """One tap instead of one a die: the board values the selection, Roll on sets it aside, and the stored move is
    the action itself."""
    script = Script(["bonus_300"], [1, 2, 5, 3, 1, 6, 2, 3, 5])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    assert game.button("select_scoring").label == "Take all"
    assert not game.button("select_scoring").disabled
    before = await harness.record()
    # The wrong player: refused, told whose turn it is, nothing moved.
    assert await game.refused(bob, "select_scoring") == "Not your turn: Alice is playing."
    assert await harness.record() == before

    await game.press(alice, "select_scoring")
    assert t("tutto.selected", LOCALE, dice="⚀ ⚄ ⚀", points=250) in game.text
    assert game.button("select_scoring").disabled
    assert [game.button("die", index).style for index in range(6)] == [PRIMARY, SECONDARY] * 3
    assert game.button("stop").label == "Stop · bank 250"

    await game.press(alice, "roll_on")
    assert t("tutto.aside", LOCALE, dice="⚀ ⚀ ⚄", points=250) in game.text
    assert [game.button("aside", index).label for index in range(3)] == ["⚀ 1", "⚄ 5", "⚀ 1"]
    assert not game.has("select_scoring")  # the new roll has one scoring die: a tap on it is all it takes
    assert await stored_actions(harness, alice) == [
        '{"kind":"draw"}',
        '{"kind":"roll"}',
        '{"kind":"select_scoring"}',
        '{"kind":"roll_on"}',
    ]


async def test_the_rulebook_tutto_650_banks_with_the_bonus(harness: Harness) -> None:
    script = Script(["bonus_200"], [1, 1, 4, 4, 4, 5])
    alice = harness.alice
    game = await play(harness, script, [alice], target=1000)
    await game.press(alice, "draw")
    await game.pick(alice, 1, 1, 4, 4, 4, 5)
    assert "+650" in game.text
    assert game.button("stop").label == "Stop · bank 850"
    await game.press(alice, "stop")
    await harness.wait_post("Alice banks 850 — 850 in all.")
    assert await score(harness, alice) == 850


async def test_fireworks_take_every_scoring_die_and_bank_at_the_null(harness: Harness) -> None:
    script = Script(["fireworks"], [1, 5, 2, 3, 4, 6, 1, 1, 1, 5, 2, 3, 4, 6, 2, 3])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    assert "Fireworks" in game.text
    await game.pick(alice, 1)
    assert t("tutto.fireworks_left", LOCALE, count=1) in game.text  # no warning: the pick is right so far
    assert not game.has("roll_on") and not game.has("stop")
    await game.pick(alice, 5)  # the last scoring die rolls on
    assert not game.has("stop")
    await game.pick(alice, 1, 1, 1, 5)
    await harness.wait_post("Tutto under Fireworks — 1,200 secured, all six dice again!")
    assert not game.has("stop")
    await harness.wait_post(": the Fireworks end at a null; the points are kept.")
    await harness.wait_post("Alice banks 1,200 — 1,200 in all.")
    assert await score(harness, alice) == 1200
    assert game.message.content.splitlines()[-1] == f"<@{bob.id}>, your turn."


async def test_the_board_names_the_player_to_act_once(harness: Harness) -> None:
    """The board's own content pings the player to act; its news (the banked points) does not say it again."""
    script = Script(["bonus_200", "bonus_300"], [1, 2, 3, 4, 6, 6, 5, 2, 3, 4, 6, 6])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    for player, other, face in ((alice, bob, 1), (bob, alice, 5)):
        await game.press(player, "draw")
        await game.pick(player, face)
        await game.press(player, "stop")
        content = game.message.content or ""
        assert content.count(f"<@{other.id}>") == 1, content
        assert content.splitlines()[-1] == f"<@{other.id}>, your turn."
    assert all(text.count("your turn") <= 1 for text in harness.said()), harness.said()


async def test_stop_is_never_offered_under_a_card_that_forbids_it(harness: Harness) -> None:
    """Plus/Minus: no Stop button at any point, a click on it is impossible, and the turn ends in a null."""
    script = Script(["plus_minus"], [1, 2, 3, 4, 6, 6, 5, 2, 3, 4, 6, 2, 3, 4, 6])
    alice = harness.alice
    game = await play(harness, script, [alice, harness.bob])
    await game.press(alice, "draw")
    assert not game.has("stop")
    await game.pick(alice, 1)
    assert not game.has("stop")
    with pytest.raises(ComponentNotFound):
        await harness.server.click_button(alice, game.message, prefix=game.prefix("stop"))
    await game.press(alice, "roll_on")
    await game.pick(alice, 5)
    assert not game.has("stop")
    await game.press(alice, "roll_on")
    await harness.wait_post(": Null — the turn's 150 points are lost.")
    assert await score(harness, alice) == 0


async def test_double_then_plus_minus_takes_1000_from_the_leader(harness: Harness) -> None:
    script = Script(["double", "plus_minus"], [1, 2, 3, 4, 6, 6, 1, 1, 1, 5, 5, 1, 1, 1, 5, 5, 5])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    await game.pick(alice, 1)
    await game.press(alice, "roll_on")
    await game.pick(alice, 1, 1, 1, 5, 5)
    assert game.button("stop").label == "Stop · bank 2,400"
    await game.press(alice, "roll_on")
    await harness.wait_post("Alice: Tutto! ×2: 2,400.")
    await game.press(alice, "stop")
    await harness.wait_post("Alice banks 2,400 — 2,400 in all.")

    await game.press(bob, "draw")
    await game.pick(bob, 1, 1, 1, 5, 5, 5)
    await game.press(bob, "roll_on")
    await harness.wait_post("➕➖ Plus/Minus: Bob +1,000, Alice −1,000")
    assert (await score(harness, alice), await score(harness, bob)) == (1400, 1000)
    assert "▶ Alice 1,400" in game.text


async def test_cloverleaf_two_tuttos_win_at_once(harness: Harness) -> None:
    script = Script(["cloverleaf"], [1, 1, 1, 5, 5, 5, 6, 6, 6, 1, 1, 1])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    assert "Cloverleaf" in game.text
    await game.pick(alice, 1, 1, 1, 5, 5, 5)
    assert not game.has("stop")
    await game.press(alice, "roll_on")
    await harness.wait_post("first Tutto under the Cloverleaf")
    await game.pick(alice, 6, 6, 6, 1, 1, 1)
    await game.press(alice, "roll_on")
    await harness.wait_post("🍀 Cloverleaf: two Tuttos — Alice wins the game!")
    assert "final scores" in game.text
    assert game.text.count("Alice wins the game") == 1  # said once, in the news: the final embed has standings
    assert game.text.count("🏆 Winner: Alice!") == 1
    assert [button.label for button in game.message.buttons] == [
        "🔍 Review",
        "Rematch",
    ]  # the post-game review and Rematch
    record = await harness.record()
    assert record is not None
    assert record.status == "finished"
    assert harness.bot is not None
    results = {row.display_name: row for row in await harness.bot.results.for_game(record.id)}
    assert (results["Alice"].won, results["Alice"].rank, results["Alice"].counters["tuttos"]) == (True, 1, 2)
    assert (results["Bob"].won, results["Bob"].counters["tuttos"]) == (False, 0)


def columns(text: str) -> int:
    """How many columns ``text`` takes in a code block: wide characters (most emoji) take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


async def test_the_scoreboard_keeps_its_columns_with_emoji_in_names(harness: Harness) -> None:
    """A computer's "🤖 Normal" and a person's emoji take two columns each: scores and bars still line up."""
    harness.rng = Script()
    await harness.start_bot(EXTENSIONS)
    zed = harness.server.add_user("Zed 🎲")
    lobby = await harness.open_lobby("tutto", harness.alice)
    added = await harness.server.select(harness.alice, lobby, lobby.select(prefix="g:").custom_id, ["normal"])
    await added.response()
    await harness.click(zed, lobby, "Join")
    await harness.click(harness.alice, lobby, "Start")
    board = await live_board(harness)
    field = next(field for field in board.embeds[0]["fields"] if field["name"] == t("tutto.scores", LOCALE))
    lines = field["value"].strip("`\n").splitlines()
    assert [line.split()[-2] for line in lines] == ["0", "0", "0"]
    assert any("🤖 Normal" in line for line in lines) and any("Zed 🎲" in line for line in lines)
    bars = {columns(line[: line.index("▱")]) for line in lines}  # where each bar starts; the score ends before it
    assert len(bars) == 1, field["value"]


async def test_a_player_named_like_someone_elses_mention_pings_nobody(harness: Harness) -> None:
    """QA: a person called ``<@Carol's id>`` joined, and "Order of play: Alice, @Carol" pinged Carol, who was not
    playing. The name reads as typed, and only the players are pinged."""
    carol = harness.carol
    prankster = harness.server.add_user(f"<@{carol.id}>")
    harness.users.append(prankster)
    game = await play(harness, Script(["bonus_200"], [1, 2, 3, 4, 6, 6]), [harness.alice, prankster])
    order = t("tutto.order", LOCALE, players=f"{harness.alice.name}, {prankster.name}")
    assert any(order in text.replace("\u200b", "") for text in harness.said()), harness.said()
    assert harness.alice in game.message.mentions  # "your turn": fakediscord sees a real ping
    await game.press(harness.alice, "draw")
    await game.pick(harness.alice, 1)
    await game.press(harness.alice, "stop")
    assert prankster in game.message.mentions
    assert pinged(harness.server) == {harness.alice.id, prankster.id}


async def test_an_invalid_selection_is_refused_and_explained(harness: Harness) -> None:
    script = Script(["bonus_300"], [2, 2, 3, 4, 6, 1, 5, 2, 3, 4, 6])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    await game.pick(alice, 2)
    assert t("tutto.reason.not_scoring", LOCALE) in game.text
    assert game.button("roll_on").disabled
    assert game.button("stop").disabled
    with pytest.raises(InvalidInput):
        await harness.server.click_button(alice, game.message, prefix=game.prefix("roll_on"))
    assert await game.refused(bob, "die", 5) == "Not your turn: Alice is playing."
    await game.press(alice, "die", 0)
    await game.pick(alice, 1)
    assert "**+100**" in game.text
    await game.press(alice, "roll_on")
    assert "Set aside: ⚀ · **100**" in game.text


async def test_street_greys_out_the_dice_it_would_refuse(harness: Harness) -> None:
    """QA (21-tutto-stuck): under Street a die of a face set aside already could be tapped, which left Roll on
    greyed with a warning. The engine refuses such a die, and a second die of a face picked this roll, so their
    buttons are disabled; a doctored client clicking one anyway is told why and the game stays as it was."""
    script = Script(["street"], [1, 2, 3, 3, 4, 4, 1, 5, 5, 6, 2, 3, 4])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    await game.pick(alice, 1)
    await game.press(alice, "roll_on")
    assert [game.button("die", index).disabled for index in range(5)] == [True, False, False, False, False]
    await game.pick(alice, 5)
    assert [game.button("die", index).disabled for index in range(5)] == [True, False, True, False, False]
    assert t("tutto.reason.street_face_taken", LOCALE) not in game.text
    with pytest.raises(InvalidInput):
        await harness.server.click_button(alice, game.message, prefix=game.prefix("die", 0))

    record = await harness.record()
    assert record is not None
    for index, reason in ((0, "street_face_taken"), (2, "street_one_per_face")):
        die = game.button("die", index).custom_id or ""
        handle = await harness.server.click(alice, forged(game.message, die), die)
        answer = await handle.message()
        assert (answer.ephemeral, answer.text) == (True, t(f"tutto.reason.{reason}", LOCALE))
        assert await harness.record() == record

    await game.press(alice, "die", 1)  # the 5 out again: the other 5 may be taken instead
    assert not game.button("die", 2).disabled
    await game.pick(alice, 5, 6, 2)
    await game.press(alice, "roll_on")
    await game.pick(alice, 3, 4)
    await game.press(alice, "roll_on")
    await harness.wait_post("Alice: Street complete: +2,000 — 2,000 secured.")


async def test_a_game_to_a_low_target(harness: Harness) -> None:
    script = Script(["bonus_200", "stop", "bonus_400"], [5, 2, 3, 4, 6, 6, 1, 1, 1, 2, 3, 4])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob], target=1000)
    assert "first to 1,000" in game.text
    await game.press(alice, "draw")
    await game.pick(alice, 5)
    await game.press(alice, "stop")
    await harness.wait_post("Alice banks 50 — 50 in all.")
    await game.press(bob, "draw")
    await harness.wait_post("🛑 Bob drew Stop — turn over.")
    await game.press(alice, "draw")
    await game.pick(alice, 1, 1, 1)
    await game.press(alice, "stop")
    await harness.wait_post("🏆 Winner: Alice!")
    await harness.wait_post("🍺 Bob buys the next round.")
    # No-break spaces keep each figure with its label when a phone wraps the line.
    nb = "\N{NO-BREAK SPACE}"
    assert f"🥇 Alice{nb}—{nb}**1,050** ▰▰▰▰▰\n" in game.text
    # Bob's turn before Alice's last one ended at a Stop card: the final board still says so (QA).
    assert game.text.startswith("🛑 Bob drew Stop — turn over.\n💰 Alice banks 1,000 — 1,050 in all.\n🏆"), game.text
    assert "Tuttos" not in game.text  # nobody scored one: the board leaves the field out
    assert [button.label for button in game.message.buttons] == [
        "🔍 Review",
        "Rematch",
    ]  # the post-game review and Rematch
    record = await harness.record()
    assert record is not None
    assert (record.status, record.deadline_at) == ("finished", None)
    assert harness.bot is not None
    rows = await harness.bot.results.for_game(record.id)
    assert [(row.display_name, row.score, row.rank, row.counters["tuttos"]) for row in rows] == [
        ("Alice", 1050, 1, 0),
        ("Bob", 0, 2, 0),
    ]


async def test_restart_mid_turn_then_a_timeout_plays_cautiously(harness: Harness) -> None:
    script = Script(["bonus_500", "bonus_300"], [1, 2, 3, 4, 6, 6, 5, 2, 3, 4, 6, 1, 5, 5, 2, 3, 4])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    await game.pick(alice, 1)

    await harness.restart()

    await game.press(alice, "roll_on")
    await game.pick(alice, 5)
    await game.press(alice, "stop")
    await harness.wait_post("Alice banks 150 — 150 in all.")

    # Bob never shows up: the bot draws, rolls, sets aside every scoring die and stops at once.
    await harness.advance(TURN_SECONDS + 1)
    await harness.wait_post("Bob ran out of time")
    await harness.wait_post("Bob banks 200 — 200 in all.")
    assert await score(harness, bob) == 200
    # What happened in order: the timeout, what the bot played for Bob, then whose turn it is. How Alice's turn ended
    # is two turns old by now and gone.
    lines = game.message.content.splitlines()
    assert lines[0] == t("play.timed_out", LOCALE, name="Bob")
    assert lines[-2:] == ["💰 Bob banks 200 — 200 in all.", f"<@{alice.id}>, your turn."]


async def test_a_solo_timeout_plays_one_turn_only(harness: Harness) -> None:
    script = Script(["bonus_200", "bonus_300"], [1, 2, 3, 4, 6, 6])
    alice = harness.alice
    game = await play(harness, script, [alice], target=1000)
    await harness.advance(TURN_SECONDS + 1)
    await harness.wait_post("Alice banks 100 — 100 in all.")
    record = await harness.record()
    assert record is not None
    assert record.state is not None
    state = tu.State.load(record.state)
    assert (state.phase, state.turn, state.scores[str(alice.id)]) == ("draw", 1, 100)
    assert record.deadline_at is not None
    assert record.deadline_at > harness.clock.now
    assert "Press **Draw & roll**" in game.text


async def test_commands_and_rules(harness: Harness) -> None:
    await harness.start_bot(EXTENSIONS)
    group = next(command for command in harness.server.commands() if command["name"] == "tutto")
    subcommands = {option["name"]: option for option in group["options"]}
    assert set(subcommands) == {"start", "leave", "end", "rules", "review"}
    options = {option["name"]: option for option in subcommands["start"]["options"]}
    assert (options["target"]["min_value"], options["target"]["max_value"]) == (1000, 20000)
    assert (options["turn_timeout"]["min_value"], options["turn_timeout"]["max_value"]) == (1, 60)
    rules = await (await harness.command(harness.alice, "tutto rules")).message()
    assert rules.ephemeral
    assert "Tutto — rules" in rules.text
    assert "Cloverleaf" in rules.text


async def test_under_fireworks_one_tap_a_roll_takes_every_scoring_die_and_rolls_on(harness: Harness) -> None:
    """The card demands every scoring die and forbids stopping, so there is nothing to choose between two rolls:
    Take all & roll (or the last scoring die tapped) is the one tap, and no Roll on button waits for a second."""
    script = Script(["fireworks"], [1, 2, 5, 3, 4, 6, 1, 2, 3, 6, 2, 3, 4])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    assert game.button("select_scoring").label == "Take all & roll"
    assert not game.has("roll_on") and not game.has("stop")

    await game.press(alice, "select_scoring")
    assert t("tutto.aside", LOCALE, dice="⚀ ⚄", points=150) in game.text
    assert [game.button("die", index).label for index in range(4)] == ["⚀ 1", "⚁ 2", "⚂ 3", "⚅ 6"]
    assert not game.has("select_scoring")  # one scoring die: tapping it is the one tap

    await game.pick(alice, 1)  # the roll after it, 2 3 4: a null ends the Fireworks with the points kept
    await harness.wait_post("Alice")
    assert await score(harness, alice) == 250
    assert await stored_actions(harness, alice) == [
        '{"kind":"draw"}',
        '{"kind":"roll"}',
        '{"kind":"select_scoring"}',
        '{"kind":"roll_on"}',
        '{"kind":"toggle","index":0}',
        '{"kind":"roll_on"}',
    ]


def news(game: Table) -> list[str]:
    """The board's news: the lines of its content above the ping of the player to act (its last line)."""
    return (game.message.content or "").splitlines()[:-1]


async def test_roll_on_replaces_the_news_of_the_roll_before_it(harness: Harness) -> None:
    """The news never describes dice the board no longer shows: Roll on tells what was set aside and the new roll,
    under the line that ended the turn before (here the game's order of play, told as it started)."""
    script = Script(["bonus_300"], [1, 2, 3, 4, 6, 6, 2, 3, 4, 6, 5])
    alice, bob = harness.alice, harness.bob
    game = await play(harness, script, [alice, bob])
    await game.press(alice, "draw")
    assert news(game)[-1] == "🃏 Alice drew **Bonus 300** and rolled ⚀ ⚁ ⚂ ⚃ ⚅ ⚅."

    await game.pick(alice, 1)
    await game.press(alice, "roll_on")
    assert "# ⚁ ⚂ ⚃ ⚅ ⚄" in game.text
    assert news(game) == [
        t("tutto.order", LOCALE, players="Alice, Bob"),
        "🎲 Alice set aside ⚀ and rolled ⚁ ⚂ ⚃ ⚅ ⚄.",
    ]
