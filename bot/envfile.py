"""Whether ``.env`` can be read at all, asked before a command reads it: python-dotenv stops at a file that is not
UTF-8 with a UnicodeDecodeError traceback, and skips a line it cannot parse with a warning, so the token on that
line read as missing. Light (the standard library and python-dotenv): the health check asks it every few seconds.
"""

from __future__ import annotations

import io
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from dotenv.parser import parse_stream

#: Where every setting not in the environment is read from, in the working directory.
ENV_FILE = Path(".env")


def env_file_problem(env_file: Path = ENV_FILE) -> str | None:
    """One line for the admin when ``env_file`` exists but cannot be read as settings, else None. It names the line,
    never its text: that may hold the token."""
    if env_file.is_dir():
        # What Docker makes where it mounts a file that does not exist; python-dotenv skipped it without a word (QA).
        return f"{env_file} is a folder, not a file of settings: remove it and write the file (cp .env.example .env)"
    if not env_file.is_file():
        return None
    try:
        raw = env_file.read_bytes()
    except OSError as error:
        return f"{env_file} cannot be read ({error.strerror or error}): let the user running dicebot read it"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return f"{env_file} is not UTF-8 text (line {line}): save it as UTF-8"
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            return (
                f"line {binding.original.line} of {env_file} cannot be read: write it as NAME=value "
                "(a value in quotes needs its closing quote)"
            )
    return None


#: The quotes an admin writes around a value in ``.env``.
QUOTES = "\"'"


def quoted_setting(names: Collection[str], environ: Mapping[str, str] | None = None) -> str | None:
    """One line for the admin when a setting's value in the environment is in quotes, else None; it names the
    setting, never its value (the token).

    python-dotenv takes the quotes off a value in ``.env``, but ``docker run --env-file`` keeps them as part of it:
    a token in quotes was "rejected by Discord", a ``DATA_DIR`` in quotes made a folder named ``"`` in the working
    directory (QA). Nothing dicebot reads is written in quotes, so a value in the environment that is cannot be
    meant."""
    environment = os.environ if environ is None else environ
    for name in sorted(environment):
        value = environment[name].strip()
        if name.upper() in names and len(value) >= 2 and value[0] == value[-1] and value[0] in QUOTES:
            return (
                f"{name.upper()} is in quotes ({value[0]}...{value[-1]}), which docker run --env-file keeps as part "
                "of the value: write it without them"
            )
    return None
