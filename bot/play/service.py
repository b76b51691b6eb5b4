"""The one place that changes games: lock → load → decide → save → respond.

Every command, click and deadline goes through :class:`GameService`. The decisions themselves are pure functions
in ``bot/play/transitions.py``; answering and writing to channels goes through the ports of
``bot/play/ports.py``; the boards' messages (edited, moved down the channel, stripped) are handled by
``bot/play/live_board.py``, which the service inherits. What is left here is the order of things: one action at
a time per game, one load per request, the engine state parsed once, the change saved before anyone is told
about it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec, TypeVar

from bot.engine.core import GameError, NotYourTurn, secure_rng
from bot.i18n import alternatives, catalogue, game_locale, has, language_of, number, t
from bot.play import board, computer, transitions
from bot.play.cache import GameCache
from bot.play.following import Followers
from bot.play.inflight import InFlight
from bot.play.live_board import CheckedBoards, LiveBoards, RepostBudget
from bot.play.locks import GameLocks
from bot.play.notes import PrivateNotes
from bot.play.ports import Channels, PrivateMessage, Request, ResponseFailed, origin
from bot.play.reviewing import REVIEW, Reviews
from bot.play.shown import ShownVersions
from bot.play.spec import AnySpec
from bot.play.tail import ChannelTail
from bot.play.transitions import Actor, Game, Notice, Outcome, Refusal
from bot.sharding import shard_of
from bot.storage import (
    ChannelBusy,
    GameRecord,
    GamesRepository,
    HistoryRepository,
    Seat,
    StaleVersion,
    StorageUnavailable,
)
from bot.ui import board as board_ui
from bot.ui import hint as hint_ui
from bot.ui import lobby as lobby_ui
from bot.ui.render import Click, Lobby, Rendered, SeatView, Table, custom_id, name_in_markdown

log = logging.getLogger(__name__)

#: The Hint button's action, and its row on every game message (the games' own controls use the rows above).
HINT = "hint"
HINT_ROW = 4
#: The Rematch button's action, on a finished game's board (whose own render has no controls).
REMATCH = "rematch"
#: The option noting the game opened after a finished one in its channel: its board offers no Rematch any more.


class CrossedPress(Refusal):
    """A press on the live board (or the private view kept current for its player) that the game moved past while
    it travelled: refused as ``play.board_changed``, unless the change was the player's own previous press."""

    def __init__(self, click: Click) -> None:
        super().__init__("play.board_changed")
        self.click = click


P = ParamSpec("P")
R = TypeVar("R")


def tracked(
    method: Callable[Concatenate[GameService, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[GameService, P], Coroutine[Any, Any, R | None]]:
    """Mark an entry point whose work a shutdown waits for (see :meth:`GameService.drain`).

    An answer Discord would not take ends the request with one log line: what was saved stays saved. A read the
    database could not answer (a PostgreSQL server restarting) is answered "try again" like a refused write: it
    happened before anything was decided, so nothing changed.
    """

    async def run(service: GameService, /, *args: P.args, **kwargs: P.kwargs) -> R | None:
        with service.in_flight.track():
            try:
                return await method(service, *args, **kwargs)
            except ResponseFailed as failed:
                log.warning("%s: could not answer (%s)", method.__name__, failed)
                return None
            except StorageUnavailable as error:
                request = args[0] if args and hasattr(args[0], "refuse") else None
                if request is None:
                    raise
                log.warning("%s: the database did not answer (%s); nothing changed", method.__name__, error)
                await request.refuse("play.storage_unavailable")
                return None
            finally:
                service.followers.flush()  # after the answer: private views follow in the background

    functools.update_wrapper(run, method)
    return run


def error_key(spec: AnySpec, error: GameError) -> str:
    """The message for a refused action: the game's text for the error's reason when it has one."""
    reason = error.params.get("reason")
    if reason is not None and has(f"{spec.kind}.reason.{reason}"):
        return f"{spec.kind}.reason.{reason}"
    return f"error.{error.key}"


def refused(spec: AnySpec, record: GameRecord, error: GameError) -> tuple[str, dict[str, Any]]:
    """A refused action's text key and parameters, with the ``name`` of the seat its ``player`` names, so the text
    can say whose move it is ("Not your turn: Alice is playing.", "Dave rolls this round.") instead of only that
    it is not the presser's."""
    key, params = error_key(spec, error), dict(error.params)
    player = params.get("player")
    seat = record.seat(player) if isinstance(player, str) else None
    if seat is not None:
        params["name"] = seat.display_name
        key = "error.turn_of" if key == "error.not_your_turn" else key
    return key, params


def labelled(record: GameRecord, params: Mapping[str, Any]) -> dict[str, Any]:
    """A refusal's parameters with its ``button`` (a catalogue key) written as the button reads on the game's
    message, in the game's language, which may not be the presser's: the text tells which button to press."""
    shown = dict(params)
    if "button" in shown:
        shown["button"] = t(shown["button"], record.locale)
    return shown


jump_url = board.jump_url


def option_named(spec: AnySpec, params: Mapping[str, Any], locale: str) -> dict[str, Any]:
    """A refused option's ``params`` as the user's client shows the field of ``/<game> start``: its ``name``
    (German "gegner" for ``opponents``, "rundenzeit" for Knister's ``timeout``; a name no field has, a forged
    option, stays as sent) and what it may be (``allowed``): the choices' names ("Leicht / Normal / Perfekt") or
    the range in the language's numbers ("1.000–20.000"), not the internal ids and bare digits."""
    shown = dict(params)
    choices, shown_as = shown.pop("choices", None), shown.pop("shown_as", None)
    low, high = shown.pop("low", None), shown.pop("high", None)
    if choices is not None:
        shown["allowed"] = alternatives(shown_as, choices, locale)
    elif low is not None and high is not None:
        shown["allowed"] = f"{number(low, locale)}–{number(high, locale)}"
    name = shown.get("name")
    if name is not None:
        field = catalogue(language_of(locale)).get(f"cmd.option.{spec.option_fields.get(name, name)}")
        shown["name"] = field if isinstance(field, str) else name
    return shown


def seat_views(record: GameRecord) -> tuple[SeatView, ...]:
    """The seats as a renderer sees them, each marked when its player used a hint (``transitions.mark_hinted``).

    Remembered per game while its seats are the same tuple and the same players are marked: a click draws the
    board and its news from one record, and the next click's record carries the same seats (copies of a record
    share them; the tuple and each ``Seat`` are immutable), so a frozen ``SeatView`` per seat was built again for
    nothing up to twice a click, about 26,000 instructions each time for two seats (docs/benchmarks.md).
    """
    hinted = tuple(record.options.get(transitions.HINTED, ()))
    kept = _SEAT_VIEWS.get(record.id)
    if kept is not None and kept[0] is record.seats and kept[1] == hinted:
        return kept[2]
    marked = frozenset(hinted)
    views = tuple(
        SeatView(seat.player, seat.display_name, seat.kind, seat.status, seat.player in marked) for seat in record.seats
    )
    if len(_SEAT_VIEWS) >= SEAT_VIEWS_KEPT:
        _SEAT_VIEWS.clear()
    _SEAT_VIEWS[record.id] = (record.seats, hinted, views)
    return views


#: Games whose seat views are remembered at most (all of them are forgotten when more come).
SEAT_VIEWS_KEPT = 4096
#: Per game: the seats and marked players the views were built from (the seats held, so their id is not reused).
_SEAT_VIEWS: dict[int, tuple[tuple[Seat, ...], tuple[str, ...], tuple[SeatView, ...]]] = {}


def table(game: Game, locale: str | None = None) -> Table[Any]:
    """What a game renderer sees of a running or finished game: in the game's language, or in a reader's own
    (``locale``, a private view) with the board's language kept for the controls that view names."""
    record = game.record
    return Table(
        seat_views(record),
        record.id,
        transitions.stamp(record),
        locale or record.locale,
        game.state,
        ended=record.status == "abandoned",
        board_locale=record.locale,
    )


def notice_line(notice: Notice, locale: str, game: str) -> str:
    """A notice in the game's language, the player it names escaped for the board's markdown."""
    return t(notice.key, locale, game=game, **name_in_markdown(notice.params))


def computers_to_act(spec: AnySpec, game: Game) -> bool:
    """Whether only computers have something to do in the running ``game`` (its board then offers nobody a move)."""
    players = spec.engine.to_act(game.state)
    seats = [game.record.seat(player) for player in players]
    return bool(seats) and all(seat is not None and seat.kind == "computer" for seat in seats)


def lobby(spec: AnySpec, record: GameRecord) -> Lobby:
    """What the lobby renderer sees."""
    return Lobby(
        seats=seat_views(record),
        game_id=record.id,
        stamp=transitions.stamp(record),
        locale=record.locale,
        kind=spec.kind,
        variant=record.variant,
        host=record.host,
        open=record.status == "lobby",
        options=record.options,
        min_players=spec.min_players,
        max_players=spec.max_players,
        show_variant=len(spec.variants) > 1,
        computer_levels=computer.LEVELS,
        hints=transitions.hints_on(record),
        hints_chosen=transitions.hints_chosen(record),
        invited=tuple(player for player in record.options.get(board.INVITED, ()) if record.seat(player) is None),
    )


def computer_name(player: str, locale: str) -> str:
    """A computer player's name in a language: "🤖 Normal", and a number from the second of a level on."""
    name = t("computer.name", locale, level=t(f"computer.level.{computer.level_of(player)}", locale))
    number = computer.number_of(player)
    return name if number == 1 else f"{name} {number}"


async def no_guild_language(guild_id: int) -> str | None:
    return None


class GameService(LiveBoards):
    """Runs every game of every kind; one instance per bot."""

    def __init__(
        self,
        games: GamesRepository,
        specs: Mapping[str, AnySpec],
        channels: Channels,
        rng: Callable[[], random.Random] = secure_rng,
        clock: Callable[[], float] = time.time,
        brain: computer.Brain | None = None,
        computer_delay: float = 1.2,
        history: HistoryRepository | None = None,
    ) -> None:
        self._games = games
        self.brain = brain
        #: Seconds between a computer player's steps (a stored deadline each).
        self.computer_delay = computer_delay
        self.specs = dict(specs)
        self._channels = channels
        self._rng = rng
        self._clock = clock
        self._locks = GameLocks()
        #: Games in progress as last loaded or saved (clicks and deadlines read no row when the game is here).
        self.cache = GameCache()
        self.on_saved: Callable[[GameRecord], None] = lambda record: None
        self.in_flight = InFlight()
        self.shown = ShownVersions(games, self.show_again)
        #: The latest message ids per channel, fed by the gateway (``DiceBot.on_message``).
        self.tail = ChannelTail()
        #: How often a deleted board is posted anew (and the player pinged) per version of its game.
        self.reposts = RepostBudget()
        self.checked_boards = CheckedBoards()
        #: The stored move history: reviews read it, and a press that arrives too late asks who moved last.
        self._history = history
        #: Post-game reviews (the Review button and ``/<game> review``).
        self.reviews = Reviews(games, history, self.specs, brain)
        #: Each player's latest following private view (a Knister grid), edited when its game changes.
        self.followers = Followers(self._render_private, clock)
        #: Each player's latest hint message in a channel, deleted when their next hint is shown.
        self.hints = PrivateNotes("hint", clock)
        #: Each player's latest refusal of a press on a game's message (its board, their grid) in a channel,
        #: deleted when the next one is shown or a press of theirs is accepted.
        self.refusals = PrivateNotes("refusal", clock)
        #: Each player's latest scorecard (a view that does not follow the game) in a channel, deleted when they
        #: open another, once they wrote something on their card and when the game ends: on a phone a tall card
        #: left under the board pushed the dice off screen, and showed boxes as open they had scored since (QA).
        self.cards = PrivateNotes("card", clock)
        #: The language a server chose with ``/settings language`` (None: its preferred locale).
        self.guild_language: Callable[[int], Awaitable[str | None]] = no_guild_language

    async def drain(self, timeout: float) -> None:
        """Wait until no click, command or deadline is being handled (or ``timeout`` passes)."""
        await self.in_flight.drain(timeout)

    # ---------------------------------------------------------------- commands

    @tracked
    async def open_lobby(
        self,
        request: Request,
        spec: AnySpec,
        variant: str,
        options: dict[str, Any],
        opponents: int = 0,
        level: str = "normal",
    ) -> None:
        """``/<game> start``: create the game with the host (and ``opponents`` computers) seated; post the lobby."""
        if request.channel_id is None:
            await request.refuse("play.no_channel")
            return
        locale = await self._language(request)
        try:
            options = transitions.check_options(spec, variant, options)
            computers = transitions.computer_seats(spec, opponents, level, locale, computer_name)
        except Refusal as refusal:
            await request.refuse(refusal.key, **option_named(spec, refusal.params, request.locale))
            return
        record = await self._open_lobby(
            request, spec, variant, request.guild_id, request.channel_id, locale, options, computers
        )
        if record is not None and await self._post_lobby(request, spec, record):
            await self._close_previous(record)

    async def _language(self, request: Request) -> str:
        """The language of a game opened now: the server's ``/settings language`` choice, else its own locale.

        Asked at every opening, a rematch's too: a server that changed its setting since the last game reads the
        new language from the next lobby on.
        """
        chosen = await self.guild_language(request.guild_id) if request.guild_id is not None else None
        return game_locale(chosen, request.guild_locale, request.locale)

    async def _open_lobby(
        self,
        request: Request,
        spec: AnySpec,
        variant: str,
        guild_id: int | None,
        channel_id: int,
        locale: str,
        options: dict[str, Any],
        computers: tuple[Seat, ...],
    ) -> GameRecord | None:
        """Store a new lobby with the requester as host, or refuse the request (a game is already active in the
        channel: a link to it; the database refused: "try again"); the new game, else None."""
        try:
            return await self._games.create(
                kind=spec.kind,
                variant=variant,
                guild_id=guild_id,
                channel_id=channel_id,
                host=request.actor.seat(),
                locale=locale,
                options=options,
                deadline_at=transitions.open_deadline(self._clock()),
                others=computers,
            )
        except ChannelBusy as busy:
            async with self._locks.hold(busy.game.id):
                existing = await self._checked_board(await self._games.get(busy.game.id) or busy.game)
            game = t(f"game.{existing.kind}", request.locale)
            # A lobby waiting for players is not a game running: the refusal says which one holds the channel.
            key = "play.channel_busy_lobby" if existing.status == "lobby" else "play.channel_busy"
            await request.refuse(key, game=game, link=jump_url(existing))
        except StorageUnavailable as error:
            log.warning("could not open a %s lobby in channel %s: %s", spec.kind, channel_id, error)
            await request.refuse("play.storage_unavailable")
        return None

    async def _post_lobby(self, request: Request, spec: AnySpec, record: GameRecord) -> bool:
        """Post a new game's lobby as the answer to ``request`` and store its message; False if it never showed."""
        async with self._locks.hold(record.id):
            # Held until the message id is stored, so a fast first click finds the game message.
            self.on_saved(record)
            return await self._post_first(request, record, lobby_ui.render(lobby(spec, record)), "lobby") is not None

    async def _post_first(self, request: Request, record: GameRecord, rendered: Rendered, what: str) -> int | None:
        """Post a new game's first message (its lobby, or its board when a rematch started it at once) as the answer
        to ``request`` and store its id; None if it never showed, and then the game is deleted.

        A store the database refuses leaves the message posted: the host's first click on it links it
        (``transitions.check_origin``).
        """
        try:
            message_id = await request.send(rendered)
        except ResponseFailed as failed:
            log.warning("%s of game %s could not be posted (%s); removing the game", what, record.id, failed)
            self.cache.drop(record.id)
            await self._games.delete(record.id)
            return None
        except Exception:
            self.cache.drop(record.id)
            await self._games.delete(record.id)
            raise
        try:
            await self._games.attach_message(record.id, message_id, shown_version=record.version)
        except StorageUnavailable as error:
            log.warning("could not store the %s message of game %s: %s", what, record.id, error)
        return message_id

    async def leave(self, request: Request, spec: AnySpec) -> None:
        """``/<game> leave``: leave the lobby, or the running game (the card stays, the turn is skipped)."""
        await self._command(request, spec, lambda game: transitions.leave(spec, game, request.actor, self._clock()))

    async def end(self, request: Request, spec: AnySpec) -> None:
        """``/<game> end``: the host or a moderator stops the game; it is not counted anywhere."""
        await self._command(request, spec, lambda game: transitions.end(game, request.actor, self._clock()))

    @tracked
    async def private(self, request: Request, spec: AnySpec, view: str, target: Actor | None = None) -> None:
        """A read-only ephemeral view of the channel's game (``/kniffel scorecard``, ``/knister grid``): the asker's
        own, ``target``'s, or for someone not seated the one the view shows watchers (``PrivateView.whose``).

        Read again under the game's lock: a move saved between the channel's lookup and the answer has already
        refreshed the views that follow the game, so a view read before it would stay a step behind. Tracked like
        every other entry point: a database that does not answer is told as "try again in a moment", not as an
        error of ours.
        """
        found = await self._games.active_in_channel(request.channel_id or 0)
        if found is None or found.kind != spec.kind:
            await request.refuse("play.no_game", game=t(f"game.{spec.kind}", request.locale))
            return
        private = spec.private_views[view]
        async with self._locks.hold(found.id):
            record = await self._games.get(found.id)
            try:
                if record is None or not record.active:
                    raise Refusal("play.no_game", game=t(f"game.{spec.kind}", request.locale))
                if record.status != "running":
                    raise Refusal("play.not_started")
                if target is not None and record.seat(target.player) is None:
                    raise Refusal("play.not_seated_other", name=target.name)
                game = Game.load(spec, record)
                viewer = request.actor.player
                to_act = spec.engine.to_act(game.state)
                whose = target.player if target else private.whose(viewer, record.seat(viewer) is not None, to_act)
                if whose is None:
                    raise Refusal("play.not_seated")
            except Refusal as refusal:
                await request.refuse(refusal.key, **refusal.params)
                return
            # A card asked for by name is the one asked for: only a watcher's default says whose it is.
            shown = table(game, request.locale)
            rendered = private.render(shown, whose) if target else private.shown(shown, spec.kind, viewer, whose)
            await request.show_private(rendered)
            self._keep_private(request, spec, game, view, rendered, whose == viewer)

    @tracked
    async def _command(self, request: Request, spec: AnySpec, decide: Callable[[Game], Outcome]) -> None:
        found = await self._games.active_in_channel(request.channel_id or 0)
        if found is None or found.kind != spec.kind:
            await request.refuse("play.no_game", game=t(f"game.{spec.kind}", request.locale))
            return
        async with self._locks.hold(found.id):
            record = await self._games.get(found.id)
            if record is None or not record.active:
                await request.refuse("play.no_game", game=t(f"game.{spec.kind}", request.locale))
                return
            game = Game.load(spec, record)
            outcome = await self._decide_and_save(request, spec, game, lambda: decide(game))
            if outcome is None:
                return
            saved = outcome.after
            try:
                await request.confirm(outcome.reply_key)
            except ResponseFailed as failed:
                log.warning("game %s: %s was saved but not confirmed (%s)", saved.record.id, outcome.reply_key, failed)
            await self._keep_at_bottom(spec, outcome.before, await self.show(spec, saved) or saved)

    # ---------------------------------------------------------------- clicks

    @tracked
    async def on_click(self, request: Request, click: Click) -> None:
        """Entry point of every game button and select."""
        if click.action == REVIEW:
            await self.reviews.click(request, click)
            return
        async with self._locks.hold(click.game_id), self.cache.dropped_on_failure(click.game_id):
            if request.expired():
                # Queued past Discord's deadline: its user already saw it fail, so nothing is done (or saved).
                log.info("game %s: dropped a %s click that waited too long to be answered", click.game_id, click.action)
                return
            game = await self._load(click.game_id, stale=lambda kept: self._behind(kept, request, click))
            if game is None:
                self._locks.forget(click.game_id)
                await self._point(request, None)
                return
            record = game.record
            spec = self.specs[record.kind]
            if click.action == REMATCH and record.status == "finished" and not request.message_is_private:
                await self._rematch(request, spec, record)
                return
            where = origin(request)
            if not record.active or board.from_old_board(record, where):
                await self._point(request, record, click.action)
                return
            try:
                adopt = transitions.check_origin(record, request.actor, where, click.action in spec.private_refresh)
                if adopt and request.message_id is not None:
                    record = await self._adopt_message(record, request.message_id)
                    game = Game(record, game.state)
                    self.cache.put(game)
            except Refusal as refusal:
                await self._refuse(request, refusal.key, **refusal.params)
                return
            except StorageUnavailable as error:
                log.warning("could not link game %s to its message: %s", record.id, error)
                await self._refuse(request, "play.storage_unavailable")
                return
            if click.action in spec.private_views:
                await self._open_private(request, spec, game, click)
                return
            if click.action == HINT:
                await self._hint(request, spec, game)
                return
            if self._in_effect(spec, game, click):
                await request.update(self.render(spec, game))
                return
            outcome = await self._decide_and_save(
                request, spec, game, lambda: self._decide_click(spec, game, request, click)
            )
            if outcome is None:
                return
            shown = await self._answer_click(request, spec, outcome.after, click)
            await self._keep_at_bottom(spec, outcome.before, shown)

    async def _answer_click(self, request: Request, spec: AnySpec, saved: Game, click: Click) -> Game:
        """Answer a saved click by editing the clicked message; when that fails, edit the game message directly.

        The move is saved whatever happens here, so the channel must come to show it: an interaction that
        expired or a callback Discord refused is logged in one line and the game message is edited through the
        channel instead. The game as its board now stands (posted anew if the edit found it deleted).
        """
        rendered = self.render(spec, saved)
        on_public = not request.message_is_private and request.message_id == saved.record.message_id
        try:
            if on_public:
                await request.update(rendered)
                self.shown.note(saved.record)
                return saved
            view = spec.private_refresh.get(click.action, "")
            private = spec.private_views.get(view)
            if private is not None:
                rendered = private.render(table(saved, request.locale), request.actor.player)
                await request.update(rendered)
                self._keep_private(request, spec, saved, view, rendered, True)
            else:
                await request.acknowledge()
        except ResponseFailed as failed:
            log.warning("game %s: click %s saved but not answered (%s)", saved.record.id, click.action, failed)
        return await self.show(spec, saved) or saved

    def _behind(self, game: Game, request: Request, click: Click) -> bool:
        """Whether a click may come from a newer game than this kept copy: it names a stamp the copy would not give,
        or was made in public on a message the copy does not know as the live board. Only another process saving
        the game (an overlapping restart) makes that true of a current click; an outdated one is read again for
        nothing, and still refused. Another process's quiet save (a hint's mark) leaves the stamp as it was: the
        kept copy's save then fails on the version, which refuses that one click and forgets the copy."""
        if not request.message_is_private and request.message_id != game.record.message_id:
            return True
        return click.stamp != self._stamp(self.specs[game.record.kind], game, click)

    @staticmethod
    def _stamp(spec: AnySpec, game: Game, click: Click) -> int:
        """The stamp a current click on ``game`` carries (:func:`transitions.stamp`, or the game's own freshness
        mark)."""
        if game.state is None:
            return transitions.stamp(game.record)
        return spec.stamp_of(click, transitions.stamp(game.record), game.state)

    @classmethod
    def _in_effect(cls, spec: AnySpec, game: Game, click: Click) -> bool:
        """A current click asking for what already is (the second of a double click): nothing to apply."""
        if game.state is None or not game.record.active:
            return False
        return click.stamp == cls._stamp(spec, game, click) and spec.in_effect(click, game.state)

    def _decide_click(self, spec: AnySpec, game: Game, request: Request, click: Click) -> Outcome:
        record = game.record
        if not record.active:
            self._locks.forget(record.id)
            raise Refusal("play.game_over")
        if transitions.lobby_closed(record, click.action):
            raise Refusal("lobby.already_started", link=jump_url(record))
        timeless = record.status == "lobby" and click.action in transitions.TIMELESS_LOBBY_ACTIONS
        if click.stamp != self._stamp(spec, game, click) and not timeless:
            stale = self._stale_press(record, request)
            if stale.key == "play.board_changed":
                raise CrossedPress(click)
            raise Refusal(stale.key, **stale.params)
        now = self._clock()
        if record.status == "lobby":
            return transitions.lobby_action(
                spec, game, request.actor, click.action, self._rng(), now, click.values, computer_name
            )
        return transitions.move(spec, game, request.actor, self._action(spec, click), self._rng(), now)

    async def _decide_and_save(
        self, request: Request, spec: AnySpec, game: Game, decide: Callable[[], Outcome]
    ) -> Outcome | None:
        """Decide and save, or refuse (privately) and change nothing; None when refused."""
        try:
            outcome = self._noted(spec, transitions.paced(spec, decide(), self._clock(), self.computer_delay))
            saved = await self._save(outcome)
        except GameError as error:
            key, params = refused(spec, game.record, error)
            await self._refuse(request, key, **params)
            return None
        except Refusal as refusal:
            key = refusal.key
            if isinstance(refusal, CrossedPress):
                if request.message_id == game.record.message_id:
                    # A stale click on the game message: show the current state there, in case an edit was missed.
                    await self.show(spec, game)
                if await self._made_by_own_press(spec, game, request.actor, refusal.click):
                    key = "play.already_done"
            await self._refuse(request, key, **labelled(game.record, refusal.params))
            return None
        except StaleVersion:
            stale = self._stale_press(game.record, request)
            await self._refuse(request, stale.key, **stale.params)
            return None
        except StorageUnavailable as error:
            log.warning("game %s not saved: %s", game.record.id, error)
            await self._refuse(request, "play.storage_unavailable")
            return None
        return replace(outcome, after=saved)

    async def _refuse(self, request: Request, key: str, **params: Any) -> None:
        """Tell the asker privately why nothing happened. A press on a game's message, the public board or a
        private one (a Knister grid), keeps one refusal of its player in the channel on screen: the older one goes
        (``notes.py``), so refused presses do not pile up under the board and push its controls away, and the
        player's next accepted press takes the last one away (``_retire_notes``). The refusal is the press's own
        reply (type 4, a new private message, also for a press on a private one), so the press's token deletes it,
        never the message pressed."""
        await request.refuse(key, **params)
        if request.message_id is not None and request.channel_id is not None:
            self.refusals.shown(request.channel_id, request.actor.player, request.private_message())

    def _stale_press(self, record: GameRecord, request: Request) -> board.Pointer:
        """What a press the game moved past is told (:func:`board.stale_press`): on the live board or on the
        private view the bot keeps current for its player, that it crossed a change; elsewhere, that it is old."""
        follower = self.followers.following(record.id, request.actor.player)
        kept = follower.message.id if follower is not None else None
        return board.stale_press(record, origin(request), kept is not None and kept == request.message_id)

    async def _made_by_own_press(self, spec: AnySpec, game: Game, actor: Actor, click: Click) -> bool:
        """Whether the change a press crossed was the same press of the same player: the game's latest save is a
        move of theirs, the action this press asks for, made on the very position this press was made on (its
        stamp). That is the second of a double click, whose first went through: "nothing was done" read as the
        move failing (QA). A press crossing anyone else's move, a computer's or a timeout's, the player's own other
        move (a score picked on the board their reroll replaced), or a later save without a move (a seat leaving,
        a hint's mark), which the history cannot place, is not."""
        if self._history is None or game.state is None:
            return False
        move = await self._history.latest_save(game.record.id)
        if move is None or move.version != game.record.version:
            return False
        if move.source != "player" or move.player != actor.player or move.action != self._engine_action(spec, click):
            return False
        before = spec.load(move.state)
        return before is not None and click.stamp == spec.stamp_of(click, transitions.stamp(game.record) - 1, before)

    @classmethod
    def _engine_action(cls, spec: AnySpec, click: Click) -> str | None:
        """The engine action of a click as the history stores it (JSON); None for a lobby's or a malformed one."""
        try:
            return str(cls._action(spec, click).model_dump_json())
        except Refusal:
            return None

    @staticmethod
    def _action(spec: AnySpec, click: Click) -> Any:
        """The engine action of a click; a forged or malformed component is refused like an illegal move."""
        try:
            return spec.to_action(click)
        except (KeyError, ValueError, IndexError) as error:
            log.warning("malformed click %s: %s", click, error)
            raise Refusal("error.illegal_action") from error

    async def _adopt_message(self, record: GameRecord, message_id: int) -> GameRecord:
        """Link a game to its public message if posting it was interrupted before the id was stored."""
        await self._games.attach_message(record.id, message_id)
        return record.changed(message_id=message_id)

    async def _hint(self, request: Request, spec: AnySpec, game: Game, preparing: PrivateMessage | None = None) -> None:
        """The Hint button: the best actions of the player to act, privately; never a change to the game.

        The values are computed only from tables already in memory (milliseconds). While they load in a worker
        thread the press is answered "preparing", and that message becomes the hint once they are in memory
        (``preparing``: this call is then the second part of the press, made for the game as it is by now, unless
        the player pressed again or moved on meanwhile); hints are unavailable once the load failed (it is not
        tried again before a restart).
        """
        record = game.record
        if preparing is not None and not self.hints.shows(record.channel_id, request.actor.player, preparing):
            return

        async def answer(key: str, **params: Any) -> None:
            if preparing is None:
                await self._refuse(request, key, **params)
            else:
                await preparing.edit(Rendered(content=t(key, request.locale, **name_in_markdown(params))))

        try:
            if record.status != "running" or game.state is None:
                raise Refusal("play.game_over" if record.state is not None else "play.not_started")
            transitions.require_seated(game, request.actor)
            if not transitions.hints_on(record):
                raise Refusal("hint.not_allowed")
            acting = spec.engine.to_act(game.state)
            if request.actor.player not in acting:
                # Worded as a move out of turn is (``refused``): the one player to act named.
                only = {"player": next(iter(acting))} if len(acting) == 1 else {}
                key, params = refused(spec, record, NotYourTurn(**only))
                raise Refusal(key, **params)
        except Refusal as refusal:
            await answer(refusal.key, **refusal.params)
            return
        if self.brain is None or self.brain.failed(game.state):
            await answer("hint.unavailable")
            return
        if not self.brain.is_ready(game.state):
            if preparing is not None:  # waited and still not in memory: "preparing" must not stay for good
                await answer("hint.unavailable")
                return
            loading = self.brain.prepare(game.state, request.actor.player)
            assert loading is not None  # None only once the tables are in memory
            await request.refuse("hint.preparing")
            shown = request.private_message()
            # The next press deletes this message as it shows its hint: one, not two.
            self.hints.shown(record.channel_id, request.actor.player, shown)
            self.hints.waiting(
                asyncio.create_task(
                    self._hint_once_ready(loading, request, spec, game, shown), name=f"dicebot-hint-{record.id}"
                )
            )
            return
        values, current = computer.hint_values(game.state, request.actor.player, self.brain.directory)
        rendered = Rendered(
            content=hint_ui.render(
                spec.kind, game.state, values, current, request.locale, player=request.actor.player, board=record.locale
            )
        )
        if preparing is None:
            await self._show_hint(request, record, rendered)
        else:
            await preparing.edit(rendered)
        marked = transitions.mark_hinted(game, request.actor)
        if marked is not None:
            try:
                await self.show(spec, await self._save(marked))
            except (StaleVersion, StorageUnavailable) as error:
                log.warning("game %s: could not mark that %s used a hint: %s", record.id, request.actor.player, error)

    async def _hint_once_ready(
        self, loading: asyncio.Future[Any], request: Request, spec: AnySpec, game: Game, preparing: PrivateMessage
    ) -> None:
        """Wait for the tables outside the game's lock (seconds, while clicks go on), then answer the press.

        ``loading`` may be the start-up warm-up, which can fail or end without this game's tables in memory: a
        failure is the brain's to log and remember (the answer then says hints are unavailable), and this game's
        own load follows the warm-up when it is still needed.
        """
        await asyncio.wait([loading])
        assert self.brain is not None
        assert game.state is not None
        if not self.brain.failed(game.state):
            again = self.brain.prepare(game.state, request.actor.player)
            if again is not None:
                await asyncio.wait([again])
        await self._hint_prepared(request, spec, game.record.id, preparing)

    @tracked
    async def _hint_prepared(self, request: Request, spec: AnySpec, game_id: int, preparing: PrivateMessage) -> None:
        """The second part of a press answered "preparing": the hint of the game as it is now, in that message."""
        async with self._locks.hold(game_id), self.cache.dropped_on_failure(game_id):
            game = await self._load(game_id)
            if game is not None:  # a game that is gone took its hints with it
                await self._hint(request, spec, game, preparing)

    async def _show_hint(self, request: Request, record: GameRecord, rendered: Rendered) -> None:
        """Show a hint as a new private message, right under the board; the player's older one goes (``notes.py``)."""
        await request.show_private(rendered)
        self.hints.shown(record.channel_id, request.actor.player, request.private_message())

    async def _open_private(self, request: Request, spec: AnySpec, game: Game, click: Click) -> None:
        view, record = spec.private_views[click.action], game.record
        if record.state is None:
            await self._refuse(request, "play.not_started")
            return
        viewer = request.actor.player
        whose = view.whose(viewer, record.seat(viewer) is not None, spec.engine.to_act(game.state))
        if whose is None:
            await self._refuse(request, "play.not_seated")
            return
        rendered = view.shown(table(game, request.locale), spec.kind, viewer, whose)
        await request.show_private(rendered)
        self._keep_private(request, spec, game, click.action, rendered, whose == viewer)

    def _keep_private(
        self, request: Request, spec: AnySpec, game: Game, view: str, rendered: Rendered, own: bool
    ) -> None:
        """The asker now sees a private ``view`` as ``rendered``: their own one that follows is kept current, any
        other kind is a card that goes when it is out of date (:attr:`cards`)."""
        if not spec.private_views[view].follows:
            self.cards.shown(game.record.channel_id, request.actor.player, request.private_message())
        elif own and game.record.active:
            self.followers.follow(game, request.actor.player, view, request.locale, request.private_message(), rendered)

    def _render_private(self, game: Game, view: str, player: str, locale: str) -> Rendered:
        """A following private view as it is now; without controls once the game was abandoned (the view itself
        says the game ended, from ``Table.ended``)."""
        spec = self.specs[game.record.kind]
        rendered = spec.private_views[view].render(table(game, locale), player)
        if game.record.status == "abandoned":
            rendered.layout = type(rendered.layout)()
        return rendered

    # ---------------------------------------------------------------- reviews

    @tracked
    async def review(self, request: Request, spec: AnySpec, game_id: int | None = None) -> None:
        """``/<game> review [game]``: the player's review of one finished game (default: their latest)."""
        await self.reviews.command(request, spec, game_id)

    # ---------------------------------------------------------------- deadlines

    @tracked
    async def on_deadline(self, game_id: int) -> None:
        """A stored deadline passed: expire the lobby, or play the timed-out turn for its players."""
        async with self._locks.hold(game_id), self.cache.dropped_on_failure(game_id):
            now = self._clock()
            # The database says this deadline is due; a kept copy that says nothing is due is behind it (another
            # process saved the game since), and trusting it would leave the deadline due, fired again at once.
            game = await self._load(game_id, stale=lambda kept: not transitions.due(kept.record, now))
            if game is None:
                return
            record = game.record
            spec = self.specs[record.kind]
            decided = transitions.deadline(spec, game, self._choose(spec, record), self._rng(), now)
            if decided is None:
                return
            decided = self._noted(spec, transitions.paced(spec, decided, now, self.computer_delay))
            try:
                saved = await self._save(decided)
            except StaleVersion:
                # A click, or another process racing for the same deadline, saved first; the version check kept
                # the deadline from being played twice. Whoever saved shows and announces it.
                log.info("deadline of game %s already handled (version %s moved on)", game_id, record.version)
                return
            await self._keep_at_bottom(spec, decided.before, await self.show(spec, saved) or saved)

    # ---------------------------------------------------------------- lost boards

    @tracked
    async def on_messages_deleted(self, message_ids: Collection[int]) -> None:
        """Messages were deleted (a moderator, a purge): an active game whose live board was one of them posts it
        anew at the bottom of the channel, else nobody could click and the game would wait out its timeouts.

        One read of an index that holds only the active games' boards, whatever was deleted.
        """
        try:
            found = await self._games.active_with_board(message_ids)
        except StorageUnavailable as error:
            log.warning("could not look up deleted messages %s: %s", sorted(message_ids), error)
            return
        for record in (record for record in found if record.kind in self.specs):
            try:
                await self._board_deleted(record.id, message_ids)
            except StorageUnavailable as error:
                # The repair edits the board soon, finds it gone and posts it then.
                log.warning("game %s: its deleted board is posted anew later: %s", record.id, error)
                self.shown.missed(record)

    async def _board_deleted(self, game_id: int, message_ids: Collection[int]) -> None:
        """Post the game's board anew if one of ``message_ids`` still is its live board (under the game's lock)."""
        async with self._locks.hold(game_id), self.cache.dropped_on_failure(game_id):
            # A kept copy naming another board is read again; if the database names another too, a move of the
            # board in the meantime already replaced the deleted one.
            game = await self._load(game_id, stale=lambda kept: kept.record.message_id not in message_ids)
            if game is None or not game.record.active:
                return
            gone = game.record.message_id
            if gone is None or gone not in message_ids:
                return
            if self.reposts.take(game_id, game.record.version):
                await self._repost(self.specs[game.record.kind], game, gone)
            else:
                log.warning(
                    "game %s: board deleted again at version %s; not posted anew until the game moves on",
                    game_id,
                    game.record.version,
                )

    @tracked
    async def on_channel_deleted(self, channel_id: int) -> None:
        """A channel or thread was deleted: its active game is abandoned (no result), since nobody can play it any
        more and its timeouts would fire for ever. One read of the index of the channels' active games (a thread's
        game is stored under the thread's id, its channel as Discord names it)."""
        try:
            found = await self._games.active_in_channel(channel_id)
        except StorageUnavailable as error:
            log.warning("could not look up the game of deleted channel %s: %s", channel_id, error)
            return
        if found is not None:
            await self._abandon(found, f"its channel {channel_id} was deleted")

    @tracked
    async def on_guild_removed(self, guild_id: int) -> None:
        """The bot was removed from a server (kicked, banned, the server deleted): every lobby and game there is
        abandoned (no result), since the bot can neither show nor hear them any more and their timeouts would fire
        for ever against Discord's refusals. Not for an outage (a GUILD_DELETE marked unavailable), after which the
        games go on."""
        await self._abandon_guild(guild_id)

    @tracked
    async def on_guilds_listed(self, shard_id: int, shard_count: int, guild_ids: Collection[int]) -> None:
        """A gateway session of ``shard_id`` started and Discord listed every server of the shard (also those it
        cannot reach now): a server with active games that is missing removed the bot while it was away, and no
        GUILD_DELETE will ever tell, so its games are abandoned as in :meth:`on_guild_removed`.

        Only the list tells a removal for sure: an edit refused with 403 Missing Access may as well be an admin
        hiding the channel from the bot, which they can undo, so such a game keeps its state (``Edit.REFUSED``).
        """
        try:
            found = await self._games.guilds_with_active_games()
        except StorageUnavailable as error:
            log.warning("could not look up the servers with active games of shard %s: %s", shard_id, error)
            return
        listed = set(guild_ids)
        for guild_id in found:
            if shard_of(guild_id, shard_count) == shard_id and guild_id not in listed:
                await self._abandon_guild(guild_id)

    async def _abandon_guild(self, guild_id: int) -> None:
        """Abandon every active game of a server that removed the bot: one read of the index of their guilds."""
        try:
            found = await self._games.active_in_guild(guild_id)
        except StorageUnavailable as error:
            log.warning("could not look up the games of server %s, which removed the bot: %s", guild_id, error)
            return
        for record in found:
            await self._abandon(record, f"the bot was removed from server {guild_id}")

    async def _abandon(self, found: GameRecord, why: str) -> None:
        """Abandon a game found active whose place in Discord is gone, under its lock (a kept copy older than what
        was found is read again; a game that ended meanwhile is left as it is).

        A game the database could not read is left as it is, as when its abandoning save fails (``_abandon_lost``):
        its next deadline's edit finds its channel gone, or the next gateway session the server missing.
        """
        if found.kind not in self.specs:
            return
        try:
            async with self._locks.hold(found.id), self.cache.dropped_on_failure(found.id):
                game = await self._load(found.id, stale=lambda kept: kept.record.version < found.version)
                if game is not None and game.record.active:
                    await self._abandon_lost(game, why)
        except StorageUnavailable as error:
            log.warning("game %s: %s, but it could not be read to abandon it: %s", found.id, why, error)

    # ---------------------------------------------------------------- start-up

    async def catch_up(self) -> int:
        """Show again every game whose message is behind its stored version; how many were shown.

        Run in the background at start-up: a kill between a save and the message edit left those behind (in
        Knister the round message would show a round the database has left, with Roll disabled; a game's last
        move would leave its buttons on a finished game), and a kill in the middle of moving the board down left
        the old board with its controls. Counted as in flight, so a shutdown lets the repair finish.
        """
        with self.in_flight.track():
            shown = await self.show_again(await self._games.behind())
            await self.shown.flush()
            for game_id in await self._games.with_retired_board():
                # A move cut short after the new board was stored: the old one still has its controls.
                async with self._locks.hold(game_id):
                    record = await self._games.get(game_id)
                    if record is not None and record.retired_message_id is not None and record.kind in self.specs:
                        await self._strip(self.specs[record.kind], record, record.retired_message_id)
            return shown

    async def show_again(self, game_ids: Collection[int]) -> int:
        """Edit each game's message to show its stored state (under its lock); how many boards are up to date now
        (posted anew when deleted; a game whose channel was deleted is abandoned and counted too)."""
        shown = 0
        for game_id in game_ids:
            async with self._locks.hold(game_id):
                record = await self._games.get(game_id)
                if record is not None and record.kind in self.specs:
                    spec = self.specs[record.kind]
                    shown += await self.show(spec, Game.load(spec, record)) is not None
            if record is None or not record.active:
                self._locks.forget(game_id)
        return shown

    # ---------------------------------------------------------------- rendering and saving

    def render(self, spec: AnySpec, game: Game) -> Rendered:
        """The game's board for any status: lobby, running, finished or abandoned, with its news on top.

        A finished game's board offers **Rematch** until someone used it. An abandoned one has no controls and no
        content of its own: the game's renderer shows it as ended (``Table.ended``), under the news of who ended it,
        and whatever a renderer returns, nobody is pinged to act in a game that is over.
        """
        record = game.record
        news = board.news_of(record)
        if game.state is None:
            return board_ui.with_news(lobby_ui.render(lobby(spec, record)), news)
        rendered = spec.ui.render(table(game))
        if record.status == "running" and transitions.hints_on(record):
            label = t("hint.button", record.locale)
            rendered.layout.button(HINT_ROW, label, custom_id(record.id, HINT, "", transitions.stamp(record)))
        if record.status == "finished" and any(seat.kind == "user" for seat in record.seats):
            label = t("review.button", record.locale)
            rendered.layout.button(HINT_ROW, label, custom_id(record.id, REVIEW, "", transitions.stamp(record)))
        if record.status == "finished" and board.NEXT_GAME not in record.options:
            label = t("play.rematch", record.locale)
            rendered.layout.button(
                HINT_ROW, label, custom_id(record.id, REMATCH, "", transitions.stamp(record)), emoji="🔁"
            )
        if record.status == "running" and computers_to_act(spec, game):
            rendered.layout = rendered.layout.disabled_except(spec.private_views)
        if record.status == "abandoned":
            rendered.content = None
            rendered.layout = type(rendered.layout)()
        return board_ui.with_news(rendered, news)

    def _noted(self, spec: AnySpec, outcome: Outcome) -> Outcome:
        """The outcome with its announcements stored as the game's news (``options.news``), shown on the board.

        An action with nothing to announce keeps the news before it, so the latest thing that happened (a roll, a
        scored box) stays in sight until something new happens, also on a board shown again after a restart. A game
        that asks for it keeps how the last turn ended above its lines (``board.noted``).
        """
        lines = self.announcements(spec, outcome)
        if not lines:
            return outcome
        after = outcome.after
        turn_over = board.turn_started(spec, outcome.before, after)
        game_over = after.record.status == "finished"
        options = board.noted(
            after.record.options,
            lines,
            turn_over=turn_over,
            keep_turn_end=spec.news_keeps_turn_end,
            game_over=game_over,
        )
        return replace(outcome, after=Game(after.record.changed(options=options), after.state))

    def announcements(self, spec: AnySpec, outcome: Outcome) -> list[str]:
        """The channel lines of a change in the order it happened: the plumbing's notices of what caused it (a
        timeout), the game's own lines (from the engine's events: what was played), then the other notices (a
        removal); the board's content below says whose turn it is."""
        game = outcome.after
        locale = game.record.locale
        # The game's lines tell its engine's events: a move without any (a held die) builds no table to find none.
        lines = spec.ui.announce(table(game)) if outcome.moved and game.state.events else []
        if not outcome.notices:
            return lines
        name = t(f"game.{spec.kind}", locale)
        causes = [notice_line(notice, locale, name) for notice in outcome.notices if notice.cause]
        after = [notice_line(notice, locale, name) for notice in outcome.notices if not notice.cause]
        return causes + lines + after

    async def _point(self, request: Request, record: GameRecord | None, action: str = "") -> None:
        """A click (of ``action``) on a message that is not the live board of an active game: say where the game
        is now.

        The clicked message is repaired on the way: an earlier board loses its controls, a finished or abandoned
        game's board is shown as it stands.
        """
        if record is not None and board.from_old_board(record, origin(request)):
            record = await self._checked_board(record)
        current = await self._games.active_in_channel(request.channel_id or 0)
        pointer = board.pointer(record, current, action)
        await self._refuse(request, pointer.key, **pointer.params)
        if record is None or request.message_is_private or request.message_id is None or record.kind not in self.specs:
            return
        spec = self.specs[record.kind]
        if request.message_id == record.message_id:
            await self.show(spec, Game.load(spec, record))
        elif request.channel_id == record.channel_id and request.message_by_bot and record.id in request.message_games:
            await self._strip(spec, record, request.message_id)

    async def _checked_board(self, record: GameRecord) -> GameRecord:
        """An active game's live board edited to show the game before a player is pointed to it, posted anew if the
        edit finds it gone; the game's record as it now stands (under the game's lock).

        A board deleted while the bot was down is otherwise only found by the next edit, and a player clicking an
        earlier board or starting a game in the channel would be sent to a message that no longer exists, with
        nothing left to click until a timeout moves the game on (QA: a playground killed just after a move). Once
        per board and process (:class:`~bot.play.live_board.CheckedBoards`).
        """
        if not record.active or record.kind not in self.specs:
            return record
        if self.checked_boards.known(record.id, record.message_id):
            return record
        spec = self.specs[record.kind]
        shown = await self.show(spec, Game.load(spec, record))
        if shown is None or shown.record.message_id is None:
            return record
        self.checked_boards.found(record.id, shown.record.message_id)
        return shown.record

    async def _rematch(self, request: Request, spec: AnySpec, record: GameRecord) -> None:
        """**Rematch** on a finished game's board: a new lobby here with the same game, rules, options and
        computer players, the clicker as host and the other people who played to the end invited; the old board
        loses the button. The one person of a game against computers gets the new game started at once instead
        (``board.starts_at_once``): that lobby would wait for nobody.

        The lobby speaks the server's language as it is set now, not the one the old game was played in.
        """
        if board.NEXT_GAME in record.options:
            await self._point(request, record)
            return
        try:
            transitions.check_origin(record, request.actor, origin(request), False)
        except Refusal as refusal:
            await self._refuse(request, refusal.key, **refusal.params)
            return
        seat = record.seat(request.actor.player)
        if seat is None or seat.kind != "user":
            await self._refuse(request, "play.rematch_players_only")
            return
        options = {**board.rematch_options(record), board.INVITED: board.invited(record, request.actor.player)}
        locale = await self._language(request)
        computers = board.rematch_computers(record, locale, computer_name)
        created = await self._open_lobby(
            request, spec, record.variant, record.guild_id, record.channel_id, locale, options, computers
        )
        if created is None:
            return
        post = self._post_started if board.starts_at_once(record) else self._post_lobby
        if await post(request, spec, created):
            await self._supersede(spec, record, created.id)

    async def _post_started(self, request: Request, spec: AnySpec, record: GameRecord) -> bool:
        """Start a new lobby at once (its host's Start, decided here) and post the game's board as the answer to
        ``request``; False if it never showed, and then the game is gone, as a lobby that could not be posted is.

        The start is saved before the board is posted, so the board shows the game as stored (its roll-off, the
        first turn); the lock is held until the board's message is noted, so a computer's first move waits for it.
        A start the database refused posts the lobby instead, with its Start button.
        """
        async with self._locks.hold(record.id):
            lobby_game = Game(record, None)
            now = self._clock()
            started = transitions.start(spec, lobby_game, request.actor, self._rng(), now)
            try:
                saved = await self._save(self._noted(spec, transitions.paced(spec, started, now, self.computer_delay)))
            except (StaleVersion, StorageUnavailable) as error:
                log.warning("rematch %s could not be started, posting its lobby: %s", record.id, error)
            else:
                return await self._post_board(request, spec, saved)
        return await self._post_lobby(request, spec, record)

    async def _post_board(self, request: Request, spec: AnySpec, saved: Game) -> bool:
        """Post a game started at once as the answer to ``request`` and note its message (under the game's lock)."""
        record = saved.record
        message_id = await self._post_first(request, record, self.render(spec, saved), "board")
        if message_id is None:
            return False
        self.cache.put(Game(record.changed(message_id=message_id), saved.state))
        return True

    async def _close_previous(self, record: GameRecord) -> None:
        """A new game opened in the channel: the previous game's final board stops offering Rematch.

        So the channel never has two messages with live controls, the new lobby and an old Rematch. The new lobby
        is already posted and answered: a read the database refuses here is logged, never reported to the host as
        a lobby that failed (the old Rematch then answers with a link to the new game when clicked).
        """
        try:
            previous = await self._games.previous_in_channel(record.channel_id, record.id)
        except StorageUnavailable as error:
            log.warning("game %s: could not look up the channel's previous game: %s", record.id, error)
            return
        if previous is None or previous.status != "finished" or board.NEXT_GAME in previous.options:
            return
        if previous.kind not in self.specs:
            return
        async with self._locks.hold(previous.id):
            try:
                current = await self._games.get(previous.id)
            except StorageUnavailable as error:
                log.warning("game %s: could not read the channel's previous game: %s", record.id, error)
                return
            if current is not None and board.NEXT_GAME not in current.options:
                await self._supersede(self.specs[current.kind], current, record.id)
        self._locks.forget(previous.id)

    async def _supersede(self, spec: AnySpec, record: GameRecord, successor: int) -> None:
        """Note the channel's next game on a finished one (under its lock) and show its board without Rematch."""
        old = Game.load(spec, record)
        marked = Outcome(old, Game(record.changed(options={**record.options, board.NEXT_GAME: successor}), old.state))
        try:
            await self.show(spec, await self._save(marked))
        except (StaleVersion, StorageUnavailable) as error:
            log.warning("game %s: could not note the game after it: %s", record.id, error)

    def _choose(self, spec: AnySpec, record: GameRecord) -> transitions.Choose:
        """Computer decisions for this game: the strategy's when its tables are loaded, else the engine's timeout
        action. Their own random source, seeded by the game and its version, leaves the dice alone."""
        return computer.chooser(self.brain, spec, random.Random(f"{record.id}:{record.version}"))

    async def _save(self, outcome: Outcome) -> Game:
        """Save an outcome and keep it in memory; a save that fails in any way (stale, storage) forgets the kept
        copy, whoever catches the error (a click, a deadline, a hint's mark), so the next request reads the database."""
        try:
            record = await self._games.save(
                outcome.after.record, outcome.results, before=outcome.before.record, moves=outcome.moves
            )
        except BaseException:
            self.cache.drop(outcome.before.record.id)
            raise
        if not record.active:
            self._locks.forget(record.id)
        saved = Game(record, outcome.after.state)
        self.cache.put(saved)
        self.followers.changed(saved)
        self._retire_notes(record, outcome)
        self._prepare_computers(saved)
        self.on_saved(record)
        return saved

    def _retire_notes(self, record: GameRecord, outcome: Outcome) -> None:
        """Private notes this save made out of date go (``notes.py``). A refusal goes once a press of its player
        is accepted (a move of source "player": their turn came, say, and "Not your turn" is now wrong). A hint
        goes after its player's move past its position, and every player's when the save ended the game; a refusal
        also goes when its player's turn comes. A later
        save of an ended game (noting the rematch) leaves the channel's notes alone: they are the new game's. Each
        note is looked up (``holds``, a dict membership) before anything else: a move of a player with nothing on
        screen costs no more."""
        channel = record.channel_id
        ended = not record.active
        if ended and not outcome.before.record.active:
            return
        for move in outcome.moves:
            if self.refusals.holds(channel, move.player) and move.source == "player":
                self.refusals.retire(channel, move.player)
            if self.cards.holds(channel, move.player) and move.source == "player" and transitions.settled(move):
                self.cards.retire(channel, move.player)
            if not ended and self.hints.holds(channel, move.player) and transitions.moved_on(move):
                self.hints.retire(channel, move.player)
        if ended:
            for seat in record.seats:
                self.hints.retire(channel, seat.player)
                self.cards.retire(channel, seat.player)
            return
        before, after = outcome.before.state, outcome.after.state
        if before is not None and after is not None and self.refusals:
            # "Not your turn" under the board that now says it is theirs contradicted it (QA).
            engine = self.specs[record.kind].engine
            waited = set(engine.to_act(before))
            for player in engine.to_act(after):
                if player not in waited and self.refusals.holds(channel, player):
                    self.refusals.retire(channel, player)

    def _prepare_computers(self, game: Game) -> None:
        """A running game with computer players: start loading its strategy tables (once, in a worker thread)."""
        if self.brain is None or game.record.status != "running" or game.state is None:
            return
        seat = next((seat for seat in game.record.seats if seat.kind == "computer"), None)
        if seat is not None:
            self.brain.prepare(game.state, seat.player)

    async def _load(self, game_id: int, stale: Callable[[Game], bool] | None = None) -> Game | None:
        """The game as last saved or loaded by this process, else read from the database (and kept).

        ``stale`` tells a kept copy that the request shows to be behind the database: it is read again.
        """
        game = self.cache.get(game_id)
        if game is not None and (stale is None or not stale(game)):
            return game
        record = await self._games.get(game_id)
        if record is None:
            return None
        game = Game.load(self.specs[record.kind], record)
        self.cache.put(game)
        return game
