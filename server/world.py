"""The rooms of Esterport, loaded from data (``server/data/world.toml``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import attrs

WORLD_FILE = Path(__file__).parent / "data" / "world.toml"

DIRECTIONS = {
    "n": "north", "s": "south", "e": "east", "w": "west",
    "u": "up", "d": "down", "ne": "northeast", "nw": "northwest",
    "se": "southeast", "sw": "southwest",
}


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

    def exit(self, room: str, word: str) -> str | None:
        """The room key reached from ``room`` by ``word`` (a direction or its abbreviation)."""
        word = DIRECTIONS.get(word.lower(), word.lower())
        return self.rooms[room].exits.get(word)
