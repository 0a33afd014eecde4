"""Seeks and formulas: ``<GAME> SEEK``, ``SEEKS``, ``PLAY <n>``, ``UNSEEK`` and
``SET FORMULA`` (the service is ``server/services/seeks.py``, ``ctx.host.seeks``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from commands import args
from commands.registry import Command, CommandError, Context
from server.services.formula import NAMES, FormulaError
from server.services.live import GameError, LiveGame
from server.services.seeks import Seek, parse_range
from server.text import counted, visible_len, wrap

if TYPE_CHECKING:
    from server.hosting import GameKind




def seek_command(kind: "GameKind") -> Command:
    """``<PREFIX> SEEK [options] [rating range]``, for one game of two players."""
    p = kind.prefix

    async def seek(ctx: Context, rest: str) -> None:
        words = rest.split()
        low = high = None
        if words:
            try:
                bounds = parse_range(words[-1])
            except GameError as err:
                raise CommandError(str(err)) from None
            if bounds is not None:
                low, high = bounds
                words.pop()
        if any(w.lower() == "unranked" for w in words):  # the default: no option to say it
            words = [w for w in words if w.lower() != "unranked"]
        days, words = args.days(words)
        options = kind.spec.parse_options(words)
        if days is not None:  # a correspondence game (commands/correspondence.py)
            options["days"] = days
        posted = await args.guarded(ctx.host.seeks.post(kind.key, args.me(ctx), options, low, high))
        if isinstance(posted, Seek):
            span = "" if posted.range_text == "any" else f", ratings {posted.range_text}"
            ctx.send(f"Your seek {posted.id} is posted: {posted.describe}{span}. "
                     f"(UNSEEK {p} takes it back.)")

    days = " [DAYS <n>]" if kind.correspondence else ""
    by_letter = (" DAYS <n> seeks a correspondence game (n days a move)."
                 if kind.correspondence else "")
    return Command("seek", seek, f"{p} SEEK [<options>] [RANKED|UNRANKED]{days} [<low>-<high>]",
                   f"Offer a game of {kind.title} to anyone: SEEKS lists the seeks, "
                   "PLAY <n> takes one, and two seeks that fit start a game by themselves. "
                   f"A rating range (1400-1800, 1500+) limits who may take it.{by_letter}")


SEEK_HEADERS = ["#", "Player", "Rating", "Game", "Range"]


def _seek_rows(ctx: Context, seeks: list[Seek]) -> list[str]:
    """The seeks as a table with its rule; in screen-reader mode a list, one seek a line
    (``Context.table``); on a screen narrower than the table (SET WIDTH 40), one seek a
    sentence wrapped to the width: "3. Bob (1500): Triad Dice, ratings 1400-1800."."""
    rows = [[str(s.id), s.name, str(s.rating), s.describe, s.range_text] for s in seeks]
    width = ctx.session.width or 80
    drawn = ctx.table(SEEK_HEADERS, rows)
    if ctx.session.screenreader or max(visible_len(line) for line in drawn) <= width:
        return drawn
    lines: list[str] = []
    for s in seeks:
        span = "" if s.range_text == "any" else f", ratings {s.range_text}"
        lines.extend(wrap(f"{s.id}. {s.name} ({s.rating}): {s.describe}{span}.", width, "  "))
    return lines


async def seeks_(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    shown, hidden = await ctx.host.seeks.visible_to(args.me(ctx))
    ctx.session.gmcp("Seek.List", [s.to_json() for s in shown])
    lines = _seek_rows(ctx, shown) if shown else ["Nobody is seeking a game."]
    if hidden:
        lines.append(f"({counted(hidden, 'seek')} hidden by formulas.)")
    if shown:
        lines.append("(PLAY <n> takes a seek.)")
    ctx.send("\n".join(lines))


async def play(ctx: Context, rest: str) -> None:
    word = args.words(rest, 1, 1)[0]
    number = args.whole_number(word.lstrip("#"), what="seek number", least=1)
    await args.guarded(ctx.host.seeks.take(number, args.me(ctx)))


async def unseek(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    kind_key = None
    if parts:
        kind = ctx.host.kind_named(parts[0])
        if kind is None:
            raise CommandError(f"There is no game called {parts[0]!r}.")
        kind_key = kind.key
    gone = ctx.host.seeks.withdraw(ctx.account.id, kind_key)
    if not gone:
        raise CommandError("You have no seek to take back.")
    for seek in gone:
        ctx.send(f"You take back your seek {seek.id} ({seek.describe}).")


# -- SET FORMULA (reached from commands/settings.py's SET) ------------------------------------
async def set_formula(ctx: Context, rest: str) -> None:
    host = ctx.host
    if not rest:
        formula = await host.formulas.of(ctx.account.id)
        ctx.send(f"Your formula: {formula.text}" if formula else
                 "You have no formula. SET FORMULA <expression> sets one, e.g. "
                 "SET FORMULA rating > 1400 && rd < 150.")
        return
    text = None if rest.lower() in ("off", "none", "clear") else rest
    try:
        formula, started = await host.seeks.set_formula(args.me(ctx), text)
    except FormulaError as err:
        raise CommandError(f"{err} It may use {', '.join(NAMES)}.") from None
    except GameError as err:
        raise CommandError(str(err)) from None
    ctx.send(f"Your formula is now: {formula.text}" if formula else "You have no formula now.")
    for line in await host.seeks.recheck_offers(args.me(ctx)):
        ctx.send(line)


SETTINGS = {"formula": set_formula}

COMMANDS = [
    Command("seeks", seeks_, "SEEKS", "The open seeks you may take (those your formula, or "
            "their owner's, refuses are hidden). PLAY <n> takes one.", topic="games"),
    Command("play", play, "PLAY <n>", "Take seek <n> (SEEKS lists them): the game starts at "
            "once.", topic="games"),
    Command("unseek", unseek, "UNSEEK [<game>]", "Take back your seeks (of one game, or all).",
            topic="games"),
    Command("formula", set_formula, "FORMULA [<expression>|OFF]",
            "Your formula, as SET FORMULA: challenges and seeks from players who fail it are "
            "declined and hidden. It may use rating, rd, ranked, game and options, with "
            "< <= = != >= >, + - * /, and (&&), or (||), not (!) and parentheses.",
            topic="settings"),
]


__all__ = ["COMMANDS", "SETTINGS", "LiveGame", "seek_command"]
