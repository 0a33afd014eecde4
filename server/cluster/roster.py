"""Who is logged in on which node: the roster every node mirrors, and the connections
each node holds per address."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

import attrs

from server.redis_bus import PREFIX

if TYPE_CHECKING:
    from server.cluster.node import Cluster
    from server.session import Session

ACTIVE_EVERY = 5.0  # seconds between a node's reports of its players' last commands
ROSTER = PREFIX + "roster"


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
    cluster: "Cluster"

    def idle(self) -> float:
        return max(0.0, time.time() - self.active)

    def close(self, message: str | None = None) -> None:
        """Disconnect them, on their node (an admin's @KICK)."""
        self.cluster.control("close", account_id=self.account_id, message=message or "")


def _entry(session: "Session", node: str) -> dict[str, Any]:
    return {"id": session.account.id, "name": session.name, "room": session.room,
            "node": node, "admin": session.is_admin, "since": session.logged_in_at,
            "active": session.last_command_at}


class Roster:
    """The cluster's roster, a Redis hash (account id -> where they are) that a node reads
    when it starts and that the ``cluster`` topic keeps current: this node writes its own
    players as they log in, move and leave, and mirrors the others' in the parlor
    (``parlor.remote_*``: WHO, FINGER, TELL and LOOK answer from memory). Beside it, each
    other node's open connections per address, which the per-address cap counts."""

    def __init__(self, cluster: "Cluster") -> None:
        self.cluster = cluster
        self._reported_at = time.time()  # when the last commands typed here were told
        self._addresses: dict[str, Counter[str]] = defaultdict(Counter)

    async def load(self) -> None:
        """Mirror the players of the other live nodes, as the hash has them."""
        parlor, node = self.cluster.parlor, self.cluster.node
        roster = await self.cluster.redis.hgetall(ROSTER)
        alive = await self.cluster.lease.alive({json.loads(v)["node"] for v in roster.values()})
        for raw in roster.values():
            entry = json.loads(raw)
            known = parlor.remote.get(int(entry["id"]))
            if known is not None and known.node == entry["node"]:
                continue  # known already (read again after Redis or this node was away)
            if entry["node"] != node and entry["node"] in alive:
                parlor.remote_join(self._remote(entry), float(entry.get("since", 0.0)))

    def _remote(self, entry: dict[str, Any]) -> RemotePlayer:
        # rooms and nodes are few: one string each, not one per player (every node keeps
        # every other node's players)
        return RemotePlayer(int(entry["id"]), entry["name"], sys.intern(str(entry["room"])),
                            sys.intern(str(entry["node"])),
                            bool(entry.get("admin")), float(entry.get("active", 0.0)),
                            self.cluster)

    # -- this node's players ------------------------------------------------------------
    def joined(self, session: "Session") -> None:
        self._tell("join", session)

    def moved(self, session: "Session") -> None:
        self._tell("move", session)

    def _tell(self, op: str, session: "Session") -> None:
        entry = _entry(session, self.cluster.node)
        self.cluster.control(op, entry=entry)
        self.cluster.spawn(self.cluster.redis.hset(ROSTER, str(entry["id"]), json.dumps(entry)))

    def left(self, session: "Session") -> None:
        account_id = session.account.id
        self.cluster.control("leave", account_id=account_id, node=self.cluster.node)
        self.cluster.spawn(self._forget(account_id))

    async def _forget(self, account_id: int) -> None:
        """Take a player who left this node out of the roster, unless another node's
        login has written them in since."""
        redis = self.cluster.redis
        raw = await redis.hget(ROSTER, str(account_id))
        if raw is not None and json.loads(raw)["node"] == self.cluster.node:
            await redis.hdel(ROSTER, str(account_id))

    async def write_all(self) -> None:
        """Every player of this node into the roster again (Redis may have lost them, or
        the others dropped this node while it was paused)."""
        for session in list(self.cluster.parlor.sessions.values()):
            entry = _entry(session, self.cluster.node)
            await self.cluster.redis.hset(ROSTER, str(entry["id"]), json.dumps(entry))
            self.cluster.control("join", entry=entry)

    async def leave_all(self, wait: float) -> None:
        """This node stops: its players out of the roster (bounded by ``wait``)."""
        mine = [str(s.account.id) for s in self.cluster.parlor.sessions.values()]
        if mine:
            await asyncio.wait_for(self.cluster.redis.hdel(ROSTER, *mine), wait)

    async def report_active(self) -> None:
        """Tell the other nodes when this node's players last typed a command (WHO's
        idle column), every ``ACTIVE_EVERY`` seconds, only for those who typed one since
        the last report (nothing is kept per player for it)."""
        while True:
            await asyncio.sleep(ACTIVE_EVERY)
            since, self._reported_at = self._reported_at, time.time()
            times = {str(account_id): session.last_command_at
                     for account_id, session in list(self.cluster.parlor.sessions.items())
                     if session.last_command_at >= since}
            if times:
                self.cluster.control("active", times=times)

    # -- the other nodes' players ---------------------------------------------------------
    def heard(self, op: str, data: dict[str, Any]) -> None:
        """Another node's news on the ``cluster`` topic: ``join``, ``move``, ``leave``,
        ``active`` or ``conn``."""
        parlor = self.cluster.parlor
        if op == "join":
            parlor.remote_join(self._remote(data["entry"]), float(data["entry"].get("since", 0.0)))
        elif op == "move":
            parlor.remote_move(self._remote(data["entry"]))
        elif op == "leave":
            parlor.remote_leave(int(data["account_id"]), data["node"])
        elif op == "active":
            parlor.remote_active(data["node"], {int(k): v for k, v in data["times"].items()})
        elif op == "conn":
            counts = self._addresses[data["node"]]
            counts[data["address"]] += int(data["delta"])
            if counts[data["address"]] <= 0:
                del counts[data["address"]]

    async def purge(self, node: str) -> None:
        """Take a dead node's players out of the roster (any node may: it is idempotent)."""
        entries = await self.cluster.redis.hgetall(ROSTER)
        dead = [k for k, v in entries.items() if json.loads(v)["node"] == node]
        if dead:
            await self.cluster.redis.hdel(ROSTER, *dead)

    def nodes(self) -> set[str]:
        """The other nodes with players logged in, as this node knows them."""
        return self.cluster.parlor.remote_nodes()

    def node_gone(self, node: str) -> None:
        """``node`` stopped or died: its players and connections go with it."""
        self.cluster.parlor.remote_node_gone(node)
        self._addresses.pop(node, None)

    # -- the per-address cap across nodes -------------------------------------------------
    def connection(self, address: str, delta: int) -> None:
        """A connection from ``address`` opened (+1) or closed (-1) here."""
        self.cluster.control("conn", address=address, delta=delta)

    def connections_from(self, address: str) -> int:
        """Open connections from ``address`` on the other nodes."""
        return sum(counts.get(address, 0) for counts in self._addresses.values())
