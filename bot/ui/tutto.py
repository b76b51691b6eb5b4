"""Tutto's game message and channel announcements.

One message per game, edited in place. Its embed names the card with a one-line reminder of its rule, the dice
set aside under it, the live value of the selection (or why it is refused) and the scoreboard with the points at
risk this turn. Its buttons:

- the dice of the current roll, tap to select (six dice: two rows of three; fewer: one row); under Street a die
  of a face already collected or picked is greyed out;
- **Take all** after the dice (the second row of six, or a row of its own under fewer): every scoring die in one
  tap instead of one tap a die; offered when it would select two dice or more, greyed once they are selected
  (greyed, not gone, so the rows below stay where the thumb expects Roll on);
- the dice set aside earlier under this card, greyed out on their own row;
- the turn's actions: **Draw & roll** (the roll after the card has nothing to choose, so it comes with the
  draw), **Roll** (seen on a computer's turn, which draws and rolls in two paced steps), **Roll on** / **Stop**
  (Stop only under a card that allows it), and after a Tutto **Continue** / **Stop**.

Buttons the engine would refuse are disabled rather than answered with an error, and the embed says why.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.engine import tutto
from bot.engine.core import Event
from bot.i18n import listing, number, t
from bot.ui.common import COLOUR_OVER, COLOUR_PLAYING, DIE_FACES, faces, monospace_table, unbroken
from bot.ui.ended import ended_embed
from bot.ui.render import Rendered, Table, custom_id
from bot.ui.standings import board_mark, final_footer, marked_name, ranked, standing, staying_first
from bot.ui.tables import name_cells

BAR_WIDTH = 10
#: Names in the scoreboard code block: with the marker, a 5-digit score and the bar a line stays within 32
#: columns (what a 375 px phone shows without wrapping, `bot.ui.common.PHONE_COLUMNS`).
NAME_WIDTH = 12
#: The bar of the final standings: after a medal, a computer's name ("🤖 Tökéletes 2") and a five-digit score, ten
#: cells and the Tuttos left no room on a phone's line (QA: Polish lines took two); the Tuttos have a field below.
FINAL_BAR_WIDTH = 5
DICE_PER_ROW = 3
"""Six dice split 3 + 3 so the labels stay readable on phones; fewer fit one row of Discord's five."""
TAKE_ALL_ROW = 1
"""Take all follows the second row of three dice, or has the row below fewer: Roll on and Stop leave no room for a
third button on a phone's row (in Polish, with a four-digit bank, they take 310 of its 313 px: tests/ui/test_phone.py's
model)."""
ACTION_ROW = 3
MISSING_FACE = "▫️"
STOPPABLE = frozenset({tutto.BONUS, tutto.DOUBLE})
#: The events of a roll that scores nothing, and their line with the dice (``TuttoUI._null_rolled``).
NULLS = {"tutto.null": "tutto.null_dice", "tutto.fireworks_null": "tutto.fireworks_null_dice"}
"""Cards that offer **Stop** before a Tutto (Street banks only through its Tutto, so it offers none)."""


def progress_bar(score: int, target: int, width: int = BAR_WIDTH) -> str:
    """``▰▰▰▱▱▱``: the share of the target reached, rounded down so a full bar means the target is reached."""
    filled = max(0, min(width, score * width // target)) if target > 0 else width
    return "▰" * filled + "▱" * (width - filled)


def card_name(card: str, locale: str) -> str:
    """The card's short name, e.g. ``Bonus 600``."""
    return t(f"tutto.card.{tutto.card_kind(card)}", locale, bonus=tutto.card_bonus(card))


def card_rule(card: str, locale: str) -> str:
    """The one-line reminder of what the card asks for."""
    key, params = tutto.card_rule(card)
    return t(key, locale, **params)


def _state(table: Table) -> tutto.State:
    state = table.state
    assert isinstance(state, tutto.State)
    return state


def _names(table: Table, players: Sequence[str]) -> str:
    return ", ".join(table.name(player) for player in players)


def _over_line(table: Table, winners: Sequence[str]) -> str:
    """The winners, or for a game played alone (never a win, docs/RULES.md) the score it finished with."""
    state = table.state
    if len(state.players) == 1:
        (player,) = state.players
        return t("tutto.solo_over", table.locale, name=marked_name(table, player), count=state.scores[player])
    names = listing((marked_name(table, player) for player in winners), table.locale)
    return t("tutto.winners", table.locale, names=names, count=len(winners))


def buys_round_line(table: Table, winners: Sequence[str], buyers: Sequence[str]) -> str | None:
    """Who buys the next round, or None when only winners would (a solo game, everybody tied)."""
    if set(buyers) <= set(winners):
        return None
    key = "tutto.buys_round" if len(buyers) == 1 else "tutto.buy_round"
    return t(key, table.locale, names=listing((table.name(player) for player in buyers), table.locale))


def _drawn_and_rolled(first: Event, then: Event) -> bool:
    """The card a player drew followed at once by their roll: the two steps of one click."""
    return first.key == "tutto.card" and then.key == "tutto.rolled" and first.params["player"] == then.params["player"]


def _turn_ends_with_card(events: Sequence[Event], index: int) -> bool:
    """Whether the card ``events[index]`` is a Stop card, whose own line tells it."""
    return index + 1 < len(events) and events[index + 1].key == "tutto.stop_card"


def _shown(events: Sequence[Event], index: int, table: Table) -> bool:
    """Whether the roll ``events[index]`` is the one the board shows: the last of the click, whose turn goes on.

    A timeout plays a whole turn in one go; its roll-ons are not told, as the turn's end replaced their dice.
    """
    later = any(event.key == "tutto.rolled" for event in events[index + 1 :])
    return not later and _state(table).phase == "select"


class TuttoUI:
    """Renders a Tutto table; stateless, one shared instance.

    Button colours tell the risk: green rolls, blue banks, red continues after a Tutto with everything at stake.
    """

    # ------------------------------------------------------------------ the game message

    def render(self, table: Table) -> Rendered:
        """The turn message while the game runs, the final standings once it is over."""
        state = _state(table)
        if table.ended:
            embed = ended_embed(table, "tutto")
            embed.add_field(name=t("tutto.scores", table.locale), value=self._scoreboard(table), inline=False)
            return Rendered(embeds=[embed])
        if tutto.is_over(state):
            return self.render_final(table)
        # The selection's check, asked for by the turn's lines and by the buttons, once per board.
        check = tutto.check_selection(state)
        embed = discord.Embed(title=self._title(table), description="\n".join(self._turn_lines(table, check)))
        embed.colour = COLOUR_PLAYING
        embed.add_field(name=t("tutto.scores", table.locale), value=self._scoreboard(table), inline=False)
        to_act = "computer.playing" if table.is_computer(state.current) else "tutto.content"
        rendered = Rendered(content=t(to_act, table.locale, player=table.mention(state.current)), embeds=[embed])
        self._controls(table, rendered, check)
        return rendered

    def _title(self, table: Table) -> str:
        return t("tutto.title", table.locale, game=t("game.tutto", table.locale), target=_state(table).target)

    def _turn_lines(self, table: Table, check: tutto.SelectionCheck) -> list[str]:
        state, locale = _state(table), table.locale
        lines = [t("tutto.turn_of", locale, player=table.mention(state.current))]
        person = not table.is_computer(state.current)  # a computer is never told what to press
        if state.card is None:
            if person:
                lines.append(t("tutto.press_draw", locale))
            return lines
        lines.append(
            t("tutto.card_line", locale, card=card_name(state.card, locale), rule=card_rule(state.card, locale))
        )
        if state.phase == "tutto":
            if person:
                lines.append(t("tutto.tutto_choice", locale, points=state.secured))
        elif tutto.card_kind(state.card) == tutto.STREET:
            collected = " ".join(DIE_FACES[face] if face in state.aside else MISSING_FACE for face in range(1, 7))
            lines.append(t("tutto.street_aside", locale, faces=collected))
        elif state.aside:
            lines.append(t("tutto.aside", locale, dice=faces(sorted(state.aside)), points=state.card_points))
        if state.phase == "roll":
            if person:
                lines.append(t("tutto.press_roll", locale, count=state.in_hand))
        elif state.phase == "select":
            lines.append(f"# {faces(state.roll)}")
            if person or check.reason != "empty":
                lines.append(self._selection_line(state, check, locale))
        lines.append(self._at_risk_line(state, locale))
        return lines

    def _selection_line(self, state: tutto.State, check: tutto.SelectionCheck, locale: str) -> str:
        """The live value of the selection (``check``), or the reason Roll on and Stop are disabled; under
        Fireworks, while the dice picked are among those the card demands, how many are left to take (the last one
        rolls on: ``tutto.forced_step``), with no warning for a pick that is right so far."""
        assert state.card is not None
        if tutto.card_kind(state.card) == tutto.FIREWORKS and check.points is None:
            demanded = set(tutto.scoring_selection(state))
            if demanded >= set(state.selected):
                return t("tutto.fireworks_left", locale, count=len(demanded) - len(state.selected))
        if check.reason == "empty":
            return t("tutto.reason.empty", locale)
        if check.points is None:
            return t("tutto.invalid", locale, reason=t(f"tutto.reason.{check.reason}", locale))
        dice = faces(state.selection)
        if tutto.card_kind(state.card) == tutto.STREET:
            return t("tutto.selected_street_tutto" if check.tutto else "tutto.selected_street", locale, dice=dice)
        return t("tutto.selected_tutto" if check.tutto else "tutto.selected", locale, dice=dice, points=check.points)

    def _at_risk_line(self, state: tutto.State, locale: str) -> str:
        """T + S: what a null or a Stop card would cost (under Fireworks a null banks it instead)."""
        total = state.secured + state.card_points
        if state.card is not None and tutto.card_kind(state.card) == tutto.FIREWORKS:
            return t("tutto.kept_fireworks", locale, points=total)
        if state.secured and state.card_points:
            return t("tutto.at_risk_parts", locale, points=total, secured=state.secured, card=state.card_points)
        return t("tutto.at_risk", locale, points=total)

    def _scoreboard(self, table: Table) -> str:
        """Banked scores in play order (from the first player), the player on turn marked (none once the game ended
        early), with a bar towards the target; those who left or were removed last, their mark in place of the bar
        (they cannot win)."""
        state = _state(table)
        current = None if table.ended else state.current
        names = name_cells({player: table.plain_name(player) for player in state.players}, NAME_WIDTH)
        rows = [
            (
                f"{'▶' if player == current else ' '} {names[player]}",
                number(state.scores[player], table.locale),
                board_mark(table, player) or progress_bar(state.scores[player], state.target),
            )
            for player in staying_first(table, state.players)
        ]
        return monospace_table(rows, align_left_from=2)

    # ------------------------------------------------------------------ buttons

    def _controls(self, table: Table, rendered: Rendered, check: tutto.SelectionCheck) -> None:
        state, locale, stamp, game = _state(table), table.locale, table.stamp, table.game_id
        layout = rendered.layout
        if state.phase == "draw":
            layout.button(
                ACTION_ROW,
                t("tutto.draw", locale),
                custom_id(game, "draw", "", stamp),
                style=discord.ButtonStyle.primary,
                emoji="🃏",
            )
            return
        if state.phase == "roll":
            layout.button(
                ACTION_ROW,
                t("tutto.roll", locale),
                custom_id(game, "roll", "", stamp),
                style=discord.ButtonStyle.success,
                emoji="🎲",
            )
            return
        if state.phase == "tutto":
            layout.button(
                ACTION_ROW,
                t("tutto.stop_bank", locale, points=state.secured),
                custom_id(game, "stop", "", stamp),
                style=discord.ButtonStyle.primary,
            )
            layout.button(
                ACTION_ROW,
                t("tutto.continue", locale),
                custom_id(game, "continue", "", stamp),
                style=discord.ButtonStyle.danger,
            )
            return
        self._dice(table, rendered)
        self._take_all(table, rendered)
        assert state.card is not None
        if tutto.card_kind(state.card) == tutto.FIREWORKS and check.points is None:
            # The tap that completes the selection rolls on (``tutto.forced_step``): Roll on could never be pressed.
            return
        if check.points is None:
            label = t("tutto.roll_on", locale)
        elif check.tutto:
            label = t("tutto.set_aside_tutto", locale)
        else:
            label = t("tutto.roll_on_count", locale, count=state.in_hand - len(state.selected))
        layout.button(
            ACTION_ROW,
            label,
            custom_id(game, "roll_on", "", stamp),
            style=discord.ButtonStyle.success if check.points is not None else discord.ButtonStyle.secondary,
            disabled=check.points is None,
        )
        if tutto.card_kind(state.card) in STOPPABLE:
            bank = tutto.bank_preview(state)
            layout.button(
                ACTION_ROW,
                t("tutto.stop", locale) if bank is None else t("tutto.stop_bank", locale, points=bank),
                custom_id(game, "stop", "", stamp),
                style=discord.ButtonStyle.primary,
                disabled=bank is None,
            )

    def _dice(self, table: Table, rendered: Rendered) -> None:
        """The roll as toggles (rows 0-1) and the dice set aside under this card, greyed, on row 2.

        A die the engine would refuse to select (under Street: a face collected, or picked from this roll, already)
        is greyed too; the card's rule on the board says why.
        """
        state, stamp, game = _state(table), table.stamp, table.game_id
        per_row = DICE_PER_ROW if len(state.roll) == tutto.DICE else len(state.roll)
        accepted = {toggle.index for toggle in tutto.toggle_actions(state)}
        for index, face in enumerate(state.roll):
            selected = index in state.selected
            # A selected die shows ✅ and its number without the face: five selected still fit a phone's row.
            rendered.layout.button(
                index // per_row,
                str(face) if selected else f"{DIE_FACES[face]} {face}",
                custom_id(game, "die", index, stamp),
                style=discord.ButtonStyle.primary if selected else discord.ButtonStyle.secondary,
                emoji="✅" if selected else None,
                disabled=index not in accepted,
            )
        for index, face in enumerate(state.aside):
            rendered.layout.button(
                2, f"{DIE_FACES[face]} {face}", custom_id(game, "aside", index, stamp), disabled=True
            )

    def _take_all(self, table: Table, rendered: Rendered) -> None:
        """**Take all** (``SelectScoring``): left out where it would select one die, the same as tapping it. Under
        Fireworks it reads **Take all & roll**: completing the selection rolls on there (``tutto.forced_step``)."""
        state = _state(table)
        if len(tutto.scoring_selection(state)) < 2:
            return
        assert state.card is not None
        fireworks = tutto.card_kind(state.card) == tutto.FIREWORKS
        rendered.layout.button(
            TAKE_ALL_ROW,
            t("tutto.take_all_roll" if fireworks else "tutto.take_all", table.locale),
            custom_id(table.game_id, "select_scoring", "", table.stamp),
            style=discord.ButtonStyle.primary,
            disabled=tutto.SelectScoring() not in tutto.legal_actions(state, state.current),
        )

    # ------------------------------------------------------------------ the end

    def render_final(self, table: Table) -> Rendered:
        """Final standings: ranks and scores, the Tuttos of those who scored any in a field below, each "name: count"
        unbroken (QA: every player's "…: 0" took three phone lines and split "🤖 Easy" from its count), none without
        any (a line each fits a phone). The
        winner, a Cloverleaf win and who buys the next round are the game-over news above it (``event_line``), as in
        the other games, so the board says each once."""
        state, locale = _state(table), table.locale
        results = ranked(tutto.results(state), state.players)
        lines = [
            t(
                "tutto.final_line",
                locale,
                **standing(table, result.player, result.rank)._asdict(),
                score=result.score,
                bar=progress_bar(result.score, state.target, FINAL_BAR_WIDTH),
            )
            for result in results
        ]
        tuttos = [
            unbroken(t("tutto.tuttos_of", locale, name=table.name(result.player), count=result.counters["tuttos"]))
            for result in results
            if result.counters["tuttos"]
        ]
        embed = discord.Embed(
            title=t("tutto.final_title", locale, game=t("game.tutto", locale)),
            description="\n".join(lines),
            colour=COLOUR_OVER,
        )
        if tuttos:
            embed.add_field(name=t("tutto.tuttos", locale), value=" · ".join(tuttos), inline=False)
        return Rendered(embeds=[final_footer(table, embed)])

    # ------------------------------------------------------------------ the channel

    def announce(self, table: Table) -> list[str]:
        """Card effects, banked points and turns, in plain words; toggles stay on the message.

        A card drawn and rolled in one click (Draw & roll, ``tutto.forced_step``; a timeout's turn) is told in one
        line with the dice: a null on that roll ends the turn before the board could show either. A roll on is told
        with the dice set aside and rolled, replacing the news of the roll before it, which the board no longer
        shows. A computer draws and rolls in two paced steps: its card alone and its roll alone (also all six again
        after a Tutto) are each told, so the news says what it just did rather than what happened before its turn.
        """
        lines = []
        events = table.events
        for index, event in enumerate(events):
            if index and _drawn_and_rolled(events[index - 1], event):
                continue
            if index + 1 < len(events) and _drawn_and_rolled(event, events[index + 1]):
                line: str | None = self._drew_rolled(event, events[index + 1], table)
            elif event.key == "tutto.rolled" and index and events[index - 1].key == "tutto.set_aside":
                line = self._rolled_on(events[index - 1], event, table) if _shown(events, index, table) else None
            elif event.key == "tutto.card" and not _turn_ends_with_card(events, index):
                line = self._drew(event, table)
            elif event.key == "tutto.rolled" and not index and _shown(events, index, table):
                line = t(
                    "tutto.rolled",
                    table.locale,
                    name=table.name(event.params["player"]),
                    dice=unbroken(faces(event.params["dice"])),
                )
            elif (
                event.key in NULLS
                and index
                and events[index - 1].key == "tutto.rolled"
                and not (index > 1 and _drawn_and_rolled(events[index - 2], events[index - 1]))
            ):
                line = self._null_rolled(event, events[index - 1], table)
            else:
                line = self.event_line(event, table)
            if line:
                lines.append(line)
        return lines

    def _drew_rolled(self, card: Event, roll: Event, table: Table) -> str:
        name = table.name(card.params["player"])
        return t(
            "tutto.drew_rolled",
            table.locale,
            name=name,
            card=card_name(card.params["card"], table.locale),
            dice=unbroken(faces(roll.params["dice"])),
        )

    def _drew(self, card: Event, table: Table) -> str:
        """A card drawn without a roll in the same step: a computer's first step, or its Continue after a Tutto."""
        name = table.name(card.params["player"])
        return t("tutto.drew", table.locale, name=name, card=card_name(card.params["card"], table.locale))

    def _rolled_on(self, aside: Event, roll: Event, table: Table) -> str:
        """Roll on: the dice set aside and the new roll, so the news never describes a roll the board replaced."""
        return t(
            "tutto.rolled_on",
            table.locale,
            name=table.name(roll.params["player"]),
            aside=unbroken(faces(sorted(aside.params["dice"]))),  # as the board lists them
            dice=unbroken(faces(roll.params["dice"])),
        )

    def _null_rolled(self, null: Event, roll: Event, table: Table) -> str:
        """A null with the dice that made it: the turn ends at once, so the board never shows that roll."""
        lost = null.params.get("lost", 0)
        key = "tutto.null_nothing_dice" if null.key == "tutto.null" and not lost else NULLS[null.key]
        return t(
            key,
            table.locale,
            name=table.name(null.params["player"]),
            dice=unbroken(faces(roll.params["dice"])),
            lost=lost,
        )

    def event_line(self, event: Event, table: Table) -> str | None:
        """The announcement for one engine event, or None to stay quiet."""
        locale, params = table.locale, event.params
        name = table.name(params["player"]) if "player" in params else ""
        key = event.key
        if key == "game.order":
            return t("tutto.order", locale, players=_names(table, params["order"]))
        if key == "tutto.reshuffled":
            return t("tutto.reshuffled", locale)
        if key == "tutto.stop_card":
            lost = params["lost"]
            return t("tutto.stop_card_lost" if lost else "tutto.stop_card", locale, name=name, lost=lost)
        if key == "tutto.null":
            lost = params["lost"]
            return t("tutto.null" if lost else "tutto.null_nothing", locale, name=name, lost=lost)
        if key == "tutto.plus_minus":
            parts = [t("tutto.plus_minus", locale, name=name, points=params["points"])]
            parts += [
                t("tutto.plus_minus_loser", locale, name=table.name(loser), points=lost)
                for loser, lost in params["losers"].items()
                if lost
            ]
            return ", ".join(parts)
        if key == "tutto.cloverleaf_win":
            return t("tutto.cloverleaf_win", locale, name=name)
        if key in {
            "tutto.fireworks_null",
            "tutto.bonus",
            "tutto.double",
            "tutto.street",
            "tutto.fireworks",
            "tutto.cloverleaf",
            "tutto.banked",
        }:
            return t(key, locale, **{**params, "name": name})
        if key == "game.over":
            winners = _over_line(table, params["winners"])
            buyers = buys_round_line(table, params["winners"], params["buys_round"])
            return f"{winners}\n{buyers}" if buyers else winners
        return None


UI = TuttoUI()
