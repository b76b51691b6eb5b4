"""/leaderboard, /stats and /forget-me end to end, after finished games of two game types.

Games are stored the way the game service stores them at their end (``GamesRepository.save`` of a finished
game with its results, in one transaction), through the running bot's own repository; an abandoned game is
saved without results, as the service does. Everything else goes through the local Discord server: slash
commands, Previous/Next clicks (also after a restart), and forget-me's confirm button.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.engine import kniffel
from bot.i18n import t
from bot.storage import Seat
from fakediscord import Message, User
from tests.e2e.conftest import Harness
from tests.e2e.dice import play_to_end
from tests.results import store_finished_game

pytestmark = pytest.mark.timeout(60)

EXTENSIONS = ("cogs.help", "cogs.leaderboard")
DAY = 86400.0
OTHER_GUILD = 777


async def finished(
    h: Harness,
    kind: str,
    scores: dict[int, int],
    *,
    variant: str | None = None,
    days_ago: float = 0.5,
    guild: int | None = None,
    names: dict[int, str] | None = None,
    counters: dict[int, dict[str, int | float]] | None = None,
) -> None:
    """Store a finished game with its results, as the game service does when a game ends; by default with the
    game's first rule set (Kniffel's are told apart by /stats)."""
    assert h.bot is not None
    await store_finished_game(
        h.bot.games,
        scores,
        kind=kind,
        variant=variant or ("kniffel" if kind == "kniffel" else "standard"),
        guild_id=h.guild.id if guild is None else guild,
        channel_id=h.channel.id if guild is None else guild * 10,
        finished_at=h.clock.now - days_ago * DAY,
        names=names,
        counters=counters,
    )


async def abandoned(h: Harness, kind: str, user: User) -> None:
    """A game ended before its end: saved without results (what ``/<game> end`` does)."""
    assert h.bot is not None
    record = await h.bot.games.create(
        kind=kind,
        variant="standard",
        guild_id=h.guild.id,
        channel_id=h.channel.id,
        host=Seat.user(user.id, user.name),
        locale="en-US",
        options={},
        deadline_at=None,
    )
    await h.bot.games.save(replace(record, status="abandoned", finished_at=h.clock.now))


async def seed_two_game_types(h: Harness) -> None:
    """Kniffel and Tutto here, Kniffel on another server, one abandoned game, one old game."""
    alice, bob, carol = h.alice.id, h.bob.id, h.carol.id
    names = {alice: "Alice", bob: "Bob", carol: "Carol"}
    kniffel = {alice: {"kniffels": 1, "upper_bonus": 1}, bob: {"kniffels": 0, "upper_bonus": 0}}
    await finished(h, "kniffel", {alice: 250, bob: 200}, names=names, counters=kniffel)
    no_bonus = {"kniffels": 0, "upper_bonus": 0}
    await finished(
        h, "kniffel", {alice: 180, bob: 230, carol: 100}, names=names, days_ago=3, counters={alice: no_bonus}
    )
    await finished(h, "kniffel", {bob: 210, carol: 220}, names=names, days_ago=20)
    await finished(h, "kniffel", {carol: 300}, names=names, days_ago=60)
    await finished(h, "tutto", {carol: 6200, alice: 4100}, names=names, counters={carol: {"tuttos": 2}})
    # Bob's games elsewhere count on the global board only.
    await finished(h, "kniffel", {bob: 240}, guild=OTHER_GUILD, names=names)
    await finished(h, "kniffel", {bob: 190}, guild=OTHER_GUILD, names=names)
    await abandoned(h, "kniffel", h.alice)


def description_lines(message: Message) -> list[str]:
    """The board's lines as read: its no-break spaces (which keep a line's figures together on a phone,
    tests/i18n/test_wording.py) as spaces."""
    return (message.embeds[0].get("description") or "").replace("\u00a0", " ").splitlines()


def footer(message: Message) -> str:
    return (message.embeds[0].get("footer") or {}).get("text") or ""


async def board(h: Harness, user: User, **options: str) -> Message:
    handle = await h.command(user, "leaderboard", **options)
    return await handle.message()


@pytest.fixture
async def bot(harness: Harness) -> Harness:
    await harness.start_bot(EXTENSIONS)
    return harness


async def test_leaderboard_ranks_in_each_scope_and_period(bot: Harness) -> None:
    h = bot
    await seed_two_game_types(h)
    alice, bob, carol = h.alice.id, h.bob.id, h.carol.id

    wins = await board(h, h.alice, game="kniffel")
    assert not wins.ephemeral
    assert wins.embeds[0]["title"] == "🏆 Kniffel — Wins"
    # Here: Alice 1 win (2 games), Bob 1 (3), Carol 2 (3, one of them 60 days ago); the abandoned game is absent.
    assert description_lines(wins) == [
        f"🥇 <@{carol}> — **2** · 3 games",
        f"🥈 <@{bob}> — **1** · 3 games",
        f"🥈 <@{alice}> — **1** · 2 games",
    ]
    assert footer(wins) == "This server · All time · page 1/1"
    assert not wins.buttons

    everywhere = await board(h, h.alice, game="kniffel", scope="global")
    assert description_lines(everywhere) == [
        "🥇 Bob — **3** · 5 games",
        "🥈 Carol — **2** · 3 games",
        "🥉 Alice — **1** · 2 games",
    ]
    assert footer(everywhere).startswith("All servers · All time")

    month = await board(h, h.bob, game="kniffel", metric="best", period="month")
    assert description_lines(month) == [
        f"🥇 <@{alice}> — **250** · 2 games",
        f"🥈 <@{bob}> — **230** · 3 games",
        f"🥉 <@{carol}> — **220** · 2 games",
    ]
    assert footer(month) == "This server · Last 30 days · page 1/1"

    week = await board(h, h.carol, game="kniffel", metric="games", period="week")
    assert description_lines(week) == [
        f"🥇 <@{alice}> — **2**",
        f"🥇 <@{bob}> — **2**",
        f"🥉 <@{carol}> — **1**",
    ]
    assert footer(week) == "This server · Last 7 days · page 1/1"

    # Alice lost her one Tutto game: the wins board lists only Carol, and tells Alice why she is not on it.
    tutto = await board(h, h.alice, game="tutto")
    # The board is the channel's: the line names who asked, where "you" read as every reader (QA)
    assert description_lines(tutto) == [
        f"🥇 <@{carol}> — **1** · 1 game",
        "",
        f"<@{alice}> has no wins on this board yet.",
    ]

    average = await board(h, h.alice, game="kniffel", metric="average")
    assert "Nobody has 5 finished games on this board yet" in average.text


async def test_stats_show_every_game_and_its_counters(bot: Harness) -> None:
    h = bot
    await seed_two_game_types(h)

    mine = await (await h.command(h.alice, "stats")).message()
    assert mine.embeds[0]["title"] == "📊 Statistics — Alice"
    fields = {field["name"]: field["value"] for field in mine.embeds[0]["fields"]}
    assert list(fields) == ["Kniffel (rules: Kniffel)", "Tutto"]
    kniffel = fields["Kniffel (rules: Kniffel)"]
    assert "Games **2** · Wins **1** (50%)" in kniffel
    assert "Best **250** · Average **215.0**" in kniffel
    assert "Upper bonus in 1 of 2 games (50%) · Kniffels scored **1**" in kniffel
    assert f"Last played <t:{int(h.clock.now - 0.5 * DAY)}:R>" in kniffel
    assert "Tuttos **0**" in fields["Tutto"]
    assert mine.embeds[0]["footer"]["text"] == "Finished games on every server · /forget-me deletes your stored results"

    carol = await (await h.command(h.bob, "stats", user=h.carol, game="tutto")).message()
    fields = {field["name"]: field["value"] for field in carol.embeds[0]["fields"]}
    assert list(fields) == ["Tutto"]
    assert carol.embeds[0]["footer"]["text"] == "Finished games on every server"  # not "your results" to Bob
    assert "Games **1** · Wins **1** (100%)" in fields["Tutto"]
    assert "Tuttos **2**" in fields["Tutto"]

    nothing = await (await h.command(h.alice, "stats", game="knister")).message()
    assert "Alice has no finished Knister games yet." in nothing.text


async def test_stats_upper_bonus_rate_leaves_out_classic_games(bot: Harness) -> None:
    # Classic Kniffel has no upper bonus: the game service stores the counter as NULL for its results.
    h = bot
    alice, carol = h.alice.id, h.carol.id
    names = {alice: "Alice", carol: "Carol"}
    bonus, no_bonus, classic = {"kniffels": 1, "upper_bonus": 1}, {"kniffels": 0, "upper_bonus": 0}, {"kniffels": 1}
    await finished(h, "kniffel", {alice: 260}, variant="kniffel", names=names, counters={alice: bonus})
    await finished(h, "kniffel", {alice: 190}, variant="kniffel", names=names, counters={alice: no_bonus})
    for _ in range(2):
        classics = {alice: classic, carol: classic}
        await finished(h, "kniffel", {alice: 150, carol: 160}, variant="classic", names=names, counters=classics)

    mine = await (await h.command(h.alice, "stats", game="kniffel")).message()
    fields = {field["name"]: field["value"] for field in mine.embeds[0]["fields"]}
    assert list(fields) == ["Kniffel (rules: Kniffel)", "Kniffel (rules: Classic)"]
    assert "Games **2** · Wins **2** (100%)" in fields["Kniffel (rules: Kniffel)"]
    assert "Upper bonus in 1 of 2 games (50%) · Kniffels scored **1**" in fields["Kniffel (rules: Kniffel)"]
    assert "Games **2** · Wins **0** (0%)" in fields["Kniffel (rules: Classic)"]
    assert "Kniffels scored **2**" in fields["Kniffel (rules: Classic)"]
    assert "Upper bonus" not in fields["Kniffel (rules: Classic)"]

    # Only classic games: no upper bonus line at all (never "0 of 0" or a 0 % rate).
    theirs = await (await h.command(h.alice, "stats", user=h.carol)).message()
    (field,) = theirs.embeds[0]["fields"]
    assert field["name"] == "Kniffel (rules: Classic)"
    assert "Games **2** · Wins **2** (100%)" in field["value"]
    assert "Kniffels scored **2**" in field["value"]
    assert "Upper bonus" not in field["value"]


async def test_stats_show_kniffel_per_rule_set_and_the_boards_do_not(bot: Harness) -> None:
    """Two classic games (no bonuses) and one with the Kniffel rules: /stats gives each rule set its own games, best
    and average, never the 241.7 of all three that describes neither; the boards rank Kniffel as one game."""
    h = bot
    alice, bob = h.alice.id, h.bob.id
    names = {alice: "Alice", bob: "Bob"}
    classic, bonus = {"kniffels": 0}, {"kniffels": 2, "upper_bonus": 1}
    await finished(h, "kniffel", {alice: 167, bob: 150}, variant="classic", names=names, counters={alice: classic})
    await finished(h, "kniffel", {alice: 178, bob: 190}, variant="classic", names=names, days_ago=2)
    await finished(h, "kniffel", {alice: 380, bob: 200}, variant="kniffel", names=names, counters={alice: bonus})

    mine = await (await h.command(h.alice, "stats")).message()
    fields = {field["name"]: field["value"].splitlines() for field in mine.embeds[0]["fields"]}
    assert list(fields) == ["Kniffel (rules: Kniffel)", "Kniffel (rules: Classic)"]
    assert fields["Kniffel (rules: Kniffel)"][:3] == [
        "Games **1** · Wins **1** (100%)",
        "Best **380** · Average **380.0**",
        "Upper bonus in 1 of 1 game (100%) · Kniffels scored **2**",
    ]
    assert fields["Kniffel (rules: Classic)"][:3] == [
        "Games **2** · Wins **1** (50%)",
        "Best **178** · Average **172.5**",
        "Kniffels scored **0**",
    ]
    # Asked for Kniffel alone, and for someone else: split the same way.
    theirs = await (await h.command(h.alice, "stats", user=h.bob, game="kniffel")).message()
    assert [field["name"] for field in theirs.embeds[0]["fields"]] == [
        "Kniffel (rules: Kniffel)",
        "Kniffel (rules: Classic)",
    ]
    best = await board(h, h.alice, game="kniffel", metric="best")
    assert description_lines(best) == [f"🥇 <@{alice}> — **380** · 3 games", f"🥈 <@{bob}> — **200** · 3 games"]


async def test_stats_write_the_settlement_as_the_dice_poker_board_does(bot: Harness) -> None:
    """A real minus sign and no decimals for a whole total, as the final board's "(−64.5)"; a fraction keeps them."""
    h = bot
    alice, bob = h.alice.id, h.bob.id
    names = {alice: "Alice", bob: "Bob"}
    for alices, bobs in ((250, 379), (300, 377)):  # settlements −64.5 and −38.5: −103 in all
        share = (alices - bobs) / 2
        counters = {alice: {"settlement": share}, bob: {"settlement": -share}}
        await finished(h, "dicepoker", {alice: alices, bob: bobs}, variant="russian", names=names, counters=counters)
    await finished(h, "dicepoker", {bob: 10, h.carol.id: -20}, names=names, counters={bob: {"settlement": -25.25}})

    mine = await (await h.command(h.alice, "stats", game="dicepoker")).message()
    assert "Settlement in total **−103**" in mine.embeds[0]["fields"][0]["value"]
    theirs = await (await h.command(h.alice, "stats", user=h.bob, game="dicepoker")).message()
    assert "Settlement in total **+77.75**" in theirs.embeds[0]["fields"][0]["value"]
    carol = await (await h.command(h.alice, "stats", user=h.carol, game="dicepoker")).message()
    assert "Best **−20** · Average **−20.0**" in carol.embeds[0]["fields"][0]["value"]  # scores as the board's totals


async def test_empty_leaderboard_says_so(bot: Harness) -> None:
    message = await board(bot, bot.alice, game="knister", metric="games")
    assert description_lines(message) == [
        "Nobody is on this board yet.",
        "Finish a game (`/knister start`) to get on it.",
    ]
    assert not message.buttons
    wins = await board(bot, bot.alice, game="knister")
    assert description_lines(wins) == [
        "Nobody has won on this board yet.",
        "Win a game against another person (`/knister start`) to get on it.",
    ]
    assert not wins.buttons


async def test_paging_in_place_privately_for_others_and_after_a_restart(bot: Harness) -> None:
    h = bot
    # Fourteen players with 14..1 wins; Alice has one win, so she is 14th and sees her rank underneath.
    for player in range(1, 14):
        for _ in range(15 - player):
            await finished(h, "kniffel", {1000 + player: 200})
    await finished(h, "kniffel", {h.alice.id: 200})

    message = await board(h, h.alice, game="kniffel")
    lines = description_lines(message)
    assert lines[0] == "🥇 <@1001> — **14** · 14 games"
    assert len(lines) == 12
    assert lines[-1] == f"**<@{h.alice.id}>:** #14 — 1 · 1 game"
    assert footer(message) == "This server · All time · page 1/2"
    assert message.button(label="Previous").disabled
    assert not message.button(label="Next").disabled

    await h.click(h.alice, message, "Next")
    assert footer(message) == "This server · All time · page 2/2"
    assert description_lines(message)[-1] == f"`#14` <@{h.alice.id}> — **1** · 1 game"
    assert message.button(label="Next").disabled

    # Someone else's click leaves Alice's board alone and shows them that page privately.
    other = await h.server.click_button(h.bob, message, label="Previous")
    private = await other.message()
    assert private.ephemeral
    assert footer(private) == "This server · All time · page 1/2"
    assert "You are not on this board yet." in private.text
    assert footer(message) == "This server · All time · page 2/2"
    # Paging the private copy keeps it private: still "you", not "@Bob" (review)
    await h.click(h.bob, private, "Next")
    assert footer(private) == "This server · All time · page 2/2"
    assert "You are not on this board yet." in private.text, private.text

    await h.restart()
    await h.click(h.alice, message, "Previous")
    assert footer(message) == "This server · All time · page 1/2"


async def test_forget_me_removes_exactly_the_callers_results(bot: Harness) -> None:
    h = bot
    await seed_two_game_types(h)
    assert h.bot is not None

    async def count(user: User) -> int:
        assert h.bot is not None
        row = await h.bot.db.fetch_one("SELECT COUNT(*) FROM results WHERE user_id = ?", (user.id,))
        assert row is not None
        return int(row[0])

    others = {user.id: await count(user) for user in (h.bob, h.carol)}
    prompt = await (await h.command(h.alice, "forget-me")).message()
    assert prompt.ephemeral
    assert "This deletes all **3** of your stored game results" in prompt.text

    cancel = await h.click(h.alice, prompt, "Cancel")
    assert not cancel.failed
    assert prompt.text == "Nothing was deleted."
    assert await count(h.alice) == 3

    prompt = await (await h.command(h.alice, "forget-me")).message()
    # A double click: both clicks reach the bot before either is answered; one deletes the three, the other none.
    clicks = [await h.server.click_button(h.alice, prompt, label="Delete my results") for _ in range(2)]
    for click in clicks:
        await click.response()
    assert prompt.text == "Done: 3 stored game results were deleted.", "not overwritten by the click that found none"
    assert not prompt.buttons
    nothing_left = [message for click in clicks for message in click.ephemeral_messages]
    assert [message.text for message in nothing_left] == ["There are no stored game results of yours."]
    assert await count(h.alice) == 0
    assert {user.id: await count(user) for user in (h.bob, h.carol)} == others

    wins = await board(h, h.alice, game="kniffel")
    assert f"<@{h.alice.id}>" not in "\n".join(description_lines(wins)[:-1])  # on no line of the board
    assert description_lines(wins)[-1] == f"<@{h.alice.id}> is not on this board yet."  # only as who asked
    again = await (await h.command(h.alice, "forget-me")).message()
    assert again.text == "There are no stored game results of yours."
    assert not again.buttons


async def test_public_boards_speak_the_servers_language_and_private_replies_the_clickers(harness: Harness) -> None:
    """A board or /stats is read by the whole channel: the server's language, whoever ran it or pages it."""
    h = harness
    h.bob.locale = "hu"
    await h.start_bot(("cogs.leaderboard", "cogs.settings"))
    assert h.bot is not None
    dora = h.server.add_user("Dora", permissions=1 << 5, locale="pl")
    chosen = await h.command(dora, "settings language", language="de")
    await chosen.message()
    for player in range(1, 14):
        await finished(h, "kniffel", {1000 + player: 200})
    await finished(h, "tutto", {h.alice.id: 6200, h.bob.id: 4100})

    tutto = await board(h, h.alice, game="tutto")
    assert tutto.embeds[0]["title"] == "🏆 Tutto — Siege"
    stats = await (await h.command(h.alice, "stats", game="tutto")).message()
    assert not stats.ephemeral
    assert stats.embeds[0]["title"] == "📊 Statistik — Alice"

    def page_footer(locale: str, page: int) -> str:
        scope, period = t("leaderboard.scope.server", locale), t("leaderboard.period.all", locale)
        return t("leaderboard.footer", locale, scope=scope, period=period, page=page, pages=2)

    kniffel = await board(h, h.alice, game="kniffel")
    assert footer(kniffel) == page_footer("de", 1)
    # Bob (Hungarian) pages it: his private copy is his language; the channel's board is untouched.
    other = await h.server.click_button(h.bob, kniffel, label=t("leaderboard.next", "de"))
    private = await other.message()
    assert private.ephemeral
    assert footer(private) == page_footer("hu", 2)
    assert footer(kniffel) == page_footer("de", 1)
    # Alice (English) pages her own board in place: it stays German.
    await h.click(h.alice, kniffel, t("leaderboard.next", "de"))
    assert footer(kniffel) == page_footer("de", 2)
    assert kniffel.button(label=t("leaderboard.previous", "de")) is not None


async def test_without_a_chosen_language_boards_speak_the_servers_locale(harness: Harness) -> None:
    harness.guild.locale = "pl"
    await harness.start_bot(EXTENSIONS)
    await finished(harness, "tutto", {harness.alice.id: 6200})
    tutto = await board(harness, harness.alice, game="tutto")
    wins = t("leaderboard.metric.wins", "pl")
    assert tutto.embeds[0]["title"] == t("leaderboard.title", "pl", game="Tutto", metric=wins)


async def test_a_game_played_alone_to_the_end_is_no_win_on_the_board_nor_in_stats(harness: Harness) -> None:
    """Alice presses Start with nobody else and plays Kniffel to the end: her score counts, a win it is not. The
    wins board lists nobody until a game against someone else, and then only its winner."""
    h = harness
    await h.start_bot(("cogs.kniffel", *EXTENSIONS))
    message = await h.start_game("kniffel", [h.alice])
    await play_to_end(h, message, kniffel, chase=False)
    total = kniffel.card_totals(await h.state(), str(h.alice.id)).total
    await h.wait_post(f"🏁 Alice finished with {total} points.")
    assert "Winner" not in message.text

    wins = await board(h, h.alice, game="kniffel")
    assert description_lines(wins) == [
        "Nobody has won on this board yet.",
        "Win a game against another person (`/kniffel start`) to get on it.",
    ]  # no game with a computer to point to
    best = await board(h, h.alice, game="kniffel", metric="best")
    assert description_lines(best) == [f"🥇 <@{h.alice.id}> — **{total}** · 1 game"]
    mine = await (await h.command(h.alice, "stats", game="kniffel")).message()
    (field,) = mine.embeds[0]["fields"]
    assert field["value"].splitlines()[0] == "Games **1**, all played alone (a game played alone is never a win)"

    message = await h.start_game("kniffel", [h.alice, h.bob])
    await play_to_end(h, message, kniffel, chase=False)
    state = await h.state()
    totals = {int(player): kniffel.card_totals(state, player).total for player in state.players}
    (winner,) = [user for user in (h.alice, h.bob) if totals[user.id] == max(totals.values())]
    (loser,) = [user for user in (h.alice, h.bob) if user is not winner]
    games = "2 games" if winner is h.alice else "1 game"  # Alice's game alone is no win
    wins = await board(h, loser, game="kniffel")
    assert description_lines(wins) == [
        f"🥇 <@{winner.id}> — **1** · {games}",
        "",
        f"<@{loser.id}> has no wins on this board yet.",
    ]
    assert footer(wins) == "This server · All time · page 1/1"
