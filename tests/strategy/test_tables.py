"""The table cache: keyed by the rules hash, rebuilt when the engine's scoring changes, one file per table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bot import strategy
from bot.engine import dicepoker as dicepoker_engine
from bot.engine import kniffel as kniffel_engine
from bot.strategy import dicepoker, kniffel, knister, tables


@pytest.fixture
def fresh_rules() -> Iterator[None]:
    """Forget the rules read from the engine before and after a test that patches the engine."""
    dicepoker.rules.cache_clear()
    kniffel.probe.cache_clear()
    yield
    dicepoker.rules.cache_clear()
    kniffel.probe.cache_clear()


def test_a_stored_table_is_loaded_not_rebuilt(tmp_path: Path) -> None:
    calls = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"values": np.arange(3.0)}

    first = tables.load_or_build(tmp_path, "demo", "abc", build)
    again = tables.load_or_build(tmp_path, "demo", "abc", build)
    assert calls == [1]
    assert np.array_equal(first["values"], again["values"])


def test_a_change_in_scoring_rebuilds_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_rules: None
) -> None:
    before = dicepoker.rules()
    tables.load_or_build(tmp_path, "dicepoker", before.digest, lambda: dicepoker.build(before))
    monkeypatch.setattr(dicepoker_engine, "POKER_BONUS", 60)
    dicepoker.rules.cache_clear()
    after = dicepoker.rules()
    assert after.digest != before.digest
    built = tables.load_or_build(tmp_path, "dicepoker", after.digest, lambda: dicepoker.build(after))
    # The only file left is the new one, and its value moved with the poker bonus.
    assert [p.name for p in tmp_path.iterdir()] == [tables.table_path(tmp_path, "dicepoker", after.digest).name]
    old = dicepoker.build(before)["upper"][0, -dicepoker.LOWEST_UPPER]
    assert built["upper"][0, -dicepoker.LOWEST_UPPER] > old


def test_the_kniffel_hash_follows_the_upper_bonus(monkeypatch: pytest.MonkeyPatch, fresh_rules: None) -> None:
    before = kniffel.probe("kniffel").digest
    monkeypatch.setattr(kniffel_engine, "UPPER_BONUS", 40)
    kniffel.probe.cache_clear()
    assert kniffel.probe("kniffel").digest != before
    assert kniffel.probe("kniffel").bonus[-1] == 40


def test_the_start_up_check_names_the_tables_missing_for_the_current_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_rules: None
) -> None:
    every = ["kniffel-kniffel", "kniffel-classic", "dicepoker", "knister"]
    assert strategy.missing(tmp_path) == every
    present = {"kniffel-classic": kniffel.probe("classic").digest, "dicepoker": dicepoker.rules().digest}
    present["knister"] = knister.digest()
    for name, digest in present.items():
        tables.table_path(tmp_path, name, digest).touch()
    assert strategy.missing(tmp_path) == ["kniffel-kniffel"]
    monkeypatch.setattr(dicepoker_engine, "POKER_BONUS", 60)
    dicepoker.rules.cache_clear()
    assert strategy.missing(tmp_path) == ["kniffel-kniffel", "dicepoker"]  # the old file is for other rules


def test_a_folder_that_cannot_take_the_file_costs_the_cache_not_the_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An unwritable data folder or a full disk: the table built is used (with a warning), not thrown away."""
    not_a_folder = tmp_path / "strategy"
    not_a_folder.write_text("a file where the folder should be")
    arrays = tables.load_or_build(not_a_folder, "demo", "abc", lambda: {"values": np.arange(3.0)})
    assert np.array_equal(arrays["values"], np.arange(3.0))
    assert "could not store the strategy table demo" in caplog.text
    assert not_a_folder.read_text() == "a file where the folder should be"


def test_an_outdated_file_that_cannot_be_removed_does_not_count_as_a_failed_store(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "demo-v0-outdated.npz").mkdir()  # unlink() refuses a folder: an OSError like a read-only file's
    tables.load_or_build(tmp_path, "demo", "abc", lambda: {"values": np.arange(3.0)})
    assert "could not store" not in caplog.text
    calls = []
    tables.load_or_build(tmp_path, "demo", "abc", lambda: calls.append(1) or {"values": np.arange(3.0)})
    assert calls == [], "stored, so read at the next load"
