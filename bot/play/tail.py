"""The latest message ids of each channel, as the gateway reports them: is the live board still near the bottom?

Discord tells the bot about every new message in its servers (the non-privileged Guild Messages intent, without
their content). Keeping the last few ids per channel answers "how many messages are below the board" at no cost,
so the board can move down even in the middle of a turn once chatter pushed it out of the last three, without a
history request on every click. After a restart the tail knows only what came since; the history request at the
start of each turn (``Channels.below``) is the authoritative check.
"""

from __future__ import annotations

from collections import OrderedDict, deque

from bot.play.board import LOOK_BELOW

#: Channels remembered at most (least recently active forgotten first): a bound on memory in a large bot.
CHANNELS = 4096


class ChannelTail:
    """The last ``LOOK_BELOW`` message ids seen in each of the most recently active channels."""

    def __init__(self, channels: int = CHANNELS) -> None:
        self._limit = channels
        self._tails: OrderedDict[int, deque[int]] = OrderedDict()

    def seen(self, channel_id: int, message_id: int) -> None:
        """A message was posted in the channel (by anybody, the bot included)."""
        tail = self._tails.pop(channel_id, None) or deque(maxlen=LOOK_BELOW)
        tail.append(message_id)
        self._tails[channel_id] = tail
        while len(self._tails) > self._limit:
            self._tails.popitem(last=False)

    def below(self, channel_id: int, message_id: int) -> int:
        """How many of the channel's last messages seen are newer than ``message_id`` (at most ``LOOK_BELOW``)."""
        return sum(1 for seen in self._tails.get(channel_id, ()) if seen > message_id)
