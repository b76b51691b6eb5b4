"""/knister end to end: rounds driven by clicks on the round message and on private grids, timeouts, restarts."""

from __future__ import annotations

import discord
import pytest

from bot.engine import knister as kn
from bot.i18n import t
from cogs.knister import SPEC
from fakediscord import InvalidInput, Message, User
from tests.discord_limits import assert_every_message_fits
from tests.e2e.board import ALREADY, CHANGED, live_board
from tests.e2e.conftest import Harness

pytestmark = pytest.mark.timeout(120)

TIMEOUT_SECONDS = 2 * 60
EXTENSIONS = ("cogs.help", "cogs.knister")
#: The route that deletes a private grid through its interaction token (a newer grid of the player retires it).
OLDER_GRID = r"^/webhooks/\d+/[^/]+/messages/@original$"


@pytest.fixture
async def knister(harness: Harness) -> Harness:
    """The bot with Knister loaded (and nothing that other games need)."""
    await harness.start_bot(EXTENSIONS)
    return harness


async def start_game(h: Harness, players: list[User], **options: object) -> Message:
    """Open the lobby, let the others join and start; returns the round message.

    A Join right after the lobby is answered is safe: the service holds the game's lock until the lobby's message
    id is stored, so the click waits for it.
    """
    message = await h.open_lobby("knister", players[0], **options)
    for player in players[1:]:
        await h.click(player, message, "Join")
    await h.click(players[0], message, "Start")
    return message


class Table:
    """Drives one Knister game as its players would, reading the truth from the database."""

    def __init__(self, harness: Harness, message: Message) -> None:
        self.h = harness
        self.message = message

    async def shows(self, text: str) -> None:
        """Wait until the round message shows ``text`` (it is edited after the click on a grid is answered)."""
        await self.h.server.wait_for(lambda: text in self.message.text, what=f"the round message to show {text!r}")

    async def posted(self, text: str, since: int = 0) -> str:
        """Wait for a channel post after the first ``since`` ones that contains ``text`` and return it.

        Announcements are posted after the click is answered, so they are waited for, never assumed.
        """
        return await self.h.server.wait_for(
            lambda: next((post for post in self.h.posts()[since:] if text in post), None), what=f"a post {text!r}"
        )

    async def state(self) -> kn.State:
        return await self.h.state()

    async def game_id(self) -> int:
        record = await self.h.record()
        assert record is not None
        return record.id

    async def roll(self) -> kn.State:
        """The round's roller presses Roll on the round message."""
        roller = self.h.user((await self.state()).roller)
        await self.h.server.wait_for(  # the round message is edited just after the last placement is answered
            lambda: not self.message.button(label="Roll").disabled, what="the Roll button of the new round"
        )
        handle = await self.h.click(roller, self.message, "Roll")
        assert not handle.ephemeral_messages
        return await self.state()

    async def open_grid(self, user: User) -> Message:
        """``user`` presses Place (or My grid) on the round message and gets their grid, only for them."""
        prefix = f"g:{await self.game_id()}:grid:"
        handle = await self.h.server.click_button(user, self.message, prefix=prefix)
        grid = await handle.message()
        assert grid.ephemeral
        assert len(grid.buttons) == kn.CELLS
        return grid

    async def place(self, user: User, grid: Message, cell: int) -> Message:
        """Click a cell of a grid; returns the message the user sees in reply (the updated grid or an error)."""
        button = grid.button(prefix=f"g:{await self.game_id()}:place:{cell}:")
        handle = await self.h.server.click(user, grid, button.custom_id)
        return await handle.message()

    async def place_best(self, user: User) -> Message:
        """Open the grid and place where the number adds most, as a sensible player would."""
        state = await self.state()
        assert state.number is not None
        cell = kn.best_cell(state.grids[str(user.id)], state.number)
        grid = await self.open_grid(user)
        updated = await self.place(user, grid, cell)
        assert updated is grid
        return updated


def filled(grid: kn.Grid) -> int:
    return sum(number is not None for row in grid for number in row)


async def test_two_player_game_through_clicks(knister: Harness) -> None:
    h = knister
    alice, bob = h.alice, h.bob
    table = Table(h, await start_game(h, [alice, bob]))
    assert "round 1/25" in table.message.text
    await table.posted("Rolling order:")

    for round_number in range(1, kn.ROUNDS + 1):
        posts = len(h.posts())
        state = await table.roll()
        assert state.round == round_number
        assert f"= {state.number}" in table.message.text
        faces = " ".join("⚀⚁⚂⚃⚄⚅"[die - 1] for die in state.dice or [])
        # The roll is announced on the board itself: a round adds no message to the channel.
        await table.shows(f"{h.user(state.roller).name}'s roll: {faces} = {state.number}")
        assert len(h.posts()) == posts
        first, second = (alice, bob) if round_number % 2 else (bob, alice)  # placements in either order
        grid = await table.place_best(first)
        assert "Waiting for: " + second.name in grid.text
        assert all(button.disabled for button in grid.buttons)
        await table.shows(f"✅ {first.name}")
        assert f"⏳ {second.name}" in table.message.text
        await table.place_best(second)

    record = await h.record()
    assert record is not None
    assert record.status == "finished"
    state = kn.State.load(record.state or "")
    assert all(filled(state.grids[p]) == kn.CELLS for p in state.players)
    expected = {int(r.player): (r.score, r.rank, r.won) for r in kn.results(state)}
    stored = await h.bot.results.for_game(record.id)
    assert {row.user_id: (row.score, row.rank, row.won) for row in stored} == expected
    assert {row.score for row in stored} == {kn.score_grid(state.grids[p]) for p in state.players}
    await table.shows("final scores")
    shown = table.message.text.replace("\N{NO-BREAK SPACE}", " ")
    for user in (alice, bob):
        assert f"{user.name} — **{expected[user.id][0]}**" in shown
    assert [button.label for button in table.message.buttons] == [
        "🔍 Review",
        "Rematch",
    ]  # the post-game review and Rematch
    await table.posted("🏆")


async def test_solo_game_through_clicks(knister: Harness) -> None:
    h = knister
    alice = h.alice
    table = Table(h, await start_game(h, [alice]))
    posts_at_start = len(h.posts())
    for _ in range(kn.ROUNDS):
        await table.roll()
        grid = await table.place_best(alice)
        assert len(grid.buttons) == kn.CELLS
    record = await h.record()
    assert record is not None
    assert record.status == "finished"
    state = kn.State.load(record.state or "")
    total = kn.score_grid(state.grids[str(alice.id)])
    (row,) = await h.bot.results.for_game(record.id)
    # A game played alone is never a win (docs/RULES.md, section 6).
    assert (row.user_id, row.score, row.rank, row.won, row.counters.get("solo")) == (alice.id, total, 1, False, 1)
    await table.shows("Rating:" if kn.solo_rating(total) else "No rating")
    await table.shows(f"🏁 Alice finished with {total} points.")
    assert len(h.posts()) == posts_at_start  # the whole game is one message


async def test_only_the_roller_rolls_and_nobody_places_before_the_roll(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    state = await table.state()
    roller, other = (h.alice, h.bob) if state.roller == str(h.alice.id) else (h.bob, h.alice)
    refused = await (await h.server.click_button(other, table.message, label="Roll")).message()
    assert refused.ephemeral
    # Who rolls, not only that it is not the presser's turn: in Knister everybody plays every round.
    assert refused.text == f"Not your roll: {roller.name} rolls this round."
    grid = await table.open_grid(other)
    assert all(button.disabled for button in grid.buttons)
    assert "Waiting for" in grid.text
    outsider = await (await h.server.click_button(h.carol, table.message, label="Roll")).message()
    assert "not playing" in outsider.text
    outsider = await (await h.server.click_button(h.carol, table.message, label="My grid")).message()
    assert "not playing" in outsider.text
    assert (await table.state()).dice is None


async def test_double_click_on_a_cell_places_once(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    await table.roll()
    grid = await table.open_grid(h.alice)
    cell = grid.button(prefix=f"g:{await table.game_id()}:place:7:").custom_id
    first = await h.server.click(h.alice, grid, cell)
    second = await h.server.click(h.alice, grid, cell)  # sent before the first one is answered
    answers = [await first.message(), await second.message()]
    assert sum(answer is grid for answer in answers) == 1
    (error,) = [answer for answer in answers if answer is not grid]
    assert error.ephemeral
    assert "already placed" in error.text
    state = await table.state()
    assert filled(state.grids[str(h.alice.id)]) == 1
    assert state.placed == [str(h.alice.id)]


async def test_a_double_click_that_ends_the_round_says_the_first_press_went_through(knister: Harness) -> None:
    """QA: the last placement of a round moves the grid to the next round, so the second press of a double click
    crossed it and was told "nothing was done", read as the placement failing; it is told the first went through."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    await table.roll()
    await table.place_best(h.bob)
    grid = await table.open_grid(h.alice)
    cell = grid.button(prefix=f"g:{await table.game_id()}:place:7:").custom_id
    first = await h.server.click(h.alice, grid, cell)
    second = await h.server.click(h.alice, grid, cell)  # sent before the first one is answered
    assert await first.message() is grid
    again = await second.message()
    assert again.ephemeral and again.text == ALREADY
    state = await table.state()
    assert state.round == 2 and filled(state.grids[str(h.alice.id)]) == 1


async def test_filled_cells_cannot_be_placed_into(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    await table.roll()
    kept = await table.open_grid(h.alice)  # a second grid of round 1, left open
    # The newer grid's answer deletes the older one; Discord refuses (its token died): it stays, clickable.
    h.server.inject_rest_error("DELETE", OLDER_GRID, 401, code=50027)
    grid = await table.open_grid(h.alice)
    await table.place(h.alice, grid, 0)
    assert grid.buttons[0].disabled
    assert grid.buttons[0].label == str((await table.state()).number)
    again = await table.place(h.alice, kept, 0)
    assert "already placed" in again.text
    await table.place_best(h.bob)

    state = await table.roll()
    assert state.round == 2
    fresh = await table.open_grid(h.alice)
    assert fresh.buttons[0].disabled
    with pytest.raises(InvalidInput):
        await h.server.click(h.alice, fresh, fresh.buttons[0].custom_id or "")
    stale = await table.place(h.alice, kept, 0)  # last round's grid still shows cell 0 empty
    assert stale.ephemeral
    record = await h.record()
    assert record is not None
    board = f"https://discord.com/channels/{h.guild.id}/{h.channel.id}/{record.message_id}"
    # an older message: outdated, with the link to the game's message the README promises
    assert stale.text == f"This message is outdated — use the latest game message: {board}"
    state = await table.state()
    assert str(h.alice.id) not in state.placed
    assert filled(state.grids[str(h.alice.id)]) == 1


async def test_a_press_on_ones_own_grid_that_crossed_the_next_roll_is_told_the_grid_changed(knister: Harness) -> None:
    """The grid the bot keeps current is no older message: a press made on it as the next roll came is told the
    grid changed before it arrived, not sent to "the latest game message" away from the grid the player is on."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    await table.roll()
    grid = await table.open_grid(h.alice)
    seen = h.snapshot(grid)  # round 1, as her client still shows it when she presses below
    await table.place(h.alice, grid, 0)
    await table.place_best(h.bob)
    assert (await table.roll()).round == 2

    stale = await table.place(h.alice, seen, 1)

    assert stale.ephemeral and stale.text == CHANGED
    state = await table.state()
    assert str(h.alice.id) not in state.placed and filled(state.grids[str(h.alice.id)]) == 1


async def test_round_timeout_rolls_then_places_for_the_missing(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob], round_timeout=2))
    state = await table.state()
    roller = h.user(state.roller)

    await h.advance(TIMEOUT_SECONDS - 10)
    assert (await table.state()).dice is None
    await h.advance(11)
    state = await table.state()
    assert state.dice is not None
    await table.posted(f"⏰ {roller.name} ran out of time")
    assert f"= {state.number}" in table.message.text

    await table.place_best(h.alice)
    before = await table.state()
    expected_cell = kn.best_cell(before.grids[str(h.bob.id)], before.number or 0)
    await h.advance(TIMEOUT_SECONDS - 10)  # the roll restarted the round's clock
    assert (await table.state()).round == 1
    await h.advance(11)
    after = await table.state()
    assert after.round == 2
    row, column = divmod(expected_cell, kn.SIZE)
    assert after.grids[str(h.bob.id)][row][column] == before.number
    assert filled(after.grids[str(h.alice.id)]) == 1
    await table.posted(f"⏰ {h.bob.name} ran out of time")
    await table.shows("round 2/25")


async def test_a_roller_who_leaves_is_told_before_the_next_roller(knister: Harness) -> None:
    """The board reads in the order things happened: the leaving, the roller it made, then the ping."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob, h.carol]))
    roller = h.user((await table.state()).roller)
    await (await h.command(roller, "knister leave")).response()
    state = await table.state()
    await table.posted(f"{roller.name} left the game.")
    assert (table.message.content or "").splitlines() == [
        f"{roller.name} left the game.",
        f"Round 1/25: {h.user(state.roller).name} rolls.",
        f"<@{state.roller}>, roll the dice!",
    ]


async def test_restart_between_a_placement_and_the_end_of_the_round(knister: Harness) -> None:
    h = knister
    alice, bob, carol = h.alice, h.bob, h.carol
    table = Table(h, await start_game(h, [alice, bob, carol]))
    state = await table.roll()
    number = state.number
    alices_spare = await table.open_grid(alice)
    h.server.inject_rest_error("DELETE", OLDER_GRID, 401, code=50027)  # it stays: its deletion was refused
    await table.place(alice, await table.open_grid(alice), 4)
    bobs_grid = await table.open_grid(bob)  # opened before the restart, used after it
    await table.shows(f"✅ {alice.name}")

    await h.restart()

    assert "already placed" in (await table.place(alice, alices_spare, 5)).text
    alices_grid = await table.open_grid(alice)
    assert all(button.disabled for button in alices_grid.buttons)
    assert "Waiting for: Bob and Carol." in alices_grid.text
    assert await table.place(bob, bobs_grid, 6) is bobs_grid
    state = await table.state()
    assert state.round == 1
    assert state.placed == [str(alice.id), str(bob.id)]
    assert f"✅ {alice.name}" in table.message.text
    await table.shows(f"✅ {bob.name}")
    assert f"⏳ {carol.name}" in table.message.text
    carols_cell = kn.best_cell(state.grids[str(carol.id)], number or 0)
    await h.advance(TIMEOUT_SECONDS + 1)  # the round's deadline survived the restart too

    state = await table.state()
    assert state.round == 2
    assert state.dice is None
    assert state.placed == []
    await table.posted(f"⏰ {carol.name} ran out of time")
    assert f"⏰ {alice.name}" not in "\n".join([*h.posts(), *h.said()])
    for user, cell in ((alice, 4), (bob, 6), (carol, carols_cell)):
        grid = state.grids[str(user.id)]
        assert filled(grid) == 1
        assert grid[cell // kn.SIZE][cell % kn.SIZE] == number


async def test_grid_command_and_rules(knister: Harness) -> None:
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob]))
    await table.roll()
    await table.place(h.alice, await table.open_grid(h.alice), 12)
    own = await (await h.command(h.alice, "knister grid")).message()
    assert own.ephemeral
    assert own.buttons[12].disabled
    assert own.buttons[12].label == str((await table.state()).number)
    assert "Line scores so far" in own.text
    outsider = await (await h.command(h.carol, "knister grid")).message()
    assert "not playing" in outsider.text
    rules = await (await h.command(h.carol, "knister rules")).message()
    assert rules.ephemeral
    assert "Knister — rules" in rules.text
    assert "Diagonals count double" in rules.text


async def ended_board(h: Harness, board: Message, news: str) -> None:
    """The board of a game that ended early reads as over: grey, no prompt or ping, "does not count" said once."""
    await h.server.wait_for(lambda: news in board.text, what=f"the board to show {news!r}")
    assert board.components == []
    assert "<@" not in board.content
    assert "roll" not in board.text.lower() and "place" not in board.text.lower()
    assert board.text.count("does not count") == 1
    (embed,) = board.embeds
    assert embed["title"] == "Knister — ended"
    assert embed["color"] == discord.Colour.dark_grey().value


async def test_a_game_everybody_left_reads_as_over(knister: Harness) -> None:
    h = knister
    await start_game(h, [h.alice, h.bob])
    board = await live_board(h)
    for user in (h.bob, h.alice):
        left = await h.command(user, "knister leave")
        assert (await left.message()).text == "You left the game."
    await ended_board(h, board, "No people are left — the game is abandoned.")
    assert board.content == "Alice left the game.\nNo people are left — the game is abandoned."  # and no winner
    assert (await h.record()).status == "abandoned"


async def test_a_game_whose_players_all_timed_out_reads_as_over(knister: Harness) -> None:
    h = knister
    await start_game(h, [h.alice, h.bob])
    board = await live_board(h)
    for _ in range(6):  # a round times out twice: its roll, then its placements
        await h.advance(TIMEOUT_SECONDS + 1)
    assert (await h.record()).status == "abandoned"
    await ended_board(h, board, "No people are left — the game is abandoned.")
    assert "timed out 3 times in a row and was removed" in board.content


async def test_a_player_who_left_gets_no_medal_and_a_mark_on_the_final_scores(knister: Harness) -> None:
    """QA 31: Bob left in round 1 and still took the bronze medal, with nothing saying he left."""
    h = knister
    table = Table(h, await start_game(h, [h.alice, h.bob, h.carol]))
    left = await h.command(h.bob, "knister leave")
    assert (await left.message()).text == "You left the game."
    table.message = await live_board(h)
    for _ in range(kn.ROUNDS):
        await table.roll()
        await table.place_best(h.alice)
        await table.place_best(h.carol)
    await table.shows("final scores")
    results = {h.user(r.player).name: r for r in kn.results(await table.state())}
    assert results["Bob"].rank == 3
    assert "3. Bob (left)\N{NO-BREAK SPACE}—\N{NO-BREAK SPACE}**0**" in table.message.text
    assert "🥉" not in table.message.text
    last = table.message.embeds[0]["fields"][-1]
    assert last["name"] == "3." and last["value"].startswith("```\nBob\n")  # his grid, titled by his rank


#: Twelve display names of Discord's longest (32 characters), for the biggest table a board has to hold.
LONG_NAMES = [f"Friedrich-Wilhelm v. Hohenzol {index:02d}" for index in range(SPEC.max_players)]


async def test_a_full_german_table_timing_out_keeps_whole_news_lines_and_the_ping(harness: Harness) -> None:
    """Twelve players with 32-character names, German: the round that removes ten of them has more news than a
    message holds. The board keeps whole lines (no name or mention cut in half), marks the lines left out and
    still pings the next roller; every message the bot sent is within Discord's limits."""
    h = harness
    h.guild.locale = "de"
    players = [h.server.add_user(name, locale="de") for name in LONG_NAMES]
    h.users = players
    assert {len(name) for name in LONG_NAMES} == {32}
    await h.start_bot(EXTENSIONS)
    message = await h.open_lobby("knister", players[0])
    game = await Table(h, message).game_id()
    for player in players[1:]:
        await (await h.server.click_button(player, message, prefix=f"g:{game}:join:")).response()
    await (await h.server.click_button(players[0], message, prefix=f"g:{game}:start:")).response()
    # Each round the roller rolls in time and nobody places: after three rounds everyone but the last two rollers
    # timed out three times in a row and is removed, all in one deadline.
    for _ in range(3):
        roller = h.user((await h.state()).roller)
        board = await live_board(h)
        await (await h.server.click_button(roller, board, prefix=f"g:{game}:roll:")).response()
        await h.advance(TIMEOUT_SECONDS + 1)
    record = await h.record()
    assert record is not None and sum(seat.status == "removed" for seat in record.seats) == 10
    state = await h.state()

    lines = (await live_board(h)).content.split("\n")
    ping = t("knister.content_roll", "de", player=f"<@{state.roller}>")
    roller_name = h.user(state.roller).name
    next_round = t("knister.round", "de", round=state.round, rounds=kn.ROUNDS, player=roller_name)
    timeouts = {t("play.timed_out", "de", name=name) for name in LONG_NAMES}
    removals = {t("play.removed", "de", name=name, count=3) for name in LONG_NAMES}
    # In the order it happened: the timeouts, the round they ended, the removals (cut short), then the ping.
    assert lines[-1] == ping
    assert lines[-2] == "…"
    at = lines.index(next_round)
    assert set(lines[:at]) == timeouts
    assert set(lines[at + 1 : -2]) <= removals and at + 1 < len(lines) - 2
    assert_every_message_fits(h.server)
