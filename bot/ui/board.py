"""What the live board adds to a game's own render: the latest announcements on top, and a retired board's record."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.ui.render import Rendered

#: Discord's limit on a message's content.
CONTENT_LIMIT = 2000


def with_news(rendered: Rendered, news: Sequence[str]) -> Rendered:
    """The board with the latest announcements above its own content, so an action adds no message of its own.

    The game's content (which names the player to act) always fits; the news is cut from the end when both would
    pass Discord's limit.
    """
    if not news:
        return rendered
    own = rendered.content or ""
    room = CONTENT_LIMIT - len(own) - (1 if own else 0)
    text = "\n".join(news)[: max(room, 0)]
    rendered.content = "\n".join(part for part in (text, own) if part) or None
    return rendered


def retired(kind: str, locale: str, news: Sequence[str] = ()) -> Rendered:
    """A board that moved down the channel: one compact line of record (its news, else a pointer down), no controls."""
    text = "\n".join(news) or t("play.retired", locale, game=t(f"game.{kind}", locale))
    return Rendered(content=text[:CONTENT_LIMIT])
