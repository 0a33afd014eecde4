"""The rooms of Esterport, loaded from data (``server/data/world.toml``), and how a room
looks to someone standing in it (LOOK, and on entering)."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from server.text import bold, paint, wrap

if TYPE_CHECKING:
    from server.app import Parlor
    from server.session import Session

WORLD_FILE = Path(__file__).parent / "data" / "world.toml"

DIRECTIONS = {
    "n": "north", "s": "south", "e": "east", "w": "west",
    "u": "up", "d": "down", "ne": "northeast", "nw": "northwest",
    "se": "southeast", "sw": "southwest",
}


def is_direction(word: str) -> bool:
    """Whether ``word`` is a compass or up/down direction ("w", "west", "UP")."""
    w = word.lower()
    return w in DIRECTIONS or w in DIRECTIONS.values()


@attrs.frozen
class Room:
    key: str
    name: str
    description: str
    exits: dict[str, str] = attrs.field(converter=lambda d: dict(sorted(d.items())))
    shop: bool = False
    game: str | None = None


@attrs.frozen
class World:
    rooms: dict[str, Room]
    start: str

    @classmethod
    def load(cls, path: Path = WORLD_FILE) -> "World":
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        rooms = {key: Room(key=key, **spec) for key, spec in data["rooms"].items()}
        for room in rooms.values():
            for direction, target in room.exits.items():
                if target not in rooms:
                    raise ValueError(f"world: {room.key} exit {direction} leads to unknown {target!r}")
        if data["start"] not in rooms:
            raise ValueError(f"world: start room {data['start']!r} does not exist")
        return cls(rooms=rooms, start=data["start"])

    def exit(self, room: str, word: str) -> tuple[str, str] | None:
        """The exit of ``room`` that ``word`` names (a direction or its abbreviation): its
        name ("north" for "n") and the room key it leads to; None if there is none."""
        name = DIRECTIONS.get(word.lower(), word.lower())
        target = self.rooms[room].exits.get(name)
        return (name, target) if target is not None else None


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
        others = f" and {more} other{'' if more == 1 else 's'}." if more > 0 else "."
        # who is here changes with every arrival: not worth a place in wrap's cache
        lines.extend(wrap(f"Here: {', '.join(here)}" + others, width, cache=False))
    return "\n".join(lines)


_ROOM_TEXT: dict[tuple[str, int], str] = {}


def _room_text(room: Room, width: int) -> str:
    """A room's name, description and exits, laid out for a width (they never change)."""
    text = _ROOM_TEXT.get((room.key, width))
    if text is None:
        text = "\n".join([bold(paint(room.name, "cyan")), *wrap(room.description, width),
                          paint(f"Exits: {', '.join(room.exits) or 'none'}", "green")])
        _ROOM_TEXT[(room.key, width)] = text
    return text
