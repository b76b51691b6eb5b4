"""The tests' strategy-table cache is named by its sources: a change to any of them gets a new, empty folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import table_cache


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in source package the key is computed from."""
    package = tmp_path / "strategy"
    package.mkdir()
    (package / "solver.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(table_cache, "SOURCES", (package,))
    return package


def test_a_changed_source_names_a_new_folder_and_the_old_one_goes(sources: Path, tmp_path: Path) -> None:
    root = tmp_path / "cache"
    with table_cache.cached_folder(root) as first:
        (first / "kniffel.npz").write_bytes(b"table")
    with table_cache.cached_folder(root) as again:
        assert again == first and (again / "kniffel.npz").exists()  # the same sources: the tables are kept
    (sources / "solver.py").write_text("VALUE = 2\n")
    with table_cache.cached_folder(root) as changed:
        assert changed != first and not list(changed.iterdir())
    assert not first.exists()


def test_files_other_than_code_and_weights_do_not_change_the_key(sources: Path) -> None:
    key = table_cache.source_key()
    (sources / "notes.txt").write_text("anything")
    assert table_cache.source_key() == key
    (sources / "weights.npz").write_bytes(b"\0")
    assert table_cache.source_key() != key
