"""Restart-safe buttons and selects: everything a click needs is in its custom_id.

``g:<game id>:<action>:<argument>:<stamp>``. The stamp is the game's stored version when the message was
rendered (or another freshness mark a game chooses), so a click on an outdated message can be refused.
One :class:`discord.ui.DynamicItem` matches every id, so components keep working after a restart without
any view held in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

PREFIX = "g"
CUSTOM_ID = re.compile(rf"{PREFIX}:(?P<game>\d+):(?P<action>[a-z_]+):(?P<arg>[A-Za-z0-9_.\-]*):(?P<stamp>\d+)")
MAX_CUSTOM_ID = 100


@dataclass(frozen=True)
class Click:
    """A decoded component interaction."""

    game_id: int
    action: str
    arg: str
    stamp: int
    values: tuple[str, ...] = ()


def custom_id(game_id: int, action: str, arg: str | int = "", stamp: int = 0) -> str:
    """Encode a component id, refusing one Discord would reject or our pattern would not match."""
    value = f"{PREFIX}:{game_id}:{action}:{arg}:{stamp}"
    if len(value) > MAX_CUSTOM_ID or not CUSTOM_ID.fullmatch(value):
        raise ValueError(f"invalid component id {value!r}")
    return value


def parse_custom_id(value: str, values: Sequence[str] = ()) -> Click | None:
    match = CUSTOM_ID.fullmatch(value)
    if match is None:
        return None
    return Click(int(match["game"]), match["action"], match["arg"], int(match["stamp"]), tuple(values))


class GameComponent(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID.pattern):
    """The one handler behind every game button and select, registered in ``setup_hook``.

    It hands the click to the bot's game service (``interaction.client.service``).
    """

    def __init__(self, click: Click) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(click.game_id, click.action, click.arg, click.stamp)))
        self.click = click

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GameComponent:
        values = (interaction.data or {}).get("values", ())
        click = parse_custom_id(match.string, values)
        assert click is not None
        return cls(click)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.service.on_click(interaction, self.click)


class Layout:
    """Buttons and selects arranged in rows, turned into a view that is never kept in memory.

    The view is stopped before it is sent: discord.py then does not store it, and clicks reach
    :class:`GameComponent` only, however long ago the message was posted.
    """

    def __init__(self) -> None:
        self._items: list[discord.ui.Item[Any]] = []

    def button(
        self,
        row: int,
        label: str | None,
        component_id: str,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        emoji: str | None = None,
    ) -> Layout:
        self._items.append(
            discord.ui.Button(label=label, custom_id=component_id, style=style, disabled=disabled, emoji=emoji, row=row)
        )
        return self

    def select(
        self,
        row: int,
        placeholder: str,
        component_id: str,
        options: Iterable[tuple[str, str, str | None]],
        *,
        disabled: bool = False,
    ) -> Layout:
        """A single-choice select; ``options`` are (label, value, description) triples, at most 25."""
        choices = [
            discord.SelectOption(label=label[:100], value=value, description=(description or None))
            for label, value, description in options
        ]
        self._items.append(
            discord.ui.Select(
                placeholder=placeholder[:150], custom_id=component_id, options=choices, disabled=disabled, row=row
            )
        )
        return self

    def link(self, row: int, label: str, url: str) -> Layout:
        self._items.append(discord.ui.Button(label=label, url=url, row=row))
        return self

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for item in self._items:
            view.add_item(item)
        view.stop()
        return view

    def __bool__(self) -> bool:
        return bool(self._items)
