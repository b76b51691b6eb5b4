"""A running game in each shipped language other than English, as the page shows it.

Each way a game gets its language is used once: Kniffel on a server whose preferred locale is Hungarian, Knister on
a server set to Polish with ``/settings language`` by a Polish player (their private grid open), dice poker on a
German server. Each player picks their locale in the page, as a playground user does. The translated texts are
asserted as literals, so a catalogue that stops reaching the page fails here; translations run longer than English,
so each game is also checked at phone width (nothing overflows sideways).

With ``PLAYGROUND_SCREENSHOTS=docs/screenshots`` these tests also write the README's "In your language" screenshots
(``<game>-<language>.png`` at desktop width, ``<game>-<language>-phone.png``).

Last, the playground's own way: Alice owns its server, so she can switch it to German with ``/settings``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import Locator, expect

from fakediscord import UnknownCommand
from tests.playground.conftest import DESKTOP, PHONE, Screen, World, box_of

pytestmark = pytest.mark.timeout(120)

#: Discord's Manage Server permission bit: only such members may use ``/settings``.
MANAGE_GUILD = 1 << 5
#: Desktop width, taller than the English screenshots so a game and a private reply below it fit in one picture.
TALL_DESKTOP = {"width": DESKTOP["width"], "height": 1200}


def set_server_locale(world: World, locale: str) -> None:
    """The guild's preferred locale, which its owner sets in Discord (the page has no control for it)."""
    guild = next(iter(world.server.world.guilds.values()))
    guild.locale = locale


async def speak(world: World, screen: Screen, locale: str) -> None:
    """Pick the user's Discord locale in the page and wait until fakediscord has it."""
    await screen.page.locator("#locale").select_option(locale)
    await world.server.wait_for(lambda: screen.user.locale == locale, what=f"{screen.user.name}'s locale")


async def start(world: World, screen: Screen, channel: str, game: str, start_label: str) -> None:
    """Open a lobby with the slash command and start it alone with its (translated) button."""
    await screen.command(f"/{game} start")
    await world.lobby_saved(channel)
    await screen.click(screen.messages.last, start_label)


async def expect_score_menu(game: Locator, labels: list[str]) -> None:
    """Open the game's scoring menu, expect exactly these options in order, and close it again (it covers the game)."""
    toggle = game.locator(".select-toggle")
    await toggle.click()
    await expect(game.locator(".select-menu")).to_be_visible()
    await expect(game.locator(".select-option .option-label")).to_have_text(labels)
    await toggle.click()
    await expect(game.locator(".select-menu")).to_be_hidden()


async def kniffel_hu(world: World) -> Screen:
    set_server_locale(world, "hu")
    screen = await world.screen("Alice", "kniffel", TALL_DESKTOP)
    await speak(world, screen, "hu")
    await start(world, screen, "kniffel", "kniffel", "Indítás")
    game = await screen.pin(screen.message_with("Kniffel — 1/13. kör"))
    world.rng.script(2, 3, 4, 5, 5)
    await screen.click(game, "Dobás")
    await expect(game).to_contain_text("1/3. dobás")
    await expect_score_menu(
        game,
        [
            *("Egyesek — 0", "Kettesek — 2", "Hármasok — 3", "Négyesek — 4", "Ötösök — 10", "Hatosok — 0"),
            *("Drill — 0", "Póker — 0", "Full house — 0", "Kis sor — 30", "Nagy sor — 0", "Kniffel — 0", "Sansz — 19"),
        ],
    )
    await screen.click(game, "Jegyzetlap")
    card = await screen.pin(screen.ephemerals().filter(has_text="Kniffel — Alice"))
    for rubric in ("Egyesek", "Drill", "Póker", "Kis sor", "Nagy sor", "Kniffel", "Sansz", "Összesen"):
        await expect(card).to_contain_text(rubric)
    return screen


async def knister_pl(world: World) -> Screen:
    world.server.add_user("Dora", permissions=MANAGE_GUILD)
    screen = await world.screen("Dora", "knister", TALL_DESKTOP)
    await speak(world, screen, "pl")
    await screen.command("/ustawienia język", language="pl")
    chosen = await screen.pin(screen.ephemerals().last)
    await expect(chosen).to_contain_text("Gotowe: język nowych gier na tym serwerze to polski.")
    # Discord's client names the command the answer is for as its user reads it: in Polish here.
    await expect(chosen.locator(".reply-line")).to_have_text("@Dora used /ustawienia język")
    await chosen.get_by_role("button", name="Dismiss message").click()
    await expect(chosen).to_have_count(0)
    await screen.command("/knister start")
    await world.lobby_saved("knister")
    lobby = await screen.pin(screen.messages.last)
    # Alice keeps her English client: she joins the Polish game with its Polish button.
    alice = await world.screen("Alice", "knister")
    await alice.click(await alice.pin(alice.messages.last), "Dołącz")
    await expect(lobby).to_contain_text("Alice")
    await screen.click(lobby, "Start")
    game = await screen.pin(screen.message_with("Knister — runda 1/25"))
    # The rolling order is shown on the round message itself until the first roll.
    await expect(game).to_contain_text("Kolejność rzucania: Dora, Alice")
    await expect(game).to_contain_text("W tej rundzie rzuca @Dora: naciśnij Rzuć.")
    world.rng.script(3, 4)
    await screen.click(game, "🎲 Rzuć")
    await expect(game).to_contain_text("Wszyscy wpisują 7")
    await screen.click(game, "Wpisz 7")
    grid = await screen.pin(screen.ephemerals().filter(has_text="Twoja tabela — runda 1/25"))
    await expect(grid).to_contain_text("Dotknij pustego pola, żeby wpisać tam 7.")
    cells = grid.locator(".components").get_by_role("button")
    await cells.nth(12).click()
    await expect(cells.nth(12)).to_have_text("7")
    await expect(grid).to_contain_text("Wpisano 7. Czekamy na: Alice.")
    await expect(grid).to_contain_text("Punkty za linie na razie")
    await expect(game).to_contain_text("Wpisane (1/2)")
    await expect(screen.message_with("wszyscy wpisują!")).to_contain_text("Rzut (Dora): ⚂ ⚃ = 7")
    # What only Alice sees follows her own client's language.
    await alice.click(await alice.pin(alice.message_with("Knister — runda 1/25")), "Wpisz 7")
    await expect(alice.ephemerals().filter(has_text="Your grid — round 1/25")).to_contain_text(
        "Tap an empty cell to write 7 there."
    )
    return screen


async def dicepoker_de(world: World) -> Screen:
    set_server_locale(world, "de")
    screen = await world.screen("Alice", "general", TALL_DESKTOP)
    await speak(world, screen, "de")
    await start(world, screen, "general", "würfelpoker", "Start")
    game = await screen.pin(screen.message_with("Würfelpoker — Zug 1/"))
    await expect(game).to_contain_text("Teil 1: Schule")
    world.rng.script(6, 6, 6, 2, 3)
    await screen.click(game, "Würfeln")
    await expect(game).to_contain_text("Wurf 1/3")
    await expect_score_menu(
        game, ["Einsen — −3", "Zweien — −4", "Dreien — −6", "Vieren — −12", "Fünfen — −15", "Sechsen — 0"]
    )
    await screen.click(game, "Block")
    block = await screen.pin(screen.ephemerals().filter(has_text="Würfelpoker — Alice"))
    for row in ("Einsen", "Sechsen", "2 Paare", "Drilling", "Gr. Str.", "Vierling", "Poker", "Gesamt"):
        await expect(block).to_contain_text(row)
    return screen


GAMES: dict[str, Callable[[World], Awaitable[Screen]]] = {
    "kniffel-hu": kniffel_hu,
    "knister-pl": knister_pl,
    "dicepoker-de": dicepoker_de,
}


async def assert_fits_phone(screen: Screen) -> None:
    """At phone width the page does not scroll sideways and every message's buttons are on screen."""
    await screen.page.set_viewport_size(PHONE)
    await screen.page.locator("#messages").evaluate("list => { list.scrollTop = list.scrollHeight; }")
    assert await screen.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for button in await screen.messages.get_by_role("button").all():
        box = await box_of(button)
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"]


@pytest.mark.parametrize("shot", list(GAMES))
async def test_a_running_game_in_each_language(world: World, shot: str) -> None:
    screen = await GAMES[shot](world)
    await screen.screenshot(shot)
    await assert_fits_phone(screen)
    await screen.screenshot(f"{shot}-phone")


async def test_the_server_s_owner_switches_it_to_german(world: World) -> None:
    """Alice owns the playground's server, so she has every permission there, Manage Server for ``/settings`` too;
    the other users keep a plain member's permissions, as on Discord."""
    alice = await world.screen("Alice", "general")
    await alice.command("/settings language", language="de")
    await expect(alice.ephemerals().last).to_contain_text("Done: new games on this server speak German.")
    await alice.command("/dicepoker start")
    await world.lobby_saved("general")
    lobby = alice.messages.last
    await expect(lobby.locator(".embed-title")).to_have_text("Würfelpoker — Lobby")
    await expect(lobby.get_by_role("button", name="Dabei", exact=True)).to_be_visible()
    with pytest.raises(UnknownCommand, match="Bob lacks the permissions /settings requires"):
        await world.server.slash(world.user("Bob"), world.channel("general"), "settings language", language="de")


async def test_times_are_shown_in_the_users_language(world: World) -> None:
    """Discord's client writes a ``<t:…:R>`` timestamp (``/stats``' "last played") in its user's language."""
    bob = await world.screen("Bob", "general")
    await speak(world, bob, "de")
    box = bob.page.locator("#composer-input")
    await box.fill("am <t:4102444800:R> und <t:4102444800:D>")  # 2100: "in … Tagen" whenever the test runs
    await box.press("Enter")
    stamps = bob.message_with("am ").locator("time.timestamp-mention")
    await expect(stamps.first).to_contain_text("in ")
    await expect(stamps.first).to_contain_text("Tagen")
    await expect(stamps.last).to_contain_text("1.1.2100")


async def test_a_member_is_not_offered_a_command_they_may_not_use(world: World) -> None:
    """``/settings`` needs Manage Server: Discord's client lists it for Alice (the owner), never for Bob."""
    suggestions = {}
    for name in ("Alice", "Bob"):
        screen = await world.screen(name, "general")
        await screen.page.locator("#composer-input").fill("/sett")
        suggestions[name] = screen.page.locator(".suggestion")
    await expect(suggestions["Alice"].filter(has_text="/settings language")).to_have_count(1)
    await expect(suggestions["Bob"]).to_have_text(["No matching command"])
