"""The line above a private view shown to someone not playing: whose it is, and the command that shows anyone's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import t
from bot.ui.render import Table


def watching(table: Table[Any], whose: str, note: str, command: Sequence[str]) -> str:
    """The catalogue line ``note`` for a view of ``whose`` shown to a watcher.

    ``command`` is the command's path as ``cmd.*`` catalogue keys (``kniffel.name``, ``scorecard.name``): written in
    the reader's language it is what their client lists (German ``/würfelpoker block spieler:``), where a literal
    ``/dicepoker scorecard`` would name a command they do not have. The name is the markdown-safe one, never a ping.
    """
    locale = table.locale
    path = " ".join(t(f"cmd.{key}", locale) for key in command)
    shown = f"/{path} {t('cmd.option.player', locale)}:"
    return t(note, locale, name=table.name(whose), command=shown)
