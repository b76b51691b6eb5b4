"""What the live board adds to a game's own render: the latest announcements on top, and a retired board's record."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.ui.render import Rendered

#: Discord's limit on a message's content.
CONTENT_LIMIT = 2000
#: The last line of news that had to leave lines out, so the reader sees there was more.
LEFT_OUT = "…"


def with_news(rendered: Rendered, news: Sequence[str]) -> Rendered:
    """The board with the latest announcements above its own content, so an action adds no message of its own.

    The game's content (which pings the player to act) always stays whole; of the news only whole lines are kept,
    as a line cut short can end inside a name or a ``<@id>`` mention and show garbage (``_whole_lines``).
    """
    if not news:
        return rendered
    own = rendered.content or ""
    room = CONTENT_LIMIT - len(own) - (1 if own else 0)
    text = _whole_lines(news, room)
    rendered.content = "\n".join(part for part in (text, own) if part) or None
    return rendered


def retired(kind: str, locale: str, news: Sequence[str] = ()) -> Rendered:
    """A board that moved down the channel: one compact line of record (its news, else a pointer down), no controls."""
    text = _whole_lines(news, CONTENT_LIMIT) or t("play.retired", locale, game=t(f"game.{kind}", locale))
    return Rendered(content=text)


def _whole_lines(news: Sequence[str], room: int) -> str:
    """The first lines of ``news`` that fit ``room`` characters whole, and a last ``…`` line when any were left out.

    The first lines are the ones to keep: an action's news is told in the order it happened, what caused it (a
    dozen players timed out), the game's own announcements (the roll, the new round, the winner), then what
    followed (a dozen players removed), so the cut takes the end of the story. It stops at the first line that does
    not fit, so what is shown is never out of order.
    """
    text = "\n".join(news)
    if len(text) <= room:
        return text
    kept: list[str] = []
    used = len(LEFT_OUT)
    for line in news:
        used += len(line) + 1
        if used > room:
            break
        kept.append(line)
    return "\n".join([*kept, LEFT_OUT]) if len(LEFT_OUT) <= room else ""
