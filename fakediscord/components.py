"""Read-only views of message components (buttons, selects) so tests can find what to click.

Messages keep their components as the raw JSON the bot sent; these helpers walk that tree (action rows, and the
nested containers/sections of components v2) and wrap the interactive parts in small dataclasses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

ACTION_ROW = 1
BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
USER_SELECT = 5
ROLE_SELECT = 6
MENTIONABLE_SELECT = 7
CHANNEL_SELECT = 8
LABEL = 18
SELECT_TYPES = frozenset({STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT})
LINK_STYLE = 5


def walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in the tree, depth first, in display order (rows, containers, sections, accessories)."""
    for component in components:
        yield component
        yield from walk(component.get("components") or [])
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from walk([child])


def assign_ids(components: list[dict[str, Any]]) -> None:
    """Number components without an ``id`` sequentially, as Discord does when it stores a message."""
    used = {c["id"] for c in walk(components) if isinstance(c.get("id"), int)}
    counter = 1
    for component in walk(components):
        if not isinstance(component.get("id"), int):
            while counter in used:
                counter += 1
            component["id"] = counter
            used.add(counter)


@dataclass(frozen=True)
class SelectOption:
    """One option of a string select."""

    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Button:
    """A button as the user sees it; link buttons have ``url`` and no ``custom_id``."""

    custom_id: str | None
    label: str | None
    style: int
    disabled: bool
    emoji: str | None
    url: str | None
    raw: dict[str, Any]

    @classmethod
    def from_payload(cls, raw: dict[str, Any]) -> Button:
        emoji = raw.get("emoji") or {}
        return cls(
            custom_id=raw.get("custom_id"),
            label=raw.get("label"),
            style=int(raw.get("style", 1)),
            disabled=bool(raw.get("disabled", False)),
            emoji=emoji.get("name") if emoji else None,
            url=raw.get("url"),
            raw=raw,
        )


@dataclass(frozen=True)
class Select:
    """A select menu of any kind (``type`` 3 string, 5 user, 6 role, 7 mentionable, 8 channel)."""

    type: int
    custom_id: str
    placeholder: str | None
    options: tuple[SelectOption, ...]
    min_values: int
    max_values: int
    disabled: bool
    raw: dict[str, Any]

    @classmethod
    def from_payload(cls, raw: dict[str, Any]) -> Select:
        return cls(
            type=int(raw["type"]),
            custom_id=raw.get("custom_id", ""),
            placeholder=raw.get("placeholder"),
            options=tuple(
                SelectOption(o.get("label", ""), o.get("value", ""), o.get("description"), bool(o.get("default")))
                for o in raw.get("options") or []
            ),
            min_values=int(raw.get("min_values", 1)),
            max_values=int(raw.get("max_values", 1)),
            disabled=bool(raw.get("disabled", False)),
            raw=raw,
        )

    @property
    def values(self) -> list[str]:
        """The option values, in display order."""
        return [o.value for o in self.options]


def buttons(components: list[dict[str, Any]]) -> list[Button]:
    return [Button.from_payload(c) for c in walk(components) if c.get("type") == BUTTON]


def selects(components: list[dict[str, Any]]) -> list[Select]:
    return [Select.from_payload(c) for c in walk(components) if c.get("type") in SELECT_TYPES]


def find_button(
    components: list[dict[str, Any]],
    *,
    label: str | None = None,
    custom_id: str | None = None,
    prefix: str | None = None,
) -> Button | None:
    """The first button matching every given criterion (exact label, exact custom_id, custom_id prefix)."""
    for button in buttons(components):
        if label is not None and button.label != label:
            continue
        if custom_id is not None and button.custom_id != custom_id:
            continue
        if prefix is not None and not (button.custom_id or "").startswith(prefix):
            continue
        return button
    return None


def find_select(
    components: list[dict[str, Any]], *, custom_id: str | None = None, prefix: str | None = None
) -> Select | None:
    """The first select matching the criteria (or simply the first select when none is given)."""
    for select in selects(components):
        if custom_id is not None and select.custom_id != custom_id:
            continue
        if prefix is not None and not select.custom_id.startswith(prefix):
            continue
        return select
    return None


def describe(components: list[dict[str, Any]]) -> str:
    """A one-line inventory of the interactive components, for error messages."""
    parts = [f"button {b.label!r} ({b.custom_id})" for b in buttons(components)]
    parts += [f"select {s.custom_id!r} {s.values}" for s in selects(components)]
    return ", ".join(parts) or "no interactive components"
