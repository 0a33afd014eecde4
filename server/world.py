"""The rooms of Esterport, loaded from data (``server/data/world.toml``), and how a room
looks to someone standing in it (LOOK, and on entering)."""

from __future__ import annotations

import itertools
import tomllib
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from server.text import bold, paint, wrap

if TYPE_CHECKING:
    from server.online import Online
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


def describe_room(world: "World", online: "Online", session: "Session") -> str:
    """What ``session`` sees on LOOK: its room of ``world`` (:func:`_room_text`), then who
    else is here, of those ``online`` (:class:`_Here`). Both are kept laid out for the width, so a LOOK in a room
    nobody entered or left since the last one wraps nothing."""
    width = session.width
    room = world.rooms[session.room]
    present = online.in_room(session.room)
    here = _HERE.get(room.key)
    if here is None or not here.holds(present):
        here = _HERE[room.key] = _Here.of(present)
    return here.look(session, session in present, _room_text(room, width), width)


class _Here:
    """Who a room's "Here:" line names, as of its last change, and the LOOK texts made
    from it (per width and viewer).

    It holds the first ``MAX_NAMES + 1`` sessions of the room (weakly: a player gone
    is not kept alive here) with their names, and how many are in it. It still holds
    when the room has as many and those are all still there under the same names:
    then a room of up to ``MAX_NAMES + 1`` is exactly as it was, and in a larger one
    the line still names people who are here and counts the rest right (which few a
    crowd's line names was never promised: any few). Arrivals and departures are seen
    this way without the parlor telling anyone."""

    __slots__ = ("size", "named", "limit", "places", "texts")

    def __init__(self, size: int, named: tuple[tuple[weakref.ref, str], ...],
                 limit: int) -> None:
        self.size, self.named, self.limit = size, named, limit
        # id of a named session -> its place in ``named`` (asked only once ``holds`` has
        # found every one of them alive, so an id here is that session's)
        self.places = {id(ref()): i for i, (ref, _) in enumerate(named)}
        # (width, which of the named the viewer is (-1: none), whether the viewer is
        # here) -> text
        self.texts: dict[tuple[int, int, bool], str] = {}

    @classmethod
    def of(cls, present: "set[Session]") -> "_Here":
        """The line's people for the room's sessions ``present`` now (any few of a
        crowd: sorting thousands for each change is waste)."""
        first = itertools.islice(present, MAX_NAMES + 1)
        return cls(len(present), tuple((weakref.ref(s), s.name) for s in first), MAX_NAMES)

    def holds(self, present: "set[Session]") -> bool:
        """Whether this still tells the room ``present`` truly (see the class)."""
        if len(present) != self.size or self.limit != MAX_NAMES:
            return False
        for ref, name in self.named:
            s = ref()
            if s is None or s not in present or s.name != name:
                return False
        return True

    def look(self, viewer: "Session", inside: bool, room_text: str, width: int) -> str:
        """The LOOK text for ``viewer`` (``inside``: standing in the room)."""
        mine = self.places.get(id(viewer), -1)
        key = (width, mine, inside)
        text = self.texts.get(key)
        if text is None:
            if len(self.texts) >= 64:  # many widths: start afresh
                self.texts.clear()
            text = self.texts[key] = room_text + self._line(viewer, inside, width)
        return text

    def _line(self, viewer: "Session", inside: bool, width: int) -> str:
        count = self.size - inside
        here = [name for ref, name in self.named if ref() is not viewer][:self.limit]
        if not here:
            return ""
        if count <= self.limit:
            here.sort()
        more = count - len(here)
        others = f" and {more} other{'' if more == 1 else 's'}." if more > 0 else "."
        # kept here, once per change of the room: not worth a place in wrap's cache
        return "\n" + "\n".join(wrap(f"Here: {', '.join(here)}" + others, width, cache=False))


# room key -> who its LOOK names (rooms are few: one entry each)
_HERE: dict[str, _Here] = {}


_ROOM_TEXT: dict[tuple[str, int], str] = {}


def _room_text(room: Room, width: int) -> str:
    """A room's name, description and exits, laid out for a width (they never change)."""
    text = _ROOM_TEXT.get((room.key, width))
    if text is None:
        text = "\n".join([bold(paint(room.name, "cyan")), *wrap(room.description, width),
                          paint(f"Exits: {', '.join(room.exits) or 'none'}", "green")])
        _ROOM_TEXT[(room.key, width)] = text
    return text
