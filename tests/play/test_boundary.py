"""The pure checks at the boundary: start options, where a click came from, clicks already in effect."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.engine import dicepoker, kniffel
from bot.play import transitions as tr
from bot.play.cog import hold_in_effect
from bot.play.transitions import Actor, Origin, Refusal
from bot.storage import GameRecord, Seat
from bot.ui.render import Click
from cogs.dicepoker import SPEC as DICEPOKER
from cogs.kniffel import SPEC as KNIFFEL
from cogs.tutto import SPEC as TUTTO

HOST = Actor("101", "Alice")
GUEST = Actor("102", "Bob")
RECORD = GameRecord(
    id=1, kind="kniffel", variant="kniffel", guild_id=10, channel_id=20, host="101", status="running", version=4,
    created_at=0.0, updated_at=0.0, message_id=30, seats=(Seat("101", "Alice"), Seat("102", "Bob")),
)  # fmt: skip


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("kniffel", {"timeout": 0}),
        ("kniffel", {"timeout": 61}),
        ("kniffel", {"timeout": True}),
        ("kniffel", {"timeout": "5"}),
        ("kniffel", {"colour": 1}),
        ("bogus", {"timeout": 5}),
    ],
)
def test_start_options_outside_the_table_are_refused(variant: str, options: dict[str, object]) -> None:
    with pytest.raises(Refusal) as refused:
        tr.check_options(KNIFFEL, variant, options)
    assert refused.value.key == "play.bad_option"


def test_start_options_inside_the_table_pass() -> None:
    assert tr.check_options(KNIFFEL, "classic", {"timeout": 60}) == {"timeout": 60}
    assert tr.check_options(TUTTO, "standard", {"timeout": 1, "target": 1000}) == {"timeout": 1, "target": 1000}
    with pytest.raises(Refusal, match="bad_option"):
        tr.check_options(TUTTO, "standard", {"target": 999})


def origin(**changes: object) -> Origin:
    return replace(Origin(guild_id=10, channel_id=20, message_id=30), **changes)  # type: ignore[arg-type]


def test_a_click_acts_only_through_its_games_message() -> None:
    assert tr.check_origin(RECORD, GUEST, origin(), from_private_view=False) is False
    for elsewhere in (origin(channel_id=21), origin(guild_id=11), origin(message_id=31), origin(message_id=None)):
        with pytest.raises(Refusal, match="wrong_place"):
            tr.check_origin(RECORD, GUEST, elsewhere, from_private_view=False)


def test_private_view_actions_come_only_from_the_clickers_own_private_message() -> None:
    mine = origin(message_id=99, private=True, owner=GUEST.player)
    assert tr.check_origin(RECORD, GUEST, mine, from_private_view=True) is False
    with pytest.raises(Refusal, match="wrong_place"):
        tr.check_origin(RECORD, HOST, mine, from_private_view=True)  # Bob's grid in Alice's hands
    with pytest.raises(Refusal, match="wrong_place"):
        tr.check_origin(RECORD, GUEST, mine, from_private_view=False)  # a public control on a private view
    with pytest.raises(Refusal, match="wrong_place"):
        tr.check_origin(RECORD, GUEST, origin(), from_private_view=True)  # a private action on the public message


def test_only_the_host_adopts_a_lobby_message_that_was_never_stored() -> None:
    lost = replace(RECORD, status="lobby", message_id=None)
    assert tr.check_origin(lost, HOST, origin(message_id=77), from_private_view=False) is True
    with pytest.raises(Refusal, match="wrong_place"):
        tr.check_origin(lost, GUEST, origin(message_id=77), from_private_view=False)
    with pytest.raises(Refusal, match="wrong_place"):
        tr.check_origin(replace(lost, status="running"), HOST, origin(message_id=77), from_private_view=False)


def test_only_the_host_adopts_a_started_games_board_that_was_never_stored_and_only_one_with_its_controls() -> None:
    """A rematch started at once posts the running board directly; if its id was not stored, the host's click on
    the bot's message carrying the game's controls links it. Another message, or anybody else, is refused."""
    lost = replace(RECORD, status="running", message_id=None)
    board = origin(message_id=77, by_bot=True, games=frozenset({lost.id}))
    assert tr.check_origin(lost, HOST, board, from_private_view=False) is True
    for who, where in (
        (GUEST, board),
        (HOST, replace(board, games=frozenset({lost.id + 1}))),  # another game's message
        (HOST, replace(board, by_bot=False)),  # somebody else's message naming the game
    ):
        with pytest.raises(Refusal, match="wrong_place"):
            tr.check_origin(lost, who, where, from_private_view=False)


class Dice:
    held: ClassVar[list[bool]] = [True, False, False, False, False]


@pytest.mark.parametrize(
    ("arg", "expected"), [("0.1", True), ("0.0", False), ("1.0", True), ("1.1", False), ("1", False), ("9.1", False)]
)
def test_a_hold_is_in_effect_when_the_die_already_is_where_the_click_asks(arg: str, expected: bool) -> None:
    assert hold_in_effect(Click(1, "hold", arg, 0), Dice()) is expected
    assert hold_in_effect(Click(1, "roll", arg, 0), Dice()) is False


OPTION_VALUES = st.one_of(st.integers(), st.booleans(), st.text(max_size=5), st.none(), st.floats(allow_nan=False))


@settings(deadline=None)  # pure and fast, but the shared test machine is not
@given(
    variant=st.sampled_from(["standard", "bogus", ""]),
    options=st.dictionaries(st.sampled_from(["timeout", "target", "x"]), OPTION_VALUES),
)
def test_any_forged_options_are_refused_or_within_their_ranges(variant: str, options: dict[str, object]) -> None:
    try:
        checked = tr.check_options(TUTTO, variant, options)
    except Refusal as refusal:
        key = refusal.key
        assert key == "play.bad_option"
        return
    assert 1 <= checked.get("timeout", 1) <= 60
    assert 1000 <= checked.get("target", 1000) <= 20000
    assert all(type(value) is int for value in checked.values())


@settings(deadline=None)
@given(
    guild=st.sampled_from([10, 11, None]),
    channel=st.sampled_from([20, 21, None]),
    message=st.sampled_from([30, 31, None]),
    private=st.booleans(),
    owner=st.sampled_from(["101", "102", None]),
    from_private_view=st.booleans(),
)
def test_a_click_is_accepted_only_from_its_games_place(
    guild: int | None,
    channel: int | None,
    message: int | None,
    private: bool,
    owner: str | None,
    from_private_view: bool,
) -> None:
    forged = Origin(guild, channel, message, private, owner)
    try:
        adopted = tr.check_origin(RECORD, GUEST, forged, from_private_view)
    except Refusal:
        return
    assert not adopted
    assert (guild, channel) == (RECORD.guild_id, RECORD.channel_id)
    if from_private_view:
        assert private and owner == GUEST.player
    else:
        assert not private and message == RECORD.message_id


@pytest.mark.parametrize(
    ("spec", "engine", "choices"),
    [
        (KNIFFEL, kniffel, {box: {"kind": "score", "box": box} for box in kniffel.BOXES}),
        (
            DICEPOKER,
            dicepoker,
            {"pass": {"kind": "pass"}} | {row: {"kind": "score", "row": row} for row in dicepoker.ROWS},
        ),
    ],
)
def test_a_five_dice_click_is_the_action_validation_makes_and_a_forged_one_is_refused(
    spec: Any, engine: Any, choices: dict[str, dict[str, Any]]
) -> None:
    """The clicks' actions are the engine's shared instances, not validated again: each equals (and dumps as) the
    action validated from its JSON, and an id or choice naming no die or box is refused as validation refuses it."""

    def same(action: Any, data: dict[str, Any]) -> None:
        validated = engine.parse_action(data)
        assert action == validated and type(action) is type(validated)
        assert action.model_dump_json() == validated.model_dump_json()

    same(spec.to_action(Click(1, "roll", "", 4)), {"kind": "roll"})
    for index in range(5):
        for target in (0, 1):
            same(spec.to_action(Click(1, "hold", f"{index}.{target}", 4)), {"kind": "toggle_hold", "index": index})
    for choice, data in choices.items():
        same(spec.to_action(Click(1, "score", "", 4, (choice,))), data)
    for forged in (Click(1, "hold", "5.1", 4), Click(1, "hold", "-1.1", 4), Click(1, "score", "", 4, ("nope",))):
        with pytest.raises(ValidationError):
            spec.to_action(forged)
