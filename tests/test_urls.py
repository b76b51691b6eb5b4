"""A database URL's password never reaches a message: how its URL is checked and shown (``bot.urls``)."""

from __future__ import annotations

import re
import socket

import pytest

from bot.storage import DatabaseError
from bot.storage.postgres import PostgresDatabase
from bot.urls import ENCODE_PASSWORD, NAMES_NO_DATABASE, check_database_url, describe_url

#: Passwords as a generator makes them (base64 holds / and +) or an admin types them, each with a character a URL
#: reserves; every one broke the start, and the first printed its start as a port (QA).
RESERVED = ["Zx9/Qk+3w=", "Ab#Cdx", "Pq@Zk:Wy7", "/Lead9", "1234/5678", "Why?Not", "[Br4]ck", "T4il@"]


def pieces(password: str) -> list[str]:
    """The parts of ``password`` a parser could have cut it into: any of them in a message is a leak."""
    return [piece for piece in re.split(r"[/?#@\[\]:+=]", password) if len(piece) >= 2]


@pytest.mark.parametrize("password", RESERVED)
def test_a_reserved_character_in_the_password_asks_for_percent_encoding_and_names_none_of_it(password: str) -> None:
    with pytest.raises(ValueError, match=re.escape(ENCODE_PASSWORD)) as refused:
        check_database_url(f"postgresql://postgres:{password}@db.example:5432/dicebot")
    assert not [piece for piece in pieces(password) if piece in str(refused.value)]


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres:Zx9%2FQk%2B3w%3D@db:5432/dicebot",
        "postgresql://dice:letters0and0digits@db/dicebot?search_path=dicebot",
        "postgresql://u@[::1]:5432/d",
        "postgres://db/d",
        "postgresql://db?dbname=dicebot",
        "postgresql://db:5432?database=dicebot",
        "postgresql://db?service=dicebot",
        "postgresql:///dicebot?host=/var/run/postgresql",
    ],
)
def test_an_encoded_password_and_plain_urls_pass(url: str) -> None:
    check_database_url(url)


@pytest.mark.parametrize(
    "url",
    ["postgresql://db:5432", "postgresql://dice@db/", "postgresql:///", "postgresql://@", "postgresql://db?dbname="],
)
def test_a_url_naming_no_database_is_refused(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq's default is a database named after the user: ``migrate-db`` copied into it (review)."""
    monkeypatch.delenv("PGDATABASE", raising=False)
    with pytest.raises(ValueError, match=re.escape(NAMES_NO_DATABASE)):
        check_database_url(url)
    monkeypatch.setenv("PGDATABASE", "dicebot")  # the drivers' default before the user's name (review)
    check_database_url(url)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://dice:s3cret@db:5432/dicebot", "postgresql://dice@db:5432/dicebot"),
        *[(f"postgresql://dice:{password}@db/dicebot", "postgresql://dice@db/dicebot") for password in RESERVED],
        ("postgresql://dice@db/dicebot?search_path=x", "postgresql://dice@db/dicebot?search_path=x"),
        (
            "postgresql://db/dicebot?user=dice&password=s3cret&sslpassword=k3y&search_path=x",
            "postgresql://db/dicebot?user=dice&password=***&sslpassword=***&search_path=x",
        ),
        ("postgresql://db/dicebot", "postgresql://db/dicebot"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert describe_url(url) == shown


async def test_a_database_that_cannot_be_reached_is_named_without_its_password() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(DatabaseError) as refused:
        await PostgresDatabase.connect(f"postgresql://dice:s3cretPW@127.0.0.1:{port}/dicebot?password=s3cretQS")
    message = str(refused.value)
    assert message.startswith(
        f"cannot connect to the database postgresql://dice@127.0.0.1:{port}/dicebot?password=*** (DATABASE_URL): "
    )
    assert "s3cret" not in message
