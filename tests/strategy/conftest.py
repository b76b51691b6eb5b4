"""One table folder for the whole session: the exact tables are built once (a few seconds) and shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.strategy import dicepoker, kniffel, knister


@pytest.fixture(scope="session")
def table_dir(shared_tables: Path) -> Path:
    """A folder holding every exact table, built once for the run (see ``tests/conftest.py``)."""
    return shared_tables


@pytest.fixture(scope="session")
def kniffel_tables(table_dir: Path) -> kniffel.Tables:
    return kniffel.load("kniffel", table_dir)


@pytest.fixture(scope="session")
def classic_tables(table_dir: Path) -> kniffel.Tables:
    return kniffel.load("classic", table_dir)


@pytest.fixture(scope="session")
def dicepoker_tables(table_dir: Path) -> dicepoker.Tables:
    return dicepoker.load(table_dir)


@pytest.fixture(scope="session")
def knister_tables(table_dir: Path) -> knister.Tables:
    return knister.load(table_dir)
