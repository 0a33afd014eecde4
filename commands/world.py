"""Looking around and walking: LOOK, GO (and bare exit names)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from commands.registry import Command, CommandError, Context, UsageError
from server.text import bold, paint, wrap

if TYPE_CHECKING:
    from server.app import Parlor
    from server.session import Session


MAX_NAMES = 20  # a crowded plaza names the first few, then counts the rest


def describe_room(parlor: "Parlor", session: "Session") -> str:
    room = parlor.world.rooms[session.room]
    lines = [bold(paint(room.name, "cyan"))]
    lines.extend(wrap(room.description, session.width))
    exits = ", ".join(room.exits) or "none"
    lines.append(paint(f"Exits: {exits}", "green"))
    others = parlor.in_room(session.room) - {session}
    if len(others) <= MAX_NAMES:
        here = sorted(s.name for s in others)
    else:  # a crowd: name a few (any few: sorting thousands for each LOOK is waste)
        here = [s.name for s in itertools.islice(others, MAX_NAMES)]
    if here:
        shown = ", ".join(here)
        more = len(others) - len(here)
        lines.extend(wrap(f"Here: {shown}" + (f" and {more} others." if more > 0 else "."),
                          session.width))
    return "\n".join(lines)


async def look(ctx: Context, rest: str) -> None:
    if rest:
        target = ctx.parlor.session_named(rest)
        if target is None or target.room != ctx.session.room:
            raise CommandError(f"You see no {rest} here.")
        ctx.send(f"{target.name} is here, idle {int(target.idle())} seconds.")
        return
    ctx.send(describe_room(ctx.parlor, ctx.session))


async def go(ctx: Context, rest: str) -> None:
    if not rest:
        raise UsageError()
    target = ctx.parlor.world.exit(ctx.session.room, rest.split()[0])
    if target is None:
        raise CommandError(f"You can't go {rest} from here.")
    ctx.parlor.move(ctx.session, target, rest.split()[0].lower())
    ctx.send(describe_room(ctx.parlor, ctx.session))


COMMANDS = [
    Command("look", look, "LOOK [<person>]", "Describe the room you are in, its exits and "
            "who is here; or look at a person in the room.", aliases=("l",), topic="world"),
    Command("go", go, "GO <exit>", "Walk through an exit. Typing an exit's name alone "
            "(NORTH, N, EAST …) does the same.", topic="world"),
]
