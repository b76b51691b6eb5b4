"""The private post-game review: every decision with the choice, the best action and the expected points lost.

Pure: it gets a :class:`bot.play.review.Review` and writes one embed in the reader's language. Each decision is
named by where it was made, the turn and roll ("Turn 7 · roll 2/3"; Knister's round, Tutto's turn), so a player
sees whether rolls were left. The three costliest get a field each with the dice as they lay, under a heading that
closes the description, and the list above (every other decision in play order) names them in their place only, with
a pointer down: on a phone the end of a long private message is what shows first, so the costliest sit there with
the chosen and the best move a line each, and nothing is read twice (QA: the list repeated them and ran very long;
then it went from turn 7 to 9 to 12, and read as if turns were missing). Discord allows a description
of 4,096 characters and 6,000 in a whole embed; a long game (Tutto's many selections) is summarised to fit: the
decisions that were best are counted rather than listed first, then the smallest losses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, Protocol

import discord

from bot.engine import fivedice
from bot.i18n import number, t
from bot.ui import hint
from bot.ui.common import COLOUR_OVER, faces, unbroken
from bot.ui.render import Rendered
from bot.ui.tutto import card_name


class Decision(Protocol):
    """What the renderer reads of one decision (``bot.play.review.Decision``; the UI never imports the plumbing)."""

    @property
    def number(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def state(self) -> Any: ...
    @property
    def chosen(self) -> Any: ...
    @property
    def best(self) -> Any: ...
    @property
    def regret(self) -> float: ...
    @property
    def counted(self) -> bool: ...
    @property
    def judged(self) -> bool: ...


class Review(Protocol):
    """What the renderer reads of a review (``bot.play.review.Review``)."""

    @property
    def kind(self) -> str: ...
    @property
    def decisions(self) -> Sequence[Decision]: ...
    @property
    def counted(self) -> Sequence[Decision]: ...
    @property
    def worst(self) -> Sequence[Decision]: ...
    @property
    def total(self) -> float: ...
    @property
    def average(self) -> float: ...


#: Room for the decision list, below Discord's 4,096 (the summary lines take the rest).
LIST_LIMIT = 3500


def dice_of(kind: str, state: Any, locale: str) -> str:
    """The dice a decision was made on: five dice, Knister's two dice with their sum, Tutto's card and roll (the
    card's short name: the same dice ask for other moves under Street or Fireworks than under a Bonus)."""
    if kind == "knister":
        return f"{unbroken(faces(state.dice))}\N{NO-BREAK SPACE}({sum(state.dice)})" if state.dice else ""
    if kind == "tutto":
        card = card_name(state.card, locale)
        return (
            t("review.card_roll", locale, card=card, dice=unbroken(faces(state.roll)))
            if state.phase == "select"
            else card
        )
    return unbroken(faces(state.dice))


def position(kind: str, decision: Decision, locale: str) -> str:
    """Where a decision was made, as the game's board counts: the turn and the roll its dice came from (five dice:
    "roll 3/3" says none was left), Knister's round, Tutto's turn (its card and dice follow in the line). Held
    together, so a phone never breaks it."""
    if kind == "knister":
        text = t("review.at_round", locale, round=decision.turn)
    elif kind == "tutto":
        text = t("review.at_turn", locale, turn=decision.turn)
    else:
        rolls = fivedice.ROLLS
        text = t("review.at_turn_roll", locale, turn=decision.turn, roll=decision.state.rolls, rolls=rolls)
    return unbroken(text)


def loss(value: float, locale: str) -> str:
    """A loss with one decimal; a loss too small for one (under 0.05) with two, so it never reads "−0.0"."""
    return number(value, locale, decimals=2 if 0 < value < 0.05 else 1, exact=True)


def line(kind: str, decision: Decision, locale: str, board: str | None = None) -> str:
    """One decision: where it was made, the dice, the choice and, when it lost points, the best action and the
    loss; a button named as it read on the game's board (``board``'s language: ``hint.describe``)."""
    if not decision.judged:
        return f"{t('review.timeout_mark', locale)} {turn_end(decision, locale)}"
    chosen = hint.describe(kind, decision.state, decision.chosen, locale, board)
    params = {"at": position(kind, decision, locale), "dice": dice_of(kind, decision.state, locale), "action": chosen}
    text = t("review.line_best", locale, **params)
    if decision.regret > 0:
        best = hint.describe(kind, decision.state, decision.best, locale, board)
        text = t("review.line_loss", locale, **params, best=best, loss=loss(decision.regret, locale))
    # No double space where a decision had no dice (Tutto's Stop or Continue); the no-break spaces that hold a group
    # of dice and the ✓ together on a phone stay.
    text = " ".join(part for part in text.split(" ") if part)
    return f"{t('review.timeout_mark', locale)} {text}" if not decision.counted else text


def pointer_below(kind: str, decision: Decision, locale: str) -> str:
    """The place of one of the costliest decisions in the list: where it was made and that it is below, so the list
    reads whole in play order while the decision itself is shown once, in its field."""
    return t("review.line_below", locale, at=position(kind, decision, locale))


def turn_end(decision: Decision, locale: str) -> str:
    """How a timed-out Tutto turn with no decision in it ended, from its last step: a draw that ended the turn drew
    the Stop card; a roll that ended it scored nothing (its dice are not stored: the turn was cleared)."""
    at = position("tutto", decision, locale)
    if decision.chosen.kind == "draw":
        return t("review.timeout_stop", locale, at=at)
    return t("review.timeout_null", locale, at=at, card=card_name(decision.state.card, locale))


def fit(
    kind: str,
    decisions: Sequence[Decision],
    locale: str,
    limit: int = LIST_LIMIT,
    board: str | None = None,
    below: Collection[int] = (),
) -> list[str]:
    """The decision lines in play order within ``limit`` characters: best ones dropped first, then the smallest
    losses, each group counted in a closing line. The decisions numbered in ``below`` (the costliest, in fields
    of their own) are a pointer each, never dropped.

    Each line is built once and the running size kept as lines drop: a long game's review has a couple of hundred
    decisions, and measuring them all again after every drop cost a second of CPU per review.
    """
    texts = [pointer_below(kind, d, locale) if d.number in below else line(kind, d, locale, board) for d in decisions]
    keep = list(range(len(decisions)))
    size = sum(len(text) + 1 for text in texts) + 80
    dropped_best = 0
    if size > limit:
        best = [index for index in keep if decisions[index].regret == 0 and decisions[index].number not in below]
        dropped_best = len(best)
        size -= sum(len(texts[index]) + 1 for index in best)
        keep = [index for index in keep if decisions[index].regret > 0 or decisions[index].number in below]
    dropped: set[int] = set()
    losses = [index for index in keep if decisions[index].number not in below]
    for index in sorted(losses, key=lambda index: (decisions[index].regret, -decisions[index].number)):
        if size <= limit:
            break
        dropped.add(index)
        size -= len(texts[index]) + 1
    dropped_small = len(dropped)
    lines = [texts[index] for index in keep if index not in dropped]
    if dropped_best:
        lines.append(t("review.not_listed_best", locale, count=dropped_best))
    if dropped_small:
        lines.append(t("review.not_listed", locale, count=dropped_small))
    return lines


def render(
    review: Review, channel_id: int, finished_at: float | None, locale: str, board: str | None = None
) -> Rendered:
    """The review of one player's game, privately, in the reader's ``locale``; the buttons it names as they read on
    the game's board, in ``board``'s language (the game's; None: the reader's).

    The game is named by what its players recognise: its channel and when it ended, which Discord shows as a link
    and in the reader's own time zone and language (QA: "Kniffel #1234", the bot's global game id, meant nothing).
    """
    kind = review.kind
    game = t(f"game.{kind}", locale)
    counted = review.counted
    when = f"<t:{int(finished_at)}:f>" if finished_at is not None else "—"
    summary = [t("review.played", locale, channel=f"<#{channel_id}>", when=when)]
    if counted:
        total, average = loss(review.total, locale), loss(review.average, locale)
        summary.append(t("review.summary", locale, count=len(counted), total=total, average=average))
    else:
        # "Decisions: 0 · average loss 0.00" read as perfect play (QA): say there was nothing of theirs to judge.
        summary.append(t("review.no_decisions", locale))
    # The costliest have their fields below: shown there only (QA: a phone read them twice), pointed to in the list.
    worst = {decision.number for decision in review.worst}
    listed = fit(kind, review.decisions, locale, board=board, below=worst)
    # The legend explains the losses' unit: with every decision the best one no loss shows, and a legend of
    # values with no value read as something missing (QA).
    if any(decision.judged and decision.regret > 0 for decision in review.decisions):
        summary.append(t("review.values_tutto" if kind == "tutto" else "review.values_final", locale))
    timeouts = len(review.decisions) - len(counted)
    if timeouts:
        summary.append(t("review.timeouts", locale, count=timeouts, mark=t("review.timeout_mark", locale)))
    if counted and not review.worst:
        summary.append(t("review.perfect", locale))
    description = "\n".join([*summary, "", *listed] if listed else summary)  # no empty box below the figures
    # The costliest decisions' heading closes the description, right above their fields: a field of its own needs
    # a value, which Discord shows as an empty line under the heading (QA).
    heading = f"\n\n**{t('review.worst', locale)}**" if review.worst else ""
    embed = discord.Embed(
        title=t("review.title", locale, game=game),
        description=description[: 4096 - len(heading)] + heading,
        colour=COLOUR_OVER,
    )
    for decision in review.worst:
        name = t(
            "review.worst_name",
            locale,
            at=position(kind, decision, locale),
            dice=dice_of(kind, decision.state, locale) or "—",
            loss=loss(decision.regret, locale),
        )
        value = "\n".join(
            [
                t("review.chose", locale, action=hint.describe(kind, decision.state, decision.chosen, locale, board)),
                t("review.best", locale, action=hint.describe(kind, decision.state, decision.best, locale, board)),
            ]
        )
        embed.add_field(name=name[:256], value=value[:1024], inline=False)
    return Rendered(embeds=[embed])
