"""A click's answer is built from plain dicts, and players see exactly what discord.py's objects gave before.

The type-7 answer (``bot/play/discord_io.update_payload``) takes its components from ``Layout.components()``
instead of a ``View`` of discord.py ``Button``/``Select`` objects, its embeds from ``render.embed_payload`` instead of
``Embed.to_dict``, and writes discord.py's other keys itself. For every message of every game (the lobby,
every state of seeded games, the private views, the finished and the abandoned board, the languages taking turns), the
JSON sent must be byte for byte what discord.py's ``interaction_message_response_params`` made from the view.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from dataclasses import replace

import discord
import pytest
from discord.utils import _to_json
from discord.webhook.async_ import interaction_message_response_params

from bot.i18n import languages
from bot.play import board
from bot.play.discord_io import update_payload
from bot.play.following import fingerprint
from bot.play.service import GameService
from bot.play.spec import AnySpec
from bot.play.transitions import Game
from bot.ui.render import Layout, Rendered, embed_payload
from tests.ui.test_phone import CASES, DICEPOKER, KNIFFEL, KNISTER, TUTTO, VARIANTS, played, record, renders

MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True)


def discord_py_payload(rendered: Rendered) -> str:
    """The answer as it was built before: discord.py's parameters from ``Rendered.kwargs()`` and its view."""
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        previous_allowed_mentions=MENTIONS,
        **rendered.kwargs(),
    )
    return _to_json(params.payload)


def final_boards(spec: AnySpec, variant: str, players: int, language: str) -> Iterator[Rendered]:
    """A finished game's board (Review, Rematch) before and after a next game opened, and an abandoned one."""
    service = GameService.__new__(GameService)
    service.specs = {spec.kind: spec}
    ids = [str(10**17 + index) for index in range(players)]
    finished = record(spec, ids, language, "finished", variant)
    state, _ = played(spec.kind, players, variant, players)[-1]  # the end of the game the renders show
    yield service.render(spec, Game(finished, state))
    superseded = replace(finished, options={**finished.options, board.NEXT_GAME: 1})
    yield service.render(spec, Game(superseded, state))
    yield service.render(spec, Game(replace(finished, status="abandoned"), state))


#: Every game case once, the languages taking turns (each is seen several times; the phone test plays them all).
LANGUAGE_CASES = [(*case, languages()[index % len(languages())]) for index, case in enumerate(CASES)]


@pytest.mark.parametrize(
    ("spec", "variant", "players", "language"), LANGUAGE_CASES, ids=lambda v: getattr(v, "kind", str(v))
)
def test_every_answer_is_byte_identical_to_discord_py_s(
    spec: AnySpec, variant: str, players: int, language: str
) -> None:
    seen = 0
    messages = [
        *renders(spec, language, players, variant, seed=players),
        *final_boards(spec, variant, players, language),
    ]
    for rendered in messages:
        assert _to_json(update_payload(rendered, MENTIONS)) == discord_py_payload(rendered)
        seen += bool(rendered.layout)
    assert seen > 3


def test_links_emoji_selects_and_rows_out_of_order() -> None:
    layout = (
        Layout()
        .button(2, "Roll", "g:1:roll::3", style=discord.ButtonStyle.primary, emoji="🎲")
        .select(0, "Pick a box", "g:1:score::3", [("Chance 23", "chance", None), ("Kniffel", "kniffel", "50")])
        .link(2, "Jump", "https://discord.com/channels/1/2/3")
        .button(1, None, "g:1:hold:0:3", disabled=True, emoji="🔒")
    )
    rendered = Rendered(content="x", layout=layout)
    assert _to_json(update_payload(rendered, MENTIONS)) == discord_py_payload(rendered)
    assert [len(row["components"]) for row in layout.components()] == [1, 1, 2]


def test_an_empty_layout_clears_the_components() -> None:
    rendered = Rendered(content="over")
    assert update_payload(rendered, None)["data"]["components"] == []
    assert _to_json(update_payload(rendered, MENTIONS)) == discord_py_payload(rendered)


def test_an_emoji_parsed_once_is_written_the_same_for_every_button() -> None:
    layout = Layout()
    for index, emoji in enumerate(["🔒", "<:die:123456789>", "🔒", "<a:spin:987654321>", "<:die:123456789>"]):
        layout.button(0, str(index), f"g:1:hold:{index}.0:3", emoji=emoji)
    rendered = Rendered(content="x", layout=layout)
    assert _to_json(update_payload(rendered, MENTIONS)) == discord_py_payload(rendered)
    first, _, third, *_ = layout.components()[0]["components"]
    first["emoji"]["name"] = "changed"
    assert third["emoji"] == {"name": "🔒", "id": None}
    assert layout.components()[0]["components"][0]["emoji"] == {"name": "🔒", "id": None}


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_other_seeded_games_give_discord_py_s_bytes(spec: AnySpec, seed: int) -> None:
    """More games of every kind than the cases above play, two players, each seed in its own language."""
    language = languages()[seed % len(languages())]
    for rendered in renders(spec, language, 2, VARIANTS[spec.kind][-1], seed=seed):
        assert _to_json(update_payload(rendered, MENTIONS)) == discord_py_payload(rendered)
        assert _to_json(update_payload(rendered, None)) == _to_json(
            interaction_message_response_params(
                type=discord.InteractionResponseType.message_update.value, **rendered.kwargs()
            ).payload
        )


@pytest.mark.parametrize("spec", [KNIFFEL, DICEPOKER, KNISTER, TUTTO], ids=lambda spec: spec.kind)
def test_a_followers_fingerprint_is_the_one_discord_py_s_objects_give(spec: AnySpec) -> None:
    """The fingerprint skips edits that would change nothing; written from the plain dicts it must still tell
    apart exactly the messages discord.py's ``View`` and ``Embed.to_dict`` did (it cost 83 µs a message, now 32)."""
    for rendered in renders(spec, "de", 2, VARIANTS[spec.kind][-1], seed=5):
        through_discord_py = {
            "content": rendered.content,
            "embeds": [embed.to_dict() for embed in rendered.embeds],
            "components": rendered.layout.view().to_components(),
        }
        assert fingerprint(rendered) == json.dumps(through_discord_py, sort_keys=True, default=str)


def embeds() -> Iterator[discord.Embed]:
    """Embeds with each part a renderer does not set as well: no colour, a colour of 0, a date, media, an author."""
    yield discord.Embed()
    yield discord.Embed(title="t", description="d", url="https://example.com", colour=0)
    everything = discord.Embed(title="t", description="d", colour=0x2ECC71, type="rich")
    everything.set_footer(text="f", icon_url="https://example.com/f.png")
    everything.set_image(url="https://example.com/i.png")
    everything.set_thumbnail(url="https://example.com/t.png")
    everything.set_author(name="a", url="https://example.com/a")
    everything.add_field(name="n", value="v", inline=False)
    yield everything
    for stamp in (datetime.datetime(2026, 11, 28, 5), datetime.datetime(2026, 11, 28, 5, tzinfo=datetime.UTC)):
        yield discord.Embed(title="t", timestamp=stamp)


@pytest.mark.parametrize("embed", list(embeds()))
def test_an_embed_is_written_key_for_key_as_discord_py_writes_it(embed: discord.Embed) -> None:
    assert _to_json(embed_payload(embed)) == _to_json(embed.to_dict())
    assert list(embed_payload(embed)) == list(embed.to_dict())
