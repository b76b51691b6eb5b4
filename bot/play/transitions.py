"""The decisions of the plumbing as pure functions: (stored game, engine state, actor, now) → outcome.

Lobby rules, who may act, moves, timeouts, removal, leaving, ending and results are decided here, once for
every game and for every kind of seat (a Discord user or a computer player). Nothing here touches Discord or the
database: :class:`bot.play.service.GameService` loads a :class:`Game`, calls one of these functions, saves the
:class:`Outcome` and tells the channel. A refused request raises :class:`Refusal` (plumbing rules) or the
engine's ``GameError`` (game rules); either way nothing was changed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot.play import computer
from bot.play.game import AnyRules
from bot.rankings import HINTS_USED, SOLO
from bot.storage.games import GameRecord, Seat, SeatKind
from bot.storage.history import MoveRow, MoveSource
from bot.storage.results import ResultRow

#: Minutes an unstarted lobby stays open.
LOBBY_MINUTES = 15
#: Timeouts in a row after which a player is removed from the game.
MAX_TIMEOUTS = 3
#: Upper bound on automatic steps for one timed-out player (a Tutto turn takes a handful), and on the forced steps
#: one click takes (``GameRules.forced``).
MAX_AUTO_STEPS = 200


#: A computer player's decision: (engine state, player, level) → one engine action.
Choose = Callable[[Any, str, str], Any]


class Refusal(Exception):
    """A request the plumbing refuses (not the game's rules): full lobby, host only, not seated..."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class Actor:
    """Who asks: the seat's player id, a display name, and whether they may end any game (a moderator)."""

    player: str
    name: str
    kind: SeatKind = "user"
    moderator: bool = False

    def seat(self) -> Seat:
        return Seat(self.player, self.name, self.kind)


@dataclass(frozen=True)
class Notice:
    """A line for the channel, as a message id and its parameters (translated in the game's language).

    Every notice may use ``{game}``: the service adds the game's translated name. ``{name}`` is a player's display
    name as typed; the service escapes it for the board's markdown.

    ``cause`` marks what made the move (a timeout the bot played for, a player leaving): it is told before the
    game's own lines, so the board reads in the order things happened; other notices (a removal, the end) follow.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    cause: bool = False


@dataclass(frozen=True)
class Game:
    """A stored game with its engine state parsed once (None before the game starts)."""

    record: GameRecord
    state: Any

    @classmethod
    def load(cls, rules: AnyRules, record: GameRecord) -> Game:
        return cls(record, rules.load(record.state))


@dataclass(frozen=True)
class Outcome:
    """A change to save, and what to tell the channel.

    ``moved`` says the engine state changed, so the game's own announcements (of ``state.events``) are told, after
    the ``notices`` that caused them and before the others. ``reply_key`` confirms a command to the person who ran it.
    """

    before: Game
    after: Game
    moved: bool = False
    notices: tuple[Notice, ...] = ()
    results: tuple[ResultRow, ...] = ()
    reply_key: str = "play.done"
    #: The accepted engine actions that led from ``before`` to ``after``, each with the state it was applied to:
    #: the move history, saved in the same transaction as the new state.
    moves: tuple[MoveRow, ...] = ()


def played(player: str, source: MoveSource, action: Any, state: Any, stored: str | None = None) -> MoveRow:
    """The history row of ``action`` applied to ``state`` (``stored``: its JSON when already at hand)."""
    return MoveRow(player, source, action.model_dump_json(), stored if stored is not None else state.dump())


def _closed(
    game: Game, now: float, *notices: Notice, seats: tuple[Seat, ...] | None = None, reply_key: str = "play.done"
) -> Outcome:
    """The game is abandoned (nothing is counted); its state stays as it was for the final message."""
    record = game.record.changed(status="abandoned", deadline_at=None, finished_at=now)
    if seats is not None:
        record = record.changed(seats=seats)
    return Outcome(game, Game(record, game.state), notices=notices, reply_key=reply_key)


# ---------------------------------------------------------------------------------------------- the boundary


def check_options(rules: AnyRules, variant: str, options: Mapping[str, Any]) -> dict[str, int]:
    """The options of ``/<game> start`` if every one is declared and within its range; a refusal otherwise.

    Discord validates declared ranges and choices, but a forged or replayed interaction is not bound by them,
    and an out-of-range timeout or target would make a game that cannot be played.
    """
    if variant not in rules.variants:
        raise Refusal("play.bad_option", name="rules", choices=tuple(rules.variants), shown_as="variant")
    low, high = rules.timeout_minutes[1], rules.timeout_minutes[2]
    ranges = {"timeout": (low, high), **rules.option_ranges}
    checked = {}
    for name, value in options.items():
        if name not in ranges:
            raise Refusal("play.bad_option", name=name, allowed="unset")
        low, high = ranges[name]
        if type(value) is not int or not low <= value <= high:
            raise Refusal("play.bad_option", name=name, low=low, high=high)
        checked[name] = value
    return checked


@dataclass(frozen=True)
class Origin:
    """Where a click came from, as Discord reported it: the place, the message, and whose private message."""

    guild_id: int | None
    channel_id: int | None
    message_id: int | None
    private: bool = False
    #: The player the private message was shown to.
    owner: str | None = None
    #: The message was posted by the bot itself (a forged click may name anybody's message).
    by_bot: bool = False
    #: The games whose controls the message carries, from Discord's copy of it (a click cannot change that).
    games: frozenset[int] = frozenset()


def check_origin(record: GameRecord, actor: Actor, origin: Origin, from_private_view: bool) -> bool:
    """Refuse a click that did not come from this game's own message; True when it adopts the message.

    A click acts only in the game's guild and channel, through the game's public message, or, for an action made
    from a private view (``from_private_view``), through the clicker's own private message. A game whose message
    id was never stored (posting was interrupted) is linked to its message only by the host clicking on it: a
    lobby, or a game a rematch started at once (then only a message of the bot's carrying this game's controls).
    """
    if origin.guild_id != record.guild_id or origin.channel_id != record.channel_id:
        raise Refusal("play.wrong_place")
    if origin.private or from_private_view:
        if not (origin.private and from_private_view and origin.owner == actor.player):
            raise Refusal("play.wrong_place")
        return False
    if origin.message_id is None:
        raise Refusal("play.wrong_place")
    if record.message_id is None:
        if actor.player == record.host and (record.status == "lobby" or (origin.by_bot and record.id in origin.games)):
            return True
        raise Refusal("play.wrong_place")
    if origin.message_id != record.message_id:
        raise Refusal("play.wrong_place")
    return False


#: The game option listing the players who asked for a hint (their results are marked).
HINTED = "hinted"
#: The game option counting saves that changed nothing a control acts on (a hint's mark; see :func:`stamp`).
QUIET_SAVES = "quiet_saves"

#: Lobby buttons whose meaning does not depend on what the lobby looked like: applied even from an older render.
TIMELESS_LOBBY_ACTIONS = frozenset({"join", "leave"})
#: Every control of a lobby (its buttons and the computer select): they mean nothing once the game has started.
LOBBY_ACTIONS = frozenset({"join", "leave", "start", "cancel", "add_computer", "remove_computer", "hints"})


# ---------------------------------------------------------------------------------------------- the lobby


def lobby_closed(record: GameRecord, action: str) -> bool:
    """A lobby control clicked once its game has started: a click that raced the Start, or an old lobby message.

    Refused as such (the lobby is closed), rather than as an outdated message or an illegal move.
    """
    return record.status == "running" and action in LOBBY_ACTIONS


def open_deadline(now: float) -> float:
    """When a lobby opened now expires."""
    return now + LOBBY_MINUTES * 60


def join(rules: AnyRules, game: Game, actor: Actor) -> Outcome:
    record = game.record
    if record.seat(actor.player) is not None:
        raise Refusal("lobby.already_joined")
    if len(record.seats) >= rules.max_players:
        if any(seat.kind == "computer" for seat in record.seats):
            # A computer can make room, but only the host can remove it: say who, and which button (a rematch
            # invites the last game's players, whom the host's computers may have shut out meanwhile).
            host = record.seat(record.host)
            raise Refusal(
                "lobby.full_computers", name=host.display_name if host else "", button="lobby.remove_computer"
            )
        raise Refusal("lobby.full", count=rules.max_players)
    return Outcome(game, Game(record.changed(seats=(*record.seats, actor.seat())), None))


def leave_lobby(game: Game, actor: Actor, now: float, reply_key: str = "play.done") -> Outcome:
    """Leave a lobby; the host role passes to the next player, and the last one out closes it."""
    record = game.record
    if record.seat(actor.player) is None:
        raise Refusal("lobby.not_joined")
    seats = tuple(seat for seat in record.seats if seat.player != actor.player)
    if not any(seat.kind == "user" for seat in seats):
        return _closed(game, now, Notice("lobby.emptied"), seats=seats, reply_key=reply_key)
    return Outcome(game, Game(hosted(record.changed(seats=seats)), None), reply_key=reply_key)


def hosted(record: GameRecord) -> GameRecord:
    """The record with a host who is still seated: a host who left or was removed hands the role on.

    The role goes to the person who joined earliest among those still playing, so the lobby can still be started
    and the game still ended (``/<game> end``) without a moderator. Unchanged when nobody is left to take it: the
    game closes then.
    """
    seat = record.seat(record.host)
    if seat is not None and seat.status == "active":
        return record
    heir = next((seat.player for seat in record.seats if seat.kind == "user" and seat.status == "active"), None)
    return record if heir is None else record.changed(host=heir)


def _require_host(game: Game, actor: Actor) -> None:
    record = game.record
    if actor.player != record.host:
        host = record.seat(record.host)
        raise Refusal("lobby.host_only", name=host.display_name if host else "")


def cancel(game: Game, actor: Actor, now: float) -> Outcome:
    _require_host(game, actor)
    return _closed(game, now, Notice("lobby.cancelled"))


def start(rules: AnyRules, game: Game, actor: Actor, rng: random.Random, now: float) -> Outcome:
    """The host starts the game: the engine deals, the first turn's deadline is set."""
    _require_host(game, actor)
    record = game.record
    if len(record.seats) < rules.min_players:
        raise Refusal("lobby.too_few", count=rules.min_players)
    players = [seat.player for seat in record.seats]
    state = rules.engine.new_game(players, rng, **rules.engine_options(record.options, record.variant))
    return _after_move(rules, game, record.changed(status="running"), None, state, (), now)


#: The display name of a computer player's id in a language (the catalogue lives outside the pure code).
NameComputer = Callable[[str, str], str]


#: The most computer players ``/<game> start opponents:`` seats in any game (the lobby's select adds more).
MOST_OPPONENTS = 7


def most_opponents(rules: AnyRules) -> int:
    """The most computers ``/<game> start`` seats: the game's seats beside the host's, at most :data:`MOST_OPPONENTS`
    (the command's declared range is this, ``tests/i18n/test_commands.py``)."""
    return min(MOST_OPPONENTS, rules.max_players - 1)


def computer_seats(rules: AnyRules, opponents: int, level: str, locale: str, name: NameComputer) -> tuple[Seat, ...]:
    """The computer seats ``/<game> start opponents: level:`` asks for, or a refusal beyond the game's seats."""
    most = most_opponents(rules)
    if type(opponents) is not int or not 0 <= opponents <= most:
        raise Refusal("play.bad_option", name="opponents", low=0, high=most)
    if level not in computer.LEVELS:
        raise Refusal("play.bad_option", name="level", choices=tuple(computer.LEVELS), shown_as="computer.level")
    taken: set[str] = set()
    seats = []
    for _ in range(opponents):
        player = computer.player_id(level, taken)
        taken.add(player)
        seats.append(Seat(player, name(player, locale), "computer"))
    return tuple(seats)


def add_computer(rules: AnyRules, game: Game, actor: Actor, level: str, name: NameComputer) -> Outcome:
    """The host seats a computer player of ``level``, named in the game's language."""
    _require_host(game, actor)
    record = game.record
    if level not in computer.LEVELS:
        raise Refusal("error.illegal_action")
    if len(record.seats) >= rules.max_players:
        raise Refusal("lobby.full", count=rules.max_players)
    player = computer.player_id(level, {seat.player for seat in record.seats})
    seat = Seat(player, name(player, record.locale), "computer")
    return Outcome(game, Game(record.changed(seats=(*record.seats, seat)), None))


def remove_computer(game: Game, actor: Actor) -> Outcome:
    """The host removes the computer player who joined last."""
    _require_host(game, actor)
    record = game.record
    computers = [seat for seat in record.seats if seat.kind == "computer"]
    if not computers:
        raise Refusal("lobby.no_computer")
    seats = tuple(seat for seat in record.seats if seat.player != computers[-1].player)
    return Outcome(game, Game(record.changed(seats=seats), None))


def hints_on(record: GameRecord) -> bool:
    """Whether the Hint button is offered: the host's choice, else on when at most one person plays."""
    chosen = record.options.get("hints")
    if chosen is not None:
        return bool(chosen)
    return sum(seat.kind == "user" for seat in record.seats) <= 1


def hints_chosen(record: GameRecord) -> bool:
    """Whether the host switched hints on or off, rather than the number of people deciding."""
    return "hints" in record.options


def mark_hinted(game: Game, actor: Actor) -> Outcome | None:
    """Note that ``actor`` used a hint (their result is marked); None when already noted."""
    record = game.record
    hinted = list(record.options.get(HINTED, ()))
    if actor.player in hinted:
        return None
    options = {**record.options, HINTED: [*hinted, actor.player], QUIET_SAVES: record.options.get(QUIET_SAVES, 0) + 1}
    return Outcome(game, Game(record.changed(options=options), game.state))


def stamp(record: GameRecord) -> int:
    """The freshness mark a game's controls carry and a click must match: the stored version less the quiet saves.

    A save that changes nothing a control acts on (noting a hint's use) must not outdate the board it redraws: a
    press crossing it (a hint's tables loaded while the player plays on) was refused as "outdated". Every other save
    still moves the stamp on, so a click on an older position is refused as before.
    """
    return record.version - int(record.options.get(QUIET_SAVES, 0))


def toggle_hints(game: Game, actor: Actor) -> Outcome:
    """The host switches hints on or off for this game."""
    _require_host(game, actor)
    record = game.record
    options = {**record.options, "hints": int(not hints_on(record))}
    return Outcome(game, Game(record.changed(options=options), None))


def lobby_action(
    rules: AnyRules,
    game: Game,
    actor: Actor,
    action: str,
    rng: random.Random,
    now: float,
    values: tuple[str, ...] = (),
    name: NameComputer = lambda player, locale: player,
) -> Outcome:
    """A click on a lobby's buttons (``values``: what a select chose; ``name`` names a computer player)."""
    if action == "add_computer" and len(values) == 1:
        return add_computer(rules, game, actor, values[0], name)
    if action == "remove_computer":
        return remove_computer(game, actor)
    if action == "hints":
        return toggle_hints(game, actor)
    if action == "join":
        return join(rules, game, actor)
    if action == "leave":
        return leave_lobby(game, actor, now)
    if action == "cancel":
        return cancel(game, actor, now)
    if action == "start":
        return start(rules, game, actor, rng, now)
    raise Refusal("error.illegal_action")


def expire_lobby(game: Game, now: float) -> Outcome:
    return _closed(game, now, Notice("lobby.expired"))


# ---------------------------------------------------------------------------------------------- the game


def require_seated(game: Game, actor: Actor) -> Seat:
    """The actor's seat at a running game, or a refusal for anyone who is not (or no longer) playing."""
    seat = game.record.seat(actor.player)
    if seat is None:
        raise Refusal("play.not_seated")
    if seat.status == "left":
        raise Refusal("play.you_left_this_game")
    if seat.status != "active":
        raise Refusal("play.you_were_removed")
    return seat


def move(rules: AnyRules, game: Game, actor: Actor, action: Any, rng: random.Random, now: float) -> Outcome:
    """A player's action; the engine decides whether it is legal (raising ``GameError`` if not)."""
    require_seated(game, actor)
    key = rules.turn_key(game.state)
    state = rules.engine.apply(game.state, actor.player, action, rng)
    record = game.record
    if any(seat.player == actor.player and seat.timeouts for seat in record.seats):
        seats = tuple(replace(s, timeouts=0) if s.player == actor.player else s for s in record.seats)
        record = record.changed(seats=seats)
    moves = [played(actor.player, "player", action, game.state, game.record.state)]
    state = _forced_steps(rules, state, actor.player, key, rng, moves)
    return _after_move(rules, game, record, key, state, (), now, tuple(moves))


def _forced_steps(
    rules: AnyRules, state: Any, player: str, key: object, rng: random.Random, moves: list[MoveRow]
) -> Any:
    """The state after the steps ``player`` has no choice in, taken as part of their click (``GameRules.forced``).

    Only while it is still their turn and the game's rules name the step (what the player has no choice but to do
    next): a real choice is never made for them. Each step goes into ``moves`` with the state it was applied to, so
    the history, the reviews and replays see it as if it had been clicked, and it is saved with the click in one
    transaction: nothing can observe the card drawn but not yet rolled. The state carries the events of the click
    and of every step.
    """
    forced = rules.forced
    if forced is None:
        return state
    engine = rules.engine
    events = list(state.events)
    for _ in range(MAX_AUTO_STEPS):
        if rules.turn_key(state) != key:
            break
        step = forced(state, engine.legal_actions(state, player))
        if step is None:
            break
        moves.append(played(player, "player", step, state))
        state = engine.apply(state, player, step, rng)
        events.extend(state.events)
    state.events = events
    return state


def leave(rules: AnyRules, game: Game, actor: Actor, now: float) -> Outcome:
    """``/<game> leave``: out of the lobby, or out of the running game (the card stays, the turn is skipped)."""
    record = game.record
    seat = record.seat(actor.player)
    if seat is None or seat.status != "active":
        raise Refusal("play.not_seated")
    if record.status == "lobby":
        return leave_lobby(game, actor, now, reply_key="play.you_left")
    key = rules.turn_key(game.state)
    state = rules.engine.leave(game.state, actor.player)
    seats = tuple(replace(s, status="left") if s.player == actor.player else s for s in record.seats)
    notices = (Notice("play.left", {"name": seat.display_name}, cause=True),)
    outcome = _after_move(rules, game, hosted(record.changed(seats=seats)), key, state, notices, now)
    return replace(outcome, reply_key="play.you_left")


def end(game: Game, actor: Actor, now: float) -> Outcome:
    """``/<game> end``: the host or a moderator stops the game; it is not counted anywhere."""
    if actor.player != game.record.host and not actor.moderator:
        raise Refusal("play.end_not_allowed")
    return _closed(game, now, Notice("play.ended", {"name": actor.name}), reply_key="play.you_ended")


def channel_gone(game: Game, now: float) -> Outcome:
    """The game's place in Discord is gone (its channel or thread deleted, the bot removed from the server): nobody
    can play there any more, so the game is abandoned (nothing is counted) rather than timing out turn after turn for
    ever. No notice: no channel is left to show it."""
    return _closed(game, now)


def timeout_minutes(rules: AnyRules, record: GameRecord) -> int:
    return int(record.options.get("timeout", rules.timeout_minutes[0]))


def deadline(rules: AnyRules, game: Game, choose: Choose, rng: random.Random, now: float) -> Outcome | None:
    """A stored deadline passed: expire the lobby, play the computers' step or the timed-out turn.

    None when nothing is due.
    """
    record = game.record
    if not due(record, now):
        return None
    if record.status == "lobby":
        return expire_lobby(game, now)
    if computers_to_act(rules, game.record, game.state):
        return computer_step(rules, game, choose, rng, now)
    return timeout(rules, game, choose, rng, now)


def due(record: GameRecord, now: float) -> bool:
    """Whether an active game's stored deadline has passed: what :func:`deadline` acts on."""
    return record.active and record.deadline_at is not None and record.deadline_at <= now


def computers_to_act(rules: AnyRules, record: GameRecord, state: Any) -> list[str]:
    """The active computer players the engine waits for, in its order."""
    seats = {seat.player: seat for seat in record.seats}
    return [
        player
        for player in rules.engine.to_act(state)
        if computer.is_computer(seats.get(player)) and seats[player].status == "active"
    ]


#: Actions that only pick dice (Tutto's Take all besides the die toggles): they prepare the action after them.
PICKING = frozenset({"select_scoring"})


def _is_toggle(action: Any) -> bool:
    """Picking dice only prepares the action after it: a computer's step goes on to that action."""
    return _picks(str(getattr(action, "kind", "")))


def _picks(kind: str) -> bool:
    return kind.startswith("toggle") or kind in PICKING


def moved_on(move: MoveRow) -> bool:
    """Whether ``move`` went past the position it was made in: anything but picking dice (a hint given there is
    stale after it; one given before the dice the player is still picking stays useful)."""
    return not _picks(str(json.loads(move.action).get("kind", "")))


def settled(move: MoveRow) -> bool:
    """Whether ``move`` wrote something down (a box scored, a row passed): neither picking dice nor rolling them.
    A scorecard opened before it shows the card as it was."""
    kind = str(json.loads(move.action).get("kind", ""))
    return not _picks(kind) and kind != "roll"


def computer_step(rules: AnyRules, game: Game, choose: Choose, rng: random.Random, now: float) -> Outcome:
    """Every computer the engine waits for plays one step: its toggles and the action they prepare.

    In Knister that is every computer placing the announced roll at once; elsewhere the one computer whose turn
    it is rolls, keeps or scores, so a person can follow the game move by move.
    """
    engine = rules.engine
    state = game.state
    key = rules.turn_key(state)
    events = []
    moves = []
    for player in computers_to_act(rules, game.record, state):
        level = computer.level_of(player)
        for _ in range(MAX_AUTO_STEPS):
            if player not in engine.to_act(state) or rules.turn_key(state) != key:
                break
            action = choose(state, player, level)
            moves.append(played(player, "computer", action, state))
            state = engine.apply(state, player, action, rng)
            events.extend(state.events)
            if not _is_toggle(action):
                break
    state.events = events
    record = game.record
    if rules.turn_key(state) == key:
        # The people still to act in this turn get their full time from now.
        record = record.changed(deadline_at=now + timeout_minutes(rules, record) * 60)
    return _after_move(rules, game, record, key, state, (), now, tuple(moves))


def paced(rules: AnyRules, outcome: Outcome, now: float, delay: float) -> Outcome:
    """The outcome with its deadline moved to ``now + delay`` when a computer has to act next.

    A computer's pending move is a stored deadline like a person's timeout, so it survives a restart and the
    version check makes sure it is played once.
    """
    after = outcome.after
    record = after.record
    if record.status != "running" or after.state is None or not computers_to_act(rules, record, after.state):
        return outcome
    return replace(outcome, after=Game(record.changed(deadline_at=now + delay), after.state))


def timeout(rules: AnyRules, game: Game, choose: Choose, rng: random.Random, now: float) -> Outcome:
    """The ``normal`` computer plays for everyone who had to act until the turn moves on; count the strike."""
    engine = rules.engine
    state = game.state
    key = rules.turn_key(state)
    events = []
    seats = {seat.player: seat for seat in game.record.seats}
    notices: list[Notice] = []
    moves: list[MoveRow] = []
    for player in list(engine.to_act(state)):
        steps = 0
        while player in engine.to_act(state) and rules.turn_key(state) == key and steps < MAX_AUTO_STEPS:
            action = choose(state, player, computer.TIMEOUT_LEVEL)
            moves.append(played(player, "timeout", action, state))
            state = engine.apply(state, player, action, rng)
            events.extend(state.events)
            steps += 1
        seat = seats[player]
        seat = replace(seat, timeouts=seat.timeouts + 1)
        notices.append(Notice("play.timed_out", {"name": seat.display_name}, cause=True))
        if seat.timeouts >= MAX_TIMEOUTS and seat.status == "active" and not engine.is_over(state):
            seat = replace(seat, status="removed")
            state = engine.leave(state, player)
            events.extend(state.events)
            notices.append(Notice("play.removed", {"name": seat.display_name, "count": MAX_TIMEOUTS}))
        seats[player] = seat
    state.events = events
    record = hosted(game.record.changed(seats=tuple(seats[seat.player] for seat in game.record.seats)))
    return _after_move(rules, game, record, key, state, tuple(notices), now, tuple(moves))


def _after_move(
    rules: AnyRules,
    before: Game,
    record: GameRecord,
    old_key: object,
    state: Any,
    notices: tuple[Notice, ...],
    now: float,
    moves: tuple[MoveRow, ...] = (),
) -> Outcome:
    """Store the new state; move the deadline when a new turn began; finish the game when it is over.

    One copy of the record per outcome (``GameRecord.changed``: a copy of the game row, on every click).
    """
    engine = rules.engine
    dumped = state.dump()
    if not any(seat.status == "active" and seat.kind == "user" for seat in record.seats):
        finished = record.changed(state=dumped, status="abandoned", deadline_at=None, finished_at=now)
        return Outcome(before, Game(finished, state), True, (*notices, Notice("play.abandoned")), moves=moves)
    if engine.is_over(state):
        finished = record.changed(state=dumped, status="finished", deadline_at=None, finished_at=now)
        return Outcome(before, Game(finished, state), True, notices, results(rules, finished, state), moves=moves)
    deadline_at = record.deadline_at
    if before.record.status != "running" or rules.turn_key(state) != old_key:
        deadline_at = now + timeout_minutes(rules, record) * 60
    return Outcome(
        before, Game(record.changed(state=dumped, deadline_at=deadline_at), state), True, notices, moves=moves
    )


def results(rules: AnyRules, record: GameRecord, state: Any) -> tuple[ResultRow, ...]:
    """One result row per person at the table (their card as it stands, also for those who left).

    A game with computer players is stored under its own kind (``<kind>+computer``), with the levels played
    against and won against as counters: people are ranked against people only. A player who used the Hint
    button has the counter :data:`HINTS_USED`. A game of one seat (a person alone, no computer) is never a win, or
    anyone could fill the wins board by playing alone; it counts for the scores and is marked :data:`SOLO`, so
    /stats takes the win rate over the games that had an opponent.
    """
    levels = {computer.level_of(seat.player) for seat in record.seats if seat.kind == "computer"}
    kind = record.kind + computer.VS_COMPUTER if levels else record.kind
    alone = len(record.seats) == 1
    rows = []
    for result in rules.engine.results(state):
        seat = record.seat(result.player)
        if seat is None or seat.user_id is None:
            continue
        # The counters the game keeps for statistics; one the engine leaves out (not in these rules) stays out.
        counters = {name: value for name, value in result.counters.items() if name in rules.counters}
        counters.update(computer.vs_computer_counters(levels, result.won))
        if seat.player in record.options.get(HINTED, ()):
            counters[HINTS_USED] = 1
        if alone:
            counters[SOLO] = 1
        rows.append(
            ResultRow(
                game_id=record.id,
                kind=kind,
                variant=record.variant,
                guild_id=record.guild_id,
                channel_id=record.channel_id,
                user_id=seat.user_id,
                display_name=seat.display_name,
                score=result.score,
                rank=result.rank,
                won=result.won and not alone,
                finished_at=record.finished_at if record.finished_at is not None else 0.0,
                counters=counters,
            )
        )
    return tuple(rows)
