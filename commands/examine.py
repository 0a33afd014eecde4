"""EXAMINE: step through any stored game, FORWARD, BACK, GOTO <move>, UNEXAMINE; for a game
whose kind can analyse a position (a solver), ANALYSE.

A game is examined only as far as REPLAY may show it (``Records.replay_told``: a game in
play no further than its watchers have been told). Where one is, is the examiner's own
connection's (``session.examining``: the game's number and the move)."""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context
from server.services.live import GameError
from server.text import bold
from server.workers import Asker


def _where(ctx: Context) -> tuple[int, int]:
    where = getattr(ctx.session, "examining", None)
    if where is None:
        raise CommandError("You are not examining a game. (EXAMINE <game> starts.)")
    return where


async def _show(ctx: Context, number: int, move: int) -> None:
    try:
        game, moves, words = await ctx.host.records.replay_told(number, move)
    except GameError as err:
        raise CommandError(str(err)) from None
    total = len(await _count(ctx, number))
    ctx.session.examining = (number, move)
    said = f" ({words[move - 1]})" if move else ""
    lines = [bold(f"Examining game #{number}: {game.kind.title}, "  # the title, once
                  f"{' vs '.join(game.players)}"),
             f"Move {move} of {total}{said}.", ctx.presentation.board(
                 ctx.session, game.frame(None), titled=False),
             "(FORWARD, BACK, GOTO <move>, UNEXAMINE"
             + (", ANALYSE" if hasattr(game.kind, "analyse") else "") + ".)"]
    ctx.send("\n".join(lines))


async def _count(ctx: Context, number: int) -> list:
    _, moves, _ = await ctx.host.records.replay_told(number, None)
    return moves


async def examine(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 1, 2)
    number = args.game_number(parts[0])
    move = args.whole_number(parts[1], what="move number") if len(parts) > 1 else 0
    await _show(ctx, number, move)


async def forward(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    step = args.whole_number(parts[0], what="number of moves", least=1) if parts else 1
    number, move = _where(ctx)
    total = len(await _count(ctx, number))
    if move >= total:
        raise CommandError(f"That is the last move shown of game #{number} ({total}).")
    await _show(ctx, number, min(total, move + step))


async def back(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    step = args.whole_number(parts[0], what="number of moves", least=1) if parts else 1
    number, move = _where(ctx)
    if move == 0:
        raise CommandError("That is the start of the game.")
    await _show(ctx, number, max(0, move - step))


async def goto(ctx: Context, rest: str) -> None:
    move = args.whole_number(args.words(rest, 1, 1)[0], what="move number")
    number, _ = _where(ctx)
    await _show(ctx, number, move)


async def unexamine(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    number, _ = _where(ctx)
    ctx.session.examining = None
    ctx.send(f"You stop examining game #{number}.")


async def analyse(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    number, move = _where(ctx)
    record, _ = await ctx.host.records.record(number)
    game, _, _ = await ctx.host.records.replay_told(number, move)
    ask = getattr(game.kind, "analyse", None)
    if ask is None:
        able = [k.title for k in ctx.host.kinds.values() if getattr(k, "analyse", None)]
        raise CommandError(f"{game.kind.title} has no analysis; ANALYSE is for "
                           f"{' and '.join(able) or 'no game here'}.")
    if record.status != "finished":
        raise CommandError(f"Game #{number} is not over; its position is analysed once it is.")
    seat = 0
    if parts:
        seat = args.whole_number(parts[0], what="seat", least=1, most=len(game.seats)) - 1
    ctx.send("The solver is looking (a few seconds)...")
    # who asks: the solver is shared in turns by address and player (server/workers.py)
    for line in await ask(game.state, seat, Asker(ctx.account.id, ctx.session.address)):
        ctx.send(line)


COMMANDS = [
    Command("examine", examine, "EXAMINE <game> [<move>]", "Step through a stored game "
            "(finished, or as far as its watchers have seen): FORWARD, BACK, GOTO <move>, "
            "UNEXAMINE; in a game with a solver, ANALYSE asks it about the position.",
            aliases=("ex",), topic="games"),
    Command("forward", forward, "FORWARD [<n>]", "In EXAMINE: the next move (or n).",
            aliases=("fo",), topic="games"),
    Command("back", back, "BACK [<n>]", "In EXAMINE: the move before (or n back).",
            topic="games"),
    Command("goto", goto, "GOTO <move>", "In EXAMINE: the position after that move.",
            topic="games"),
    Command("unexamine", unexamine, "UNEXAMINE", "Stop examining.", topic="games"),
    Command("analyse", analyse, "ANALYSE [<seat>]", "In EXAMINE of a finished game that "
            "has a solver: its verdict on the position reached.", aliases=("analyze",),
            topic="games"),
]
