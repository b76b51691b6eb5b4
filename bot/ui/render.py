"""The render types every UI module shares: component ids, the layout builder, payloads and what a renderer sees.

This is the seam between the plumbing (``bot/play``) and the renderers (``bot/ui``): the plumbing builds a
:class:`Table` or :class:`Lobby` from the stored game and hands it over; a renderer returns a :class:`Rendered`.
Renderers therefore never see storage rows or Discord interactions, and ``bot/ui`` never imports ``bot/play``.

Component ids are ``g:<game id>:<action>:<argument>:<stamp>``. The stamp is the game's stored version when the
message was rendered (or another freshness mark a game chooses), so a click on an outdated message can be
recognised; everything a click needs is in the id, so buttons keep working after a restart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar

import discord

from bot.engine.core import Event, GameState
from bot.ui.common import isolated, shorten, shorten_words

PREFIX = "g"
CUSTOM_ID = re.compile(rf"{PREFIX}:(?P<game>\d+):(?P<action>[a-z_]+):(?P<arg>[A-Za-z0-9_.\-]*):(?P<stamp>\d+)")
MAX_CUSTOM_ID = 100

SeatKind = Literal["user", "computer"]
StateT = TypeVar("StateT", bound=GameState)


@dataclass(frozen=True)
class Click:
    """A decoded component interaction."""

    game_id: int
    action: str
    arg: str
    stamp: int
    values: tuple[str, ...] = ()


def custom_id(game_id: int, action: str, arg: str | int = "", stamp: int = 0) -> str:
    """Encode a component id, refusing one Discord would reject or our pattern would not match."""
    game, stamped = f"{game_id}", f"{stamp}"
    value = f"{PREFIX}:{game}:{action}:{arg}:{stamped}"
    # What CUSTOM_ID matches, part by part: the action and argument (a handful per game) are checked once each,
    # the numbers without a regex; nine full matches a board were a fifteenth of rendering it (docs/benchmarks.md).
    if len(value) > MAX_CUSTOM_ID or not (game.isdecimal() and stamped.isdecimal() and _fits(action, f"{arg}")):
        raise ValueError(f"invalid component id {value!r}")
    return value


_ACTION_ARG = re.compile(r"[a-z_]+:[A-Za-z0-9_.\-]*")


@lru_cache(maxsize=1024)
def _fits(action: str, arg: str) -> bool:
    return _ACTION_ARG.fullmatch(f"{action}:{arg}") is not None


def parse_custom_id(value: str, values: Sequence[str] = ()) -> Click | None:
    """The click a component id stands for, or None for an id that is not ours (or too long to be real)."""
    if len(value) > MAX_CUSTOM_ID:
        return None
    match = CUSTOM_ID.fullmatch(value)
    if match is None:
        return None
    return Click(int(match["game"]), match["action"], match["arg"], int(match["stamp"]), tuple(values))


def games_in(custom_ids: Iterable[object]) -> frozenset[int]:
    """The games whose controls these component ids are (ids that are not a game's are skipped). Read from a
    message as Discord stores it, that is from ids this bot wrote: the game's part is enough, without a regex."""
    games = set()
    for value in custom_ids:
        if isinstance(value, str) and value.startswith(_GAME_PREFIX):
            game = value[len(_GAME_PREFIX) : value.find(":", len(_GAME_PREFIX))]
            if game.isdecimal():
                games.add(int(game))
    return frozenset(games)


_GAME_PREFIX = f"{PREFIX}:"


class _Button(NamedTuple):
    """A button as the renderer asked for it; a tuple, as a frozen dataclass cost a microsecond per field to build,
    nine to twenty times a board (docs/benchmarks.md)."""

    row: int
    label: str | None
    custom_id: str | None
    style: discord.ButtonStyle
    disabled: bool = False
    emoji: str | None = None
    url: str | None = None

    def payload(self) -> dict[str, Any]:
        """Discord's JSON for the button, key for key as discord.py's ``Button.to_dict`` writes it."""
        payload: dict[str, Any] = {"type": 2, "style": self.style.value, "disabled": self.disabled}
        if self.label:
            payload["label"] = self.label
        if self.custom_id:
            payload["custom_id"] = self.custom_id
        if self.url:
            payload["url"] = self.url
        if self.emoji:
            payload["emoji"] = dict(_emoji(self.emoji))
        return payload

    def item(self) -> discord.ui.Button[Any]:
        if self.url is not None:
            return discord.ui.Button(label=self.label, url=self.url, row=self.row)
        return discord.ui.Button(
            label=self.label,
            custom_id=self.custom_id,
            style=self.style,
            disabled=self.disabled,
            emoji=self.emoji,
            row=self.row,
        )


class _Select(NamedTuple):
    """A select as the renderer asked for it (a tuple, as :class:`_Button`)."""

    row: int
    placeholder: str
    custom_id: str
    options: tuple[tuple[str, str, str | None], ...]
    disabled: bool = False

    def payload(self) -> dict[str, Any]:
        """Discord's JSON for the select, key for key as discord.py's ``SelectMenu.to_dict`` writes it."""
        payload: dict[str, Any] = {
            "type": 3,
            "custom_id": self.custom_id,
            "min_values": 1,
            "max_values": 1,
            "disabled": self.disabled,
            "required": True,  # discord.py's default for a Select, sent although only modals read it
        }
        if self.placeholder:
            payload["placeholder"] = self.placeholder
        if self.options:
            payload["options"] = [_option(label, value, description) for label, value, description in self.options]
        return payload

    def item(self) -> discord.ui.Select[Any]:
        choices = [
            discord.SelectOption(label=label, value=value, description=description)
            for label, value, description in self.options
        ]
        return discord.ui.Select(
            placeholder=self.placeholder,
            custom_id=self.custom_id,
            options=choices,
            disabled=self.disabled,
            row=self.row,
        )


@lru_cache(maxsize=256)
def _emoji(emoji: str) -> dict[str, Any]:
    """discord.py's JSON for an emoji, parsed once per emoji rather than once per held die on every board."""
    return {**discord.PartialEmoji.from_str(emoji).to_dict()}


def _option(label: str, value: str, description: str | None) -> dict[str, Any]:
    option: dict[str, Any] = {"label": label, "value": value, "default": False}
    if description:
        option["description"] = description
    return option


class Layout:
    """Buttons and selects arranged in rows: Discord's JSON for a click's answer, or a view that is never kept.

    A click is answered with :meth:`components`, plain dicts built straight from what the renderer asked for:
    building discord.py's ``View``, ``Button`` and ``Select`` objects on every click only to turn them into the
    same dicts cost a tenth of a millisecond per click (docs/benchmarks.md). Messages sent through discord.py's own
    calls (posting a board, editing it through the channel) still take a :meth:`view`, which is stopped before it
    is sent: discord.py then does not store it, and clicks are routed by their id (``bot/play/components.py``),
    however long ago the message was posted. ``tests/ui/test_payloads.py`` checks both give the same
    JSON for every game's messages.
    """

    def __init__(self) -> None:
        self._items: list[_Button | _Select] = []

    def button(
        self,
        row: int,
        label: str | None,
        component_id: str,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        emoji: str | None = None,
    ) -> Layout:
        self._items.append(_Button(row, label, component_id, style, disabled, emoji))
        return self

    def select(
        self,
        row: int,
        placeholder: str,
        component_id: str,
        options: Iterable[tuple[str, str, str | None]],
        *,
        disabled: bool = False,
    ) -> Layout:
        """A single-choice select; ``options`` are (label, value, description) triples, at most 25.

        A label over Discord's 100 characters ends after its last whole word that fits, with "…".
        """
        choices = tuple(
            (shorten_words(label, 100), value, description or None) for label, value, description in options
        )
        self._items.append(_Select(row, placeholder[:150], component_id, choices, disabled))
        return self

    def disabled_except(self, actions: Collection[str]) -> Layout:
        """This layout with every game control disabled but those whose action is in ``actions`` (the private
        views anyone may open) and links: on a computer's turn nobody has anything to press, and a live button
        that only answers "not your turn" reads as broken."""
        layout = Layout()
        for item in self._items:
            click = parse_custom_id(item.custom_id) if item.custom_id else None
            keep = click is None or click.action in actions
            layout._items.append(item if keep else item._replace(disabled=True))
        return layout

    def link(self, row: int, label: str, url: str) -> Layout:
        self._items.append(_Button(row, label, None, discord.ButtonStyle.link, url=url))
        return self

    def components(self) -> list[dict[str, Any]]:
        """The action rows as Discord's JSON, in row order (what ``view().to_components()`` gives)."""
        rows: dict[int, list[dict[str, Any]]] = {}
        for item in sorted(self._items, key=lambda item: item.row):
            rows.setdefault(item.row, []).append(item.payload())
        return [{"type": 1, "components": components} for components in rows.values()]

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for item in self._items:
            view.add_item(item.item())
        view.stop()
        return view

    def __bool__(self) -> bool:
        return bool(self._items)


#: The slots of an embed that ``Embed.to_dict`` copies as they are, in its order, with their keys in the JSON (it
#: converts the colour and the date, and writes them after these).
_EMBED_RAW = tuple(
    (slot, slot[1:]) for slot in discord.Embed.__slots__ if slot[0] == "_" and slot not in ("_colour", "_timestamp")
)
_UNSET = object()


def embed_payload(embed: discord.Embed) -> dict[str, Any]:
    """Discord's JSON for an embed, key for key as ``Embed.to_dict`` writes it, for a click's answer: that probes
    all fourteen slots through a comprehension and pops a date no board has through a ``KeyError``; this reads the
    eight raw ones and the four plain attributes directly, in half the time. An embed with a date (none of the
    renderers' has one) is left to discord.py."""
    if getattr(embed, "_timestamp", None) is not None:
        return dict(embed.to_dict())
    payload: dict[str, Any] = {}
    for slot, key in _EMBED_RAW:
        value = getattr(embed, slot, _UNSET)
        if value is not _UNSET:
            payload[key] = value
    colour = getattr(embed, "_colour", None)
    if colour:
        payload["color"] = colour.value
    if embed.type:
        payload["type"] = embed.type
    if embed.description:
        payload["description"] = embed.description
    if embed.url:
        payload["url"] = embed.url
    if embed.title:
        payload["title"] = embed.title
    return payload


@dataclass
class Rendered:
    """A message payload: text, embeds and components."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    layout: Layout = field(default_factory=Layout)

    def kwargs(self) -> dict[str, Any]:
        """Arguments for send/edit calls; an empty layout clears the components."""
        return {"content": self.content, "embeds": self.embeds, "view": self.layout.view()}


@dataclass(frozen=True)
class SeatView:
    """A player as a renderer sees one: the engine's player id, a name, and whether a person sits there."""

    player: str
    name: str
    kind: SeatKind = "user"
    status: str = "active"
    #: The player pressed the Hint button in this game: the final board marks them (``standings.marked_name``).
    hinted: bool = False

    @property
    def mention(self) -> str:
        """A ping for a person; a computer player is never mentioned, only named."""
        return f"<@{self.player}>" if self.kind == "user" else f"**{in_markdown(self.name)}**"


@lru_cache(maxsize=4096)
def in_markdown(text: str) -> str:
    """``text`` (a display name) shown as typed where Discord reads markdown: content, embed titles, descriptions,
    field names and values. A name like ``**Bob**``, ``_x_`` or ``~~Al~~`` would otherwise bold, slant or strike
    the board's text after it, and a stray ``*`` pair up with the board's own bold; one like ``<@id>`` would be
    drawn as that person's mention and ping them when the board is posted (:func:`undrawn`), and one with a
    direction control turn the rest of the line around (:func:`~bot.ui.common.isolated`).

    Not for code blocks (which show a backslash as one; ``tables.name_cells`` isolates their names) nor labels (which
    read no markdown): those take the name as typed. Remembered, as a board names the same players click after click.
    """
    return isolated(undrawn(discord.utils.escape_markdown(text)))


#: Where Discord draws something else than the text: ``<@id>``, ``<@!id>``, ``<@&id>`` (a person's or a role's
#: mention), ``<#id>`` (a channel), ``</name:id>`` (a command), ``<:name:id>`` and ``<a:name:id>`` (a custom
#: emoji), ``<t:seconds>`` (a date), ``<id:home>`` (a server page), ``@everyone`` and ``@here``.
_DRAWN = re.compile(r"<(?=[@#/:]|[at]:|id:)|@(?=everyone|here)")
#: Invisible, and splits what Discord would otherwise read as one of the above (as ``escape_mentions`` does).
ZERO_WIDTH_SPACE = "\u200b"


def undrawn(text: str) -> str:
    """``text`` with a zero-width space after each ``<`` or ``@`` that starts something Discord draws (:data:`_DRAWN`):
    it reads as typed and never pings. ``discord.utils.escape_mentions`` leaves ``<@id>`` alone (it needs the
    17 to 20 digits right after the ``@``) as well as channels, commands, emoji and dates."""
    return _DRAWN.sub(lambda match: match.group() + ZERO_WIDTH_SPACE, text)


def name_in_markdown(params: Mapping[str, Any]) -> dict[str, Any]:
    """A message's parameters with its ``{name}`` escaped (:func:`in_markdown`): the plumbing's notices and
    refusals name a player (or an option) by ``name``, as typed, and their text is read as markdown."""
    if "name" not in params:
        return dict(params)
    return {**params, "name": in_markdown(str(params["name"]))}


def _by_player(seats: Iterable[SeatView]) -> dict[str, SeatView]:
    """The seats by player id; the first seat of a player wins, as a search through them had it."""
    by_player: dict[str, SeatView] = {}
    for seat in seats:
        by_player.setdefault(seat.player, seat)
    return by_player


_BY_PLAYER = "_by_player"


@dataclass(frozen=True)
class Seating:
    """Names and mentions of the seated players, shared by the lobby and the running game."""

    seats: tuple[SeatView, ...]

    def seat(self, player: str) -> SeatView | None:
        """The player's seat, looked up in the seats by player id, built on the first name or mention asked for: a
        ten-player Tutto board asks for a dozen, and a search through the seats for each was a tenth of rendering
        it. Kept in the instance's dict as ``functools.cached_property`` keeps it, without the lock that costs
        Python 3.11 more than building the dict for a table of two (docs/benchmarks.md)."""
        by_player: dict[str, SeatView] | None = self.__dict__.get(_BY_PLAYER)
        if by_player is None:
            by_player = self.__dict__[_BY_PLAYER] = _by_player(self.seats)
        return by_player.get(player)

    def name(self, player: str, limit: int | None = None) -> str:
        """The player's name for text Discord reads as markdown (escaped, see :func:`in_markdown`), cut to
        ``limit`` characters of the name as typed first, so the cut never splits an escape."""
        name = self.plain_name(player)
        return in_markdown(name if limit is None else shorten(name, limit))

    def plain_name(self, player: str) -> str:
        """The player's name as typed: for code blocks and labels, which read no markdown."""
        seat = self.seat(player)
        return seat.name if seat else player

    def mention(self, player: str) -> str:
        seat = self.seat(player)
        return seat.mention if seat else f"<@{player}>"

    def is_computer(self, player: str) -> bool:
        """Whether a computer sits there: a board neither tells it "your turn" nor what to press."""
        seat = self.seat(player)
        return seat is not None and seat.kind == "computer"


@dataclass(frozen=True)
class Table(Seating, Generic[StateT]):
    """What a game renderer sees: the game's id and stamp, its engine state, the seats and the language."""

    game_id: int
    stamp: int
    locale: str
    state: StateT
    #: The game ended early (abandoned: ``/<game> end``, everybody gone, its channel gone) and counts for nothing.
    #: Its state is left where play stopped, so only this tells the renderer to show it as over rather than as a
    #: turn in progress (or, everybody gone, as final standings with winners).
    ended: bool = False
    #: The language of the game's public board when ``locale`` is a reader's own (a private view): a private text
    #: that names one of the board's controls must name it as the board reads. None: the board reads ``locale``.
    board_locale: str | None = None

    @property
    def board_language(self) -> str:
        """The language the public board's controls read, for private text that tells which one to press."""
        return self.board_locale or self.locale

    @property
    def events(self) -> list[Event]:
        """The engine's events to announce: a game that ended early names no winner, even when the engine ended it
        because everybody left."""
        return [event for event in self.state.events if not (self.ended and event.key == "game.over")]

    def in_locale(self, locale: str) -> Table[StateT]:
        """The same table for someone else's language (private views answer in the clicker's locale); the board's
        controls keep the board's language."""
        return replace(self, locale=locale, board_locale=self.board_language)


@dataclass(frozen=True)
class Lobby(Seating):
    """What the lobby renderer sees: who hosts and joined, the rules and options, and the game's limits."""

    game_id: int
    stamp: int
    locale: str
    kind: str
    variant: str
    host: str
    open: bool
    options: Mapping[str, Any]
    min_players: int
    max_players: int
    show_variant: bool
    #: The levels of computer player the host may add (none: no computer controls).
    computer_levels: tuple[str, ...] = ()
    #: Whether the game will offer the Hint button (the host switches it in the lobby).
    hints: bool = False
    #: Whether the host chose ``hints``; otherwise they follow the people seated, and going off needs a word why.
    hints_chosen: bool = False
    #: People a rematch invited who have not joined yet (the lobby's content pings them once, when posted).
    invited: tuple[str, ...] = ()


class GameUI(Protocol[StateT]):
    """Pure rendering of one game (``bot/ui/<game>.py``)."""

    def render(self, table: Table[StateT]) -> Rendered:
        """The game message for the current state, including the final standings once it is over."""

    def announce(self, table: Table[StateT]) -> list[str]:
        """Lines to post in the channel for the engine's latest events (may be empty)."""


#: A private (ephemeral) view: the table in the viewer's language and whose view it is (a player id).
PrivateRenderer = Callable[[Table[Any], str], Rendered]
