"""People: ``+NOTIFY``/``-NOTIFY``/``NOTIFY``, ``SET NOTE <1-10> <text>``, and what FINGER
adds: a player's notes and their last games of each game (``server/services/notify.py``,
``ctx.host.notify``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from commands import args
from commands.registry import Command, CommandError, Context, UsageError
from server.services.notify import last_games, result_for, seat_of
from server.text import clean

if TYPE_CHECKING:
    from server.models import Account

NOTES = 10
NOTE_LENGTH = 150


async def notify_add(ctx: Context, rest: str) -> None:
    acc = await args.account(ctx, args.words(rest, 1, 1)[0])
    if acc.id == ctx.account.id:
        raise CommandError("You need no notice of your own comings and goings.")
    try:
        added = await ctx.host.notify.add(ctx.account.id, acc.id)
    except ValueError as err:
        raise CommandError(str(err)) from None
    if not added:
        raise CommandError(f"{acc.name} is on your notify list already.")
    ctx.send(f"{acc.name} is on your notify list: you will be told when {acc.name} logs on "
             "or off.")


async def notify_remove(ctx: Context, rest: str) -> None:
    acc = await args.account(ctx, args.words(rest, 1, 1)[0])
    if not await ctx.host.notify.remove(ctx.account.id, acc.id):
        raise CommandError(f"{acc.name} is not on your notify list.")
    ctx.send(f"{acc.name} is off your notify list.")


async def notify_list(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    listed = await ctx.host.notify.listed(ctx.account.id)
    if not listed:
        ctx.send("Your notify list is empty. (+NOTIFY <person> adds someone.)")
        return
    lines = ["Your notify list:"]
    for account_id, name in listed:
        here = ctx.online(account_id)
        lines.append(f"  {name}: " + (f"online, {ctx.host.notify.status(account_id)}"
                                      if here else "away"))
    ctx.send("\n".join(lines))


# -- SET NOTE (reached from commands/settings.py's SET) ---------------------------------------
async def set_note(ctx: Context, rest: str) -> None:
    number, _, text = rest.partition(" ")
    if not number:
        raise UsageError("SET NOTE <1-10> <text> (no text: the note is removed).")
    n = args.whole_number(number, what="note number", least=1, most=NOTES)
    text = clean(text, max_len=NOTE_LENGTH).strip()
    notes = list((ctx.account.settings or {}).get("notes") or [])
    notes += [""] * (NOTES - len(notes))
    notes[n - 1] = text
    while notes and not notes[-1]:
        notes.pop()
    settings = await ctx.accounts.set_setting(ctx.account.id, "notes", notes)
    ctx.account.settings = settings
    ctx.send(f"Note {n} is now: {text}" if text else f"Note {n} is removed.")


SETTINGS = {"note": set_note}


async def finger_more(ctx: Context, acc: "Account") -> list[str]:
    """FINGER's notes and last games: each game's last ten, with their numbers for
    REPLAY (the web page links each to its replay)."""
    lines = []
    notes = (acc.settings or {}).get("notes") or []
    for i, note in enumerate(notes, 1):
        if note:
            lines.append(f"{i:>2}: {note}")
    for key, records in (await last_games(ctx.db, acc.id)).items():
        kind = ctx.host.kinds.get(key)
        title = kind.title if kind else key
        games = []
        for r in records:
            mine = seat_of(r.seats, acc.id)
            result = result_for(kind, r, mine)
            others = [s.get("name", "?") for i, s in enumerate(r.seats) if i != mine]
            against = "with" if kind is not None and kind.open_table else "v"
            games.append(f"#{r.id} {result} {against} {', '.join(others)}" if others else
                         f"#{r.id} {result}")  # a solitaire: nobody to name
        lines.append(f"Last {title}: " + "; ".join(games) + ".")
    if lines and any(line.startswith("Last ") for line in lines):
        lines.append("(REPLAY <game> shows one.)")
    return lines


COMMANDS = [
    Command("+notify", notify_add, "+NOTIFY <person>", "Be told when a player logs on or "
            "off, and whether they are free to play.", topic="people"),
    Command("-notify", notify_remove, "-NOTIFY <person>", "Take a player off your notify "
            "list.", topic="people"),
    Command("notify", notify_list, "NOTIFY", "Your notify list: who is online, and whether "
            "they are free to play.", topic="people"),
]
