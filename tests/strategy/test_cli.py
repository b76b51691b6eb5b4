"""``python -m bot.strategy``: its outputs, and one line with exit code 2 for anything unknown."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.strategy import __main__ as cli
from bot.strategy.__main__ import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ev", "chess"], "invalid choice: 'chess'"),
        (["ev", "kniffel", "--rules", "house"], "unknown rule set 'house'"),
        (["ev", "tutto", "--rules", "classic"], "tutto has no rule sets"),
        (["selfplay", "knister", "--level", "godlike"], "invalid choice: 'godlike'"),
        (
            ["selfplay", "knister", "--level", "easy", "--games", "0"],
            "argument --games: 0 is not a number of games from 1 to 10000000",
        ),
        # numpy's traceback (QA).
        (
            ["selfplay", "kniffel", "--level", "perfect", "--games", "99999999999999999999"],
            "argument --games: 99999999999999999999 is not a number of games from 1 to 10000000",
        ),
        (["selfplay", "tutto", "--level", "easy", "--games", "many"], "argument --games: 'many' is not a number of"),
        (["ev", "knister"], "knister has no exact value"),
        # The RNGs take a signed 64-bit seed: "Int value is too large" was a traceback (QA).
        (
            ["selfplay", "kniffel", "--level", "easy", "--games", "1", "--seed", "99999999999999999999999"],
            "argument --seed: 99999999999999999999999 is not a seed from -9223372036854775808 to 9223372036854775807",
        ),
        (["selfplay", "tutto", "--level", "easy", "--seed", str(-(2**63) - 1)], "is not a seed from"),
        (["selfplay", "tutto", "--level", "easy", "--seed", "x"], "argument --seed: 'x' is not a seed from"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1
    assert message in err


def test_ev_prints_the_optimal_expected_score(table_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--dir", str(table_dir), "ev", "kniffel"])
    main(["--dir", str(table_dir), "ev", "kniffel", "--rules", "classic"])
    assert capsys.readouterr().out.split() == ["254.5877", "229.6385"]


def test_ev_tutto_prints_points_per_turn_per_card(capsys: pytest.CaptureFixture[str]) -> None:
    main(["ev", "tutto"])
    lines = dict(line.split() for line in capsys.readouterr().out.splitlines())
    assert float(lines["overall"]) == pytest.approx(351.55, abs=0.01)
    assert float(lines["stop"]) == 0


def test_selfplay_prints_mean_sd_and_a_histogram(table_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--dir", str(table_dir), "selfplay", "dicepoker", "--level", "perfect", "--games", "300", "--seed", "4"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "dicepoker perfect: 300 games, seed 4"
    assert out[1].startswith("mean ") and " sd " in out[1]
    assert len(out) == 2 + 12
    assert sum(int(line.split()[3]) for line in out[2:]) == 300


@pytest.mark.parametrize(("argv", "rebuilt"), [(["build"], True), (["build", "--missing"], False)])
def test_build_rebuilds_every_table_unless_only_missing_ones_are_asked_for(
    argv: list[str], rebuilt: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's start-up runs ``build --missing``: a restart with a filled cache must not rebuild every table."""
    calls: list[tuple[str, bool]] = []

    def recorder(name: str) -> Callable[..., None]:
        def load(*args: object, rebuild: bool = False) -> None:
            calls.append((name, rebuild))

        return load

    monkeypatch.setattr(cli.kniffel, "load", recorder("kniffel"))
    monkeypatch.setattr(cli.dicepoker, "load", recorder("dicepoker"))
    monkeypatch.setattr(cli.knister, "load", recorder("knister"))
    solved: list[None] = []
    monkeypatch.setattr(cli.tutto, "solve_turn", functools.lru_cache(lambda: solved.append(None)))
    # The fakes store nothing: a table counts as stored once loaded, or the build would fail for want of it.
    every = cli.missing(tmp_path)
    monkeypatch.setattr(cli, "missing", lambda directory: [] if calls else every)
    cli.main(["--dir", str(tmp_path), *argv])
    assert [name for name, _ in calls] == ["kniffel", "kniffel", "dicepoker", "knister"]
    assert {flag for _, flag in calls} == {rebuilt}
    # Tutto has no table on disk: solving it in the start-up's child would be thrown away with the process.
    assert len(solved) == (1 if rebuilt else 0)


@pytest.mark.parametrize("command", [["build", "--missing"], ["ev", "kniffel"]])
def test_a_table_folder_that_is_a_file_is_one_line_and_exit_2(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed "could not store" once per table and exited 0, having stored nothing."""
    file = tmp_path / "tables.txt"
    file.touch()
    with pytest.raises(SystemExit) as exit_info:
        main(["--dir", str(file), *command])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"error: --dir {file} is a file, not a folder\n"


def test_a_table_folder_it_cannot_create_is_one_line_and_exit_2_before_building(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--dir /proc/x build`` built every table, said "could not store" for each and exited 0: storing them is
    the command's job."""
    (tmp_path / "afile").touch()
    folder = tmp_path / "afile" / "tables"
    with pytest.raises(SystemExit) as exit_info:
        main(["--dir", str(folder), "build"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"error: --dir {folder} cannot hold the tables (Not a directory)\n"


def test_a_build_that_could_not_store_a_table_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that stops taking files during the build (a full disk) leaves tables unstored: exit code 1."""
    stored: list[str] = []
    monkeypatch.setattr(cli.kniffel, "load", lambda ruleset, *args, **kwargs: stored.append(ruleset))
    monkeypatch.setattr(cli.dicepoker, "load", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli.knister, "load", lambda *args, **kwargs: None)
    with pytest.raises(SystemExit) as exit_info:
        main(["--dir", str(tmp_path), "build", "--missing"])
    assert stored
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: could not store these tables in {tmp_path}: ")
    assert err.count("\n") == 1


def test_the_help_reads_as_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "``" not in capsys.readouterr().out
