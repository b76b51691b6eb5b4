"""The live board's life cycle as pure decisions: when it moves down the channel, what follows an edit of it, and
where an old click points.

A game has one live board: the public message with its controls (``GameRecord.message_id``). Announcements fold
into it, so a quiet channel keeps one message per game. When a new turn (Knister: a round) starts, or the game
starts or ends, and other messages were posted below the board, the service posts the board anew at the bottom
(its content pings the player to act) and strips the controls from the old one, leaving a one-line record. An
edit that finds the board deleted posts it anew, one that finds its channel deleted ends the game. Which of these
applies is decided here, without Discord or the database, so it can be tested on its own.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.play.game import AnyRules
from bot.play.ports import Edit
from bot.play.transitions import HINTED, QUIET_SAVES, Game, NameComputer, Origin, lobby_closed
from bot.storage.games import GameRecord, Seat

#: How many of the channel's latest messages the service looks at below the board (one is enough to move it).
LOOK_BELOW = 3
#: Game options the board keeps: the turn's announcements shown on it (and which of them the next announcement
#: keeps, as ``[start, stop]``), the people a rematch lobby invites, and the channel's next game (a finished game's
#: board then stops offering Rematch).
NEWS = "news"
NEWS_KEPT = "news_kept"
INVITED = "invited"
NEXT_GAME = "next_game"


def jump_url(record: GameRecord, message_id: int | None = None) -> str:
    """A link to the game's live board (or ``message_id``), or to its channel when no message is known."""
    guild = record.guild_id if record.guild_id is not None else "@me"
    message = message_id if message_id is not None else record.message_id
    return f"https://discord.com/channels/{guild}/{record.channel_id}/{message or ''}".rstrip("/")


def news_of(record: GameRecord) -> list[str]:
    """The lines the board shows on top: what the game's latest announced action did (see ``GameService._noted``)."""
    return [str(line) for line in record.options.get(NEWS, ())]


def noted(
    options: Mapping[str, Any], lines: Sequence[str], *, turn_over: bool, keep_turn_end: bool, game_over: bool
) -> dict[str, Any]:
    """The game's options with ``lines``, an action's announcements, as its news.

    Without ``keep_turn_end`` the lines replace the news before them. With it, the news also keeps the lines that
    ended the last turn (``NEWS_KEPT``) above them: the next player's first steps, a computer's within seconds,
    would otherwise replace how the turn before ended before anyone saw it. An action of the same turn replaces the
    turn's own lines; one that ends the turn (``turn_over``) replaces everything and becomes what the next turn
    keeps. So the board shows the announcements of two actions at most, and never a line older than the end of
    the turn just before the current one (QA: a bust stayed on top after the next player's whole turn had ended).
    The action that ends the game (``game_over``) keeps them too, as the final board is the last anyone reads (QA:
    a person's Stop card right before a computer's winning bank left them no trace of why they scored 0). Every
    flag is named at the call, none has a default: a caller that forgot ``game_over`` lost the final news.
    """
    if not keep_turn_end:
        return {**options, NEWS: list(lines)}
    if turn_over and not game_over:
        return {**options, NEWS: list(lines), NEWS_KEPT: [0, len(lines)]}
    news = [str(line) for line in options.get(NEWS, ())]
    start, stop = options.get(NEWS_KEPT, (0, 0))
    kept = news[start:stop]
    return {**options, NEWS: [*kept, *lines], NEWS_KEPT: [0, len(kept)]}


def turn_started(rules: AnyRules, before: Game, after: Game) -> bool:
    """Whether this change began a new turn (Knister: round), started the game or finished it.

    Only then may the board move: moving it in the middle of a turn would pull the buttons away from under the
    finger of the player who is clicking them. An abandoned game never moves (it has no controls left).
    """
    old, new = before.record, after.record
    if old.status != new.status:
        return new.status in ("running", "finished")
    if new.status != "running" or before.state is None or after.state is None:
        return False
    return bool(rules.turn_key(before.state) != rules.turn_key(after.state))


def should_move(turn_started: bool, below: int | None) -> bool:
    """Post the board anew: a new turn began with anything below the board, or chatter pushed it out of the
    channel's last ``LOOK_BELOW`` messages in the middle of a turn (``below`` unknown: it stays put).

    In the middle of a turn the player is looking at the board, so it moves only once it is really out of sight.
    """
    if below is None:
        return False
    return below >= (1 if turn_started else LOOK_BELOW)


def post_anew_when_gone(record: GameRecord) -> bool:
    """Whether a board an edit found deleted is posted anew: an active game's, since nobody could click otherwise,
    and a finished game's that no next game has followed, since that edit was to show the final scores, which
    nobody would ever see.

    A finished board shown and then deleted stays deleted: nothing edits it again but a next game (which marks
    ``NEXT_GAME`` first), and its deletion is not looked up (``active_with_board``), so a moderator who removes the
    final scores has the last word.
    """
    return record.active or (record.status == "finished" and NEXT_GAME not in record.options)


class AfterEdit(enum.Enum):
    """What follows an edit of the live board, or a post of it anew that failed (``LiveBoards`` carries it out)."""

    #: Note the version the board shows now (``ShownVersions``).
    SHOWN = "shown"
    #: Show it again in a few seconds (``ShownVersions``): the edit is worth another try.
    RETRY = "retry"
    #: Post the board anew at the bottom of the channel and store it as the live board.
    REPOST = "repost"
    #: Abandon the game (no result): its channel is gone, so nobody can play it.
    ABANDON = "abandon"
    #: Nothing: Discord refuses the edit for good (logged once), or a board nobody needs any more is gone.
    NOTHING = "nothing"


def after_edit(edit: Edit, record: GameRecord) -> AfterEdit:
    """What follows an edit of ``record``'s live board that went as ``edit`` (or a post of it anew that failed so).

    A board that is gone is posted anew when :func:`post_anew_when_gone` says so; a channel that is gone ends an
    active game, while a game that is over keeps its ending (its results and history stay as they are).
    """
    if edit is Edit.DONE:
        return AfterEdit.SHOWN
    if edit is Edit.RETRY:
        return AfterEdit.RETRY
    if edit is Edit.GONE and post_anew_when_gone(record):
        return AfterEdit.REPOST
    if edit is Edit.NO_CHANNEL and record.active:
        return AfterEdit.ABANDON
    return AfterEdit.NOTHING


def from_old_board(record: GameRecord, origin: Origin) -> bool:
    """A public click in the game's own channel on one of its messages that is not the live board.

    Such a message, posted by the bot with this game's controls, is an earlier board (a move cut short by a
    restart, or a client that missed an edit): the click is answered with a pointer to the live board instead of
    "does not belong to this game". Anybody else's message is refused as the wrong place.
    """
    if origin.private or not origin.by_bot or origin.message_id is None or record.message_id is None:
        return False
    if origin.guild_id != record.guild_id or origin.channel_id != record.channel_id:
        return False
    return origin.message_id != record.message_id


@dataclass(frozen=True)
class Pointer:
    """The private answer to a click on a message whose game is not there any more: a key and its parameters."""

    key: str
    params: dict[str, Any]


def pointer(clicked: GameRecord | None, current: GameRecord | None, action: str = "") -> Pointer:
    """Where a click on an old message should send the player.

    ``clicked`` is the game the message belonged to (None: deleted), ``current`` the channel's active game,
    ``action`` the control clicked: a lobby's on a game that has started since says so.
    """
    if current is not None and clicked is not None and current.id == clicked.id:
        if lobby_closed(current, action):
            return Pointer("lobby.already_started", {"link": jump_url(current)})
        return Pointer("play.board_moved", {"link": jump_url(current)})
    # A lobby closed before it started (cancelled, expired, left empty) was no game: "that game is over" puzzled
    # whoever pressed Join on it (QA).
    old = "play.old_lobby" if clicked is not None and clicked.state is None else "play.old_game"
    if current is not None:
        return Pointer(old, {"link": jump_url(current)})
    return Pointer(f"{old}_none", {})


def stale_press(record: GameRecord, origin: Origin, followed: bool = False) -> Pointer:
    """The private answer to a press the game has moved past (its stamp is old, or its save lost to a newer one).

    On the live board, or on the private view the bot keeps current for the player (``followed``), the press only
    crossed a change: the second of a double click, two players' presses crossing, an edit the client had not
    shown yet. "Outdated, use the latest game message" sent the player to the message they had pressed (QA), so
    they are told it changed first (the service shows it again), or, when the change was that same press of
    theirs, that it already went through (``GameService._made_by_own_press``). A press on an older message (last
    round's grid) is outdated and links to the live board. An earlier public board never gets here: its pointer is
    :func:`pointer`'s ``play.board_moved``.
    """
    on_board = not origin.private and origin.message_id is not None and origin.message_id == record.message_id
    if on_board or (origin.private and followed):
        return Pointer("play.board_changed", {})
    return Pointer("play.outdated", {"link": jump_url(record)})


def rematch_options(record: GameRecord) -> dict[str, Any]:
    """The options a rematch lobby starts with: the old game's, without what only that game's play recorded."""
    played = (HINTED, QUIET_SAVES, NEXT_GAME, INVITED, NEWS, NEWS_KEPT)
    return {name: value for name, value in record.options.items() if name not in played}


def rematch_computers(record: GameRecord, locale: str, name: NameComputer) -> tuple[Seat, ...]:
    """The computer players a rematch seats again: playing, without timeouts, named in the new lobby's language."""
    return tuple(
        replace(seat, display_name=name(seat.player, locale), status="active", timeouts=0)
        for seat in record.seats
        if seat.kind == "computer"
    )


def invited(record: GameRecord, host: str) -> list[str]:
    """The people a rematch invites: everyone who played the old game to its end but the new host, in seat order.

    Someone who left or was removed is not pinged to a game they walked away from; they may still press Join.
    """
    return [
        seat.player for seat in record.seats if seat.kind == "user" and seat.status == "active" and seat.player != host
    ]


def starts_at_once(record: GameRecord) -> bool:
    """Whether a rematch of this finished game starts without a lobby: its one person played computers only.

    That lobby would wait for nobody (the computers are seated again) and cost a tap on Start. Anyone else seated,
    even one who left, keeps the lobby: they may want to join. A game played alone keeps it too, so friends can.
    """
    people = [seat for seat in record.seats if seat.kind == "user"]
    return len(people) == 1 and len(record.seats) > 1
