"""Looking around and walking: LOOK, GO (and bare exit names)."""

from __future__ import annotations

from commands.registry import Command, CommandError, Context, UsageError
from server.text import counted
from server.world import DIRECTIONS


async def look(ctx: Context, rest: str) -> None:
    if rest:
        target = ctx.session_named(rest)
        if target is None or target.room != ctx.session.room:
            raise CommandError(f"You see no {rest} here.")
        ctx.send(f"{target.name} is here, idle {counted(int(target.idle()), 'second')}.")
        return
    ctx.send(ctx.describe_room(ctx.session))


async def go(ctx: Context, rest: str) -> None:
    if not rest:
        raise UsageError()
    word = rest.split()[0]
    found = ctx.world.exit(ctx.session.room, word)
    if found is None:  # a direction by its name ("west" for "w"), else as typed
        raise CommandError(f"You can't go {DIRECTIONS.get(word.lower(), rest)} from here.")
    name, target = found
    ctx.move(ctx.session, target, name)
    ctx.send(ctx.describe_room(ctx.session))


COMMANDS = [
    Command("look", look, "LOOK [<person>]", "Describe the room you are in, its exits and "
            "who is here; or look at a person in the room.", aliases=("l",), topic="world"),
    Command("go", go, "GO <exit>", "Walk through an exit. Typing an exit's name alone "
            "(NORTH, N, EAST …) does the same.", topic="world"),
]
