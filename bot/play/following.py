"""Private views that follow the game: each player's latest grid, edited through its interaction's token.

A Knister grid is an ephemeral message. Only the token of an interaction that showed it can edit it (the Place
click that answered with it, or a cell click on it that updated it), for 15 minutes after that interaction, and
the bot never learns of it otherwise. So the service hands each successful answer that showed a following view
to :meth:`Followers.follow`; when the game changes (a roll, another player placing, a timeout, the end) the
grids are re-rendered and edited in the background, after the change was answered and announced. One click per
round instead of two. One view per player and game follows: when a newer message of it is shown (Place pressed
again), the older one is deleted rather than left with controls of a round that moved on.

Kept in memory only, on purpose: the token dies within 15 minutes anyway, and after a restart the player presses
**Place** once to get a grid that follows again. Nothing here may slow down or fail a click: every edit runs in
its own task, bounded in time, and a failed edit (token expired early, message dismissed, Discord refused) is
logged once and its follower forgotten.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.play.ports import PrivateMessage
from bot.play.transitions import Game
from bot.ui.render import Rendered, embed_payload

log = logging.getLogger(__name__)

#: Discord's lifetime of an interaction token (seconds from the interaction).
TOKEN_LIFETIME = 15 * 60.0
#: A token is trusted for a minute less: the interaction was created before the bot saw it, and an edit begun
#: just before the end must not race the expiry.
TOKEN_MARGIN = 60.0
#: Seconds one edit may take before it counts as failed (rate limits are waited out inside it).
EDIT_TIMEOUT = 10.0


#: Renders a private view for a follower: (game, view name, player id, locale) → the message.
RenderView = Callable[[Game, str, str, str], Rendered]


def fingerprint(rendered: Rendered) -> str:
    """What a rendered message looks like, to skip edits that would change nothing: its JSON as a click's answer
    writes it (``discord_io.update_payload``), without building discord.py's ``View`` and ``Embed`` dicts again."""
    payload = {
        "content": rendered.content,
        "embeds": [embed_payload(embed) for embed in rendered.embeds],
        "components": rendered.layout.components(),
    }
    return json.dumps(payload, sort_keys=True, default=str)


@dataclass(eq=False)
class Follower:
    """One player's latest following view of one game, and what it should show."""

    game_id: int
    player: str
    view: str
    locale: str
    message: PrivateMessage
    expires_at: float
    #: The newest version rendered for it, that rendering, and its fingerprint.
    version: int
    rendered: Rendered
    looks: str
    #: The version the message is known to show (the answer that showed it, or our last edit).
    shown: int
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()


class Followers:
    """Every following private view of every game, and the background edits that keep them current."""

    def __init__(
        self,
        render: RenderView,
        clock: Callable[[], float],
        lifetime: float = TOKEN_LIFETIME - TOKEN_MARGIN,
        timeout: float = EDIT_TIMEOUT,
    ) -> None:
        self._render = render
        self._clock = clock
        self._lifetime = lifetime
        self._timeout = timeout
        self._followers: dict[tuple[int, str], Follower] = {}
        self._changed: dict[int, Game] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._followers)

    def following(self, game_id: int, player: str) -> Follower | None:
        """The follower of a player's view of a game, if one is kept."""
        return self._followers.get((game_id, player))

    def follow(
        self, game: Game, player: str, view: str, locale: str, message: PrivateMessage, rendered: Rendered
    ) -> None:
        """``message`` now shows ``rendered`` (the game as saved) to ``player``: keep it current from now on.

        Called after the answer that showed it succeeded; the token is trusted for ``lifetime`` from now. A
        background edit still running for the same player is told to end on this version, so an older edit
        landing after this answer is corrected.
        """
        key = (game.record.id, player)
        version = game.record.version
        follower = self._followers.get(key)
        expires_at = self._clock() + self._lifetime
        if follower is None:
            follower = Follower(
                game.record.id,
                player,
                view,
                locale,
                message,
                expires_at,
                version,
                rendered,
                fingerprint(rendered),
                shown=version,
            )
            self._followers[key] = follower
            return
        if follower.message.id is not None and message.id is not None and follower.message.id != message.id:
            self._retire(follower, follower.message)
        follower.view, follower.locale, follower.message, follower.expires_at = view, locale, message, expires_at
        if version >= follower.version:
            follower.version, follower.rendered, follower.looks = version, rendered, fingerprint(rendered)
        # An edit in flight may land after this answer: have it followed by the newest version again.
        follower.shown = -1 if follower.busy else version
        self._kick(follower)

    def forget_game(self, game_id: int) -> None:
        """Stop following every view of a game (it ended, or its views no longer apply)."""
        for key in [key for key in self._followers if key[0] == game_id]:
            del self._followers[key]

    def changed(self, game: Game) -> None:
        """A change of ``game`` was saved; its views are edited at the next :meth:`flush`, not now."""
        if any(key[0] == game.record.id for key in self._followers):
            self._changed[game.record.id] = game

    def flush(self) -> None:
        """Start the edits of every view whose game changed (never waits; the edits run in their own tasks)."""
        changed, self._changed = self._changed, {}
        now = self._clock()
        for game_id, game in changed.items():
            for key, follower in [(key, f) for key, f in self._followers.items() if key[0] == game_id]:
                if now >= follower.expires_at:
                    log.info(
                        "game %s: the private %s of %s expired; it waits for a click",
                        game_id,
                        follower.view,
                        follower.player,
                    )
                    del self._followers[key]
                    continue
                self._update(follower, game)
            if not game.record.active:
                self.forget_game(game_id)

    def _update(self, follower: Follower, game: Game) -> None:
        if game.record.version <= follower.version:
            return
        try:
            rendered = self._render(game, follower.view, follower.player, follower.locale)
        except Exception:
            log.exception(
                "game %s: could not render the private %s of %s", game.record.id, follower.view, follower.player
            )
            self._forget(follower)
            return
        looks = fingerprint(rendered)
        if looks == follower.looks and follower.shown == follower.version:
            follower.shown = game.record.version
        follower.version, follower.rendered, follower.looks = game.record.version, rendered, looks
        self._kick(follower)

    def _kick(self, follower: Follower) -> None:
        """Start the follower's edit task unless it shows the newest version or one is running."""
        if follower.shown < follower.version and not follower.busy:
            follower.task = asyncio.create_task(self._edit(follower), name=f"dicebot-follow-{follower.game_id}")

    async def _edit(self, follower: Follower) -> None:
        """Edit until the message shows the newest rendering; the first failure forgets the follower."""
        while follower.shown < follower.version:
            version, rendered = follower.version, follower.rendered
            message = follower.message
            if self._clock() >= follower.expires_at:
                self._forget(follower)
                return
            try:
                await asyncio.wait_for(message.edit(rendered), self._timeout)
            except Exception as error:  # any failure: logged once, the player clicks Place again
                if follower.message is not message:
                    continue  # a newer answer brought a fresh token meanwhile: show its version through that
                log.warning(
                    "game %s: could not update the private %s of %s (%s: %s); it waits for a click",
                    follower.game_id,
                    follower.view,
                    follower.player,
                    type(error).__name__,
                    error,
                )
                self._forget(follower)
                return
            follower.shown = max(follower.shown, version)

    def _retire(self, follower: Follower, message: PrivateMessage) -> None:
        """Delete a player's older view once a newer message of it follows the game.

        Left alone it would keep the clickable cells of the round it last showed (or be given them by an edit
        still in flight), and answer every click with "already placed" or "outdated": one view per player is
        kept current, so the older one goes. An edit of it still in flight then fails on the deleted message and
        goes on with the newer one.
        """
        task = asyncio.create_task(self._delete(follower, message), name=f"dicebot-retire-{follower.game_id}")
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _delete(self, follower: Follower, message: PrivateMessage) -> None:
        try:
            await asyncio.wait_for(message.delete(), self._timeout)
        except Exception as error:  # dismissed already, or its token died: it stays, no worse than before
            log.info(
                "game %s: could not delete the older private %s of %s (%s: %s)",
                follower.game_id,
                follower.view,
                follower.player,
                type(error).__name__,
                error,
            )

    def _forget(self, follower: Follower) -> None:
        key = (follower.game_id, follower.player)
        if self._followers.get(key) is follower:
            del self._followers[key]

    async def close(self) -> None:
        """Cancel the edits still running (at shutdown: a grid edit is worth no wait)."""
        tasks = [f.task for f in self._followers.values() if f.task is not None and not f.task.done()]
        tasks += self._retiring
        self._followers.clear()
        self._changed.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
