"""The latest message ids of each channel, as the gateway reports them: is the live board still near the bottom?

Discord tells the bot about every new message in its servers (the non-privileged Guild Messages intent, without
their content). Keeping the last few ids per channel answers "how many messages are below the board" at no cost,
so the board can move down even in the middle of a turn once chatter pushed it out of the last three, without a
history request on every click. A tail that has watched its channel since before the board was posted has seen
everything below it, and answers for the start of a turn too; otherwise (after a restart, a new gateway session
that may have missed messages, a channel forgotten for room) the history request at the start of each turn
(``Channels.below``) is the authoritative check.

Deleted messages leave the count (chatter deleted again, the post a process withdraws after losing a shard
hand-over), so they no longer move the board at the next turn. A deletion can never make the tail undercount:
what it stopped holding for room still counts as below a board older than it.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Collection
from dataclasses import dataclass, field

from bot.play.board import LOOK_BELOW

#: Channels remembered at most (least recently active forgotten first): a bound on memory in a large bot.
CHANNELS = 4096


@dataclass
class _Tail:
    """One channel: the first message seen since the tail began watching it, the latest ones, and the newest of
    those it stopped holding for room (0: none), which may still be in the channel below a board."""

    first: int
    latest: deque[int] = field(default_factory=lambda: deque(maxlen=LOOK_BELOW))
    dropped: int = 0


class ChannelTail:
    """The last ``LOOK_BELOW`` message ids seen in each of the most recently active channels."""

    def __init__(self, channels: int = CHANNELS) -> None:
        self._limit = channels
        self._tails: OrderedDict[int, _Tail] = OrderedDict()

    def seen(self, channel_id: int, message_id: int) -> None:
        """A message was posted in the channel (by anybody, the bot included)."""
        tail = self._tails.pop(channel_id, None) or _Tail(first=message_id)
        if len(tail.latest) == LOOK_BELOW:
            tail.dropped = max(tail.dropped, tail.latest[0])
        tail.latest.append(message_id)
        self._tails[channel_id] = tail
        while len(self._tails) > self._limit:
            self._tails.popitem(last=False)

    def below(self, channel_id: int, message_id: int) -> int:
        """How many of the channel's last messages seen are newer than ``message_id`` (at most ``LOOK_BELOW``)."""
        tail = self._tails.get(channel_id)
        if tail is None:
            return 0
        if tail.dropped > message_id:  # older messages below it than the tail holds (they may still be there)
            return LOOK_BELOW
        return sum(1 for seen in tail.latest if seen > message_id)

    def deleted(self, channel_id: int, message_ids: Collection[int]) -> None:
        """Messages of the channel were deleted: they no longer count as below a board."""
        tail = self._tails.get(channel_id)
        if tail is not None:
            kept = [seen for seen in tail.latest if seen not in message_ids]
            tail.latest = deque(kept, maxlen=LOOK_BELOW)

    def complete_since(self, channel_id: int, message_id: int) -> bool:
        """Whether every message posted in the channel after ``message_id`` was seen: the tail watched the channel
        from ``message_id`` (or earlier) on, so :meth:`below` is as good as asking the channel's history."""
        tail = self._tails.get(channel_id)
        return tail is not None and tail.first <= message_id

    def forget(self) -> None:
        """A new gateway session began: messages posted while disconnected were never reported, so no tail is
        complete any more."""
        self._tails.clear()
