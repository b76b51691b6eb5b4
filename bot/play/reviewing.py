"""Post-game reviews: the Review button on a finished game's message and ``/<game> review [game]``.

Reads the stored move history, waits for the game's strategy tables (saying "preparing" meanwhile) and computes
the review (``bot/play/review.py``) in a worker thread, after deferring the interaction: a review values every
decision of a game, which can take longer than Discord's 3 seconds. No game lock is taken: a finished game does not
change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.i18n import t
from bot.play import computer, review, transitions
from bot.play.ports import Request, origin
from bot.play.spec import AnySpec
from bot.play.transitions import Game, Refusal
from bot.storage import MAX_GAME_ID, FinishedGame, GameRecord, GamesRepository, HistoryRepository, StorageUnavailable
from bot.ui import review as review_ui
from bot.ui.render import Click, Rendered

log = logging.getLogger(__name__)

#: The Review button's action, on the message of a finished game (in the Hint button's row).
REVIEW = "review"


def review_seat(record: GameRecord, player: str) -> bool:
    """Whether ``player`` is a person who played this finished game (and so may review it)."""
    seat = record.seat(player)
    return record.status == "finished" and seat is not None and seat.kind == "user"


class Reviews:
    """Answers review requests; one instance per game service."""

    def __init__(
        self,
        games: GamesRepository,
        history: HistoryRepository | None,
        specs: Mapping[str, AnySpec],
        brain: computer.Brain | None,
    ) -> None:
        self._games = games
        #: The stored move history (None: every review says there is nothing stored).
        self._history = history
        self._specs = specs
        self._brain = brain

    async def choices(self, player: str, spec: AnySpec, limit: int = 25) -> list[FinishedGame]:
        """The player's latest finished games of ``spec`` with a stored history, newest first."""
        if self._history is None:
            return []
        return await self._history.finished_games(player, [spec.kind], limit)

    async def menu(self, player: str, spec: AnySpec) -> list[FinishedGame]:
        """The ``game`` option's suggestions: none while the database is out of reach.

        Discord shows an autocomplete that raised as "loading options failed"; an empty list lets the player send
        the command anyway, which then says to try again in a moment.
        """
        try:
            return await self.choices(player, spec)
        except StorageUnavailable as error:
            log.warning("no review suggestions for %s: storage unavailable (%s)", player, error)
            return []

    async def command(self, request: Request, spec: AnySpec, game_id: int | None = None) -> None:
        """``/<game> review [game]``: the player's review of one finished game (default: their latest)."""
        name = t(f"game.{spec.kind}", request.locale)
        if game_id is None:
            latest = await self.choices(request.actor.player, spec, limit=1)
            if not latest:
                await request.refuse("review.no_games", game=name)
                return
            game_id = latest[0].game_id
        # A forged id past what the database holds raised there (OverflowError) and was answered as an internal
        # error (QA); it is no game of anyone's, as a button's is (components.dispatch).
        record = await self._games.get(game_id) if 0 < game_id <= MAX_GAME_ID else None
        if record is None or record.kind != spec.kind or not review_seat(record, request.actor.player):
            await request.refuse("review.unknown_game", game=name)
            return
        await self._review(request, spec, record)

    async def click(self, request: Request, click: Click) -> None:
        """The Review button on a finished game's message: that game's review, privately, for a person who played."""
        record = await self._games.get(click.game_id)
        if record is None:
            await request.refuse("play.unknown_game")
            return
        try:
            transitions.check_origin(record, request.actor, origin(request), False)
        except Refusal as refusal:
            await request.refuse(refusal.key, **refusal.params)
            return
        if not review_seat(record, request.actor.player):
            await request.refuse("review.not_seated")
            return
        await self._review(request, self._specs[record.kind], record)

    async def _review(self, request: Request, spec: AnySpec, record: GameRecord) -> None:
        """Defer, load the history, wait for the tables ("preparing" meanwhile) and compute in a worker thread.

        A review values every decision of a game (hundreds of strategy evaluations, a Knister placement takes
        rollouts), so it never runs on the event loop and never inside the 3-second acknowledgement.
        """
        await request.defer_private()
        player = request.actor.player
        moves = await self._history.moves(record.id) if self._history is not None else []
        state = Game.load(spec, record).state
        reviewable = any(move.player == player for move in moves) and review.complete(spec, moves)
        if not reviewable or self._brain is None or state is None:
            await request.edit_private(Rendered(content=t("review.no_history", request.locale)))
            return
        brain = self._brain
        if not brain.is_ready(state):
            loading = brain.prepare(state, player)
            await request.edit_private(Rendered(content=t("review.preparing", request.locale)))
            if loading is not None:
                try:
                    await loading
                except Exception:  # a failed start-up build: the worker thread loads what the review needs
                    log.warning("game %s: the strategy tables did not load; the review loads them itself", record.id)
        try:
            result = await computer.in_daemon_thread(
                review.review, spec, record.variant, player, moves, brain.directory
            )
        except Exception:
            log.exception("game %s: the review of %s could not be computed", record.id, player)
            await request.edit_private(Rendered(content=t("review.failed", request.locale)))
            return
        rendered = review_ui.render(result, record.channel_id, record.finished_at, request.locale, record.locale)
        await request.edit_private(rendered)
