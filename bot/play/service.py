"""The one place that changes games: lock, load, check, apply, save, render, respond.

Every click, command and deadline goes through :class:`GameService`, so the rules of engagement (who may act,
stale messages, one action at a time, timeouts, host rules, results) are written once for all games.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Concatenate, ParamSpec, TypeVar

import discord

from bot.engine.core import GameError, GameState, secure_rng
from bot.i18n import has, t
from bot.play.components import Click
from bot.play.spec import GameSpec, Rendered, Table
from bot.storage import ChannelBusy, GameRecord, GamesRepository, ResultRow, Seat, StaleVersion
from bot.ui import lobby as lobby_ui

log = logging.getLogger(__name__)

LOBBY_MINUTES = 15
#: Timeouts in a row after which a player is removed from the game.
MAX_TIMEOUTS = 3
#: Upper bound on automatic steps for one timed-out player (a Tutto turn takes a handful).
MAX_AUTO_STEPS = 200
MESSAGE_LIMIT = 2000


P = ParamSpec("P")
R = TypeVar("R")


def tracked(
    method: Callable[Concatenate[GameService, P], Awaitable[R]],
) -> Callable[Concatenate[GameService, P], Awaitable[R]]:
    """Mark an entry point whose work a shutdown waits for (see :meth:`GameService.drain`)."""

    @functools.wraps(method)
    async def run(self: GameService, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._working():
            return await method(self, *args, **kwargs)

    return run


class PlayError(Exception):
    """A request the plumbing refuses (not the game's rules): full lobby, host only, no game here..."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class Outcome:
    """A change to save, and what to tell the channel."""

    record: GameRecord
    announcements: list[str] = field(default_factory=list)
    results: list[ResultRow] = field(default_factory=list)
    #: Ephemeral confirmation for the user who asked (commands only).
    reply_key: str = "play.done"


def error_key(spec: GameSpec, error: GameError) -> str:
    """The message for a refused action: the game's text for the error's reason when it has one."""
    reason = error.params.get("reason")
    if reason is not None and has(f"{spec.kind}.reason.{reason}"):
        return f"{spec.kind}.reason.{reason}"
    return f"error.{error.key}"


def jump_url(record: GameRecord) -> str:
    guild = record.guild_id if record.guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{record.channel_id}/{record.message_id or ''}".rstrip("/")


def user_locale(interaction: discord.Interaction[Any]) -> str:
    return str(interaction.locale)


def display_name(user: discord.abc.User) -> str:
    return user.display_name


class GameService:
    """Runs every game of every kind; one instance per bot."""

    def __init__(
        self,
        client: discord.Client,
        games: GamesRepository,
        specs: dict[str, GameSpec],
        rng: Callable[[], random.Random] = secure_rng,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._games = games
        self.specs = specs
        self._rng = rng
        self._clock = clock
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.on_saved: Callable[[GameRecord], None] = lambda record: None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def _working(self) -> Iterator[None]:
        """Count a request in progress, so a shutdown can let it finish (reply sent, message id stored)."""
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Wait until no click, command or deadline is being handled (or ``timeout`` passes)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)

    # ---------------------------------------------------------------- commands

    @tracked
    async def open_lobby(
        self, interaction: discord.Interaction[Any], spec: GameSpec, variant: str, options: dict[str, Any]
    ) -> None:
        """``/<game> start``: create the game with the host seated and post the lobby."""
        if interaction.channel_id is None:
            await self._reply_error(interaction, "play.no_channel")
            return
        host = Seat(interaction.user.id, display_name(interaction.user))
        locale = str(interaction.guild_locale or interaction.locale)
        try:
            record = await self._games.create(
                kind=spec.kind,
                variant=variant,
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                host=host,
                locale=locale,
                options=options,
                deadline_at=self._clock() + LOBBY_MINUTES * 60,
            )
        except ChannelBusy as busy:
            async with self._locks[busy.game.id]:
                existing = await self._games.get(busy.game.id) or busy.game
            game = t(f"game.{existing.kind}", interaction.locale)
            await self._reply_error(interaction, "play.channel_busy", game=game, link=jump_url(existing))
            return
        async with self._locks[record.id]:
            # Held until the message id is stored, so a fast first click finds the game message.
            self.on_saved(record)
            try:
                await interaction.response.send_message(**lobby_ui.render(spec, self._table(record)).kwargs())
                message = await interaction.original_response()
            except discord.HTTPException:
                await self._games.delete(record.id)
                raise
            await self._games.attach_message(record.id, message.id)

    async def leave(self, interaction: discord.Interaction[Any], spec: GameSpec) -> None:
        """``/<game> leave``: leave the lobby, or the running game (the card stays, the turn is skipped)."""
        await self._command(interaction, spec, self._leave)

    async def end(self, interaction: discord.Interaction[Any], spec: GameSpec) -> None:
        """``/<game> end``: the host or a moderator stops the game; it is not counted anywhere."""
        await self._command(interaction, spec, self._end)

    async def private(
        self, interaction: discord.Interaction[Any], spec: GameSpec, view: str, target: discord.abc.User | None = None
    ) -> None:
        """A read-only ephemeral view of the channel's game (``/kniffel scorecard``, ``/knister grid``)."""
        record = await self._games.active_in_channel(interaction.channel_id or 0)
        try:
            if record is None or record.kind != spec.kind:
                raise PlayError("play.no_game", game=t(f"game.{spec.kind}", interaction.locale))
            who = target or interaction.user
            if record.status != "running":
                raise PlayError("play.not_started")
            if record.seat(who.id) is None:
                raise PlayError("play.not_seated_other" if target else "play.not_seated", name=display_name(who))
            rendered = spec.private_views[view].render(
                self._table(record, user_locale(interaction)), who.id, user_locale(interaction)
            )
        except PlayError as error:
            await self._reply_error(interaction, error.key, **error.params)
            return
        await interaction.response.send_message(ephemeral=True, **rendered.kwargs())

    @tracked
    async def _command(
        self,
        interaction: discord.Interaction[Any],
        spec: GameSpec,
        change: Callable[[GameRecord, GameSpec, discord.Interaction[Any]], Outcome],
    ) -> None:
        found = await self._games.active_in_channel(interaction.channel_id or 0)
        if found is None or found.kind != spec.kind:
            await self._reply_error(interaction, "play.no_game", game=t(f"game.{spec.kind}", interaction.locale))
            return
        async with self._locks[found.id]:
            record = await self._games.get(found.id)
            assert record is not None
            try:
                outcome = change(record, spec, interaction)
                saved = await self._save(outcome)
            except GameError as error:
                await self._reply_error(interaction, error_key(spec, error), **error.params)
                return
            except PlayError as error:
                await self._reply_error(interaction, error.key, **error.params)
                return
            except StaleVersion:
                await self._reply_error(interaction, "play.outdated")
                return
            rendered = self.render(spec, saved)
            await interaction.response.send_message(t(outcome.reply_key, interaction.locale), ephemeral=True)
            await self._edit_game_message(saved, rendered)
            await self._post(saved, outcome.announcements)

    # ---------------------------------------------------------------- clicks

    @tracked
    async def on_click(self, interaction: discord.Interaction[Any], click: Click) -> None:
        """Entry point of every game button and select."""
        record = await self._games.get(click.game_id)
        locale = user_locale(interaction)
        if record is None:
            await self._reply_error(interaction, "play.unknown_game")
            return
        spec = self.specs[record.kind]
        if click.action in spec.private_views:
            await self._open_private(interaction, spec, record, click)
            return
        async with self._locks[record.id]:
            record = await self._games.get(click.game_id)
            assert record is not None
            record = await self._adopt_message(record, interaction.message)
            try:
                if not record.active:
                    self._locks.pop(record.id, None)
                    raise PlayError("play.game_over")
                state = self._state(spec, record)
                if click.stamp != (spec.stamp_of(click, record, state) if state is not None else record.version):
                    raise PlayError("play.outdated")
                if record.status == "lobby":
                    outcome = self._lobby_action(spec, record, interaction, click)
                else:
                    outcome = self._move(spec, record, state, interaction.user.id, self._action(spec, click))
                saved = await self._save(outcome)
            except GameError as error:
                await self._reply_error(interaction, error_key(spec, error), **error.params)
                return
            except PlayError as error:
                await self._reply_error(interaction, error.key, **error.params)
                if error.key == "play.outdated":
                    await self._refresh_if_game_message(spec, record, interaction.message)
                return
            except StaleVersion:
                await self._reply_error(interaction, "play.outdated")
                return
            rendered = self.render(spec, saved)
            message = interaction.message
            if message is not None and message.id == saved.message_id:
                await interaction.response.edit_message(**rendered.kwargs())
            else:
                private = spec.private_views.get(spec.private_refresh.get(click.action, ""))
                if private is not None:
                    await interaction.response.edit_message(
                        **private.render(self._table(saved, locale), interaction.user.id, locale).kwargs()
                    )
                else:
                    await interaction.response.defer()
                await self._edit_game_message(saved, rendered)
            await self._post(saved, outcome.announcements)

    @staticmethod
    def _action(spec: GameSpec, click: Click) -> Any:
        """The engine action of a click; a forged or malformed component is refused like an illegal move."""
        try:
            return spec.to_action(click)
        except (KeyError, ValueError, IndexError) as error:
            log.warning("malformed click %s: %s", click, error)
            raise PlayError("error.illegal_action") from error

    async def _refresh_if_game_message(
        self, spec: GameSpec, record: GameRecord, message: discord.Message | None
    ) -> None:
        """A stale click on the game message: show the current state there, in case an edit was ever missed."""
        if message is not None and message.id == record.message_id:
            await self._edit_game_message(record, self.render(spec, record))

    async def _adopt_message(self, record: GameRecord, message: discord.Message | None) -> GameRecord:
        """Link a game to its public message if posting it was interrupted before the id was stored."""
        if record.message_id is not None or message is None or message.flags.ephemeral:
            return record
        await self._games.attach_message(record.id, message.id)
        return replace(record, message_id=message.id)

    async def _open_private(
        self, interaction: discord.Interaction[Any], spec: GameSpec, record: GameRecord, click: Click
    ) -> None:
        locale = user_locale(interaction)
        view = spec.private_views[click.action]
        if record.state is None:
            await self._reply_error(interaction, "play.not_started")
            return
        if view.players_only and record.seat(interaction.user.id) is None:
            await self._reply_error(interaction, "play.not_seated", name=display_name(interaction.user))
            return
        rendered = view.render(self._table(record, locale), interaction.user.id, locale)
        await interaction.response.send_message(ephemeral=True, **rendered.kwargs())

    # ---------------------------------------------------------------- deadlines

    @tracked
    async def on_deadline(self, game_id: int) -> None:
        """A stored deadline passed: expire the lobby, or play the timed-out turn for its players."""
        async with self._locks[game_id]:
            record = await self._games.get(game_id)
            if record is None or not record.active or record.deadline_at is None:
                return
            if record.deadline_at > self._clock():
                return
            spec = self.specs[record.kind]
            if record.status == "lobby":
                outcome = Outcome(
                    replace(record, status="abandoned", deadline_at=None, finished_at=self._clock()),
                    [t("lobby.expired", record.locale, game=t(f"game.{spec.kind}", record.locale))],
                )
            else:
                outcome = self._timeout(spec, record)
            saved = await self._save(outcome)
        await self._edit_game_message(saved, self.render(spec, saved))
        await self._post(saved, outcome.announcements)

    def _timeout(self, spec: GameSpec, record: GameRecord) -> Outcome:
        engine = spec.engine
        state = self._state(spec, record)
        assert state is not None
        key = spec.turn_key(state)
        rng = self._rng()
        events = []
        seats = {seat.user_id: seat for seat in record.seats}
        announcements: list[str] = []
        for player in list(engine.to_act(state)):
            steps = 0
            while player in engine.to_act(state) and spec.turn_key(state) == key and steps < MAX_AUTO_STEPS:
                state = engine.apply(state, player, engine.timeout_action(state, player), rng)
                events.extend(state.events)
                steps += 1
            seat = seats[int(player)]
            seat = replace(seat, timeouts=seat.timeouts + 1)
            announcements.append(t("play.timed_out", record.locale, name=seat.display_name))
            if seat.timeouts >= MAX_TIMEOUTS and seat.status == "active" and not engine.is_over(state):
                seat = replace(seat, status="removed")
                state = engine.leave(state, player)
                events.extend(state.events)
                announcements.append(t("play.removed", record.locale, name=seat.display_name, count=MAX_TIMEOUTS))
            seats[int(player)] = seat
        state.events = events
        updated = replace(record, seats=tuple(seats[seat.user_id] for seat in record.seats))
        return self._after_move(spec, updated, key, state, announcements)

    # ---------------------------------------------------------------- transitions

    def _lobby_action(
        self, spec: GameSpec, record: GameRecord, interaction: discord.Interaction[Any], click: Click
    ) -> Outcome:
        user = interaction.user
        seated = record.seat(user.id) is not None
        if click.action == "join":
            if seated:
                raise PlayError("lobby.already_joined")
            if len(record.seats) >= spec.max_players:
                raise PlayError("lobby.full", count=spec.max_players)
            return Outcome(replace(record, seats=(*record.seats, Seat(user.id, display_name(user)))))
        if click.action == "leave":
            if not seated:
                raise PlayError("lobby.not_joined")
            return self._leave_lobby(record, user.id)
        if user.id != record.host_id:
            raise PlayError(
                "lobby.host_only", name=record.seat(record.host_id).display_name if record.seat(record.host_id) else ""
            )
        if click.action == "cancel":
            return Outcome(
                replace(record, status="abandoned", deadline_at=None, finished_at=self._clock()),
                [t("lobby.cancelled", record.locale, game=t(f"game.{spec.kind}", record.locale))],
            )
        if click.action == "start":
            return self._start(spec, record)
        raise PlayError("error.illegal_action")

    def _leave_lobby(self, record: GameRecord, user_id: int) -> Outcome:
        seats = tuple(seat for seat in record.seats if seat.user_id != user_id)
        if not seats:
            return Outcome(
                replace(record, seats=seats, status="abandoned", deadline_at=None, finished_at=self._clock())
            )
        host_id = record.host_id if record.host_id != user_id else seats[0].user_id
        return Outcome(replace(record, seats=seats, host_id=host_id))

    def _start(self, spec: GameSpec, record: GameRecord) -> Outcome:
        if len(record.seats) < spec.min_players:
            raise PlayError("lobby.too_few", count=spec.min_players)
        players = [str(seat.user_id) for seat in record.seats]
        state = spec.engine.new_game(players, self._rng(), **spec.engine_options(record.options, record.variant))
        started = replace(record, status="running", state=state.dump())
        return self._after_move(spec, started, None, state, [])

    def _move(self, spec: GameSpec, record: GameRecord, state: GameState | None, user_id: int, action: Any) -> Outcome:
        assert state is not None
        player = str(user_id)
        seat = record.seat(user_id)
        if seat is None or seat.status != "active":
            raise PlayError("play.not_seated_here")
        key = spec.turn_key(state)
        new_state = spec.engine.apply(state, player, action, self._rng())
        seats = tuple(replace(s, timeouts=0) if s.user_id == user_id else s for s in record.seats)
        return self._after_move(spec, replace(record, seats=seats), key, new_state, [])

    def _leave(self, record: GameRecord, spec: GameSpec, interaction: discord.Interaction[Any]) -> Outcome:
        user_id = interaction.user.id
        seat = record.seat(user_id)
        if seat is None or seat.status != "active":
            raise PlayError("play.not_seated", name=display_name(interaction.user))
        if record.status == "lobby":
            return replace(self._leave_lobby(record, user_id), reply_key="play.you_left")
        state = self._state(spec, record)
        assert state is not None
        key = spec.turn_key(state)
        new_state = spec.engine.leave(state, str(user_id))
        seats = tuple(replace(s, status="left") if s.user_id == user_id else s for s in record.seats)
        outcome = self._after_move(
            spec, replace(record, seats=seats), key, new_state, [t("play.left", record.locale, name=seat.display_name)]
        )
        return replace(outcome, reply_key="play.you_left")

    def _end(self, record: GameRecord, spec: GameSpec, interaction: discord.Interaction[Any]) -> Outcome:
        permissions = interaction.permissions
        if interaction.user.id != record.host_id and not permissions.manage_messages:
            raise PlayError("play.end_not_allowed")
        return Outcome(
            replace(record, status="abandoned", deadline_at=None, finished_at=self._clock()),
            [
                t(
                    "play.ended",
                    record.locale,
                    game=t(f"game.{spec.kind}", record.locale),
                    name=display_name(interaction.user),
                )
            ],
            reply_key="play.you_ended",
        )

    def _after_move(
        self, spec: GameSpec, record: GameRecord, old_key: object, state: GameState, announcements: list[str]
    ) -> Outcome:
        """Store the new state; move the deadline when a new turn began; finish the game when it is over."""
        engine = spec.engine
        table = Table(record, state, record.locale)
        lines = spec.ui.announce(table) + announcements
        if not any(seat.status == "active" for seat in record.seats):
            finished = replace(
                record, state=state.dump(), status="abandoned", deadline_at=None, finished_at=self._clock()
            )
            return Outcome(finished, [*lines, t("play.abandoned", record.locale)])
        if engine.is_over(state):
            now = self._clock()
            finished = replace(record, state=state.dump(), status="finished", deadline_at=None, finished_at=now)
            return Outcome(finished, lines, self._results(spec, finished, state, now))
        deadline = record.deadline_at
        if record.status != "running" or spec.turn_key(state) != old_key:
            deadline = self._clock() + self.timeout_minutes(spec, record) * 60
        return Outcome(replace(record, state=state.dump(), deadline_at=deadline), lines)

    def _results(self, spec: GameSpec, record: GameRecord, state: GameState, now: float) -> list[ResultRow]:
        rows = []
        for result in spec.engine.results(state):
            user_id = int(result.player)
            seat = record.seat(user_id)
            # The counters the spec keeps for leaderboards; one the engine leaves out (not in these rules) stays out.
            counters = {name: value for name, value in result.counters.items() if name in spec.counters}
            rows.append(
                ResultRow(
                    game_id=record.id,
                    kind=record.kind,
                    variant=record.variant,
                    guild_id=record.guild_id,
                    channel_id=record.channel_id,
                    user_id=user_id,
                    display_name=seat.display_name if seat else str(user_id),
                    score=result.score,
                    rank=result.rank,
                    won=result.won,
                    finished_at=now,
                    counters=counters,
                )
            )
        return rows

    # ---------------------------------------------------------------- helpers

    def timeout_minutes(self, spec: GameSpec, record: GameRecord) -> int:
        return int(record.options.get("timeout", spec.timeout_minutes[0]))

    def render(self, spec: GameSpec, record: GameRecord) -> Rendered:
        """The game message for any status: lobby, running, finished or abandoned."""
        table = self._table(record)
        if record.status == "lobby" or (record.status == "abandoned" and record.state is None):
            return lobby_ui.render(spec, table)
        rendered = spec.ui.render(table)
        if record.status == "abandoned":
            rendered.content = t("play.abandoned_banner", record.locale)
            rendered.layout = type(rendered.layout)()
        return rendered

    def _table(self, record: GameRecord, locale: str | None = None) -> Table:
        spec = self.specs[record.kind]
        return Table(record, self._state(spec, record), locale or record.locale)

    @staticmethod
    def _state(spec: GameSpec, record: GameRecord) -> GameState | None:
        return spec.engine.State.load(record.state) if record.state is not None else None

    async def _save(self, outcome: Outcome) -> GameRecord:
        saved = await self._games.save(outcome.record, outcome.results)
        if not saved.active:
            self._locks.pop(saved.id, None)
        self.on_saved(saved)
        return saved

    async def _edit_game_message(self, record: GameRecord, rendered: Rendered) -> None:
        if record.message_id is None:
            return
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        try:
            await channel.get_partial_message(record.message_id).edit(**rendered.kwargs())
        except discord.HTTPException:
            log.warning("could not edit the message of game %s", record.id, exc_info=True)

    async def _post(self, record: GameRecord, lines: Iterable[str]) -> None:
        """Announce in the channel, packing lines into as few messages as Discord allows."""
        chunks: list[str] = []
        for line in lines:
            if chunks and len(chunks[-1]) + 1 + len(line) <= MESSAGE_LIMIT:
                chunks[-1] += "\n" + line
            else:
                chunks.append(line[:MESSAGE_LIMIT])
        if not chunks:
            return
        channel = self._client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        for chunk in chunks:
            try:
                await channel.send(chunk, allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException:
                log.warning("could not announce in channel %s", record.channel_id, exc_info=True)

    async def _reply_error(self, interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
        text = t(key, interaction.locale, **params)
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
