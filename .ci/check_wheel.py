"""Check an installed dicebot (not the checkout) ships everything the bot reads at run time.

``.ci/run`` installs the built wheel into a fresh virtualenv outside the checkout and runs this file by path from
a working directory outside the checkout, so ``import bot`` can only find the installed package. It renders
``/rules`` for every game in every shipped language, loads every message catalogue, applies every migration
to a new database and loads the Knister grid value. Exits 1 with one line per problem.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from importlib import resources
from pathlib import Path

import bot
from bot.i18n import catalogue
from bot.storage.database import Database, bundled_migrations
from bot.strategy import knister_net
from bot.ui import rules

CHECKOUT = Path(__file__).resolve().parents[1]


def shipped_languages() -> list[str]:
    """Every language folder of the installed ``bot.i18n`` package (``__pycache__`` is none)."""
    folders = [entry for entry in resources.files("bot.i18n").iterdir() if entry.is_dir()]
    return sorted(entry.name for entry in folders if not entry.name.startswith("_"))


def check_rules_and_catalogues(problems: list[str]) -> list[str]:
    games = sorted(key.removeprefix("game.") for key in catalogue("en") if key.startswith("game."))
    if not games:
        problems.append("the English catalogue names no game (game.<kind>)")
    for language in shipped_languages():
        if not catalogue(language):
            problems.append(f"the {language} catalogue is empty")
        for kind in games:
            description = rules.render(kind, language).description
            if not description:
                problems.append(f"/{kind} rules shows nothing in {language}")
    return games


async def check_migrations(problems: list[str]) -> int:
    migrations = bundled_migrations()
    if not migrations:
        problems.append("no migration is shipped")
        return 0
    postgres = bundled_migrations("postgres")
    if not postgres or postgres[-1].version != migrations[-1].version:
        problems.append("the PostgreSQL migrations do not reach the SQLite schema version")
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "check.sqlite3")
        try:
            version = await db.schema_version()
        finally:
            await db.close()
    if version != migrations[-1].version:
        problems.append(f"a new database reached schema version {version}, expected {migrations[-1].version}")
    return len(migrations) + len(postgres)


def main() -> int:
    problems: list[str] = []
    installed = Path(bot.__file__).resolve().parent
    if installed.is_relative_to(CHECKOUT) or Path.cwd().resolve().is_relative_to(CHECKOUT):
        problems.append(f"run this from outside the checkout against an installed dicebot (bot is {installed})")
    try:
        games = check_rules_and_catalogues(problems)
        migrations = asyncio.run(check_migrations(problems))
        if knister_net.load() is None:
            problems.append("the Knister grid value (bot/strategy/knister_net.npz) is missing or for other rules")
    except Exception as error:  # a missing package file surfaces as FileNotFoundError, ValueError, ...
        problems.append(f"{type(error).__name__}: {error}")
        games, migrations = [], 0
    for problem in problems:
        print(f"check_wheel: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(
        f"check_wheel: {installed}: /rules for {', '.join(games)} in {', '.join(shipped_languages())}, "
        f"{migrations} migrations: ok"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
