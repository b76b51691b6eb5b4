"""/stats' line of games and wins (the win rate is over the games that had an opponent, never the games alone), and
the line of the games played with hints."""

from __future__ import annotations

import pytest

from bot.i18n import languages
from bot.rankings import HINTS_USED, SOLO, CounterTotal, GameStats
from bot.ui.leaderboard import render_stats


def games_line(games: int, wins: int, solo: int, locale: str = "en-US") -> str:
    counters = {SOLO: CounterTotal(solo, solo)} if solo else {}
    entry = GameStats("kniffel", games, wins, best=250, score_sum=200 * games, last_at=0.0, counters=counters)
    embed = render_stats("Alice", [entry], None, locale, own=True)
    return embed.fields[0].value.splitlines()[0]


def test_games_with_opponents_only_read_as_before() -> None:
    assert games_line(4, 1, 0) == "Games **4** · Wins **1** (25%)"


def test_games_alone_are_counted_apart_and_left_out_of_the_win_rate() -> None:
    assert games_line(6, 1, 2) == "Games **6** · alone **2** · Wins **1** (25% of the games with an opponent)"
    assert games_line(6, 1, 2, "de") == "Spiele **6** · allein **2** · Siege **1** (25\u00a0% der Spiele mit Gegner)"


def test_only_games_alone_show_no_win_rate() -> None:
    assert games_line(3, 0, 3) == "Games **3**, all played alone (a game played alone is never a win)"


def stats_lines(kind: str, counters: dict[str, CounterTotal], locale: str = "en-US") -> list[str]:
    entry = GameStats(kind, 5, 2, best=250, score_sum=1000, last_at=0.0, counters=counters)
    return (render_stats("Alice", [entry], None, locale, own=True).fields[0].value or "").splitlines()


@pytest.mark.parametrize("kind", ["kniffel", "tutto", "knister", "dicepoker+computer"])
def test_games_played_with_hints_are_counted_on_a_line_of_their_own(kind: str) -> None:
    """How many of the games used the Hint button (the results' counter ``hints_used``), after the game's figures."""
    lines = stats_lines(kind, {HINTS_USED: CounterTotal(3, 3)})
    assert lines[-2] == "💡 Games with hints **3**"
    assert lines[-1].startswith("Last played")


@pytest.mark.parametrize("language", languages())
def test_games_without_hints_show_no_hint_line(language: str) -> None:
    hinted = stats_lines("kniffel", {HINTS_USED: CounterTotal(1, 1)}, language)
    assert [line for line in hinted if line.startswith("💡")] == [hinted[-2]]
    assert hinted[-2].endswith("**1**")
    assert not any("💡" in line for line in stats_lines("kniffel", {}, language))


def test_a_game_split_by_rule_set_names_the_rule_set_of_each_entry() -> None:
    """Kniffel's figures come per rule set (a best or an average over both would describe neither): each field says
    which, and each rule set's own counter line follows (classic has no upper bonus)."""
    bonus = {"kniffels": CounterTotal(2, 1), "upper_bonus": CounterTotal(1, 1)}
    entries = [
        GameStats("kniffel", 1, 1, best=380, score_sum=380, last_at=0.0, counters=bonus, variant="kniffel"),
        GameStats("kniffel", 2, 1, best=178, score_sum=345, last_at=0.0, variant="classic"),
        GameStats("kniffel+computer", 1, 0, best=140, score_sum=140, last_at=0.0, variant="classic"),
        GameStats("tutto", 1, 1, best=6000, score_sum=6000, last_at=0.0),
    ]
    fields = render_stats("Alice", entries, None, "en-US", own=True).fields
    assert [field.name for field in fields] == [
        "Kniffel (rules: Kniffel)",
        "Kniffel (rules: Classic)",
        "Kniffel against the computer (rules: Classic)",
        "Tutto",
    ]
    lines = [(field.value or "").splitlines() for field in fields]
    assert lines[0][1:3] == [
        "Best **380** · Average **380.0**",
        "Upper bonus in 1 of 1 game (100%) · Kniffels scored **2**",
    ]
    assert lines[1][1:3] == ["Best **178** · Average **172.5**", "Kniffels scored **0**"]
    assert (
        render_stats("Alice", entries[1:2], "kniffel", "de", own=True).fields[0].name == "Kniffel (Regeln: Klassisch)"
    )


def test_only_your_own_statistics_tell_how_to_delete_them() -> None:
    """Under someone else's figures, "/forget-me deletes your stored results" spoke to the reader (QA)."""
    entry = GameStats("kniffel", 1, 1, best=250, score_sum=250, last_at=0.0, counters={})
    for locale in ("en-US", "de", "hu", "pl"):
        own = render_stats("Alice", [entry], None, locale, own=True).footer.text or ""
        other = render_stats("Alice", [entry], None, locale, own=False).footer.text or ""
        assert own.startswith(other) and own != other
        assert "/" not in other
