"""Whose language: public game messages speak the server's language for the whole game, replies the clicker's.

The server's language is its ``/settings language`` choice, else its preferred locale; a locale we do not ship
(``pt-BR``) reads English.
"""

from __future__ import annotations

import pytest

from bot.i18n import t
from fakediscord import Message, UnknownCommand, User
from tests.e2e.conftest import Harness

pytestmark = pytest.mark.timeout(60)

EXTENSIONS = ("cogs.kniffel", "cogs.settings")
MANAGE_GUILD = 1 << 5


def game_id(message: Message) -> int:
    return int((message.buttons[0].custom_id or "").split(":")[1])


async def press(h: Harness, user: User, message: Message, action: str) -> str:
    """Click a lobby or game button by its action (labels differ per language); the private answer, if any."""
    handle = await h.server.click_button(user, message, prefix=f"g:{game_id(message)}:{action}:")
    await handle.response()
    return handle.ephemeral_messages[0].text if handle.ephemeral_messages else ""


def admin(h: Harness, locale: str) -> User:
    return h.server.add_user("Dora", permissions=MANAGE_GUILD, locale=locale)


async def test_the_lobby_speaks_the_servers_locale_and_refusals_the_clickers(harness: Harness) -> None:
    harness.guild.locale = "hu"
    harness.bob.locale = "pl"
    await harness.start_bot(EXTENSIONS)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    assert lobby.embeds[0]["title"] == t("lobby.title", "hu", game="Kniffel")
    assert [button.label for button in lobby.buttons] == ["Játszom", "Kilépek", "Indítás", "Mégse", "💡 Tippek: be"]
    assert lobby.select(prefix="g:").placeholder == "Gépi játékos hozzáadása…"
    assert await press(harness, harness.bob, lobby, "leave") == t("lobby.not_joined", "pl")
    assert await press(harness, harness.bob, lobby, "start") == t("lobby.host_only", "pl", name="Alice")
    assert await press(harness, harness.alice, lobby, "join") == t("lobby.already_joined", "en-US")


async def test_an_unsupported_locale_reads_english(harness: Harness) -> None:
    harness.guild.locale = "pt-BR"
    harness.bob.locale = "pt-BR"
    await harness.start_bot(EXTENSIONS)
    lobby = await harness.open_lobby("kniffel", harness.alice)
    assert lobby.embeds[0]["title"] == "Kniffel — lobby"
    assert await press(harness, harness.bob, lobby, "leave") == "You are not in this lobby."


async def test_a_manager_chooses_the_game_language_and_running_games_keep_theirs(harness: Harness) -> None:
    dora = admin(harness, "de")
    await harness.start_bot(EXTENSIONS)
    running = await harness.open_lobby("kniffel", harness.alice)
    handle = await harness.command(dora, "settings language", language="pl")
    assert (await handle.message()).text == t("settings.set", "de", language="Polnisch")

    await press(harness, harness.alice, running, "start")
    assert t("dice.press_roll", "en") in running.text
    ended = await harness.command(harness.alice, "kniffel end")
    assert (await ended.message()).text == t("play.you_ended", "en")

    polish = await harness.open_lobby("kniffel", harness.bob)
    assert polish.embeds[0]["title"] == "Kniffel — poczekalnia"
    await press(harness, harness.bob, polish, "start")
    assert t("dice.press_roll", "pl") in polish.text


async def test_the_current_choice_and_back_to_the_servers_language(harness: Harness) -> None:
    harness.guild.locale = "hu"
    dora = admin(harness, "en-GB")
    await harness.start_bot(EXTENSIONS)
    shown = await harness.command(dora, "settings language")
    assert (await shown.message()).text == t("settings.current_auto", "en", language="Hungarian")
    chosen = await harness.command(dora, "settings language", language="de")
    assert (await chosen.message()).text == t("settings.set", "en", language="German")
    shown = await harness.command(dora, "settings language")
    assert (await shown.message()).text == t("settings.current", "en", language="German")
    reset = await harness.command(dora, "settings language", language="auto")
    assert (await reset.message()).text == t("settings.set_auto", "en", language="Hungarian")
    lobby = await harness.open_lobby("kniffel", harness.alice)
    assert lobby.embeds[0]["title"] == t("lobby.title", "hu", game="Kniffel")


@pytest.mark.parametrize(
    ("locale", "answer"),
    [
        ("pl", "Gotowe: język nowych gier na tym serwerze to **polski**. Trwające gry zachowują swój język."),
        ("hu", "Kész: az új játékok nyelve ezen a szerveren **magyar**. A már futó játékok megtartják a nyelvüket."),
    ],
)
async def test_the_answer_names_the_language_as_a_sentence_of_the_readers_language_does(
    harness: Harness, locale: str, answer: str
) -> None:
    """QA: "…będą w języku Polski" and "…ezen a szerveren Magyar": the list's own name of a language (capitalised,
    in the nominative) put into a sentence; Polish and Hungarian write language names in lower case."""
    dora = admin(harness, locale)
    await harness.start_bot(EXTENSIONS)
    chosen = await harness.command(dora, "settings language", language=locale)
    assert (await chosen.message()).text == answer


async def test_members_without_manage_server_are_not_offered_the_command(harness: Harness) -> None:
    await harness.start_bot(EXTENSIONS)
    with pytest.raises(UnknownCommand):
        await harness.command(harness.alice, "settings language", language="de")
    assert harness.bot is not None
    assert await harness.bot.guild_settings.language(harness.guild.id) is None


async def test_the_command_localizations_reach_discord(harness: Harness) -> None:
    await harness.start_bot(EXTENSIONS)
    synced = {command["name"]: command for command in harness.server.world.commands.list(None)}
    settings = synced["settings"]
    assert settings["name_localizations"] == {"de": "einstellungen", "hu": "beállítások", "pl": "ustawienia"}
    start = next(option for option in synced["kniffel"]["options"] if option["name"] == "start")
    assert start["description_localizations"]["hu"] == "Kniffel-várót nyit ebben a csatornában"


@pytest.mark.parametrize("locale", ["en-US", "de", "hu", "pl"])
async def test_the_board_names_the_rule_set_as_the_lobby_does(harness: Harness, locale: str) -> None:
    """The rule set's name in the start command's choices, the lobby and the board's rules line is one text."""
    harness.guild.locale = locale
    await harness.start_bot(EXTENSIONS)
    synced = {command["name"]: command for command in harness.server.world.commands.list(None)}
    start = next(option for option in synced["kniffel"]["options"] if option["name"] == "start")
    rules_option = next(option for option in start["options"] if option["name"] == "rules")
    choices = {
        choice["value"]: (choice.get("name_localizations") or {}).get(locale, choice["name"])
        for choice in rules_option["choices"]
    }
    for rules in ("classic", "kniffel"):
        lobby = await harness.open_lobby("kniffel", harness.alice, rules=rules)
        name = next(field["value"] for field in lobby.embeds[0]["fields"] if field["name"] == t("lobby.rules", locale))
        assert choices[rules] == name
        await press(harness, harness.alice, lobby, "start")
        line = next(line for line in lobby.text.splitlines() if line.startswith(t("lobby.rules", locale)))
        assert line.startswith(f"{t('lobby.rules', locale)}: {name} ("), line
        await (await harness.command(harness.alice, "kniffel end")).message()


async def test_a_private_grid_names_the_round_messages_buttons_as_they_read_there(harness: Harness) -> None:
    """QA (a Polish server, an en-US player): the grid said "press **My grid** on the round message" and "press
    **Roll**" where the round message's buttons read "Moja tabela" and "Rzuć". The sentence is the reader's, the
    button's name the board's."""
    harness.guild.locale = "pl"
    await harness.start_bot(("cogs.knister",))
    board = await harness.open_lobby("knister", harness.alice)
    await press(harness, harness.bob, board, "join")
    await press(harness, harness.alice, board, "start")
    state = await harness.state()
    assert [button.label for button in board.buttons[:2]] == ["Rzuć", "Moja tabela"]

    grids = {}
    for user in (harness.alice, harness.bob):
        handle = await harness.server.click_button(user, board, prefix=f"g:{game_id(board)}:grid:")
        grids[str(user.id)] = (await handle.message()).text
    roller = grids.pop(state.roller)
    (waiting,) = grids.values()
    assert "🎲 Your roll: press **Rzuć** on the round message; this grid then updates itself." in roller
    assert "(if not, press **Moja tabela** on the round message)" in waiting


async def test_a_hint_names_the_button_to_press_as_the_board_reads_it(harness: Harness) -> None:
    """A turn's only move named as its button (Tutto's "Draw & roll") is the board's button, in the game's
    language."""
    harness.guild.locale = "de"
    await harness.start_bot(("cogs.tutto",))
    board = await harness.open_lobby("tutto", harness.alice)  # alone: hints are on
    await press(harness, harness.alice, board, "start")
    assert harness.bot is not None
    loading = harness.bot.brain.prepare(await harness.state(), str(harness.alice.id))
    if loading is not None:
        await loading
    assert board.buttons[0].label == "Ziehen & würfeln"

    hint = await press(harness, harness.alice, board, "hint")
    assert hint.splitlines()[-1] == "Your only move now: **Ziehen & würfeln**", hint
