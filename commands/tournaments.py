"""Tournaments: ``TOURNEY`` (list), ``TOURNEY <n>`` (standings and pairings),
``TOURNEY CREATE <game> SWISS <rounds> [options]``, ``TOURNEY JOIN|WITHDRAW|START <n>``
(the director is ``server/services/tournaments.py``, ``ctx.host.tournaments``).
A game's own systems (``TOURNEY CREATE PYR PAR <deals>``, ``TOURNEY CREATE TRIAD SITGO
<stack> [<opening>]``; docs/tournaments.md) are created and shown through the same
commands, from their plain-data standings (:func:`own_standings`)."""

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
    own = svc.system_of(row.kind, row.system)
    if own is not None:  # a game's own system (Par, sit-and-go)
        ctx.send("\n".join(own_standings(row, own, min(ctx.session.width, 80))))
        return
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
    own = ctx.host.tournaments.system_of(kind.key, system)
    if own is not None:  # a game's own system: PYR PAR <deals>, TRIAD SITGO <stack>
        rounds = args.whole_number(parts[2], what=own.number, least=1)
        options = _checked(own.parse_options, parts[3:])
    else:
        rounds = args.whole_number(parts[2], what="number of rounds", least=1)
        options = kind.parse_options(parts[3:])
    row = await _guard(ctx.host.tournaments.create(kind.key, system, rounds, options, _me(ctx),
                                                   ctx.session.is_admin))
    ctx.send(f"Tournament {row.id} is open: {row.title}. (TOURNEY JOIN {row.id} enters it; "
             f"TOURNEY START {row.id} begins it.)")


def _checked(fn, *a):  # noqa: ANN001, ANN202
    try:
        return fn(*a)
    except GameError as err:
        raise CommandError(str(err)) from None


def own_standings(row, own, width: int = 80) -> list[str]:  # noqa: ANN001
    """TOURNEY <n> for a game's own system: its standings (``own.standings``, plain
    data) as a table of ``own.columns`` (the last ones left out while it is wider than
    ``width``: 12 deals' scores), then its summary lines."""
    lines = [bold(f"Tournament {row.id}: {row.title}")]
    rows = []
    for e in own.standings(row):
        cells = []
        for _, key in own.columns:
            value = e.get(key)
            if key == "name":
                value = value + (" (withdrawn)" if e.get("withdrawn") else
                                 " (no-show)" if e.get("forfeit") else "")
            elif isinstance(value, list):
                value = " ".join(f"{v:+d}" for v in value)
            elif isinstance(value, int) and key in ("total",):
                value = f"{value:+d}"
            cells.append("-" if value is None else str(value))
        rows.append(cells)
    if rows:
        headers = [h for h, _ in own.columns]
        drawn = table(headers, rows)
        while len(headers) > 2 and max(len(line) for line in drawn) > width:
            headers, rows = headers[:-1], [r[:-1] for r in rows]
            drawn = table(headers, rows)
        lines.extend(drawn)
        if len(headers) < len(own.columns):
            left_out = ", ".join(h for h, _ in own.columns[len(headers):])
            lines.append(f"({left_out} left out at this width.)")
    lines.extend(own.summary_lines(row))
    return lines


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
                Command("create", create, "TOURNEY CREATE <game> SWISS <rounds> [<options>]"
                        " | <game> <system> <number> [<options>]",
                        "Open a tournament (players may run one at a time): Swiss, for a "
                        "game of two; or a system of the game's own, which its HELP names "
                        "(a Par tournament, a sit-and-go)."),
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
