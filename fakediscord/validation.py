"""Discord's documented payload limits, checked the way Discord checks them.

A bot that works against fakediscord but trips a limit on the real API is the failure this module exists to
prevent: every violation becomes a ``400 50035 Invalid Form Body`` whose ``errors`` object is nested by field
path exactly like Discord's (``{"components": {"0": {"components": {"5": {"_errors": [...]}}}}}``).
"""

from __future__ import annotations

import re
from typing import Any

from fakediscord import components as comps
from fakediscord.errors import APIError

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_V2_COMPONENTS = 40
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_SELECT_OPTIONS = 25
MAX_OPTION_TEXT = 100
MAX_PLACEHOLDER = 150
MAX_CHOICES = 25
MAX_CHOICE_TEXT = 100
#: Integer and number option values (and their choices) lie within ±2^53, what a double holds exactly.
MAX_OPTION_NUMBER = 2**53
EMBED_LIMITS = {"title": 256, "description": 4096}
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")

Path = tuple[str | int, ...]


def invalid_text(value: object, where: str = "") -> str | None:
    """Where in JSON data (``"options.level"``, ``"users[4].name"``, ``"a name in options"``) the first string is
    that holds a lone surrogate (``"\\ud800"`` in the JSON); None when every string is text.

    Python's JSON reader accepts one, but it is no text: Discord never sends it, and discord.py's parser (orjson)
    refuses the whole gateway frame that holds it, which ends the bot.
    """
    if isinstance(value, str):
        return None if _is_text(value) else where
    if isinstance(value, dict):
        for key, item in value.items():
            if not _is_text(key):
                return f"a name in {where or 'the data'}"
            found = invalid_text(item, f"{where}.{key}" if where else key)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = invalid_text(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None


def _is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text: UTF-8 encodes every string but one holding a lone surrogate."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class FormErrors:
    """Collects errors by field path and renders Discord's nested ``errors`` object."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Path, code: str, message: str) -> None:
        node = self.tree
        for key in path:
            node = node.setdefault(str(key), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_length(self, path: Path, value: Any, limit: int) -> None:
        if isinstance(value, str | list) and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def bad_length(self, path: Path, value: Any, low: int, high: int) -> None:
        if value is None or not low <= len(value) <= high:
            self.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")

    def required(self, path: Path) -> None:
        self.add(path, "BASE_TYPE_REQUIRED", "This field is required")

    def raise_if_any(self) -> None:
        if self.tree:
            raise APIError.invalid_form_body(self.tree)


def check_message(data: dict[str, Any], *, prefix: Path = ()) -> None:
    """Raise 50035 if a message create/edit payload breaks a limit; ``prefix`` nests errors (``("data",)``)."""
    errors = FormErrors()
    validate_message(data, errors, prefix)
    errors.raise_if_any()


def validate_message(data: dict[str, Any], errors: FormErrors, prefix: Path = ()) -> None:
    content = data.get("content")
    if content is not None:
        errors.max_length((*prefix, "content"), str(content), MAX_CONTENT)
    embeds = data.get("embeds")
    if embeds:
        validate_embeds(embeds, errors, (*prefix, "embeds"))
    components = data.get("components")
    if components:
        if int(data.get("flags") or 0) & (1 << 15):
            if content or embeds:
                errors.add(
                    (*prefix, "content" if content else "embeds"),
                    "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                    "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2",
                )
            validate_components_v2(components, errors, (*prefix, "components"))
        else:
            validate_action_rows(components, errors, (*prefix, "components"))


def validate_embeds(embeds: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    errors.max_length(path, embeds, MAX_EMBEDS)
    total = 0
    for i, embed in enumerate(embeds):
        at = (*path, i)
        for key, limit in EMBED_LIMITS.items():
            value = embed.get(key)
            if value is not None:
                errors.max_length((*at, key), value, limit)
                total += len(value)
        fields = embed.get("fields") or []
        errors.max_length((*at, "fields"), fields, 25)
        for j, fld in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                value = fld.get(key)
                if not value:
                    errors.required((*at, "fields", j, key))
                else:
                    errors.max_length((*at, "fields", j, key), value, limit)
                    total += len(value)
        footer = (embed.get("footer") or {}).get("text")
        if footer:
            errors.max_length((*at, "footer", "text"), footer, 2048)
            total += len(footer)
        author = (embed.get("author") or {}).get("name")
        if author:
            errors.max_length((*at, "author", "name"), author, 256)
            total += len(author)
    if total > MAX_EMBED_TOTAL:
        errors.add(path, "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}")


def validate_action_rows(rows: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    """Classic (non-v2) messages: at most 5 action rows, and only action rows at the top level."""
    errors.max_length(path, rows, MAX_ROWS)
    for i, row in enumerate(rows):
        if row.get("type") != comps.ACTION_ROW:
            errors.add((*path, i, "type"), "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).')
            continue
        validate_component(row, errors, (*path, i))
    _check_unique_custom_ids(rows, errors, path)


def validate_components_v2(components: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    if sum(1 for _ in comps.walk(components)) > MAX_V2_COMPONENTS:
        errors.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_V2_COMPONENTS} or fewer in length.")
    for i, component in enumerate(components):
        validate_component(component, errors, (*path, i))
    _check_unique_custom_ids(components, errors, path)


def validate_component(component: dict[str, Any], errors: FormErrors, path: Path) -> None:
    kind = component.get("type")
    if kind == comps.ACTION_ROW:
        children = component.get("components") or []
        errors.bad_length((*path, "components"), children, 1, MAX_ROW_BUTTONS)
        has_select = any(c.get("type") in comps.SELECT_TYPES for c in children)
        if has_select and len(children) > 1:
            errors.add(
                (*path, "components"),
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        for j, child in enumerate(children):
            validate_component(child, errors, (*path, "components", j))
    elif kind == comps.BUTTON:
        _validate_button(component, errors, path)
    elif kind in comps.SELECT_TYPES:
        _validate_select(component, errors, path)
    else:
        for j, child in enumerate(component.get("components") or []):
            validate_component(child, errors, (*path, "components", j))
        if isinstance(component.get("accessory"), dict):
            validate_component(component["accessory"], errors, (*path, "accessory"))


def _validate_button(button: dict[str, Any], errors: FormErrors, path: Path) -> None:
    style = button.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        errors.add((*path, "style"), "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
    if style == comps.LINK_STYLE:
        if not button.get("url"):
            errors.required((*path, "url"))
        if button.get("custom_id"):
            errors.add((*path, "custom_id"), "BUTTON_COMPONENT_LINK_CUSTOM_ID", "A link button cannot have a custom id")
    elif style != 6:
        _validate_custom_id(button, errors, path)
    if button.get("label") is not None:
        errors.max_length((*path, "label"), button["label"], MAX_BUTTON_LABEL)
    elif not button.get("emoji") and style != 6:
        errors.add((*path, "label"), "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or an emoji is required")


def _validate_select(select: dict[str, Any], errors: FormErrors, path: Path) -> None:
    _validate_custom_id(select, errors, path)
    if select.get("placeholder") is not None:
        errors.max_length((*path, "placeholder"), select["placeholder"], MAX_PLACEHOLDER)
    min_values = select.get("min_values", 1)
    max_values = select.get("max_values", 1)
    if not 0 <= min_values <= MAX_SELECT_OPTIONS:
        errors.add((*path, "min_values"), "NUMBER_TYPE_MAX", "int value should be between 0 and 25.")
    if not 1 <= max_values <= MAX_SELECT_OPTIONS:
        errors.add((*path, "max_values"), "NUMBER_TYPE_MAX", "int value should be between 1 and 25.")
    if min_values > max_values:
        errors.add(
            (*path, "min_values"), "SELECT_COMPONENT_MIN_GREATER_THAN_MAX", "min_values must not exceed max_values"
        )
    if select.get("type") != comps.STRING_SELECT:
        return
    options = select.get("options")
    errors.bad_length((*path, "options"), options, 1, MAX_SELECT_OPTIONS)
    options = options or []
    for k, option in enumerate(options):
        at = (*path, "options", k)
        for key in ("label", "value"):
            errors.bad_length((*at, key), option.get(key), 1, MAX_OPTION_TEXT)
        if option.get("description") is not None:
            errors.max_length((*at, "description"), option["description"], MAX_OPTION_TEXT)
    values = [o.get("value") for o in options]
    if len(values) != len(set(values)):
        errors.add(
            (*path, "options"),
            "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
            "Select component option value cannot be duplicated",
        )
    if options and max_values > len(options):
        errors.add(
            (*path, "max_values"),
            "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
            "max_values must be less than or equal to the number of options",
        )


def _validate_custom_id(component: dict[str, Any], errors: FormErrors, path: Path) -> None:
    custom_id = component.get("custom_id")
    if not custom_id:
        errors.required((*path, "custom_id"))
    else:
        errors.max_length((*path, "custom_id"), custom_id, MAX_CUSTOM_ID)


def _check_unique_custom_ids(components: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    seen: set[str] = set()
    for component in comps.walk(components):
        custom_id = component.get("custom_id")
        if component.get("type") == comps.ACTION_ROW or not custom_id:
            continue
        if custom_id in seen:
            errors.add(path, "COMPONENT_CUSTOM_ID_DUPLICATED", f"Component custom id cannot be duplicated: {custom_id}")
        seen.add(custom_id)


def check_modal(data: dict[str, Any], *, prefix: Path = ("data",)) -> None:
    """Modal (callback type 9): title 1..45, custom_id 1..100, 1..5 top-level components, text input limits."""
    errors = FormErrors()
    errors.bad_length((*prefix, "title"), data.get("title"), 1, 45)
    _validate_custom_id(data, errors, prefix)
    rows = data.get("components")
    errors.bad_length((*prefix, "components"), rows, 1, 5)
    for i, row in enumerate(rows or []):
        for j, item in enumerate(comps.walk([row])):
            if item.get("type") != comps.TEXT_INPUT:
                continue
            at = (*prefix, "components", i, j)
            _validate_custom_id(item, errors, at)
            if item.get("label") is not None:
                errors.max_length((*at, "label"), item["label"], 45)
            for key, limit in (("value", 4000), ("placeholder", 100)):
                if item.get(key) is not None:
                    errors.max_length((*at, key), item[key], limit)
    errors.raise_if_any()


def check_autocomplete(data: dict[str, Any], option_type: int, *, prefix: Path = ("data",)) -> None:
    """Autocomplete result (callback type 8): at most 25 choices, each named 1..100 (and so every localized name)
    with a value of the focused option's type: text of at most 100 for a string option, an integer for an
    integer option, a number for a number option, within ±2^53.

    A value of another type is refused, where Discord might coerce ``5`` to ``"5"``: a bot's choice must give
    the option's own type back when the user picks it.
    """
    errors = FormErrors()
    choices = data.get("choices")
    if not isinstance(choices, list):
        errors.required((*prefix, "choices"))
        raise APIError.invalid_form_body(errors.tree)
    errors.max_length((*prefix, "choices"), choices, MAX_CHOICES)
    for i, choice in enumerate(choices):
        at = (*prefix, "choices", i)
        errors.bad_length((*at, "name"), choice.get("name"), 1, MAX_CHOICE_TEXT)
        for locale, name in (choice.get("name_localizations") or {}).items():
            errors.bad_length((*at, "name_localizations", locale), name, 1, MAX_CHOICE_TEXT)
        if "value" not in choice:
            errors.required((*at, "value"))
        else:
            _validate_choice_value(choice["value"], option_type, errors, (*at, "value"))
    errors.raise_if_any()


def _validate_choice_value(value: Any, option_type: int, errors: FormErrors, path: Path) -> None:
    if option_type == 3:  # STRING
        if not isinstance(value, str):
            errors.add(path, "STRING_TYPE_CONVERT", f"Could not interpret {value!r} as string.")
        else:
            errors.max_length(path, value, MAX_CHOICE_TEXT)
        return
    kind = int if option_type == 4 else int | float  # INTEGER, else NUMBER
    if isinstance(value, bool) or not isinstance(value, kind):
        errors.add(path, "NUMBER_TYPE_COERCE", f'Value "{value}" is not {"int" if option_type == 4 else "number"}.')
    elif value > MAX_OPTION_NUMBER:
        errors.add(path, "NUMBER_TYPE_MAX", f"Value should be less than or equal to {MAX_OPTION_NUMBER}.")
    elif value < -MAX_OPTION_NUMBER:
        errors.add(path, "NUMBER_TYPE_MIN", f"Value should be greater than or equal to {-MAX_OPTION_NUMBER}.")


def check_commands(commands: list[dict[str, Any]]) -> None:
    """A bulk overwrite: at most 100 chat-input commands, unique names, valid names/descriptions/options."""
    errors = FormErrors()
    if not isinstance(commands, list):
        errors.add((), "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
        errors.raise_if_any()
    if sum(1 for c in commands if c.get("type", 1) == 1) > 100:
        errors.add((), "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    seen: set[tuple[str, int]] = set()
    for i, command in enumerate(commands):
        key = (command.get("name", ""), command.get("type", 1))
        if key in seen:
            errors.add((i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
        seen.add(key)
        validate_command(command, errors, (i,))
    errors.raise_if_any()


def validate_command(command: dict[str, Any], errors: FormErrors, path: Path) -> None:
    chat_input = command.get("type", 1) == 1
    name = command.get("name")
    if not isinstance(name, str) or not (COMMAND_NAME.match(name) if chat_input else 1 <= len(name) <= 32):
        errors.add((*path, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    elif chat_input and name != name.lower():
        errors.add((*path, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name must be lowercase")
    if chat_input:
        errors.bad_length((*path, "description"), command.get("description"), 1, 100)
    _validate_options(command.get("options") or [], errors, (*path, "options"))


def _validate_options(options: list[dict[str, Any]], errors: FormErrors, path: Path) -> None:
    errors.max_length(path, options, 25)
    seen_optional = False
    names: set[str] = set()
    for i, option in enumerate(options):
        at = (*path, i)
        name = option.get("name", "")
        if not COMMAND_NAME.match(name) or name != name.lower():
            errors.add((*at, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if name in names:
            errors.add((*at, "name"), "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option name already exists")
        names.add(name)
        errors.bad_length((*at, "description"), option.get("description"), 1, 100)
        if option.get("type") in (1, 2):
            _validate_options(option.get("options") or [], errors, (*at, "options"))
            continue
        if option.get("required"):
            if seen_optional:
                errors.add(
                    (*at, "required"),
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        choices = option.get("choices") or []
        errors.max_length((*at, "choices"), choices, 25)
        for k, choice in enumerate(choices):
            errors.bad_length((*at, "choices", k, "name"), choice.get("name"), 1, 100)
