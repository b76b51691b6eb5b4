"""Application commands: the store behind the sync routes, and turning a test's slash call into command data.

Commands exist for the fake users only once the bot has synced them, as on Discord. ``server.slash(...)`` goes
through :meth:`CommandStore.build_invocation`, which refuses (in the test, with :class:`UnknownCommand` or
:class:`InvalidInput`) anything the Discord client would not let a user send, so a bot is never handed an
interaction for a command it did not register. ``server.autocomplete(...)`` goes through
:meth:`CommandStore.build_autocomplete`: the same command data while the user is still typing, with the option
typed into marked ``focused``.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from fakediscord.errors import APIError, InvalidInput, UnknownCommand, shown
from fakediscord.models import Channel, Role, Snowflakes, User
from fakediscord.validation import FormErrors, check_commands, validate_command

SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11
CHAT_INPUT = 1
#: The option types Discord lets a command ask autocomplete suggestions for.
AUTOCOMPLETE_TYPES = (STRING, INTEGER, NUMBER)


@dataclass
class Invocation:
    """A validated slash invocation: the interaction ``data`` (without ``resolved``) and the entities to resolve."""

    command: dict[str, Any]
    data: dict[str, Any]
    referenced: list[User | Role | Channel] = field(default_factory=list)


@dataclass(frozen=True)
class Focus:
    """The option a user is typing into, and what they typed so far (always text, whatever the option's type)."""

    option: str
    typed: str


class CommandStore:
    """Global and per-guild command lists, keyed the way Discord keys them (ids survive an overwrite by name)."""

    def __init__(self, application_id: int, snowflakes: Snowflakes) -> None:
        self.application_id = application_id
        self._snowflakes = snowflakes
        self._global: list[dict[str, Any]] = []
        self._guild: dict[int, list[dict[str, Any]]] = {}
        #: Incremented by every write; the server's ``wait_for_commands`` watches it.
        self.writes = 0

    def list(self, guild_id: int | None = None) -> list[dict[str, Any]]:
        return list(self._global if guild_id is None else self._guild.get(guild_id, []))

    def overwrite(self, guild_id: int | None, commands: builtins.list[dict[str, Any]]) -> builtins.list[dict[str, Any]]:
        """PUT bulk overwrite: validate all, keep ids of commands that keep their (name, type), drop the rest."""
        check_commands(commands)
        old = {(c["name"], c["type"]): c for c in self.list(guild_id)}
        stored = [self._store(guild_id, c, old.get((c["name"], c.get("type", CHAT_INPUT)))) for c in commands]
        self._set(guild_id, stored)
        return stored

    def upsert(self, guild_id: int | None, command: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """POST one command: replaces the one with the same name and type; returns (command, created)."""
        errors = FormErrors()
        validate_command(command, errors, ())
        errors.raise_if_any()
        current = self.list(guild_id)
        key = (command.get("name"), command.get("type", CHAT_INPUT))
        existing = next((c for c in current if (c["name"], c["type"]) == key), None)
        stored = self._store(guild_id, command, existing)
        self._set(guild_id, [stored if c is existing else c for c in current] + ([] if existing else [stored]))
        return stored, existing is None

    def get(self, guild_id: int | None, command_id: int) -> dict[str, Any]:
        for command in self.list(guild_id):
            if int(command["id"]) == command_id:
                return command
        raise APIError.unknown_command()

    def edit(self, guild_id: int | None, command_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        existing = self.get(guild_id, command_id)
        merged = {**existing, **changes}
        errors = FormErrors()
        validate_command(merged, errors, ())
        errors.raise_if_any()
        stored = self._store(guild_id, merged, existing)
        self._set(guild_id, [stored if c is existing else c for c in self.list(guild_id)])
        return stored

    def delete(self, guild_id: int | None, command_id: int) -> None:
        existing = self.get(guild_id, command_id)
        self._set(guild_id, [c for c in self.list(guild_id) if c is not existing])

    def find(
        self, guild_id: int | None, name: str, kind: int = CHAT_INPUT, locale: str | None = None
    ) -> dict[str, Any] | None:
        """What a user in that guild (or DM when ``None``) can invoke: guild commands shadow global ones.

        ``name`` may also be the command's name in ``locale`` (the user's), as their client shows it."""
        scopes = ([guild_id] if guild_id is not None else []) + [None]
        for scope in scopes:
            for command in self.list(scope):
                if called(command, name, locale) and command["type"] == kind:
                    return command
        return None

    def names(self, guild_id: int | None) -> builtins.list[str]:
        scopes = ([guild_id] if guild_id is not None else []) + [None]
        return sorted({c["name"] for scope in scopes for c in self.list(scope) if c["type"] == CHAT_INPUT})

    def build_invocation(
        self,
        guild_id: int | None,
        path: str,
        values: dict[str, Any],
        *,
        forged: bool = False,
        locale: str | None = None,
    ) -> Invocation:
        """Resolve ``"group sub"`` and typed option values into APPLICATION_COMMAND interaction data.

        ``forged`` skips the checks of choices and ranges, as a hand-made request to the API would. The names may
        be typed as the user's client shows them in ``locale`` (``name_localizations``); the data carries the
        names the bot declared, as Discord sends them.
        """
        return self._invocation(guild_id, path, values, forged=forged, locale=locale)

    def build_autocomplete(
        self, guild_id: int | None, path: str, focus: Focus, values: dict[str, Any], *, locale: str | None = None
    ) -> Invocation:
        """APPLICATION_COMMAND_AUTOCOMPLETE interaction data: the user types ``focus.typed`` into ``focus.option``.

        As Discord sends it: the options filled so far (``values``, type-checked; required ones may still be
        missing) and the focused one with the raw text typed, a string even for a number. Only an option declared
        with ``autocomplete`` asks the bot.
        """
        return self._invocation(guild_id, path, values, focus=focus, locale=locale)

    def _invocation(
        self,
        guild_id: int | None,
        path: str,
        values: dict[str, Any],
        *,
        forged: bool = False,
        focus: Focus | None = None,
        locale: str | None = None,
    ) -> Invocation:
        typed = path.split()
        if not typed:
            raise UnknownCommand("empty command path")
        command = self.find(guild_id, typed[0], locale=locale)
        if command is None:
            raise UnknownCommand(f"/{typed[0]} is not synced; available: {self.names(guild_id)}")
        names, node = resolve(command, typed, locale)
        values = {option_name(node, name, locale): value for name, value in values.items()}
        if focus is not None:
            focus = Focus(option_name(node, focus.option, locale), focus.typed)
        referenced: list[User | Role | Channel] = []
        options = _build_options(command, names, 1, values, referenced, forged, focus)
        data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": CHAT_INPUT}
        if options:
            data["options"] = options
        if command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        return Invocation(command, data, referenced)

    def _store(self, guild_id: int | None, command: dict[str, Any], existing: dict[str, Any] | None) -> dict[str, Any]:
        kind = command.get("type", CHAT_INPUT)
        permissions = command.get("default_member_permissions")
        stored = {
            "id": existing["id"] if existing else str(self._snowflakes.next()),
            "application_id": str(self.application_id),
            "version": str(self._snowflakes.next()),
            "type": kind,
            "name": command["name"],
            "description": command.get("description", "") if kind == CHAT_INPUT else "",
            "options": command.get("options") or [],
            "default_member_permissions": None if permissions is None else str(permissions),
            "dm_permission": command.get("dm_permission", True),
            "nsfw": command.get("nsfw", False),
            "contexts": command.get("contexts"),
            "integration_types": command.get("integration_types") or [0],
            "name_localizations": command.get("name_localizations"),
            "description_localizations": command.get("description_localizations"),
        }
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        return stored

    def scopes(self) -> dict[int | None, builtins.list[dict[str, Any]]]:
        """Every stored command list by scope (None: global), for saving the world."""
        return {None: self.list(None), **{guild: self.list(guild) for guild in self._guild}}

    def restore(self, guild_id: int | None, commands: builtins.list[dict[str, Any]]) -> None:
        """Put back commands saved with the world, as Discord keeps them between a bot's runs (not a write)."""
        if guild_id is None:
            self._global = list(commands)
        else:
            self._guild[guild_id] = list(commands)

    def _set(self, guild_id: int | None, commands: builtins.list[dict[str, Any]]) -> None:
        if guild_id is None:
            self._global = commands
        else:
            self._guild[guild_id] = commands
        self.writes += 1


def permitted(command: dict[str, Any], permissions: int) -> bool:
    """Whether a member with ``permissions`` in the guild may use ``command`` (its ``default_member_permissions``,
    all of them); Discord's client does not even list the others."""
    required = command.get("default_member_permissions")
    return required is None or permissions & int(required) == int(required)


def called(item: dict[str, Any], name: str, locale: str | None) -> bool:
    """Whether a command, subcommand or option is ``name``: its own name, or its name in ``locale``."""
    return item["name"] == name or (locale is not None and (item.get("name_localizations") or {}).get(locale) == name)


def resolve(command: dict[str, Any], typed: list[str], locale: str | None) -> tuple[list[str], dict[str, Any]]:
    """The declared names of a typed path (each name its own or its ``locale`` one) and the deepest node it names.

    A name that is no subcommand stays as typed, for :func:`_build_options` to refuse with the choices."""
    node, names = command, [command["name"]]
    for name in typed[1:]:
        nested = [o for o in node.get("options") or [] if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        child = next((o for o in nested if called(o, name, locale)), None)
        if child is None:
            return names + typed[len(names) :], node
        node = child
        names.append(child["name"])
    return names, node


def shown_path(command: dict[str, Any], path: list[str], locale: str | None) -> list[str]:
    """A declared path (``["kniffel", "start"]``) as a client set to ``locale`` shows it: each name in its
    ``locale`` form where the command declares one (a German client reads "/kniffel starten")."""
    node, shown = command, [_local_name(command, locale)]
    for name in path[1:]:
        nested = [o for o in node.get("options") or [] if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        child = next((o for o in nested if o["name"] == name), None)
        if child is None:
            return shown + path[len(shown) :]
        node = child
        shown.append(_local_name(child, locale))
    return shown


def _local_name(item: dict[str, Any], locale: str | None) -> str:
    return str((item.get("name_localizations") or {}).get(locale or "") or item["name"])


def option_name(node: dict[str, Any], name: str, locale: str | None) -> str:
    """The declared name of ``node``'s option typed as ``name`` (its own or its ``locale`` one); else ``name``."""
    return next((o["name"] for o in node.get("options") or [] if called(o, name, locale)), name)


def _build_options(
    node: dict[str, Any],
    names: list[str],
    depth: int,
    values: dict[str, Any],
    referenced: list[User | Role | Channel],
    forged: bool = False,
    focus: Focus | None = None,
) -> list[dict[str, Any]]:
    declared: list[dict[str, Any]] = node.get("options") or []
    nested = [o for o in declared if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    qualified = " ".join(names[:depth])
    if nested:
        if depth >= len(names):
            raise UnknownCommand(f"/{qualified} needs a subcommand: {[o['name'] for o in nested]}")
        child = next((o for o in nested if o["name"] == names[depth]), None)
        if child is None:
            raise UnknownCommand(f"/{qualified} has no subcommand {shown(names[depth])}: {[o['name'] for o in nested]}")
        return [
            {
                "name": child["name"],
                "type": child["type"],
                "options": _build_options(child, names, depth + 1, values, referenced, forged, focus),
            }
        ]
    if depth < len(names):
        raise UnknownCommand(f"/{qualified} has no subcommands (asked for {shown(' '.join(names))})")
    by_name = {o["name"]: o for o in declared}
    unknown = sorted(set(values) - set(by_name))
    if unknown:
        raise InvalidInput(f"/{qualified} has no option(s) {shown(unknown)}; declared: {sorted(by_name)}")
    missing = [o["name"] for o in declared if o.get("required") and o["name"] not in values]
    if missing and focus is None:
        raise InvalidInput(f"/{qualified} is missing required option(s) {missing}")
    options = [
        {
            "name": name,
            "type": by_name[name]["type"],
            "value": value if forged else _option_value(by_name[name], value, referenced),
        }
        for name, value in values.items()
    ]
    if focus is not None:
        options.append(_focused(qualified, by_name, focus, values))
    return options


def _focused(
    qualified: str, by_name: dict[str, dict[str, Any]], focus: Focus, values: dict[str, Any]
) -> dict[str, Any]:
    """The option being typed into, as an autocomplete interaction carries it; refused if it would not ask the bot."""
    option = by_name.get(focus.option)
    if option is None:
        raise InvalidInput(f"/{qualified} has no option {shown(focus.option)}; declared: {sorted(by_name)}")
    if focus.option in values:
        raise InvalidInput(f"option {focus.option!r} is being typed into: give its text as typed, not as a value")
    if option["type"] not in AUTOCOMPLETE_TYPES or not option.get("autocomplete"):
        raise InvalidInput(f"option {focus.option!r} of /{qualified} has no autocomplete")
    if not isinstance(focus.typed, str):
        raise InvalidInput(f"option {focus.option!r} is typed into as text, got {shown(focus.typed)}")
    return {"name": focus.option, "type": option["type"], "value": focus.typed, "focused": True}


def _option_value(option: dict[str, Any], value: Any, referenced: list[User | Role | Channel]) -> Any:
    """Type-check one value like the Discord client's option picker would, returning its wire form."""
    kind = option["type"]
    name = option["name"]
    accepted: dict[int, tuple[type[Any], ...]] = {
        STRING: (str,),
        INTEGER: (int,),
        NUMBER: (int, float),
        BOOLEAN: (bool,),
        USER: (User,),
        CHANNEL: (Channel,),
        ROLE: (Role,),
        MENTIONABLE: (User, Role),
    }
    if kind not in accepted:
        raise InvalidInput(f"option {name!r} has type {kind}, which fakediscord cannot send")
    if not isinstance(value, accepted[kind]) or (kind in (INTEGER, NUMBER) and isinstance(value, bool)):
        raise InvalidInput(f"option {name!r} expects {[t.__name__ for t in accepted[kind]]}, got {shown(value)}")
    choices = option.get("choices")
    if choices and not option.get("autocomplete") and value not in [c["value"] for c in choices]:
        raise InvalidInput(f"option {name!r} must be one of {[c['value'] for c in choices]}, got {shown(value)}")
    if kind in (INTEGER, NUMBER):
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInput(f"option {name!r} must be within [{low}, {high}], got {shown(value)}")
    if kind == STRING:
        low, high = option.get("min_length", 0), option.get("max_length", 6000)
        if not low <= len(value) <= high:
            raise InvalidInput(f"option {name!r} must be {low}..{high} characters long, got {len(value)}")
    if isinstance(value, User | Role | Channel):
        if isinstance(value, Channel) and option.get("channel_types") and value.type not in option["channel_types"]:
            raise InvalidInput(f"option {name!r} accepts channel types {option['channel_types']}")
        referenced.append(value)
        return str(value.id)
    return value
