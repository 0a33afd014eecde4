"""Tournaments: ``TOURNEY`` (list), ``TOURNEY <n>`` (standings and pairings),
``TOURNEY CREATE <game> SWISS <rounds> [options]``, ``TOURNEY JOIN|WITHDRAW|START <n>``
(the director is ``server/services/tournaments.py``, ``ctx.host.tournaments``)."""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context, UsageError
from server.hosting import Seat
from server.services.live import GameError
from server.text import bold, table


def _me(ctx: Context) -> Seat:
    return Seat(ctx.account.id, ctx.account.name)


async def _guard(coro):  # noqa: ANN001, ANN202
    try:
        return await coro
    except GameError as err:
        raise CommandError(str(err)) from None


def _points(x: float) -> str:
    return f"{x:g}"


async def tourney(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    svc = ctx.host.tournaments
    if not parts:
        rows = await svc.listing()
        if not rows:
            ctx.send("No tournament is open or running. (TOURNEY CREATE makes one.)")
            return
        ctx.send("\n".join(table(["#", "Tournament", "Status", "Entrants"], [
            [str(t.id), t.title, t.status, str(len(t.state["entrants"]))] for t in rows])))
        return
    row = await _guard(svc.get(args.whole_number(parts[0].lstrip("#"), what="tournament number")))
    state = row.state
    done = len(state["pairings"])
    lines = [bold(f"Tournament {row.id}: {row.title}"),
             f"{row.status.capitalize()}; round {done} of {state['rounds']}."]
    standings = svc.standings(row)
    if standings:
        lines.extend(table(["#", "Player", "Points", "Buchholz", "S-B"], [
            [str(k), e["name"] + (" (withdrawn)" if e.get("withdrawn") else ""),
             _points(p), _points(bh), _points(sb)]
            for k, (e, p, bh, sb) in enumerate(standings, 1)]))
    if done:
        names = {e["id"]: e["name"] for e in state["entrants"]}
        lines.append(f"Round {done}:")
        for p in state["pairings"][-1]:
            if p["second"] is None:
                lines.append(f"  {names[p['first']]}: bye")
                continue
            result = ("playing" if p["score"] is None else
                      {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[p["score"]])
            game = f" (game #{p['game']})" if p["game"] else " (forfeit)" if p.get("forfeit") else ""
            lines.append(f"  {names[p['first']]} - {names[p['second']]}: {result}{game}")
    ctx.send("\n".join(lines))


async def create(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 3)
    kind = ctx.host.kind_named(parts[0])
    if kind is None:
        raise CommandError(f"There is no game called {parts[0]!r}.")
    system = parts[1].lower()
    rounds = args.whole_number(parts[2], what="number of rounds", least=1)
    options = kind.parse_options(parts[3:])
    row = await _guard(ctx.host.tournaments.create(kind.key, system, rounds, options, _me(ctx),
                                                   ctx.session.is_admin))
    ctx.send(f"Tournament {row.id} is open: {row.title}. (TOURNEY JOIN {row.id} enters it; "
             f"TOURNEY START {row.id} begins it.)")


def _numbered(fn, done: str):  # noqa: ANN001, ANN202
    async def handler(ctx: Context, rest: str) -> None:
        number = args.whole_number(args.words(rest, 1, 1)[0].lstrip("#"),
                                   what="tournament number")
        row = await _guard(fn(ctx, number))
        ctx.send(done.format(n=row.id, title=row.title))
    return handler


COMMANDS = [
    Command("tourney", tourney, "TOURNEY [<n>]", "The tournaments open or running; with a "
            "number, its standings (points, Buchholz, Sonneborn-Berger) and its round's "
            "pairings.", aliases=("tournament", "tourneys"), topic="games", subcommands=(
                Command("create", create, "TOURNEY CREATE <game> SWISS <rounds> [<options>]",
                        "Open a Swiss tournament (players may run one at a time)."),
                Command("join", _numbered(
                    lambda ctx, n: ctx.host.tournaments.join(n, _me(ctx)),
                    "You enter tournament {n}: {title}."), "TOURNEY JOIN <n>",
                    "Enter an open tournament."),
                Command("withdraw", _numbered(
                    lambda ctx, n: ctx.host.tournaments.withdraw(n, _me(ctx)),
                    "You withdraw from tournament {n}."), "TOURNEY WITHDRAW <n>",
                    "Leave a tournament (a game in play is played out)."),
                Command("start", _numbered(
                    lambda ctx, n: ctx.host.tournaments.begin(n, _me(ctx),
                                                              ctx.session.is_admin),
                    "Tournament {n} begins: round 1 is paired."), "TOURNEY START <n>",
                    "Begin your tournament: round 1 is paired and its games start."),
            )),
]

__all__ = ["COMMANDS", "UsageError"]
