"""/stats' line of games and wins: the win rate is over the games that had an opponent, never the games alone."""

from __future__ import annotations

from bot.rankings import SOLO, CounterTotal, GameStats
from bot.ui.leaderboard import render_stats


def games_line(games: int, wins: int, solo: int, locale: str = "en-US") -> str:
    counters = {SOLO: CounterTotal(solo, solo)} if solo else {}
    entry = GameStats("kniffel", games, wins, best=250, score_sum=200 * games, last_at=0.0, counters=counters)
    embed = render_stats("Alice", [entry], None, locale)
    return embed.fields[0].value.splitlines()[0]


def test_games_with_opponents_only_read_as_before() -> None:
    assert games_line(4, 1, 0) == "Games **4** · Wins **1** (25%)"


def test_games_alone_are_counted_apart_and_left_out_of_the_win_rate() -> None:
    assert games_line(6, 1, 2) == "Games **6** · alone **2** · Wins **1** (25% of the games with an opponent)"
    assert games_line(6, 1, 2, "de") == "Spiele **6** · allein **2** · Siege **1** (25\u00a0% der Spiele mit Gegner)"


def test_only_games_alone_show_no_win_rate() -> None:
    assert games_line(3, 0, 3) == "Games **3**, all played alone (a game played alone is never a win)"
