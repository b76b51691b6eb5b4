"""Knister's round message, the private 5x5 grid of buttons, the final grids and the announcements.

The round message is public and never shows a grid: Knister is played blind, everybody only sees their own
grid, as an ephemeral message of 25 buttons (exactly Discord's 5 rows x 5 buttons, so everything else that
grid message says lives in its embed). A grid's cell buttons are stamped with the round rather than the game
version, so other players placing in the same round do not make it outdated, while last round's grid is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import discord

from bot.engine import knister
from bot.i18n import listing, t
from bot.ui.common import COLOUR_OVER, COLOUR_PLAYING, EMPTY, faces, monospace_table
from bot.ui.ended import ended_embed
from bot.ui.render import Rendered, Table, custom_id
from bot.ui.standings import final_footer, marked_name, ranked, standing
from bot.ui.tables import name_cells

#: Discord shows at most 32 characters of a display name; longer stored names are cut so embeds stay small.
NAME_LIMIT = 32
#: The width of a grid's code block: five cells of two digits, a bar and a row's score.
GRID_COLUMNS = 3 * knister.SIZE + 2


def grid_block(grid: knister.Grid, scores: knister.LineScores, locale: str, owner: str | None = None) -> str:
    """A grid with its row scores on the right, column scores below and the diagonals, as a code block; above it
    ``owner``, the player's name as a cell no wider than the grid (:func:`owners`).

    Kept to :data:`GRID_COLUMNS` characters wide so three of them fit side by side as inline fields of the final
    embed.
    """
    lines = [] if owner is None else [owner]
    for row, points in zip(grid, scores.rows, strict=True):
        cells = " ".join(f"{number:>2}" if number is not None else f"{EMPTY:>2}" for number in row)
        lines.append(f"{cells}|{points:>2}")
    lines.append("-" * (3 * knister.SIZE - 1) + "+")
    lines.append(" ".join(f"{points:>2}" for points in scores.columns))
    main, anti = scores.diagonals
    lines.append(t("knister.diagonals_short", locale, main=main, anti=anti))
    return "```\n" + "\n".join(lines) + "\n```"


def owners(names: Mapping[str, str]) -> dict[str, str]:
    """The names above the final grids by player id (``names`` in seat order), as typed, each no wider than the
    grid under it: cut with an ellipsis and numbered when two read alike after the cut (``tables.name_cells``), as
    the other games' tables name players."""
    return name_cells(names, GRID_COLUMNS)


def line_table(scores: knister.LineScores, locale: str) -> str:
    """The line scores of one grid as labelled rows (the private grid's embed)."""
    return monospace_table(
        [
            [t("knister.line_rows", locale), *map(str, scores.rows)],
            [t("knister.line_columns", locale), *map(str, scores.columns)],
            [t("knister.line_diagonals", locale), *map(str, scores.diagonals)],
            [t("knister.line_total", locale), str(scores.total)],
        ]
    )


class KnisterUI:
    """Pure rendering of Knister states (see :class:`bot.play.spec.GameUI`)."""

    # ------------------------------------------------------------------ the round message

    def render(self, table: Table) -> Rendered:
        if table.ended:
            # The grids stay secret: nobody played them to the end, and no score of them counts.
            return Rendered(embeds=[ended_embed(table, "knister")])
        if knister.is_over(table.state):
            return self.render_final(table)
        return self.render_round(table)

    def render_round(self, table: Table) -> Rendered:
        """Round n/25, the roller, the roll once thrown, and who has placed (never anybody's grid), listed in the
        order they roll from this round's roller, as the order of play was announced (QA: join order under it)."""
        state, locale = table.state, table.locale
        embed = discord.Embed(
            title=t("knister.title", locale, round=state.round, rounds=knister.ROUNDS), colour=COLOUR_PLAYING
        )
        active = state.active
        if state.dice is None and table.is_computer(state.roller):
            # A computer rolls by itself: nobody is told to press a Roll button nobody can press (QA).
            content = t("computer.playing", locale, player=table.mention(state.roller))
            embed.description = t("knister.waiting_roll_computer", locale, player=table.mention(state.roller))
        elif state.dice is None:
            content = t("knister.content_roll", locale, player=table.mention(state.roller))
            embed.description = t("knister.waiting_roll", locale, player=table.mention(state.roller))
        else:
            content = t(
                "knister.content_place", locale, number=state.number, placed=len(state.placed), players=len(active)
            )
            embed.description = "\n".join(
                [
                    t("knister.rolled_line", locale, faces=faces(state.dice), number=state.number),
                    t("knister.rolled_by", locale, player=table.mention(state.roller)),
                    t("knister.place_prompt", locale, number=state.number),
                ]
            )
        embed.add_field(
            name=t("knister.placed_title", locale, placed=len(state.placed), players=len(active)),
            value="\n".join(self._player_line(table, player) for player in knister.rolling_order(state)),
            inline=False,
        )
        rendered = Rendered(content=content, embeds=[embed])
        rolled = state.dice is not None
        game, stamp = table.game_id, table.stamp
        rendered.layout.button(
            0,
            t("knister.roll", locale),
            custom_id(game, "roll", "", stamp),
            style=discord.ButtonStyle.success,
            emoji="🎲",
            disabled=rolled,
        )
        rendered.layout.button(
            0,
            t("knister.place", locale, number=state.number) if rolled else t("knister.my_grid", locale),
            custom_id(game, "grid", "", stamp),
            style=discord.ButtonStyle.primary if rolled else discord.ButtonStyle.secondary,
        )
        return rendered

    @staticmethod
    def _player_line(table: Table, player: str) -> str:
        """``✅ name`` once placed, ``⏳ name`` while awaited; the roller gets a die. Never what or where."""
        state = table.state
        if player in state.placed:
            mark = "✅"
        elif state.dice is not None:
            mark = "⏳"
        else:
            mark = "▫️"
        line = f"{mark} {table.name(player, NAME_LIMIT)}"
        return f"{line} 🎲" if player == state.roller else line

    # ------------------------------------------------------------------ the private grid

    def render_grid(self, table: Table, player: str) -> Rendered:
        """One player's grid as 25 buttons; empty cells are clickable while that player still has to place."""
        state, locale = table.state, table.locale
        grid = state.grids[player]
        can_place = state.dice is not None and player in knister.to_act(state) and not table.ended
        if table.ended:
            embed = ended_embed(table, "knister")
        else:
            title = (
                t("knister.grid_title_over", locale)
                if state.over
                else t("knister.grid_title", locale, round=state.round, rounds=knister.ROUNDS)
            )
            status = self._grid_status(table, player, locale)
            embed = discord.Embed(title=title, description=status, colour=COLOUR_PLAYING)
        scores = knister.line_scores(grid, partial=not state.over)
        embed.add_field(
            name=t("knister.lines_final" if state.over else "knister.lines_so_far", locale),
            value=line_table(scores, locale),
            inline=False,
        )
        rendered = Rendered(embeds=[embed])
        for cell in range(knister.CELLS):
            row, column = divmod(cell, knister.SIZE)
            number = grid[row][column]
            component_id = custom_id(table.game_id, "place", cell, state.round)
            if number is None:
                rendered.layout.button(
                    row,
                    EMPTY,
                    component_id,
                    style=discord.ButtonStyle.primary if can_place else discord.ButtonStyle.secondary,
                    disabled=not can_place,
                )
            else:
                rendered.layout.button(row, str(number), component_id, disabled=True)
        return rendered

    @staticmethod
    def _grid_status(table: Table, player: str, locale: str) -> str:
        """What this player can do now, for the grid's embed (the grid message has no room for more buttons)."""
        state = table.state
        if state.over:
            return t("knister.grid_over", locale, points=knister.line_scores(state.grids[player]).total)
        if player in state.left:
            return t("knister.grid_left", locale)
        if state.dice is None:
            # The round message's buttons are named as they read there, in the game's language.
            if player == state.roller:
                return t("knister.grid_your_roll", locale, button=t("knister.roll", table.board_language))
            return t(
                "knister.grid_wait_roll",
                locale,
                player=table.name(state.roller, NAME_LIMIT),
                button=t("knister.my_grid", table.board_language),
            )
        if player in state.placed:
            acting = set(knister.to_act(state))
            waiting = [table.name(p, NAME_LIMIT) for p in knister.rolling_order(state) if p in acting]
            return t("knister.grid_placed", locale, number=state.number, names=listing(waiting, locale))
        return "\n".join(
            [
                t("knister.rolled_line", locale, faces=faces(state.dice), number=state.number),
                t("knister.grid_place", locale, number=state.number),
            ]
        )

    # ------------------------------------------------------------------ the end

    def render_final(self, table: Table) -> Rendered:
        """Standings, then every grid with its line scores as an inline field (12 players fit Discord's limits).

        An inline field is titled by the medal (or rank) its player has in the standings above, and the grid's code
        block names the player, cut to the grid's width: a title of medal, name and points took two lines on a
        phone ("🥇 🤖 Közepes — 75") and its grid then began lower than the one beside it (QA). A game played
        alone shows only the grid under the player's name: the news above it already says the score and its rating
        in one sentence (``_over_line``), which standings and the field's title repeated (QA: the score three
        times, the rating twice).
        """
        state, locale = table.state, table.locale
        results = ranked(knister.results(state), state.players)
        standings = [standing(table, result.player, result.rank, NAME_LIMIT) for result in results]
        alone = len(state.players) == 1
        lines = [
            t("knister.final_line", locale, **place._asdict(), points=result.score)
            for place, result in zip(standings, results, strict=True)
        ]
        embed = discord.Embed(
            title=t("knister.final_title", locale), description=None if alone else "\n".join(lines), colour=COLOUR_OVER
        )
        final_footer(table, embed)
        names = owners({player: table.plain_name(player) for player in state.players})
        for place, result in zip(standings, results, strict=True):
            grid = state.grids[result.player]
            owner = None if alone else names[result.player]
            embed.add_field(
                name=place.name if alone else place.medal,
                value=grid_block(grid, knister.line_scores(grid), locale, owner),
                inline=True,
            )
        return Rendered(embeds=[embed])

    @staticmethod
    def _rating(points: int, locale: str) -> str:
        rating = knister.solo_rating(points)
        return t(f"knister.rating.{rating or 'none'}", locale)

    # ------------------------------------------------------------------ announcements

    def announce(self, table: Table) -> list[str]:
        """The roll, the new round's roller and the end; quiet about placements, whose grids are secret.

        A solo player is looking at the message they just clicked, so only the end is announced then.
        """
        state, locale = table.state, table.locale
        together = len(state.active) > 1
        # A timeout that ends the round and then removes its next roller gives the round a second event naming
        # another roller: only the last one is who rolls.
        rounds = [event for event in table.events if event.key == "knister.round"]
        lines = []
        for event in table.events:
            params = event.params
            if event.key == "game.order" and together:
                lines.append(t("knister.order", locale, players=self._names(table, params["order"])))
            elif event.key == "knister.round" and together and event is rounds[-1]:
                lines.append(
                    t(
                        "knister.round",
                        locale,
                        round=params["round"],
                        rounds=knister.ROUNDS,
                        player=table.name(params["roller"]),
                    )
                )
            elif event.key == "knister.rolled" and together:
                lines.append(
                    t(
                        "knister.rolled",
                        locale,
                        name=table.name(params["player"]),
                        faces=faces(params["dice"]),
                        number=params["sum"],
                    )
                )
            elif event.key == "game.over":
                lines.append(self._over_line(table, params["winners"]))
        return lines

    def _over_line(self, table: Table, winners: Sequence[str]) -> str:
        state, locale = table.state, table.locale
        scores = {result.player: result.score for result in knister.results(state)}
        if len(state.players) == 1:
            player = state.players[0]
            points = scores[player]
            rating = self._rating(points, locale)
            return t("knister.solo_over", locale, name=marked_name(table, player), points=points, rating=rating)
        points = scores[winners[0]] if winners else 0
        names = listing((marked_name(table, player) for player in winners), locale)
        return t("knister.winners", locale, names=names, points=points, count=len(winners))

    @staticmethod
    def _names(table: Table, players: Sequence[str]) -> str:
        return ", ".join(table.name(player) for player in players)


UI = KnisterUI()
