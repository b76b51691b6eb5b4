"""Pure parts of the shared plumbing: component ids, translations, error messages."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from bot.engine.core import InvalidSelection, NotYourTurn
from bot.i18n import CatalogueTranslator, catalogue, language_of, t
from bot.play.service import error_key, labelled, seat_views
from bot.play.transitions import HINTED
from bot.storage import GameRecord, Seat
from bot.ui.render import CUSTOM_ID, MAX_CUSTOM_ID, Click, SeatView, custom_id, parse_custom_id
from cogs.kniffel import SPEC as KNIFFEL
from cogs.tutto import SPEC as TUTTO


def test_custom_id_round_trip() -> None:
    value = custom_id(123, "hold", 4, 17)
    assert value == "g:123:hold:4:17"
    assert parse_custom_id(value, ["x"]) == Click(123, "hold", "4", 17, ("x",))
    assert parse_custom_id("lb:kniffel:wins") is None


def test_custom_id_refuses_what_discord_or_the_pattern_would_reject() -> None:
    with pytest.raises(ValueError, match="invalid component id"):
        custom_id(1, "bad action", "", 0)
    with pytest.raises(ValueError, match="invalid component id"):
        custom_id(1, "score", "x" * MAX_CUSTOM_ID, 0)


def test_translation_falls_back_to_english_then_to_the_key() -> None:
    assert t("error.not_your_turn", "fr") == t("error.not_your_turn", "en-US") == "It is not your turn."
    assert t("no.such.key", "en-US") == "no.such.key"
    assert t("lobby.players", "en-US", count=2, max=8) == "Players (2/8)"
    assert t("lobby.players", "en-US") == "Players ({count}/{max})"


def test_language_of_discord_locales() -> None:
    assert language_of(discord.Locale.german) == "de"
    assert language_of("pt-BR") == "en"
    assert language_of(None) == "en"


def test_every_error_key_has_an_english_message() -> None:
    import bot.engine.core as core

    keys = {cls.key for cls in vars(core).values() if isinstance(cls, type) and issubclass(cls, core.GameError)}
    missing = sorted(key for key in keys if f"error.{key}" not in catalogue("en"))
    assert missing == []


async def test_translator_leaves_english_alone_and_skips_missing_languages() -> None:
    translator = CatalogueTranslator()
    text = app_commands.locale_str("Show the rules", key="error.not_your_turn")
    context = app_commands.TranslationContext(app_commands.TranslationContextLocation.other, None)
    assert await translator.translate(text, discord.Locale.american_english, context) is None
    assert await translator.translate(text, discord.Locale.french, context) is None


def test_error_key_prefers_the_games_reason_text() -> None:
    assert error_key(TUTTO, InvalidSelection(reason="fireworks_take_all")) == "tutto.reason.fireworks_take_all"
    assert error_key(TUTTO, InvalidSelection(reason="unknown_reason")) == "error.invalid_selection"
    assert error_key(KNIFFEL, NotYourTurn()) == "error.not_your_turn"


@pytest.mark.parametrize(
    ("game_id", "action", "arg", "stamp"),
    [
        (1, "hold", "0.1", 7),
        (0, "card", "", 0),
        (12, "score", "full_house", 3),
        (-1, "roll", "", 3),
        (1, "roll", "", -3),
        (1, "Roll", "", 3),
        (1, "", "", 3),
        (1, "roll", "a:b", 3),
        (1, "roll", "a b", 3),
        (1, "roll:x", "", 3),
        (1, "roll", "٣", 3),
        (1, "roll\n", "", 3),
        (1, "roll", "x\n", 3),
        (True, "roll", "", 3),
        ("٣", "roll", "", 3),
        (1, "roll", "-.", 10**90),
    ],
)
def test_custom_id_accepts_exactly_what_the_pattern_matches(game_id: int, action: str, arg: str, stamp: int) -> None:
    value = f"g:{game_id}:{action}:{arg}:{stamp}"
    if len(value) <= MAX_CUSTOM_ID and CUSTOM_ID.fullmatch(value):
        assert custom_id(game_id, action, arg, stamp) == value
    else:
        with pytest.raises(ValueError, match="invalid component id"):
            custom_id(game_id, action, arg, stamp)


def test_a_refusal_names_a_button_as_it_reads_on_the_games_message() -> None:
    """The lobby's buttons are in the game's language; a joiner whose client speaks another is told the label
    they see, not their own language's."""
    record = GameRecord(
        id=1, kind="dicepoker", variant="dicepoker", guild_id=10, channel_id=20, host="101", status="lobby",
        version=1, created_at=0.0, updated_at=0.0, locale="de",
    )  # fmt: skip
    params = {"name": "Alice", "button": "lobby.remove_computer"}
    assert labelled(record, params) == {"name": "Alice", "button": "Computer entfernen"}
    assert t("lobby.full_computers", "en-US", **labelled(record, params)).endswith(
        "press **Computer entfernen** to make room."
    )


def test_seat_views_are_remembered_only_while_the_seats_and_hints_are_the_same() -> None:
    """The board's seat views are built once per game and seats: the next record with the same seats (a copy of it)
    gets the same views, and new seats, a newly marked hint or another game each get their own, as built fresh."""

    def fresh(record: GameRecord) -> tuple[SeatView, ...]:
        hinted = record.options.get(HINTED, ())
        return tuple(SeatView(s.player, s.display_name, s.kind, s.status, s.player in hinted) for s in record.seats)

    seats = (Seat("1", "Ann"), Seat("cpu-easy-1", "Easy", "computer"))
    record = GameRecord(
        id=424242, kind="kniffel", variant="kniffel", guild_id=1, channel_id=2, host="1", status="running",
        version=1, created_at=0.0, updated_at=0.0, seats=seats,
    )  # fmt: skip
    views = seat_views(record)
    assert views == fresh(record)
    assert seat_views(record.changed(version=2, state="{}")) is views
    hinted = record.changed(options={HINTED: ["1"]})
    assert seat_views(hinted) == fresh(hinted) and seat_views(hinted)[0].hinted
    left = hinted.changed(seats=(Seat("1", "Ann", status="left"), seats[1]))
    assert seat_views(left) == fresh(left) and seat_views(left)[0].status == "left"
    renamed = left.changed(id=424243, seats=(Seat("1", "Anna"), seats[1]))
    assert seat_views(renamed) == fresh(renamed) and seat_views(left) == fresh(left)
