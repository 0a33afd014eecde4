"""Looking around and walking: LOOK, GO (and bare exit names)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from commands.registry import Command, CommandError, Context, UsageError
from server.text import bold, paint, wrap

if TYPE_CHECKING:
    from server.app import Parlor
    from server.session import Session
    from server.world import Room


MAX_NAMES = 20  # a crowded plaza names the first few, then counts the rest


def describe_room(parlor: "Parlor", session: "Session") -> str:
    width = session.width
    lines = [_room_text(parlor.world.rooms[session.room], width)]
    present = parlor.in_room(session.room)
    count = len(present) - (session in present)
    # a crowd: name a few (any few: sorting thousands for each LOOK is waste)
    here = [s.name for s in itertools.islice((s for s in present if s is not session), MAX_NAMES)]
    if count <= MAX_NAMES:
        here.sort()
    if here:
        more = count - len(here)
        lines.extend(wrap(f"Here: {', '.join(here)}" + (f" and {more} others." if more > 0 else "."),
                          width))
    return "\n".join(lines)


_ROOM_TEXT: dict[tuple[str, int], str] = {}


def _room_text(room: "Room", width: int) -> str:
    """A room's name, description and exits, laid out for a width (they never change)."""
    text = _ROOM_TEXT.get((room.key, width))
    if text is None:
        text = "\n".join([bold(paint(room.name, "cyan")), *wrap(room.description, width),
                          paint(f"Exits: {', '.join(room.exits) or 'none'}", "green")])
        _ROOM_TEXT[(room.key, width)] = text
    return text


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
