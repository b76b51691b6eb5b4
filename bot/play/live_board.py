"""The live board's messages: editing it, posting it anew, moving it down the channel, stripping the boards it
replaced.

What to do is decided in ``bot/play/board.py`` (pure: whether the board moves, what follows an edit); this carries
it out through the channel port and stores the board's message ids, so that :class:`~bot.play.service.GameService`
reads as lock → load → decide → save → respond. Everything here runs under the game's lock, held by the service.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from bot.play import board, transitions
from bot.play.cache import GameCache
from bot.play.ports import Channels, Edit
from bot.play.shown import ShownVersions
from bot.play.spec import AnySpec
from bot.play.tail import ChannelTail
from bot.play.transitions import Game, Outcome
from bot.storage import GameRecord, GamesRepository, StaleVersion, StorageUnavailable
from bot.ui import board as board_ui
from bot.ui.render import Rendered

log = logging.getLogger(__name__)


class RepostBudget:
    """How often a game's board is posted anew after deletions, per version of the game: a few times at most.

    Each repost pings the player to act; a bot or rule that deletes the board as it appears would otherwise have
    the board posted, and the player pinged, as often as Discord lets it. Past the budget the board stays gone
    until the game moves on: the next deadline's edit finds it gone and posts it (a new version, a new budget).
    Only the latest games are remembered, so the budget costs a bounded few bytes.
    """

    def __init__(self, per_version: int = 3, remembered: int = 1024) -> None:
        self.per_version = per_version
        self._remembered = remembered
        #: game id → (version, reposts of that version)
        self._spent: OrderedDict[int, tuple[int, int]] = OrderedDict()

    def take(self, game_id: int, version: int) -> bool:
        """Whether the game's board at ``version`` may be posted anew once more (counted if so)."""
        seen, count = self._spent.pop(game_id, (version, 0))
        count = count if seen == version else 0
        self._spent[game_id] = (version, count + 1)
        while len(self._spent) > self._remembered:
            self._spent.popitem(last=False)
        return count < self.per_version


class CheckedBoards:
    """The live boards this process found in place since it started (game id → the board's message id), so that a
    board is checked once: a check is an edit before a click is answered, sharing the channel's rate limit with the
    moves. A deletion while the process runs is reported by the gateway, so a board found once stays known until
    it is replaced. Only the latest games are remembered, like :class:`RepostBudget`.
    """

    def __init__(self, remembered: int = 1024) -> None:
        self._remembered = remembered
        self._boards: OrderedDict[int, int] = OrderedDict()

    def known(self, game_id: int, message_id: int | None) -> bool:
        return message_id is not None and self._boards.get(game_id) == message_id

    def found(self, game_id: int, message_id: int) -> None:
        self._boards.pop(game_id, None)
        self._boards[game_id] = message_id
        while len(self._boards) > self._remembered:
            self._boards.popitem(last=False)


class LiveBoards:
    """The board half of :class:`~bot.play.service.GameService`, which inherits it (its tests replace these methods
    on the service): edits, posts and strips the games' boards, noting what each board shows."""

    _games: GamesRepository
    _channels: Channels
    cache: GameCache
    shown: ShownVersions
    tail: ChannelTail
    reposts: RepostBudget
    #: The game's board as it stands (the service's: lobby, running, finished or abandoned, with its news).
    render: Callable[[AnySpec, Game], Rendered]
    #: The service's save (kept in memory, followers told) and clock.
    _save: Callable[[Outcome], Awaitable[Game]]
    _clock: Callable[[], float]

    async def show(self, spec: AnySpec, game: Game) -> Game | None:
        """Edit the game's live board to show ``game`` and carry out what follows (``board.after_edit``); the game
        as it now stands (with a new board when the old one was found deleted, abandoned when its channel was),
        None if it could not be shown.
        """
        record = game.record
        if record.message_id is None:
            return None
        edit = await self._channels.edit(record, self.render(spec, game))
        then = board.after_edit(edit, record)
        if then is board.AfterEdit.SHOWN:
            self.shown.note(record)
            return game
        if then is board.AfterEdit.REPOST:
            return await self._repost(spec, game, record.message_id)
        return await self._not_shown(game, then)

    async def _not_shown(self, game: Game, then: board.AfterEdit) -> Game | None:
        """Carry out what follows a failed edit or post of the game's board (``then``): show it again soon, abandon
        the game, or nothing; the game as it now stands if it was abandoned, else None."""
        record = game.record
        if then is board.AfterEdit.RETRY:
            self.shown.missed(record)
        elif then is board.AfterEdit.ABANDON:
            return await self._abandon_lost(game, f"its channel {record.channel_id} is gone")
        return None

    async def _abandon_lost(self, game: Game, why: str) -> Game:
        """The game's place in Discord is gone (``why``: its channel or thread deleted, the bot removed from the
        server): abandon it (no result), so its timeouts stop firing where nobody can see them; the game as it now
        stands. A save that fails leaves it to the next deadline, whose edit Discord refuses again (a channel that
        is gone is found again; a server's removal is found again at the next gateway session's start)."""
        record = game.record
        try:
            abandoned = await self._save(transitions.channel_gone(game, self._clock()))
        except (StaleVersion, StorageUnavailable) as error:
            log.warning("game %s: %s, but it could not be abandoned: %s", record.id, why, error)
            return game
        log.info("game %s: %s; abandoned", record.id, why)
        return abandoned

    async def _repost(self, spec: AnySpec, game: Game, gone: int) -> Game | None:
        """The live board ``gone`` is gone (a moderator deleted it): post it anew at the bottom of the channel, where
        its content pings the player to act, and store it as the live board; the game with its new board, None if
        not.

        A failed post is followed up as a failed edit would be (``board.after_edit``): one worth retrying is noted as
        a missed edit (the repair edits the board, finds it gone and posts it again), one Discord refuses for good
        is not (logged once), and a channel that is gone ends an active game (a finished one stays finished). The new
        board is stored only while ``gone`` is still the stored one: during a shard hand-over another process may
        have posted it anew first, and then its board is the live one (:meth:`_adopt`) and this post is withdrawn.
        """
        record = game.record
        new_id = await self._channels.send(record, self.render(spec, game))
        if isinstance(new_id, Edit):
            return await self._not_shown(game, board.after_edit(new_id, record))
        try:
            stored = await self._games.replace_message(record.id, gone, new_id, shown_version=record.version)
        except StorageUnavailable as error:
            # The deleted board stays the stored one (the repair tries again); this message must not carry controls.
            log.warning("game %s: could not store its board posted anew: %s", record.id, error)
            await self._withdraw(spec, record, new_id)
            self.shown.missed(record)
            return None
        if not stored:
            log.info("game %s: its board %s was posted anew by another process first", record.id, gone)
            await self._withdraw(spec, record, new_id)
            return await self._adopt(spec, record)
        reposted = Game(record.changed(message_id=new_id), game.state)
        self.cache.put(reposted)  # the next click must know the new board
        self.shown.note(reposted.record)
        return reposted

    async def _withdraw(self, spec: AnySpec, record: GameRecord, message_id: int) -> None:
        """Take back a board this process posted but could not store as the live one (another process stored its
        own first, or the database was out of reach): delete it, else strip its controls.

        Deleted rather than turned into the one-line record: that record says the game continues below, and the live
        board may stand above it. Only a delete Discord does not carry out leaves the record (no controls either).
        The gateway reports the deletion back (:meth:`~bot.play.service.GameService.on_messages_deleted`), which
        passes it by: no game has this message as its board.
        """
        if await self._channels.delete(record, message_id) is not Edit.DONE:
            await self._channels.edit(record, board_ui.retired(spec.kind, record.locale), message_id=message_id)

    async def _adopt(self, spec: AnySpec, record: GameRecord) -> Game | None:
        """Another process stored a board of the game posted anew (after a deletion, or further down the channel):
        take the game as the database has it (its board the live one), None if it cannot be read now (the next
        request reads it then).

        That board may show an older version than the database (the other process posted what it had loaded), so
        it is shown again soon (``ShownVersions``); an identical edit costs nothing but the request.
        """
        self.cache.drop(record.id)
        self.shown.missed(record)
        try:
            stored = await self._games.get(record.id)
        except StorageUnavailable as error:
            log.warning("game %s: could not read the board another process posted: %s", record.id, error)
            return None
        if stored is None:
            return None
        adopted = Game.load(spec, stored)
        self.cache.put(adopted)
        return adopted

    async def _keep_at_bottom(self, spec: AnySpec, before: Game, saved: Game) -> None:
        """Post the board anew at the bottom when a new turn began and other messages were posted below it, or
        when chatter pushed it out of the channel's last three messages.

        Called under the game's lock after the board was edited in place. The new message is stored as the live
        board together with the old one as retired (one write), then the old one loses its controls; a restart
        in between finds the retired board and strips it (``GameService.catch_up``), and a click on it is pointed
        to the new one. The write stores it only while the old board is still the live one: during a shard
        hand-over another process may have moved it first, and then its board is the live one (:meth:`_adopt`),
        this post is withdrawn and the old board stripped once more (this process's edit of it may have come after
        the other one's strip).
        """
        record = saved.record
        if record.retired_message_id is not None and not await self._strip(spec, record, record.retired_message_id):
            # A strip that failed before (or was cut short by a restart) is completed by the next action; while
            # it keeps failing the board stays put, since a move would overwrite the retired board's id.
            return
        if record.message_id is None or record.status == "abandoned":
            return
        started = board.turn_started(spec, before, saved)
        # What the gateway reported is enough in the middle of a turn, and at a turn's start when the tail has watched
        # the channel since the board was posted; otherwise a turn's start asks the channel's history.
        if started and not self.tail.complete_since(record.channel_id, record.message_id):
            below = await self._channels.below(record)
        else:
            below = self.tail.below(record.channel_id, record.message_id)
        if not board.should_move(started, below):
            return
        new_id = await self._channels.send(record, self.render(spec, saved))
        if isinstance(new_id, Edit):
            return
        old = record.message_id
        try:
            stored = await self._games.move_board(record.id, new_id, old, record.version)
        except StorageUnavailable as error:
            # The old board stays the live one; the new message must not carry controls nobody can use.
            log.warning("game %s: could not store its new board: %s", record.id, error)
            await self._withdraw(spec, record, new_id)
            return
        if not stored:
            log.info("game %s: its board %s was moved by another process first", record.id, old)
            await self._withdraw(spec, record, new_id)
            # This process edited the old board with controls just now, maybe after the other one stripped it.
            await self._strip(spec, record, old)
            await self._adopt(spec, record)
            return
        moved = record.changed(message_id=new_id, retired_message_id=old)
        self.cache.put(Game(moved, saved.state))  # the next click must know the new board
        self.shown.note(moved)
        await self._strip(spec, moved, old)

    async def _strip(self, spec: AnySpec, record: GameRecord, message_id: int) -> bool:
        """Turn an earlier board of the game into a short record without controls (and forget it as retired);
        whether the edit went through."""
        retired = board_ui.retired(spec.kind, record.locale, board.news_of(record))
        # A board that is gone has no controls left either, and one Discord refuses to edit never will have fewer.
        edited = await self._channels.edit(record, retired, message_id) is not Edit.RETRY
        if edited and message_id == record.retired_message_id:
            try:
                await self._games.board_retired(record.id, message_id)
            except StorageUnavailable as error:
                log.warning("game %s: could not note its retired board as stripped: %s", record.id, error)
                return edited
            kept = self.cache.get(record.id)
            if kept is not None and kept.record.retired_message_id == message_id:
                # The kept copy follows the database (no version bump), so the next click needs no read.
                self.cache.put(Game(kept.record.changed(retired_message_id=None), kept.state))
        return edited
