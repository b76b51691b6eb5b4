"""Showcase: whole games in the languages of their rulebooks, with no English in anything the players see.

Kniffel on a Hungarian server, Knister with a Polish player on a server set to Polish, dice poker and Tutto on a
German server. Everything the players are shown (messages, embeds, buttons, menus, private replies, each state
of every edited message) is collected and searched for text that only the English catalogue has, and every
message the bot sent is checked against Discord's limits and for pings of anyone but users.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, MutableSequence
from typing import Any

import pytest

from bot.engine import dicepoker, kniffel
from bot.engine import knister as kn
from bot.i18n import FALLBACK, Message, catalogue, t
from fakediscord import Message as ChatMessage
from fakediscord import User
from tests.discord_limits import assert_every_message_fits, assert_pings_only_people
from tests.e2e.conftest import Harness, ScriptedRandom
from tests.e2e.dice import best_option

pytestmark = pytest.mark.timeout(120)

MANAGE_GUILD = 1 << 5


def forms(message: Message) -> Iterator[str]:
    yield from (message.values() if isinstance(message, dict) else [message])


def english_only(language: str) -> set[str]:
    """Word runs of English messages (between placeholders and punctuation) that the language never uses."""
    theirs = " ".join(
        re.sub(r"\{[^}]*\}", " ", form) for message in catalogue(language).values() for form in forms(message)
    ).lower()
    found = set()
    for message in catalogue(FALLBACK).values():
        for form in forms(message):
            for piece in re.split(r"\{[^}]*\}", form):
                for run in re.split(r"[^\w\s'/-]+", piece):
                    words = run.strip(" -/'")
                    if sum(char.isalpha() for char in words) >= 3 and words.lower() not in theirs:
                        found.add(words)
    return found


class Seen:
    """Every text the players have been shown, collected after each step (game messages are edited)."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.texts: set[str] = set()

    def collect(self) -> None:
        for message in self.harness.server.channel_messages(self.harness.channel):
            self.texts.add(message.text)
            self.texts.update(button.label or "" for button in message.buttons)
            for select in message.selects:
                self.texts.add(select.placeholder or "")
                self.texts.update(f"{option.label}\n{option.description or ''}" for option in select.options)

    def english(self, language: str) -> list[str]:
        """The English-only phrases found in what the players saw.

        A phrase is looked for as a substring first: the word-bounded pattern only for the few that occur at all.
        Compiling and running one pattern per phrase of the catalogue over everything seen cost about a third of a
        second of CPU a call.
        """
        self.collect()
        text = "\n".join(self.texts)
        return sorted(
            phrase
            for phrase in english_only(language)
            if phrase in text and re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)
        )


def game_id(message: ChatMessage) -> int:
    return int((message.buttons[0].custom_id or "").split(":")[1])


async def press(h: Harness, seen: Seen, user: User, message: ChatMessage, action: str, arg: object = None) -> str:
    """Click the button for ``action`` (labels are translated, so by custom id); the private answer, if any."""
    prefix = f"g:{game_id(message)}:{action}:" + ("" if arg is None else f"{arg}:")
    handle = await h.server.click_button(user, message, prefix=prefix)
    await handle.response()
    seen.collect()
    return handle.ephemeral_messages[0].text if handle.ephemeral_messages else ""


async def open_game(h: Harness, seen: Seen, kind: str, players: list[User], **options: Any) -> ChatMessage:
    """Open the lobby, wait until its message is stored, let the others join and the host start."""
    lobby = await h.open_lobby(kind, players[0], **options)
    for _ in range(500):
        record = await h.record()
        if record is not None and record.message_id == lobby.id:
            break
        await asyncio.sleep(0.01)
    seen.collect()
    for player in players[1:]:
        assert await press(h, seen, player, lobby, "join") == ""
    assert await press(h, seen, players[0], lobby, "start") == ""
    return lobby


async def score_best(h: Harness, seen: Seen, message: ChatMessage) -> None:
    """The player on turn rolls once and scores the option worth most."""
    user = h.user((await h.state()).current_player)
    assert await press(h, seen, user, message, "roll") == ""
    handle = await h.server.select(user, message, message.select().custom_id, [best_option(message)])
    await handle.response()
    seen.collect()


def speak(h: Harness, language: str, *users: User) -> None:
    for user in users:
        user.locale = language


async def test_a_whole_kniffel_game_on_a_hungarian_server(harness: Harness) -> None:
    h, seen = harness, Seen(harness)
    h.guild.locale = "hu"
    speak(h, "hu", h.alice, h.bob)
    await h.start_bot(("cogs.help", "cogs.kniffel"))
    shown = await (await h.command(h.alice, "help")).message()
    assert "**/kniffel** `start`, `szabályok`, `jegyzetlap`, `elemzés`, `kiszállok`, `befejezés`" in shown.text
    assert "**/súgó** — Megmutatja a játékokat és a parancsaikat" in shown.text
    game = await open_game(h, seen, "kniffel", [h.alice, h.bob])
    assert t("kniffel.ruleset.kniffel", "hu", name=t("variant.kniffel", "hu")) in game.text
    waiting = h.bob if (await h.state()).current_player == str(h.alice.id) else h.alice
    acting = h.alice if waiting is h.bob else h.bob
    assert await press(h, seen, waiting, game, "roll") == t("error.turn_of", "hu", name=acting.name)
    card = await press(h, seen, waiting, game, "card")
    assert t("kniffel.short.three_of_a_kind", "hu") in card and "Drill" in card
    while not kniffel.is_over(await h.state()):
        await score_best(h, seen, game)
    await h.wait_post("🏆 Győztes")
    assert t("dice.final_title", "hu", game="Kniffel") in game.text
    assert {"Dobás", "Játszom", "Beírás…"} <= seen.texts
    assert seen.english("hu") == []
    assert_every_message_fits(h.server)
    assert_pings_only_people(h.server)


async def test_knister_with_a_polish_player_on_a_server_set_to_polish(harness: Harness) -> None:
    h, seen = harness, Seen(harness)
    dora = h.server.add_user("Dora", permissions=MANAGE_GUILD, locale="pl")
    speak(h, "pl", h.alice)
    await h.start_bot(("cogs.knister", "cogs.settings"))
    chosen = await h.command(dora, "settings language", language="pl")
    assert (await chosen.message()).text == (
        "Gotowe: język nowych gier na tym serwerze to **polski**. Trwające gry zachowują swój język."
    )
    seen.collect()
    game = await open_game(h, seen, "knister", [h.alice])
    prefix = f"g:{game_id(game)}:roll:"
    for round_number in range(1, kn.ROUNDS + 1):
        await h.server.wait_for(lambda: not game.button(prefix=prefix).disabled, what="the Rzuć button")
        assert f"runda {round_number}/25" in game.text
        assert await press(h, seen, h.alice, game, "roll") == ""
        state = await h.state()
        grid = await (await h.server.click_button(h.alice, game, prefix=f"g:{game_id(game)}:grid:")).message()
        assert t("knister.grid_place", "pl", number=state.number) in grid.text
        cell = kn.best_cell(state.grids[str(h.alice.id)], state.number)
        placed = await h.server.click(h.alice, grid, grid.button(prefix=f"g:{game_id(game)}:place:{cell}:").custom_id)
        await placed.response()
        seen.collect()
    total = kn.score_grid((await h.state()).grids[str(h.alice.id)])
    await h.wait_post(f"🏁 Alice kończy z wynikiem {total} pkt.")
    assert {"Rzuć", "Moja tabela"} <= seen.texts
    assert seen.english("pl") == []
    assert_every_message_fits(h.server)
    assert_pings_only_people(h.server)


async def test_a_whole_dice_poker_game_on_a_german_server(harness: Harness) -> None:
    h, seen = harness, Seen(harness)
    h.guild.locale = "de"
    speak(h, "de", h.alice, h.bob)
    await h.start_bot(("cogs.dicepoker",))
    game = await open_game(h, seen, "dicepoker", [h.alice, h.bob])
    assert t("dicepoker.part1", "de") in game.text
    while not dicepoker.is_over(await h.state()):
        await score_best(h, seen, game)
    await h.wait_post("🏆 Gewonnen ha")
    assert t("dice.final_title", "de", game="Würfelpoker") in game.text
    assert {"Würfeln", "Block", "Eintragen…"} <= seen.texts
    assert seen.english("de") == []
    assert_every_message_fits(h.server)
    assert_pings_only_people(h.server)


class Deck(ScriptedRandom):
    """Tutto's deck starts with ``cards``; the first player is the first to join."""

    def __init__(self, cards: list[str], *faces: int) -> None:
        super().__init__(*faces)
        self.cards = cards

    def shuffle(self, x: MutableSequence[Any]) -> None:
        rest = list(x)
        for card in self.cards:
            rest.remove(card)
        x[:] = self.cards + rest

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return 0


async def test_a_whole_tutto_game_on_a_german_server(harness: Harness) -> None:
    h, seen = harness, Seen(harness)
    h.guild.locale = "de"
    speak(h, "de", h.alice, h.bob)
    h.rng = Deck(["stop", "bonus_300"], 1, 1, 1, 5, 5, 5)
    await h.start_bot(("cogs.tutto",))
    game = await open_game(h, seen, "tutto", [h.alice, h.bob], target=1000)
    assert "Tutto — bis 1.000 Punkte" in game.text
    assert await press(h, seen, h.alice, game, "draw") == ""
    await h.wait_post("🛑 Alice zieht Stopp — Zug vorbei.")
    assert await press(h, seen, h.bob, game, "draw") == ""
    assert t("tutto.rule.bonus", "de", bonus=300) in game.text
    await h.wait_post("🃏 Bob zieht **Bonus 300** und würfelt ⚀ ⚀ ⚀ ⚄ ⚄ ⚄.")
    for index in range(6):
        assert await press(h, seen, h.bob, game, "die", index) == ""
    assert game.button(prefix=f"g:{game_id(game)}:roll_on:").label == "Tutto!"
    assert await press(h, seen, h.bob, game, "roll_on") == ""
    await h.wait_post("🎉 Bob: Tutto! +300 Bonus — 1.800 gesichert.")
    assert await press(h, seen, h.bob, game, "stop") == ""
    await h.wait_post("🍺 Alice gibt die nächste Runde aus.")
    assert t("tutto.final_title", "de", game="Tutto") in game.text
    assert {"Ziehen & würfeln", "Stopp", "Weiter"} <= seen.texts
    assert seen.english("de") == []
    assert_every_message_fits(h.server)
    assert_pings_only_people(h.server)


def test_the_english_check_finds_english() -> None:
    """The search above would notice a button or sentence left in English."""
    phrases = english_only("de")
    assert {"Roll", "Draw", "Join"} <= phrases
    assert "Kniffel" not in phrases and "Full house" not in phrases
