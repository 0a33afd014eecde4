"""Tournaments: ``TOURNEY`` (list), ``TOURNEY <n>`` (standings and pairings),
``TOURNEY CREATE <game> SWISS <rounds> [options]``, ``TOURNEY CREATE <game> ARENA
<minutes> [options]``, ``TOURNEY JOIN|WITHDRAW|START|CANCEL <n>``, ``TOURNEY INVITE <n>
<name>`` (the director is ``server/services/tournaments.py``, ``ctx.host.tournaments``).
A game's own systems (``TOURNEY CREATE PYR PAR <deals>``, ``TOURNEY CREATE TRIAD SITGO
<stack> [<opening>]``; docs/tournaments.md) are created and shown through the same
commands, from their plain-data standings (:func:`own_standings`)."""

from __future__ import annotations

import time

from commands import args
from commands.registry import Command, CommandError, Context, UsageError
from server.hosting import Seat
from server.services.live import GameError
from server.services.tournaments import cancelled_why
from server.text import bold, table

LATELY_CANCELLED = 5          # cancelled tournaments the TOURNEY list shows at most ...
LATELY_CANCELLED_S = 3600.0   # ... of those cancelled within this long


def _points(x: float) -> str:
    return f"{x:g}"


def _standings(row, entries: list, tabulate=table) -> list[str]:  # noqa: ANN001
    """The system's standings as a table (``tabulate``: ``Context.table``, a list of
    lines in screen-reader mode): Swiss's tuples (entrant, points, Buchholz, S-B), or
    dicts (``entrant`` and named numbers, e.g. an arena's)."""
    if not entries:
        return []
    if isinstance(entries[0], dict):
        keys = [k for k in entries[0] if k not in ("entrant", "fire")]
        heads = [k.capitalize() for k in keys]
        rows = [(e["entrant"], [_points(e[k]) for k in keys], e.get("fire")) for e in entries]
    else:
        heads = ["Points", "Buchholz", "S-B"]
        rows = [(e, [_points(x) for x in numbers], False) for e, *numbers in entries]
    marks = {"withdrawn": " (withdrawn)", "paused": " (paused)"}
    return tabulate(["#", "Player", *heads], [
        [str(k), e["name"] + "".join(m for key, m in marks.items() if e.get(key))
         + (" (on fire)" if fire else ""), *values]
        for k, (e, values, fire) in enumerate(rows, 1)])


async def tourney(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    svc = ctx.host.tournaments
    if not parts:
        rows = await svc.listing()
        since = time.time() - LATELY_CANCELLED_S
        rows += [t for t in await svc.over(LATELY_CANCELLED)
                 if t.status == "cancelled" and t.updated_at >= since]
        if not rows:
            ctx.send("No tournament is open or running. (TOURNEY CREATE makes one.)")
            return
        ctx.send("\n".join(table(["#", "Tournament", "Status", "Entrants"], [
            [str(t.id), t.title, t.status, str(len(t.state["entrants"]))] for t in rows])))
        return
    row = await args.guarded(svc.get(args.whole_number(parts[0].lstrip("#"), what="tournament number")))
    own = svc.system_of(row.kind, row.system)
    if own is not None:  # a game's own system (Par, sit-and-go)
        ctx.send("\n".join(own_standings(row, own, min(ctx.session.width, 80),
                                          ctx.session.screenreader)))
        return
    state = row.state
    done = len(state["pairings"])
    lines = [bold(f"Tournament {row.id}: {row.title}"),
             f"{row.status.capitalize()}; {svc.progress(row)}."]
    if row.status == "open" and row.starts_at:
        lines.append("Starts at " + time.strftime("%Y-%m-%d %H:%M UTC",
                                                   time.gmtime(row.starts_at)) + ".")
    lines.extend(_standings(row, svc.standings(row), ctx.table))
    if done:
        names = {e["id"]: e["name"] for e in state["entrants"]}
        if row.system == "swiss":
            lines.append(f"Round {done}:")
            shown = state["pairings"][-1]
        else:  # an arena: the games in play, else the last ones
            shown = [p for w in state["pairings"] for p in w if p["score"] is None] or \
                state["pairings"][-1]
            lines.append("Pairings:")
        for p in shown:
            if p["second"] is None:
                lines.append(f"  {names[p['first']]}: bye")
                continue
            result = ("waiting" if "due" in p else "playing" if p["score"] is None else
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
        length = args.whole_number(parts[2], what=own.number, least=1)
        options = _checked(own.parse_options, parts[3:])
    else:
        length = args.whole_number(parts[2], what="number of minutes" if system == "arena"
                                   else "number of rounds", least=1)
        options = kind.spec.parse_options(parts[3:])
    row = await args.guarded(ctx.host.tournaments.create(kind.key, system, length, options, args.me(ctx),
                                                   ctx.session.is_admin))
    ctx.send(f"Tournament {row.id} is open: {row.title}. (TOURNEY JOIN {row.id} enters it; "
             f"TOURNEY START {row.id} begins it.)")


def _checked(fn, *a):  # noqa: ANN001, ANN202
    try:
        return fn(*a)
    except GameError as err:
        raise CommandError(str(err)) from None


def own_standings(row, own, width: int = 80, spoken: bool = False) -> list[str]:  # noqa: ANN001
    """TOURNEY <n> for a game's own system: its standings (``own.standings``, plain
    data) as a table of ``own.columns`` (the last ones left out while it is wider than
    ``width``: 12 deals' scores), then its summary lines. ``spoken`` (screen-reader
    mode): each entrant a line of every column's heading and value, no rule."""
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
    if rows and spoken:
        headers = [h for h, _ in own.columns]
        lines.extend(", ".join(f"{h}: {c}" if h.strip() else c
                               for h, c in zip(headers, r) if c.strip()) for r in rows)
    elif rows:
        headers = [h for h, _ in own.columns]
        drawn = table(headers, rows)
        while len(headers) > 2 and max(len(line) for line in drawn) > width:
            headers, rows = headers[:-1], [r[:-1] for r in rows]
            drawn = table(headers, rows)
        lines.extend(drawn)
        if len(headers) < len(own.columns):
            left_out = ", ".join(h for h, _ in own.columns[len(headers):])
            lines.append(f"({left_out} left out at this width.)")
    if row.status == "cancelled":
        lines.append(f"Cancelled; {cancelled_why(row)}.")
    else:
        lines.extend(own.summary_lines(row))
    return lines


async def invite(ctx: Context, rest: str) -> None:
    number_text, name = args.words(rest, 2, 2)
    number = args.whole_number(number_text.lstrip("#"), what="tournament number")
    acc = await args.account(ctx, name)
    row = await args.guarded(ctx.host.tournaments.invite(number, args.me(ctx), Seat(acc.id, acc.name)))
    ctx.send(f"You invite {acc.name} to tournament {row.id}.")


def _numbered(fn, done: str):  # noqa: ANN001, ANN202
    async def handler(ctx: Context, rest: str) -> None:
        number = args.whole_number(args.words(rest, 1, 1)[0].lstrip("#"),
                                   what="tournament number")
        row = await args.guarded(fn(ctx, number))
        ctx.send(done.format(n=row.id, title=row.title))
    return handler


COMMANDS = [
    Command("tourney", tourney, "TOURNEY [<n>]", "The tournaments open or running (and "
            "those cancelled in the last hour); with a number, its standings (Swiss: "
            "points, Buchholz, Sonneborn-Berger; arena: points, games, wins; a game's own "
            "system: its own) and its pairings.",
            aliases=("tournament", "tourneys"), topic="games", subcommands=(
                Command("create", create, "TOURNEY CREATE <game> SWISS|ARENA <rounds|minutes> "
                        "[<options>] | <game> <system> <number> [<options>]",
                        "Open a tournament (players may run one at a time): SWISS plays a "
                        "number of rounds; ARENA pairs whoever is free for a number of "
                        "minutes (a win 2 points, a draw 1, doubled after two wins in a "
                        "row); or a system of the game's own, which its HELP names (a Par "
                        "tournament, a sit-and-go)."),
                Command("join", _numbered(
                    lambda ctx, n: ctx.host.tournaments.join(n, args.me(ctx)),
                    "You enter tournament {n}: {title}."), "TOURNEY JOIN <n>",
                    "Enter an open tournament (an arena: also while it runs; again after "
                    "a WITHDRAW). A player who missed a tournament game may not enter "
                    "for a while."),
                Command("withdraw", _numbered(
                    lambda ctx, n: ctx.host.tournaments.withdraw(n, args.me(ctx)),
                    "You withdraw from tournament {n}."), "TOURNEY WITHDRAW <n>",
                    "Leave a tournament (a game in play is played out); in an arena, a "
                    "pause until you JOIN again."),
                Command("start", _numbered(
                    lambda ctx, n: ctx.host.tournaments.begin(n, args.me(ctx),
                                                              ctx.session.is_admin),
                    "Tournament {n} begins."), "TOURNEY START <n>",
                    "Begin your tournament: its first games are paired and start. A "
                    "paired player not connected has a while to come, or forfeits."),
                Command("cancel", _numbered(
                    lambda ctx, n: ctx.host.tournaments.cancel(n, args.me(ctx),
                                                               ctx.session.is_admin),
                    "You cancel tournament {n}: {title}. Its entrants are told."),
                    "TOURNEY CANCEL <n>",
                    "Cancel your tournament before it begins; its entrants are told. An "
                    "admin may cancel any open tournament, and a running Swiss or arena "
                    "(its games in play are played out). A tournament left open "
                    "unstarted for a while is cancelled by itself."),
                Command("invite", invite, "TOURNEY INVITE <n> <name>",
                        "Invite someone to a tournament (told now, or when they next "
                        "log in)."),
            )),
]

__all__ = ["COMMANDS", "UsageError"]
