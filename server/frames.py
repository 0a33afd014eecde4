"""A game as one audience sees it: the frame, a typed value from the host to every consumer.

The node that drives a game makes its frames (``LiveGame.frame``, server/services/live.py):
one per audience (a seat, or the watchers), with the view the game's own visibility rules
give that audience. Every consumer draws from a frame alone, without asking the host's
memory: a telnet screen and GMCP (server/presentation.py), a web page (server/web/),
another node's list of games (server/cluster/games.py). A game event is a frame with the
lines its audience is told and the ``Facts`` of the action (``Play.publish``,
server/services/play.py).

Frames are frozen values in the process. JSON exists only where a frame leaves it: on the
bus (``Frame.to_json`` on publishing, ``Frame.from_json`` on hearing, as another node
would) and in GMCP (docs/gmcp.md, versioned on its own). ``SCHEMA`` is the bus form's
version: it rises when a field is renamed, removed or changes meaning, and a node hearing
a frame of another schema (a node of another release, during a rolling reload) draws
nothing from it rather than something wrong.
"""

from __future__ import annotations

from typing import Any

import attrs

from server.hosting import Seat

#: The version of a frame's JSON form on the bus (``Frame.to_json``'s ``"schema"``).
SCHEMA = 1


class OtherSchema(ValueError):
    """A frame's JSON is of another schema than this release reads."""


@attrs.frozen
class Facts:
    """What an action did, as its audience's screen decides from it
    (``presentation.decide``): who acted, who was to move before it, whether it changed
    the board that audience sees, whether it began something every player must look at
    (play after the draw, a deal), and whether AUTO made it."""

    actor: int
    was_to_move: tuple[int, ...]
    board: bool
    new_phase: bool = False
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"actor": self.actor, "was_to_move": list(self.was_to_move),
                "board": self.board, "new_phase": self.new_phase, "auto": self.auto}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Facts":
        return cls(int(data["actor"]), tuple(data["was_to_move"]), bool(data["board"]),
                   bool(data["new_phase"]), bool(data["auto"]))


@attrs.frozen
class Clock:
    """A game's clock as a board shows it: whose it is, the seconds it was set to, and
    when it runs out (epoch seconds)."""

    seat: int
    seconds: float
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "seconds": self.seconds, "deadline": self.deadline}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Clock":
        return cls(int(data["seat"]), data["seconds"], data["deadline"])


@attrs.frozen
class Frame:
    """One game as one audience sees it.

    ``game`` (its number) and ``kind_key`` (its kind's: "dice") say which; ``version``
    counts its actions and ``epoch`` is the fencing token of the node that drives it (a
    consumer drops a frame of an older epoch than it has seen: it comes from a node that
    has lost the game).
    ``seat`` is the audience (None: its watchers). ``to_move`` are the seats whose move
    it is; ``result`` says how it ended, once ``finished``. ``withheld`` says why nobody
    but its players may see it at all (a Par tournament's sealed deals), else None.
    ``view`` is what the game's visibility rules give that audience (None in a list of
    games, which draws no board); ``legal``, the moves that seat may make when the game
    lists them. An event's frame also has the ``lines`` its audience is told and the
    ``facts`` of the action (None: the game started, ended, or was changed by no move);
    a frame in a list of games has how many ``watchers`` it has."""

    game: int
    kind_key: str
    kind_title: str
    title: str
    version: int
    epoch: int
    seat: int | None
    seats: tuple[Seat, ...]
    ranked: bool
    to_move: tuple[int, ...]
    finished: bool
    adjourned: bool
    result: str | None
    withheld: str | None
    clock: Clock | None
    view: dict[str, Any] | None
    legal: tuple[str, ...] | None
    lines: tuple[str, ...] = ()
    facts: Facts | None = None
    watchers: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name, by seat number."""
        return tuple(s.name for s in self.seats)

    @property
    def left(self) -> bool:
        """Whether the frame's seat has left its game (a table they got up from, or were
        stood up from): the last frame they are sent of it."""
        return self.seat is not None and self.seat < len(self.seats) \
            and self.seats[self.seat].left

    def told(self, lines: list[str] | tuple[str, ...], facts: Facts | None) -> "Frame":
        """This frame as an event's: with the lines its audience is told and the facts."""
        return attrs.evolve(self, lines=tuple(lines), facts=facts)

    def watched(self, watchers: int) -> "Frame":
        """This frame in a list of games, with how many watch it."""
        return attrs.evolve(self, watchers=watchers)

    def to_json(self) -> dict[str, Any]:
        """The frame as it travels on the bus and between nodes."""
        return {"schema": SCHEMA, "game": self.game, "kind_key": self.kind_key,
                "kind_title": self.kind_title, "title": self.title,
                "version": self.version, "epoch": self.epoch, "seat": self.seat,
                "seats": [s.to_json() for s in self.seats], "ranked": self.ranked,
                "to_move": list(self.to_move), "finished": self.finished,
                "adjourned": self.adjourned, "result": self.result,
                "withheld": self.withheld,
                "clock": None if self.clock is None else self.clock.to_json(),
                "view": self.view,
                "legal": None if self.legal is None else list(self.legal),
                "lines": list(self.lines),
                "facts": None if self.facts is None else self.facts.to_json(),
                "watchers": self.watchers}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Frame":
        """A frame heard on the bus or from another node; ``OtherSchema`` if it is of
        another schema than this release reads."""
        if data.get("schema") != SCHEMA:
            raise OtherSchema(f"a frame of schema {data.get('schema')!r}, not {SCHEMA}")
        clock, facts, legal = data["clock"], data["facts"], data["legal"]
        return cls(
            game=data["game"], kind_key=data["kind_key"], kind_title=data["kind_title"],
            title=data["title"], version=data["version"], epoch=data["epoch"],
            seat=data["seat"], seats=tuple(Seat.from_json(s) for s in data["seats"]),
            ranked=data["ranked"], to_move=tuple(data["to_move"]),
            finished=data["finished"], adjourned=data["adjourned"],
            result=data["result"], withheld=data["withheld"],
            clock=None if clock is None else Clock.from_json(clock), view=data["view"],
            legal=None if legal is None else tuple(legal), lines=tuple(data["lines"]),
            facts=None if facts is None else Facts.from_json(facts),
            watchers=data["watchers"])


_last_heard: tuple[dict[str, Any], Frame] | None = None


def heard(data: dict[str, Any]) -> Frame:
    """The frame of a game event's JSON (``Event.data``), read once however many
    subscribers hear it: the bus hands each subscriber of a topic the same data in turn,
    so a game watched by a thousand is read once, not a thousand times.

    :raises OtherSchema: the frame is of another schema than this release reads."""
    global _last_heard
    if _last_heard is not None and _last_heard[0] is data:
        return _last_heard[1]
    frame = Frame.from_json(data)
    _last_heard = (data, frame)
    return frame


__all__ = ["SCHEMA", "Clock", "Facts", "Frame", "OtherSchema", "heard"]
