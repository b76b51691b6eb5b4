"""Exceptions: those the test-facing API raises, and the Discord-shaped API errors the server answers with.

The two families are kept apart on purpose. :class:`FakeDiscordError` subclasses are raised *in the test* when
the test asks for something a real Discord user could not do (an unknown command, a disabled button, a message
they cannot see). :class:`APIError` is raised inside request handlers and becomes an HTTP response with Discord's
JSON error body, so the bot under test sees exactly what the real API would send.
"""

from __future__ import annotations

from typing import Any

#: How many characters of a value an error repeats: a client (the playground page's API) may send thousands.
SHOWN_VALUE = 100


def shown(value: object) -> str:
    """``repr(value)`` for an error message, cut by :func:`cut`."""
    return cut(repr(value))


def cut(text: str) -> str:
    """``text`` cut to :data:`SHOWN_VALUE` characters with an ellipsis: enough to recognise what was sent without
    echoing all of it."""
    return text if len(text) <= SHOWN_VALUE else text[: SHOWN_VALUE - 1] + "…"


class FakeDiscordError(Exception):
    """Base class of every error the test-facing API raises."""


class UnknownCommand(FakeDiscordError, LookupError):
    """The command path is not among the commands the bot synced (Discord would not offer it to the user)."""


class InvalidInput(FakeDiscordError, ValueError):
    """Options or select values a Discord client would refuse to send (wrong type, missing, out of range)."""


class ComponentNotFound(FakeDiscordError, LookupError):
    """No component on the message matches; the message lists what is there to make the failure readable."""


class InteractionFailed(FakeDiscordError):
    """The interaction was not acknowledged in time: the user saw "This interaction failed"."""


class APIError(Exception):
    """An HTTP error answered in Discord's format ``{"code", "message", "errors"?}``.

    Handlers raise it; the REST layer turns it into the response. The constructors below carry Discord's own
    codes and wording so tests can assert on them exactly as they would against the real API.
    """

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        """The JSON body Discord would send for this error."""
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors:
            body["errors"] = self.errors
        return body

    @classmethod
    def invalid_form_body(cls, errors: dict[str, Any]) -> APIError:
        return cls(400, 50035, "Invalid Form Body", errors)

    @classmethod
    def unauthorized(cls) -> APIError:
        return cls(401, 0, "401: Unauthorized")

    @classmethod
    def not_found(cls) -> APIError:
        return cls(404, 0, "404: Not Found")

    @classmethod
    def unknown_interaction(cls) -> APIError:
        return cls(404, 10062, "Unknown interaction")

    @classmethod
    def already_acknowledged(cls) -> APIError:
        return cls(400, 40060, "Interaction has already been acknowledged.")

    @classmethod
    def invalid_webhook_token(cls) -> APIError:
        return cls(401, 50027, "Invalid Webhook Token")

    @classmethod
    def unknown_webhook(cls) -> APIError:
        return cls(404, 10015, "Unknown Webhook")

    @classmethod
    def unknown_message(cls) -> APIError:
        return cls(404, 10008, "Unknown Message")

    @classmethod
    def unknown_channel(cls) -> APIError:
        return cls(404, 10003, "Unknown Channel")

    @classmethod
    def unknown_guild(cls) -> APIError:
        return cls(404, 10004, "Unknown Guild")

    @classmethod
    def unknown_member(cls) -> APIError:
        return cls(404, 10007, "Unknown Member")

    @classmethod
    def unknown_user(cls) -> APIError:
        return cls(404, 10013, "Unknown User")

    @classmethod
    def unknown_command(cls) -> APIError:
        return cls(404, 10063, "Unknown application command")

    @classmethod
    def missing_access(cls) -> APIError:
        return cls(403, 50001, "Missing Access")

    @classmethod
    def empty_message(cls) -> APIError:
        return cls(400, 50006, "Cannot send an empty message")

    @classmethod
    def not_message_author(cls) -> APIError:
        return cls(403, 50005, "Cannot edit a message authored by another user")

    @classmethod
    def wrong_application(cls) -> APIError:
        return cls(403, 20012, "You are not authorized to perform this action on this application")

    @classmethod
    def bad_json(cls) -> APIError:
        return cls(400, 50109, "The request body contains invalid JSON.")
