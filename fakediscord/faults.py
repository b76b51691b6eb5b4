"""Fault injection for REST calls: rate limits (429), server errors (5xx) and Discord's refusals (4xx with a code).

A 429 carries what discord.py reads to decide how to retry: ``retry_after`` and ``global`` in the JSON body, the
``X-RateLimit-*`` headers and a ``Via`` header (without ``Via`` discord.py assumes a Cloudflare ban and gives up).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

#: Discord's text for the error codes a test is likely to inject (any other code gets a generic text).
MESSAGES = {
    10003: "Unknown Channel",
    10008: "Unknown Message",
    50001: "Missing Access",
    50013: "Missing Permissions",
    50035: "Invalid Form Body",
}


@dataclass(eq=False)
class Fault:
    """One injection rule; ``hits`` counts the requests it answered, ``remaining`` how many more it will."""

    method: str
    pattern: re.Pattern[str]
    status: int
    retry_after: float | None = None
    remaining: int = 1
    global_: bool = False
    #: Discord's error code in the body (a 4xx needs one: 10008 Unknown Message, 50035 Invalid Form Body, ...).
    code: int = 0
    hits: int = 0
    bucket: str = field(default="fakediscord-bucket")

    def matches(self, method: str, path: str) -> bool:
        return self.remaining > 0 and self.method in ("*", method) and self.pattern.search(path) is not None

    def response(self) -> tuple[dict[str, Any], dict[str, str]]:
        """Consume one use and return (JSON body, headers) Discord would send."""
        self.remaining -= 1
        self.hits += 1
        if self.status != 429:
            message = MESSAGES.get(self.code, f"{self.status}: fakediscord injected error")
            return {"code": self.code, "message": message}, {}
        retry_after = self.retry_after if self.retry_after is not None else 1.0
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, round(retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": self.bucket,
            "X-RateLimit-Scope": "global" if self.global_ else "user",
        }
        if self.global_:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": self.global_, "code": 0}
        return body, headers


class Faults:
    """The active rules, consulted for every REST request in the order they were added."""

    def __init__(self) -> None:
        self.rules: list[Fault] = []

    def add(
        self,
        method: str,
        path_regex: str,
        status: int,
        *,
        code: int = 0,
        retry_after: float | None = None,
        times: int = 1,
        global_: bool = False,
    ) -> Fault:
        if status != 429 and not 500 <= status <= 599 and not (400 <= status <= 499 and code):
            raise ValueError("inject 429 (rate limit), a 5xx status, or a 4xx status with Discord's error code")
        fault = Fault(method.upper(), re.compile(path_regex), status, retry_after, times, global_, code)
        self.rules.append(fault)
        return fault

    def match(self, method: str, path: str) -> Fault | None:
        return next((f for f in self.rules if f.matches(method, path)), None)

    def clear(self) -> None:
        self.rules.clear()
