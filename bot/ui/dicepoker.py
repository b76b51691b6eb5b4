"""Dice poker's game message: the part, signed upper rows, first-roll doubling, settlement at the end."""

from __future__ import annotations

from fractions import Fraction
from types import ModuleType

from bot.engine import dicepoker
from bot.engine.core import Event
from bot.i18n import number, t
from bot.ui.common import EMPTY
from bot.ui.fivedice import ScorecardUI
from bot.ui.render import Table
from bot.ui.standings import standing


def signed(value: int | Fraction, locale: str = "en") -> str:
    """``+12``, ``−2``, ``0``, ``+16.67``: a sign unless zero, at most two decimals (the locale's way), a real minus."""
    exact = isinstance(value, Fraction) and value.denominator != 1
    return number(float(value) if exact else int(value), locale, signed=True, decimals=2)


def bonus_status(card: dict[str, int]) -> str:
    """made / possible / lost: whether the +50 for an upper sum >= 0 can still be reached."""
    upper = sum(card.get(row, 0) for row in dicepoker.UPPER)
    open_rows = [index for index, row in enumerate(dicepoker.UPPER, start=1) if row not in card]
    if not open_rows:
        return "made" if upper >= 0 else "lost"
    return "possible" if upper + sum(2 * face for face in open_rows) >= 0 else "lost"


class DicePokerUI(ScorecardUI):
    kind = "dicepoker"
    turns = dicepoker.TURNS

    @property
    def engine(self) -> ModuleType:
        return dicepoker

    def choices(self, table: Table) -> list[tuple[str, str, str | None]]:
        state, locale = table.state, table.locale
        options = dicepoker.row_options(state.dice, state.cards[state.current_player], state.turn, state.first_roll)
        if not options:
            return [(t("dicepoker.pass", locale), "pass", t("dicepoker.pass_hint", locale))]
        choices: list[tuple[str, str, str | None]] = []
        for row, points in options.items():
            name = t(f"dicepoker.row.{row}", locale)
            if row in dicepoker.UPPER:
                label = t("dicepoker.option", locale, row=name, points=signed(points))
            elif dicepoker.doubles(row, state.first_roll):
                label = t("dicepoker.option_doubled", locale, row=name, points=points)
            else:
                label = t("dicepoker.option", locale, row=name, points=points)
            choices.append((label, row, None))
        return choices

    def last_roll_key(self, table: Table) -> str:
        """After the last roll a player whose dice fit no open row can only pass (the select offers nothing else)."""
        state = table.state
        if dicepoker.row_options(state.dice, state.cards[state.current_player], state.turn, state.first_roll):
            return super().last_roll_key(table)
        return "dicepoker.roll_last_pass"

    def card_rows(self, table: Table, player: str) -> list[tuple[str, str]]:
        state, locale = table.state, table.locale
        card, dashes = state.cards[player], set(state.dashes.get(player, ()))
        sums = dicepoker.card_totals(state, player)

        def row(name: str, value: str) -> tuple[str, str]:
            return t(f"dicepoker.short.{name}", locale), value

        def cell(name: str, upper: bool) -> str:
            if name in dashes:
                return "—"
            if name not in card:
                return EMPTY
            return signed(card[name]) if upper else str(card[name])

        rows = [row(name, cell(name, True)) for name in dicepoker.UPPER]
        rows.append(row("upper_sum", signed(sums.upper)))
        rows.append(row("upper_bonus", str(sums.upper_bonus)))
        rows += [row(name, cell(name, False)) for name in dicepoker.LOWER]
        rows.append(row("lower_sum", number(sums.lower, locale)))
        rows.append(row("total", number(sums.total, locale)))
        return rows

    def total(self, table: Table, player: str) -> int:
        return dicepoker.card_totals(table.state, player).total

    def status_lines(self, table: Table) -> list[str]:
        state, locale = table.state, table.locale
        lines = [t(f"dicepoker.part{state.part}", locale)]
        upper = []
        for player in state.players:
            if player in state.left:
                continue
            card = state.cards[player]
            sums = dicepoker.card_totals(state, player)
            status = t(f"dicepoker.bonus.{bonus_status(card)}", locale)
            upper.append(
                t("dicepoker.upper_line", locale, name=table.name(player), upper=signed(sums.upper), status=status)
            )
        return [*lines, *upper]

    def final_lines(self, table: Table) -> list[str]:
        """The standings with each settlement in brackets, and a line under them saying what the brackets are,
        with the average they are measured from (QA: "216 (+105.33)" left it to the rules). Alone at the table a
        settlement is always 0: the plain standing then."""
        state, locale = table.state, table.locale
        if len(state.players) == 1:
            return super().final_lines(table)
        shares = dicepoker.settlements(state)
        lines = [
            t(
                "dicepoker.final_line",
                locale,
                **standing(table, result.player, result.rank)._asdict(),
                total=result.score,
                settlement=signed(shares[result.player], locale),
            )
            for result in self.ranked(table)
        ]
        average = dicepoker.average(dicepoker.seat_totals(state))
        return [*lines, t("dicepoker.settlement_legend", locale, average=number(float(average), locale, decimals=2))]

    def event_line(self, event: Event, table: Table) -> str | None:
        locale, params = table.locale, event.params
        if event.key == "dicepoker.order":
            return t("dicepoker.order", locale, players=", ".join(table.name(p) for p in params["players"]))
        if event.key == "dicepoker.scored":
            row = params["row"]
            points = signed(params["points"]) if row in dicepoker.UPPER else str(params["points"])
            key = "dicepoker.scored_doubled" if params["doubled"] else "dicepoker.scored"
            return t(
                key, locale, name=table.name(params["player"]), points=points, row=t(f"dicepoker.row.{row}", locale)
            )
        if event.key == "dicepoker.passed":
            return t("dicepoker.passed", locale, name=table.name(params["player"]))
        if event.key == "game.over":
            return self.over_line(table, params["winners"])
        return None


UI = DicePokerUI()
