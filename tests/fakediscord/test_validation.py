"""Discord's payload limits, one violation at a time, with the error path Discord reports."""

from __future__ import annotations

from typing import Any

import pytest

from fakediscord import APIError
from fakediscord.validation import check_commands, check_message, check_modal

pytestmark = pytest.mark.timeout(5)


def button(custom_id: str = "b", label: str = "ok") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def select(custom_id: str = "s", options: int = 3, **extra: Any) -> dict[str, Any]:
    opts = [{"label": f"o{i}", "value": f"v{i}"} for i in range(options)]
    return {"type": 3, "custom_id": custom_id, "options": opts, **extra}


def embed(**fields: Any) -> dict[str, Any]:
    return {"title": "t", **fields}


def error_at(payload: dict[str, Any], prefix: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """The (path, code) of the single error the payload produces."""
    with pytest.raises(APIError) as caught:
        check_message(payload, prefix=prefix)
    assert (caught.value.status, caught.value.code) == (400, 50035)
    path: list[str] = []
    node = caught.value.errors or {}
    while "_errors" not in node:
        (key,) = node
        path.append(key)
        node = node[key]
    return tuple(path), node["_errors"][0]["code"]


VALID = {
    "content": "x" * 2000,
    "embeds": [embed(description="d" * 4000)],
    "components": [row(*(button(f"b{i}") for i in range(5))), row(select())],
}


def test_a_message_at_the_limits_passes() -> None:
    check_message(VALID)


@pytest.mark.parametrize(
    ("payload", "path", "code"),
    [
        ({"content": "x" * 2001}, ("content",), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [embed()] * 11}, ("embeds",), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [embed(title="t" * 257)]}, ("embeds", "0", "title"), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [embed(description="d" * 4097)]}, ("embeds", "0", "description"), "BASE_TYPE_MAX_LENGTH"),
        (
            {"embeds": [embed(fields=[{"name": "n", "value": "v"}] * 26)]},
            ("embeds", "0", "fields"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"embeds": [embed(fields=[{"name": "n" * 257, "value": "v"}])]},
            ("embeds", "0", "fields", "0", "name"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"embeds": [embed(fields=[{"name": "n", "value": "v" * 1025}])]},
            ("embeds", "0", "fields", "0", "value"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        ({"embeds": [embed(footer={"text": "f" * 2049})]}, ("embeds", "0", "footer", "text"), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [embed(author={"name": "a" * 257})]}, ("embeds", "0", "author", "name"), "BASE_TYPE_MAX_LENGTH"),
        ({"embeds": [embed(description="d" * 4000)] * 2}, ("embeds",), "MAX_EMBED_SIZE_EXCEEDED"),
        ({"components": [row(button(f"b{i}")) for i in range(6)]}, ("components",), "BASE_TYPE_MAX_LENGTH"),
        (
            {"components": [row(*(button(f"b{i}") for i in range(6)))]},
            ("components", "0", "components"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        ({"components": [row()]}, ("components", "0", "components"), "BASE_TYPE_BAD_LENGTH"),
        (
            {"components": [row(select(), button())]},
            ("components", "0", "components"),
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
        ),
        (
            {"components": [row(button("c" * 101))]},
            ("components", "0", "components", "0", "custom_id"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        ({"components": [row(button("same"), button("same"))]}, ("components",), "COMPONENT_CUSTOM_ID_DUPLICATED"),
        (
            {"components": [row(button(label="l" * 81))]},
            ("components", "0", "components", "0", "label"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row(select(options=26))]},
            ("components", "0", "components", "0", "options"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"components": [row(select(options=0))]},
            ("components", "0", "components", "0", "options"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"components": [row(select(placeholder="p" * 151))]},
            ("components", "0", "components", "0", "placeholder"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        (
            {"components": [row({**select(), "options": [{"label": "l" * 101, "value": "v"}]})]},
            ("components", "0", "components", "0", "options", "0", "label"),
            "BASE_TYPE_BAD_LENGTH",
        ),
        (
            {"components": [row({**select(), "options": [{"label": "l", "value": "v", "description": "d" * 101}]})]},
            ("components", "0", "components", "0", "options", "0", "description"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        ({"components": [button()]}, ("components", "0", "type"), "UNION_TYPE_CHOICES"),
    ],
)
def test_each_limit_is_reported_at_its_path(payload: dict[str, Any], path: tuple[str, ...], code: str) -> None:
    assert error_at(payload) == (path, code)


def test_interaction_callbacks_nest_errors_under_data() -> None:
    assert error_at({"content": "x" * 2001}, prefix=("data",)) == (("data", "content"), "BASE_TYPE_MAX_LENGTH")


def test_components_v2_limits() -> None:
    many = [{"type": 10, "content": "t"} for _ in range(41)]
    assert error_at({"flags": 1 << 15, "components": many}) == (("components",), "BASE_TYPE_MAX_LENGTH")
    with_content = {"flags": 1 << 15, "content": "x", "components": [{"type": 10, "content": "t"}]}
    assert error_at(with_content)[1] == "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"


def test_modal_limits() -> None:
    text_input = {"type": 4, "custom_id": "name", "label": "Name", "style": 1}
    check_modal({"title": "Name", "custom_id": "m", "components": [row(text_input)]})
    with pytest.raises(APIError) as caught:
        check_modal({"title": "t" * 46, "custom_id": "m", "components": [row(text_input)]})
    assert "title" in caught.value.errors["data"]  # type: ignore[index]


def test_command_definitions() -> None:
    ok = {"name": "game", "description": "d", "type": 1, "options": []}
    check_commands([ok])
    for bad in (
        [ok, ok],
        [{**ok, "name": "Game"}],
        [{**ok, "description": ""}],
        [{**ok, "options": [{"name": "a", "description": "d", "type": 3}, {**_required("b")}]}],
    ):
        with pytest.raises(APIError):
            check_commands(bad)


def _required(name: str) -> dict[str, Any]:
    return {"name": name, "description": "d", "type": 3, "required": True}
