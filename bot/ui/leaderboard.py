"""Pure rendering of the leaderboard (with its paging buttons), the statistics embed and the forget-me prompt.

The buttons are restart-safe: their custom ids carry everything a click needs and are matched by the
``DynamicItem`` classes in ``cogs/leaderboard.py``, never by a view kept in memory (views are sent stopped).

- paging: ``lb:<game>:<metric>:<period>:<scope>:<page>:<owner id>``, the guild comes from the interaction;
- forget-me: ``lbforget:<confirm|cancel>:<user id>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Literal

import discord

from bot.i18n import number, percent, t
from bot.rankings import MIN_AVERAGE_GAMES, GameStats, LeaderboardPage, Standing
from bot.ui.common import COLOUR_LOBBY, COLOUR_OVER, mention, shorten
from bot.ui.render import in_markdown

Scope = Literal["server", "global"]
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
NAME_LIMIT = 32
MAX_CUSTOM_ID = 100
BOARD_ID = re.compile(
    r"lb:(?P<kind>[a-z]+):(?P<metric>[a-z]+):(?P<period>[a-z]+):(?P<scope>server|global):(?P<page>\d{1,6}):"
    r"(?P<owner>\d{1,20})"
)
FORGET_ID = re.compile(r"lbforget:(?P<action>confirm|cancel):(?P<user>\d{1,20})")


@dataclass(frozen=True)
class BoardRequest:
    """Which board someone looks at, and who asked (their rank goes underneath; only they page it)."""

    kind: str
    metric: str
    period: str
    scope: Scope
    page: int
    owner: int

    def custom_id(self, page: int) -> str:
        value = f"lb:{self.kind}:{self.metric}:{self.period}:{self.scope}:{page}:{self.owner}"
        if len(value) > MAX_CUSTOM_ID or not BOARD_ID.fullmatch(value):
            raise ValueError(f"invalid leaderboard component id {value!r}")
        return value

    @classmethod
    def parse(cls, custom_id: str) -> BoardRequest | None:
        match = BOARD_ID.fullmatch(custom_id)
        if match is None:
            return None
        scope: Scope = "server" if match["scope"] == "server" else "global"
        return cls(match["kind"], match["metric"], match["period"], scope, int(match["page"]), int(match["owner"]))

    def for_user(self, user_id: int) -> BoardRequest:
        return replace(self, owner=user_id)


def forget_id(action: Literal["confirm", "cancel"], user_id: int) -> str:
    return f"lbforget:{action}:{user_id}"


def _stopped(items: Sequence[discord.ui.Item[discord.ui.View]]) -> discord.ui.View:
    """A view discord.py does not keep: clicks reach the DynamicItem handlers, before or after a restart."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


def figure(metric: str, value: float, locale: str | None) -> str:
    """How a metric's value reads: averages with one decimal, everything else whole (the locale's digits)."""
    return number(value, locale, decimals=1, exact=True) if metric == "average" else number(round(value), locale)


def rank_label(rank: int) -> str:
    """A medal for the first three ranks (a wins board lists only players who have won: no medal honours a loss)."""
    return MEDALS.get(rank, f"`#{rank}`")


def player_label(row: Standing, scope: Scope) -> str:
    """A mention on a server board (Discord shows the current server name); the stored name across servers."""
    if scope == "server":
        return mention(row.user_id)
    return in_markdown(shorten(row.display_name, NAME_LIMIT))


def render_board(
    page: LeaderboardPage, request: BoardRequest, locale: str | None, *, seen_by_owner_only: bool = False
) -> tuple[discord.Embed, discord.ui.View]:
    """The leaderboard embed with Previous/Next (when there is more than one page).

    The line under the board is about whoever asked (``request.owner``): a board the whole channel sees names
    them ("@Bob has no wins on this board yet"), where "you" read as every reader; a private one says "you".
    """
    scope: Scope = "global" if page.guild_id is None else "server"
    title = t(
        "leaderboard.title",
        locale,
        game=t(f"game.{page.kind}", locale),
        metric=t(f"leaderboard.metric.{page.metric}", locale),
    )
    lines = []
    for row in page.rows:
        key = "leaderboard.line_games" if page.metric == "games" else "leaderboard.line"
        lines.append(
            t(
                key,
                locale,
                rank=rank_label(row.rank),
                name=player_label(row, scope),
                value=figure(page.metric, row.value, locale),
                games=t("leaderboard.games", locale, count=row.games),
            )
        )
    if not lines:
        if page.metric == "average":
            lines.append(t("leaderboard.empty_average", locale, min=MIN_AVERAGE_GAMES))
        elif page.metric == "wins":
            # Games played may well be stored (alone, or lost): the board lists only those who have won.
            lines.append(t("leaderboard.empty_wins", locale))
            lines.append(t("leaderboard.empty_wins_hint", locale, command=_start_command(page.kind, locale)))
        else:
            lines.append(t("leaderboard.empty", locale))
            lines.append(t("leaderboard.empty_hint", locale, command=_start_command(page.kind, locale)))
        if page.apart_results:
            # Games with a computer of this game in this scope and period, kept apart (in /stats only), left the
            # board empty: it says where they went (QA: a Kniffel with a computer, then "nobody is on it").
            lines.append(t("leaderboard.computers_unranked", locale))
    elif not page.caller_on_page:
        lines.append("")
        lines.append(_caller_line(page, locale, request.owner, seen_by_owner_only))
    embed = discord.Embed(title=title, description="\n".join(lines), colour=COLOUR_OVER)
    embed.set_footer(
        text=t(
            "leaderboard.footer",
            locale,
            scope=t(f"leaderboard.scope.{scope}", locale),
            period=t(f"leaderboard.period.{page.period}", locale),
            page=page.page + 1,
            pages=page.pages,
        )
    )
    items: list[discord.ui.Item[discord.ui.View]] = []
    if page.pages > 1:
        shown = replace(request, scope=scope, page=page.page)
        items.append(
            discord.ui.Button(
                label=t("leaderboard.previous", locale),
                emoji="◀️",
                custom_id=shown.custom_id(max(page.page - 1, 0)),
                disabled=page.page == 0,
            )
        )
        items.append(
            discord.ui.Button(
                label=t("leaderboard.next", locale),
                emoji="▶️",
                custom_id=shown.custom_id(page.page + 1),
                disabled=page.page + 1 >= page.pages,
            )
        )
    return embed, _stopped(items)


def _caller_line(page: LeaderboardPage, locale: str | None, owner: int, private: bool) -> str:
    """The asker's own line: "you" when only they see the board, their name when the channel does."""
    prefix = "leaderboard.you" if private else "leaderboard.asker"
    name = f"<@{owner}>"  # an embed's mention names without pinging
    caller = page.caller
    if caller is not None:
        return t(
            f"{prefix}_games" if page.metric == "games" else prefix,
            locale,
            name=name,
            rank=caller.rank,
            value=figure(page.metric, caller.value, locale),
            games=t("leaderboard.games", locale, count=caller.games),
        )
    # Played here, and not listed: say why rather than only "not on this board".
    if page.metric == "average" and page.caller_games:
        return t(f"{prefix}_need_games", locale, name=name, min=MIN_AVERAGE_GAMES, games=page.caller_games)
    if page.metric == "wins" and page.caller_games:
        return t(f"{prefix}_no_wins", locale, name=name)
    return t(f"{prefix}_unranked", locale, name=name)


def _total(entry: GameStats, name: str) -> int | float:
    """A counter's total, 0 when none of the user's results in this game had it."""
    counter = entry.counters.get(name)
    return counter.total if counter else 0


def _kniffel_line(entry: GameStats, locale: str | None) -> str:
    """Kniffels rolled, and the upper bonus out of the games whose rules have one (classic games have none)."""
    kniffels = _total(entry, "kniffels")
    bonus = entry.counters.get("upper_bonus")
    if bonus is None or not bonus.games:
        return t("stats.kniffel_classic", locale, kniffels=kniffels)
    # Say which games the bonus is counted over when they are not all of the games above.
    key = "stats.kniffel" if bonus.games == entry.games else "stats.kniffel_some_classic"
    # The games are counted in words ("1 game", "2 games"): they choose the plural form.
    return t(key, locale, count=bonus.games, bonus=bonus.total, rate=percent(bonus.rate, locale), kniffels=kniffels)


def _tutto_line(entry: GameStats, locale: str | None) -> str:
    return t("stats.tutto", locale, tuttos=_total(entry, "tuttos"))


def _dicepoker_line(entry: GameStats, locale: str | None) -> str:
    return t(
        "stats.dicepoker",
        locale,
        settlement=number(_total(entry, "settlement"), locale, signed=True, decimals=2),  # as the final board
    )


#: Each game's own /stats line from the counters its results keep; a game without counters has none.
COUNTER_LINES: dict[str, Callable[[GameStats, str | None], str]] = {
    "kniffel": _kniffel_line,
    "tutto": _tutto_line,
    "dicepoker": _dicepoker_line,
}


#: The suffix of the kind of a result from a game with computer players (``bot/play/computer.py`` writes it).
VS_COMPUTER = "+computer"
LEVELS = ("easy", "normal", "perfect")


def _computer_line(entry: GameStats, locale: str | None) -> str:
    """Wins against each computer level played: "Easy 2 of 3 · Perfect 0 of 1"."""
    parts = [
        t(
            "stats.vs_level",
            locale,
            level=t(f"computer.level.{level}", locale),
            wins=_total(entry, f"won_vs_{level}"),
            games=_total(entry, f"vs_{level}"),
        )
        for level in LEVELS
        if _total(entry, f"vs_{level}")
    ]
    return t("stats.vs_computer", locale, levels=" · ".join(parts))


def _games_line(entry: GameStats, locale: str | None) -> str:
    """Games and wins, with the win rate over the games that had an opponent (a game alone is never a win)."""
    rate = percent(entry.win_rate, locale)
    if not entry.solo:
        return t("stats.games", locale, games=entry.games, wins=entry.wins, rate=rate)
    if entry.solo == entry.games:
        return t("stats.games_alone", locale, games=entry.games)
    return t("stats.games_solo", locale, games=entry.games, solo=entry.solo, wins=entry.wins, rate=rate)


def _stats_title(kind: str, against: bool, variant: str | None, locale: str | None) -> str:
    """The game, "against the computer" when so, and the rule set of figures kept per rule set (named as the
    lobby names it)."""
    game = t(f"game.{kind}", locale)
    title = t("stats.vs_computer_title", locale, game=game) if against else game
    if variant is None:
        return title
    return t("stats.rules_title", locale, game=title, rules=t(f"variant.{variant}", locale))


def render_stats(
    name: str, stats: Sequence[GameStats], game: str | None, locale: str | None, *, own: bool
) -> discord.Embed:
    """One field per game played (per rule set, for a game whose figures came so): games, wins and win rate, best
    and average, game counters, the games played with hints, last played. Only ``own`` statistics (the caller's)
    tell how to delete them: under someone else's, "/forget-me deletes your results" spoke to the wrong person."""
    shown = in_markdown(shorten(name, 100))  # escaped or isolated, at most 202 characters: the title's 256 hold
    embed = discord.Embed(title=t("stats.title", locale, name=shown), colour=COLOUR_LOBBY)
    if not stats:
        if game is None:
            embed.description = t("stats.nothing", locale, name=shown)
        else:
            embed.description = t("stats.nothing_game", locale, name=shown, game=t(f"game.{game}", locale))
    for entry in stats:
        last = datetime.fromtimestamp(entry.last_at, tz=UTC)
        lines = [
            _games_line(entry, locale),
            t("stats.scores", locale, best=entry.best, average=number(entry.average, locale, decimals=1, exact=True)),
        ]
        kind, against = entry.kind.removesuffix(VS_COMPUTER), entry.kind.endswith(VS_COMPUTER)
        counter_line = COUNTER_LINES.get(kind)
        if counter_line is not None:
            lines.append(counter_line(entry, locale))
        if against:
            lines.append(_computer_line(entry, locale))
        if entry.hinted:
            lines.append(t("stats.hinted", locale, games=entry.hinted))
        lines.append(t("stats.last", locale, when=discord.utils.format_dt(last, "R")))
        embed.add_field(name=_stats_title(kind, against, entry.variant, locale), value="\n".join(lines), inline=False)
    embed.set_footer(text=t("stats.footer_own" if own else "stats.footer", locale))
    return embed


def render_forget_prompt(count: int, games: int, user_id: int, locale: str | None) -> tuple[str, discord.ui.View]:
    """The private question before deleting: how many results go (else in how many games in progress no result
    will be stored), a red Confirm and a Cancel."""
    if count == 0 and games == 0:
        return t("forget.nothing", locale), _stopped([])
    text = t("forget.prompt", locale, count=count) if count else t("forget.prompt_games", locale, count=games)
    confirm: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label=t("forget.confirm", locale), style=discord.ButtonStyle.danger, custom_id=forget_id("confirm", user_id)
    )
    cancel: discord.ui.Button[discord.ui.View] = discord.ui.Button(
        label=t("forget.cancel", locale), style=discord.ButtonStyle.secondary, custom_id=forget_id("cancel", user_id)
    )
    return text, _stopped([confirm, cancel])


def render_forgotten(count: int, games: int, locale: str | None) -> str:
    """What forget-me did: the results deleted, else the games in progress that will store none."""
    return t("forget.done", locale, count=count) if count else t("forget.done_games", locale, count=games)


def _start_command(kind: str, locale: str | None) -> str:
    """``/<game> start`` as the reader's client lists it (``würfelpoker start`` in German): the English names
    named a command a German, Hungarian or Polish server does not have (QA)."""
    return f"{t(f'cmd.{kind}.name', locale)} {t('cmd.start.name', locale)}"
