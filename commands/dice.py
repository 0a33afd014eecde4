"""Triad Dice's own subcommands, ``DICE MOVE`` and ``DICE REMOVE``.

The rest of the family (CHALLENGE, ACCEPT, DECLINE, WITHDRAW, RESIGN, DISPLAY, GAMES,
STATUS, RANKINGS, HELP) comes from :func:`commands.games.game_family`. These two are
explicit so that each has its usage line and ``HELP DICE MOVE`` / ``HELP DICE REMOVE``,
and so that a wrong use says what is wrong *and* how to write it. The text is read by
the kind's ``parse_action`` (``games.dice.notation``, the only place Triad Dice text
becomes an action) and the host applies it.
"""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context, GameCommands, UsageError
from games.dice import spoken as dice_spoken
from games.errors import BadNotation
from server.services.dice import Dice
from server.services.games import GameError

KEY = "dice"

HELP = (
    "Two players, six dice each on a 6x6 board: columns a-f, rows 1-6, the challenger's "
    "dice (n) start on row 1 and the opponent's [n] on row 6; who moves first is drawn "
    "at random.\n"
    "A turn: pick one of your dice, turn it to a DIFFERENT value (1, 2 or 3) and move it "
    "exactly that many cells in one of the 8 directions (N NE E SE S SW W NW as the "
    "board is drawn, N toward row 6), never through or onto another die nor off the "
    "board. Write it DICE MOVE <cell> <value> <direction>: DICE MOVE c1 3 NE turns the "
    "die on c1 to 3 and moves it to f4.\n"
    "Only when none of your dice can move at all: DICE MOVE c1 2 turns the die on c1 to "
    "2 where it stands, or DICE MOVE c1 NE moves it its current value unchanged.\n"
    "A Triad is three dice on consecutive cells of a row, column or diagonal, both "
    "players' dice among them, all showing the same value or all different. When your "
    "move forms one or more, you remove ONE of your own dice that is in them: if only "
    "one of yours is, it goes at once; otherwise the board lists the cells you may "
    "choose and you type DICE REMOVE <cell>. The first to remove three of their own "
    "dice wins. The same position with the same player to move a third time, or 200 "
    "turns without a removal, is a draw.\n"
    "On the board >(n)< is the die just moved, + the cell it left, x a die just removed. "
    "DICE CHALLENGE <person> RANKED plays for rating; DICE CHALLENGE COMPUTER "
    "[EASY|NORMAL|HARD|EXPERT] plays the computer (HARD searches about a second a move, "
    "EXPERT about three times as long)."
)


def _reason(err: BadNotation) -> str:
    """The engine's one-line reason without its own usage text (the usage line follows)."""
    text = str(err).split("; usage:", 1)[0].strip()
    if text.lower().startswith("usage:"):
        return ""
    return text if text.endswith(".") else text + "."


async def _act(ctx: Context, verb: str, rest: str, least: int, most: int) -> None:
    parts = args.words(rest, least, most)
    host = ctx.host
    if host.game_of(ctx.account.id, KEY) is None:
        raise CommandError("You are not playing Triad Dice. DICE CHALLENGE <person> or "
                           "DICE CHALLENGE COMPUTER [EASY|NORMAL|HARD|EXPERT] starts a game.")
    text = " ".join([verb, *parts])
    try:
        action = host.kind(KEY).spec.parse_action(text)
    except BadNotation as err:
        raise UsageError(_reason(err)) from None
    try:
        await host.act(ctx.account.id, KEY, action)
    except GameError as err:
        raise CommandError(str(err)) from None


async def move(ctx: Context, rest: str) -> None:
    await _act(ctx, "MOVE", rest, 2, 3)


async def remove(ctx: Context, rest: str) -> None:
    await _act(ctx, "REMOVE", rest, 1, 1)


COMMANDS = (
    Command("move", move, "DICE MOVE <cell> <value> <direction>",
            "Turn one of your dice to a different value (1, 2 or 3) and move it exactly that "
            "many cells in a direction: DICE MOVE c1 3 NE turns the die on c1 to 3 and moves "
            "it 3 cells north-east (to f4). Cells are a1..f6; directions are N NE E SE S SW "
            "W NW as the board is drawn, N toward row 6. The die may not pass through or "
            "land on another die, nor leave the board.\n"
            "Only when none of your dice can move that way: DICE MOVE c1 2 turns the die on "
            "c1 to 2 where it stands, or DICE MOVE c1 NE moves it its current value without "
            "changing it."),
    Command("remove", remove, "DICE REMOVE <cell>",
            "After your move forms a Triad, remove one of your own dice that is part of it "
            "(or of another Triad the move formed). When only one of your dice is in them "
            "the server removes it; otherwise the board lists the cells you may choose, "
            "and your turn ends when you remove one. Three removals win."),
)

GAME = GameCommands(KEY, help=HELP, commands=COMMANDS, kind=Dice,
                    questions=dice_spoken.QUESTIONS,
                    groups={"move": "Play", "remove": "Play"})
