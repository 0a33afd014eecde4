"""Who is logged in: the players of this node (their sessions) and, in a cluster, those
of the other nodes (``RemotePlayer``), by account id, by name and by room."""

from __future__ import annotations

import bisect
import sys
import time
from typing import TYPE_CHECKING, Union

import attrs

from server.changes import Changes

if TYPE_CHECKING:
    from server.cluster.link import Link
    from server.session import Session


@attrs.define(eq=False)
class RemotePlayer:
    """A player logged in on another node, as WHO, FINGER, TELL and LOOK see them (the
    attributes of a :class:`~server.session.Session` those commands read)."""

    account_id: int
    name: str
    room: str
    node: str
    is_admin: bool
    active: float
    link: "Link"  # the way to their node (@KICK)

    def idle(self) -> float:
        return max(0.0, time.time() - self.active)

    def close(self, message: str | None = None) -> None:
        """Disconnect them, on their node (an admin's @KICK)."""
        self.link.control("close", account_id=self.account_id, message=message or "")


Player = Union["Session", RemotePlayer]


class Online:
    """The parlor's index of logged-in players. WHO, FINGER, TELL, LOOK and the caps read
    it; the parlor keeps it as players log in, move and leave, and a cluster's roster
    (server/cluster/roster.py) as they do so on the other nodes.

    Every change of who is where empties ``who_cache`` (WHO's listings by prefix, made
    by commands/people.py)."""

    def __init__(self, changes: Changes | None = None) -> None:
        # counts who comes and goes, for the web door's copies of pages (server/changes.py)
        self.changes = changes or Changes()
        self.sessions: dict[int, "Session"] = {}      # logged in here, by account id
        self.remote: dict[int, RemotePlayer] = {}     # logged in on another node, by id
        self._by_name: dict[str, Player] = {}          # both, by lower-cased name
        self.names: list[str] = []                     # their lower-cased names, sorted
        self._rooms: dict[str, set[Player]] = {}       # both, by the room they are in
        self.who_cache: dict[str, tuple[float, str]] = {}

    # -- reading ----------------------------------------------------------------------
    def is_online(self, account_id: int) -> bool:
        """Logged in, on this node or another."""
        return account_id in self.sessions or account_id in self.remote

    def present(self, account_id: int) -> Player | None:
        """A logged-in player: their session here, or where they are on another node."""
        return self.sessions.get(account_id) or self.remote.get(account_id)

    def named(self, name: str) -> Player | None:
        """The logged-in player called ``name`` (in any case)."""
        return self._by_name.get(name.lower())

    @property
    def count(self) -> int:
        """How many are logged in, on every node."""
        return len(self._by_name)

    def named_from(self, prefix: str, limit: int) -> tuple[list[Player], int]:
        """Up to ``limit`` logged-in players whose names start with ``prefix``, in name
        order, and how many match in all (a sorted index: WHO stays cheap in a crowd)."""
        start = bisect.bisect_left(self.names, prefix)
        end = bisect.bisect_left(self.names, prefix + "\U0010ffff") if prefix else len(self.names)
        return [self._by_name[k] for k in self.names[start:min(end, start + limit)]], end - start

    def in_room(self, room: str) -> set[Player]:
        return self._rooms.get(room, set())

    def nodes(self) -> set[str]:
        """The other nodes with players logged in."""
        return {p.node for p in self.remote.values()}

    # -- changing ---------------------------------------------------------------------
    def add(self, session: "Session") -> None:
        """``session`` logged in here, in its room."""
        self.sessions[session.account_id] = session
        self._list(session)
        self.changes()

    def add_remote(self, player: RemotePlayer) -> None:
        """``player`` logged in on another node, in its room."""
        self.remote[player.account_id] = player
        self._list(player)
        self.changes()

    def _list(self, player: Player) -> None:
        key = sys.intern(player.name.lower())  # the one copy the throttles share
        if key not in self._by_name:
            bisect.insort(self.names, key)
        self._by_name[key] = player
        self.place(player, player.room)

    def remove(self, player: Player) -> None:
        """``player`` left (or was taken over): out of every index it is still in."""
        if self.sessions.get(player.account_id) is player:
            del self.sessions[player.account_id]
        elif self.remote.get(player.account_id) is player:
            del self.remote[player.account_id]
        key = player.name.lower()
        if self._by_name.get(key) is player:
            del self._by_name[key]
            i = bisect.bisect_left(self.names, key)
            if i < len(self.names) and self.names[i] == key:
                del self.names[i]
        self.place(player, None)
        self.changes()

    def place(self, player: Player, room: str | None) -> None:
        """Keep the room index: take ``player`` out of its room, put it in ``room`` (None:
        in none)."""
        here = self._rooms.get(player.room)
        if here is not None:
            here.discard(player)
            if not here:
                del self._rooms[player.room]
        if room is not None:
            player.room = room
            self._rooms.setdefault(room, set()).add(player)
        self.who_cache.clear()
