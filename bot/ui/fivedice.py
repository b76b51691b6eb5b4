"""The turn message of the five-dice scorecard games (Kniffel, dice poker), written once for both.

A game subclasses :class:`ScorecardUI` and supplies what differs: which boxes may be chosen and how they are
labelled, the rows of a card, status lines and announcements. Layout on the game message:

- row 0: the five dice (tap to hold; held dice are blue with a lock);
- row 1: **Roll** (with the roll count) and **Scorecard**;
- row 2: the **Score…** select listing every allowed box with the points it would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import discord

from bot.engine import fivedice
from bot.engine.core import Event, PlayerResult
from bot.i18n import listing, number, t
from bot.ui.common import COLOUR_OVER, COLOUR_PLAYING, DIE_FACES, faces, monospace_table, shorten, unbroken
from bot.ui.ended import ended_embed
from bot.ui.render import Rendered, Table, custom_id
from bot.ui.standings import board_mark, final_footer, marked_name, ranked, standing, staying_first
from bot.ui.tables import card_tables, name_cells

FIELD_LIMIT = 1024
#: Names in the totals' code block, in columns: with a 4-digit total a line stays well within a phone's.
NAME_WIDTH = 14


def roll_stamp(state: fivedice.FiveDiceState) -> int:
    """The stamp of the hold buttons: it changes when the dice under them change (a roll, a new turn), not on a hold.

    A hold button means "hold die i" or "release die i", so two quick holds of different dice both apply, and a
    double click cannot toggle a die twice; a click from before the latest roll is refused as outdated.
    """
    return (sum(state.turns.values()) * 16 + state.current) * 4 + state.rolls


class ScorecardUI:
    """Rendering shared by the five-dice games; subclasses fill in the game-specific parts."""

    kind: str = ""
    turns: int = 13

    # ------------------------------------------------------------------ game-specific parts

    def choices(self, table: Table) -> list[tuple[str, str, str | None]]:
        """(label, value, description) for every option of the Score… select now."""
        raise NotImplementedError

    def card_rows(self, table: Table, player: str) -> list[tuple[str, str]]:
        """(box label, value) lines of one player's card, sums and bonuses included."""
        raise NotImplementedError

    def total(self, table: Table, player: str) -> int:
        raise NotImplementedError

    def status_lines(self, table: Table) -> list[str]:
        """Extra lines under the dice (the dice poker part, bonus status...)."""
        return []

    def final_lines(self, table: Table) -> list[str]:
        """The standings under the final embed's title; a phone that wraps a line keeps the score with its dash
        and the name's last word (no-break spaces, ``tests/ui/test_phone.py``)."""
        lines = []
        for result in self.ranked(table):
            medal, name = standing(table, result.player, result.rank)
            lines.append(f"{medal} {name}\N{NO-BREAK SPACE}—\N{NO-BREAK SPACE}**{result.score}**")
        return lines

    def ranked(self, table: Table) -> list[PlayerResult]:
        """The engine's results in the final standings' order (``standings.ranked``)."""
        return ranked(self.engine.results(table.state), table.state.players)

    def last_roll_key(self, table: Table) -> str:
        """The message id of the line under the dice after the last roll: they can no longer be held (QA: the board
        still said to tap them), so it says what is left to do, in few words for a phone."""
        return "dice.roll_last"

    def event_line(self, event: Event, table: Table) -> str | None:
        """The channel announcement for one engine event, or None to stay quiet."""
        return None

    def over_line(self, table: Table, winners: Sequence[str]) -> str:
        """The game-over news: the winners, or for a game played alone (never a win, docs/RULES.md) the score."""
        if len(table.state.players) == 1:
            (player,) = table.state.players
            return t("dice.solo_over", table.locale, name=marked_name(table, player), count=self.total(table, player))
        names = listing((marked_name(table, p) for p in winners), table.locale)
        return t("dice.winners", table.locale, names=names, count=len(winners))

    @property
    def engine(self) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------------ shared rendering

    def render(self, table: Table) -> Rendered:
        if table.ended:
            return self.render_ended(table)
        if self.engine.is_over(table.state):
            return self.render_final(table)
        return self.render_turn(table)

    def announce(self, table: Table) -> list[str]:
        """The game's lines; a computer's roll is told too (what it kept and rolled), since nobody watched it press
        anything: without the line, the news above its board still told the move before its turn."""
        lines = []
        for event in table.events:
            if event.key == "game.left":
                continue
            if event.key == f"{self.kind}.rolled":
                line = self.computer_roll_line(event, table)
            else:
                line = self.event_line(event, table)
            if line:
                lines.append(line)
        return lines

    @staticmethod
    def computer_roll_line(event: Event, table: Table) -> str | None:
        """A computer's roll: the dice it kept and the ones it rolled (a person's own roll needs no line)."""
        player = event.params["player"]
        if not table.is_computer(player):
            return None
        dice, held = event.params["dice"], table.state.held
        kept = [die for die, keep in zip(dice, held, strict=True) if keep]
        rolled = [die for die, keep in zip(dice, held, strict=True) if not keep]
        name = table.name(player)
        if not kept:
            return t("dice.computer_rolled", table.locale, name=name, dice=unbroken(faces(rolled)))
        kept_faces, rolled_faces = unbroken(faces(kept)), unbroken(faces(rolled))  # each group one word on a phone
        return t("dice.computer_kept_rolled", table.locale, name=name, kept=kept_faces, dice=rolled_faces)

    def render_turn(self, table: Table) -> Rendered:
        state, locale = table.state, table.locale
        player = state.current_player
        title = t(f"game.{self.kind}", locale)
        turn = min(state.turns[player] + 1, self.turns)
        embed = discord.Embed(
            title=t("dice.title", locale, game=title, turn=turn, turns=self.turns), colour=COLOUR_PLAYING
        )
        lines = [t("dice.turn_of", locale, player=table.mention(player))]
        computer = table.is_computer(player)
        if state.rolls:
            held = " ".join("🔒" if keep else "▫️" for keep in state.held)
            if computer:
                key = "dice.roll_count_plain"
            elif state.rolls < fivedice.ROLLS:
                key = "dice.roll_count"
            else:
                key = self.last_roll_key(table)
            lines += [f"# {faces(state.dice)}", held, t(key, locale, roll=state.rolls, rolls=fivedice.ROLLS)]
        elif not computer:
            lines.append(t("dice.press_roll", locale))
        lines += self.status_lines(table)
        embed.description = "\n".join(lines)
        embed.add_field(name=t("dice.totals", locale), value=self.totals(table), inline=False)
        content = t("computer.playing" if computer else "dice.content", locale, player=table.mention(player))
        rendered = Rendered(content=content, embeds=[embed])
        self._controls(table, rendered)
        return rendered

    def render_ended(self, table: Table) -> Rendered:
        """A game that ended early: the totals as they stood, no turn, no controls."""
        embed = ended_embed(table, self.kind)
        embed.add_field(name=t("dice.totals", table.locale), value=self.totals(table), inline=False)
        return Rendered(embeds=[embed])

    def totals(self, table: Table) -> str:
        """Every total in seat order, those who left or were removed last and marked: their card stays."""
        players = table.state.players
        return _totals_block(
            tuple((p, table.plain_name(p)) for p in players),
            tuple((p, self.total(table, p), board_mark(table, p)) for p in staying_first(table, players)),
            table.locale,
        )

    def _controls(self, table: Table, rendered: Rendered) -> None:
        state, locale, stamp, game = table.state, table.locale, table.stamp, table.game_id
        layout = rendered.layout
        # Controls are enabled from the engine's own list of what it would accept now.
        legal = fivedice.dice_actions(state)
        can_roll = any(isinstance(action, fivedice.Roll) for action in legal)
        holdable = {action.index for action in legal if isinstance(action, fivedice.ToggleHold)}
        dice_stamp = roll_stamp(state)
        for index in range(fivedice.DICE):
            if state.rolls:
                held = state.held[index]
                can_hold = index in holdable
                # A held die shows 🔒 and its number without the face: five held still fit a phone's row.
                layout.button(
                    0,
                    str(state.dice[index]) if held else f"{DIE_FACES[state.dice[index]]} {state.dice[index]}",
                    custom_id(game, "hold", f"{index}.{int(not held)}", dice_stamp),
                    style=discord.ButtonStyle.primary if held else discord.ButtonStyle.secondary,
                    emoji="🔒" if held else None,
                    disabled=not can_hold,
                )
            else:
                layout.button(0, "·", custom_id(game, "hold", f"{index}.1", dice_stamp), disabled=True)
        # "Roll (2/3)" names the roll a press makes; before the first and after the last it is plain "Roll".
        counted = 0 < state.rolls < fivedice.ROLLS
        label = t("dice.reroll", locale, roll=state.rolls + 1) if counted else t("dice.roll", locale)
        layout.button(
            1, label, custom_id(game, "roll", "", stamp), style=discord.ButtonStyle.success, disabled=not can_roll
        )
        layout.button(1, t("dice.scorecard", locale), custom_id(game, "card", "", stamp))
        if state.rolls:
            choices = self.choices(table)
            layout.select(2, t("dice.score_placeholder", locale), custom_id(game, "score", "", stamp), choices)

    def render_final(self, table: Table) -> Rendered:
        state, locale = table.state, table.locale
        embed = discord.Embed(
            title=t("dice.final_title", locale, game=t(f"game.{self.kind}", locale)),
            description="\n".join(self.final_lines(table)),
            colour=COLOUR_OVER,
        )
        final_footer(table, embed)
        if len(state.players) > 2:
            # Inline fields stack on a phone: one table with a column per player reads at any width.
            blocks = self.card_tables(table)
            for index, block in enumerate(blocks):
                name = t("dice.cards", locale) if index == 0 else "\u200b"
                embed.add_field(name=name, value=block, inline=False)
            return Rendered(embeds=[embed])
        for result in self.ranked(table):
            embed.add_field(
                name=table.name(result.player, 256), value=self.card_block(table, result.player), inline=True
            )
        return Rendered(embeds=[embed])

    def card_tables(self, table: Table) -> list[str]:
        """Every player's card in code blocks a phone shows without wrapping, a column per player in the final
        standings' order."""
        players = [result.player for result in self.ranked(table)]
        cards = [self.card_rows(table, player) for player in players]
        labels = [label for label, _ in cards[0]]
        columns = [
            (table.plain_name(player), [value for _, value in card])
            for player, card in zip(players, cards, strict=True)
        ]
        seats = [table.state.players.index(player) for player in players]
        return [shorten(block, FIELD_LIMIT) for block in card_tables(labels, columns, seats=seats)]

    def card_block(self, table: Table, player: str) -> str:
        return shorten(monospace_table(self.card_rows(table, player)), FIELD_LIMIT)

    def render_card(self, table: Table, player: str) -> Rendered:
        """The ephemeral scorecard of one player, in the viewer's language (``table.locale``)."""
        locale = table.locale
        embed = discord.Embed(
            title=t("dice.card_title", locale, game=t(f"game.{self.kind}", locale), name=table.name(player)),
            description=self.card_block(table, player),
            colour=COLOUR_PLAYING,
        )
        return Rendered(embeds=[embed])


@lru_cache(maxsize=4096)
def _totals_block(names: tuple[tuple[str, str], ...], standings: tuple[tuple[str, int, str], ...], locale: str) -> str:
    """The totals' code block from the names in seat order and (player, total, mark) in the board's order,
    remembered by exactly these: they change only when someone scores or leaves, and laying the names out and
    writing the numbers again on every roll and hold was a twentieth of rendering a board (docs/benchmarks.md)."""
    cells = name_cells(dict(names), NAME_WIDTH)
    return monospace_table([(cells[p], number(total, locale), mark) for p, total, mark in standings], align_left_from=2)
