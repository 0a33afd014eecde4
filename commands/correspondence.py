"""Play at one's own pace: ``MYGAMES`` (a player's correspondence games, the one that has
waited longest for their move first, and their adjourned games) and ``MYGAMES <game>``
(go to one); ``ADJOURN`` and ``RESUME <game>`` (a game at a sitting put aside by both
players, and taken up again). Correspondence games are started by ``<GAME> CHALLENGE
<person> DAYS <n>`` (``commands/games.py``) and kept by
``server/services/correspondence.py``; adjourned games by ``server/services/adjourn.py``."""

from __future__ import annotations

import time

from commands import args
from commands.registry import Command, CommandError, Context
from server.services.correspondence import MAX_DAYS, MIN_DAYS, days_a_move


def _none_yet(ctx: Context) -> str:
    games = [k.prefix for k in ctx.host.kinds.values() if k.correspondence]
    example = games[0] if games else "<GAME>"
    return (f"You have no correspondence games. {example} CHALLENGE <person> DAYS <n> "
            f"offers one ({MIN_DAYS} to {MAX_DAYS} days a move; games: "
            f"{', '.join(games) or 'none'}).")


async def mygames(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    letters = await ctx.host.correspondence.letters(ctx.account.id)
    if parts:
        await _go_to(ctx, args.game_number(parts[0]), {g.game for g in letters})
        return
    adjourned = ctx.host.adjournments.adjourned_of(ctx.account.id)
    lines = []
    if letters:
        now = time.time()
        rows = [[f"#{g.game}", g.kind.title, g.opponent, "yours" if g.mine else "theirs",
                 days_a_move(g.days), g.left(now)] for g in letters]
        waiting = sum(g.mine for g in letters)
        lines += [f"Your correspondence games ({waiting} waiting for your move):",
                  *ctx.table(["Game", "Kind", "Opponent", "Move", "Clock", "Left"], rows),
                  "MYGAMES <game> goes to one: its board, and your commands of its game act "
                  "on it."]
    elif not adjourned:
        ctx.send(_none_yet(ctx))
        return
    if adjourned:
        me = ctx.account.id
        rows = [[f"#{g.id}", g.kind.title,
                 next(s.name for s in g.seats if s.account_id != me), f"RESUME {g.id}"]
                for g in adjourned]
        lines += ["Your adjourned games (they resume when you both agree):",
                  *ctx.table(["Game", "Kind", "Opponent", "To resume"], rows)]
    ctx.send("\n".join(lines))


async def adjourn(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    number = args.game_number(parts[0]) if parts else None
    said = await args.guarded(ctx.host.adjournments.adjourn(ctx.account.id, number))
    if said:
        ctx.send(said)


async def resume(ctx: Context, rest: str) -> None:
    number = args.game_number(args.words(rest, 1, 1)[0])
    said = await args.guarded(ctx.host.adjournments.resume(ctx.account.id, number))
    if said:
        ctx.send(said)


async def _go_to(ctx: Context, number: int, mine: set[int]) -> None:
    """Go to game ``number``: one of the player's correspondence games (``mine``), or
    their game at a sitting (back from a correspondence game)."""
    game = ctx.host.live.get(number)
    if game is not None and game.days is None and game.seat_of(ctx.account.id) is not None:
        mine = mine | {number}
    if number not in mine:
        raise CommandError(f"Game #{number} is not one of your games in play. MYGAMES "
                           "lists your correspondence games.")
    if game is None:
        raise CommandError(f"Game #{number} is played on another server now; try again in "
                           "a few seconds.")
    if game.adjourned:
        raise CommandError(f"Game #{number} is adjourned: RESUME {number} takes it up "
                           "again.")
    ctx.host.games.go_to(ctx.account.id, game)
    ctx.send(f"You go to game #{number}: your {game.kind.prefix} commands act on it.")
    ctx.presentation.show(ctx.session, game)


COMMANDS = [
    Command("mygames", mygames, "MYGAMES [<game>]",
            "Your correspondence games (started by <GAME> CHALLENGE <person> DAYS <n>: "
            f"{MIN_DAYS} to {MAX_DAYS} days a move, and the opponent need not be online), "
            "the one that has waited longest for your move first, with the time left on "
            "each clock. MYGAMES <game> goes to one: it shows the board, and your commands "
            "of that game (its moves, RESIGN) act on it. At every login you are told which "
            "games wait for your move; a player whose days run out loses on time.",
            topic="games"),
    Command("adjourn", adjourn, "ADJOURN [<game>]",
            "Ask to put your game at a sitting aside (a game between two people), or agree "
            "when your opponent asks: both must ask before the next move. An adjourned game "
            "waits, with no clock, and you may both play other games meanwhile; MYGAMES "
            "lists it, and RESUME takes it up again.", topic="games"),
    Command("resume", resume, "RESUME <game>",
            "Ask to take an adjourned game up again, or agree when your opponent asks (they "
            "must be connected); it goes on where it stood.", topic="games"),
]
