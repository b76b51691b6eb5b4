"""Kniffel's game message, scorecards and announcements."""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

from bot.engine import kniffel
from bot.engine.core import Event
from bot.i18n import number, t
from bot.ui.common import EMPTY, faces, unbroken
from bot.ui.fivedice import ScorecardUI
from bot.ui.render import Table


class KniffelUI(ScorecardUI):
    kind = "kniffel"
    turns = kniffel.TURNS

    @property
    def engine(self) -> ModuleType:
        return kniffel

    def choices(self, table: Table) -> list[tuple[str, str, str | None]]:
        state = table.state
        card = frozenset(state.cards[state.current_player].items())
        return list(_choices(tuple(sorted(state.dice)), card, state.ruleset, table.locale))

    def card_rows(self, table: Table, player: str) -> list[tuple[str, str]]:
        state, locale = table.state, table.locale
        card = state.cards[player]
        sums = kniffel.card_totals(state, player)

        def box(name: str) -> tuple[str, str]:
            return t(f"kniffel.short.{name}", locale), str(card[name]) if name in card else EMPTY

        rows = [box(name) for name in kniffel.UPPER]
        rows.append((t("kniffel.short.upper_sum", locale), str(sums.upper)))
        if state.ruleset == "kniffel":
            rows.append((t("kniffel.short.upper_bonus", locale), str(sums.upper_bonus)))
        rows += [box(name) for name in kniffel.LOWER]
        if state.ruleset == "kniffel":
            rows.append((t("kniffel.short.extra_bonus", locale), str(sums.extra_bonus)))
        rows.append((t("kniffel.short.total", locale), number(sums.total, locale)))
        return rows

    def total(self, table: Table, player: str) -> int:
        return kniffel.card_totals(table.state, player).total

    def status_lines(self, table: Table) -> list[str]:
        """The rule set, named as the lobby and the start command's choices name it (``variant.<rule set>``); under
        Kniffel's rules the upper section of the player to act against the bonus's 63, which only the private
        scorecard showed: the bonus decides many a Kniffel box (QA)."""
        state, locale = table.state, table.locale
        lines = [t(f"kniffel.ruleset.{state.ruleset}", locale, name=t(f"variant.{state.ruleset}", locale))]
        if state.ruleset == "kniffel":
            sums = kniffel.card_totals(state, state.current_player)
            key = "kniffel.upper_made" if sums.upper_bonus else "kniffel.upper_progress"
            lines.append(
                t(key, locale, upper=sums.upper, threshold=kniffel.UPPER_BONUS_THRESHOLD, bonus=kniffel.UPPER_BONUS)
            )
        return lines

    def event_line(self, event: Event, table: Table) -> str | None:
        locale, params = table.locale, event.params
        if event.key == "kniffel.rolloff":
            # Each player's dice and sum one word on a phone: "Bob ⚀ / ⚀ ⚂ ⚀ ⚃ (10)" read as two groups (QA).
            rolls = ", ".join(
                f"{table.name(p)} {unbroken(f'{faces(dice)} ({sum(dice)})')}" for p, dice in params["rolls"].items()
            )
            return t("kniffel.rolloff", locale, round=params["round"], rolls=rolls)
        if event.key == "kniffel.order":
            return t("kniffel.order", locale, players=", ".join(table.name(p) for p in params["players"]))
        if event.key == "kniffel.scored":
            line = t(
                "kniffel.scored",
                locale,
                name=table.name(params["player"]),
                points=params["points"],
                box=t(f"kniffel.box.{params['box']}", locale),
            )
            if params["bonus"]:
                line += " " + t("kniffel.scored_bonus", locale, bonus=params["bonus"])
            if params.get("upper_bonus"):  # absent from the events of games saved before it was named
                line += " " + t(
                    "kniffel.scored_upper_bonus",
                    locale,
                    bonus=params["upper_bonus"],
                    threshold=kniffel.UPPER_BONUS_THRESHOLD,
                )
            return line
        if event.key == "game.over":
            return self.over_line(table, params["winners"])
        return None


@lru_cache(maxsize=4096)
def _choices(
    dice: tuple[int, ...], card: frozenset[tuple[str, int]], ruleset: str, locale: str
) -> tuple[tuple[str, str, str | None], ...]:
    """The Score… select's options, remembered by the sorted dice and the card's contents: holding dice re-renders
    the same options, and the engine's checks and points were a twentieth of a Kniffel board (docs/benchmarks.md).
    The options depend on neither the dice's order nor the card's."""
    scorecard = dict(card)
    options = kniffel.score_options(dice, scorecard, ruleset)
    bonus = kniffel.extra_bonus(dice, scorecard, ruleset)
    return tuple(
        (
            option_label(box, points, bonus + kniffel.upper_bonus_gained(scorecard, box, points, ruleset), locale),
            box,
            None,
        )
        for box, points in options.items()
    )


@lru_cache(maxsize=4096)
def option_label(box: str, points: int, bonus: int, locale: str) -> str:
    """A line of the Score… select, remembered: the same few hundred (box, points) pairs come back on every roll,
    and translating them again was a third of rendering a Kniffel board (docs/benchmarks.md)."""
    label = t("kniffel.option", locale, box=t(f"kniffel.box.{box}", locale), points=points)
    if bonus:
        label += " " + t("kniffel.option_bonus", locale, bonus=bonus)
    return label


UI = KniffelUI()
