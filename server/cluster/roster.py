"""Who is logged in on which node: the roster every node mirrors, and the connections
each node holds per address."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from server.online import RemotePlayer
from server.redis_bus import PREFIX

if TYPE_CHECKING:
    from server.cluster.lease import Lease
    from server.cluster.link import Link
    from server.cluster.parlor import LocalParlor
    from server.session import Session

ACTIVE_EVERY = 5.0  # seconds between a node's reports of its players' last commands
ROSTER = PREFIX + "roster"


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

    def __init__(self, link: "Link", parlor: "LocalParlor", lease: "Lease") -> None:
        self.link = link
        self.parlor = parlor
        self.lease = lease
        self._reported_at = time.time()  # when the last commands typed here were told
        self._addresses: dict[str, Counter[str]] = defaultdict(Counter)

    async def load(self) -> None:
        """Mirror the players of the other live nodes, as the hash has them."""
        online, node = self.parlor.online, self.link.node
        roster = await self.link.redis.hgetall(ROSTER)
        alive = await self.lease.alive({json.loads(v)["node"] for v in roster.values()})
        for raw in roster.values():
            entry = json.loads(raw)
            known = online.remote.get(int(entry["id"]))
            if known is not None and known.node == entry["node"]:
                continue  # known already (read again after Redis or this node was away)
            if entry["node"] != node and entry["node"] in alive:
                self._joined_elsewhere(self._remote(entry), float(entry.get("since", 0.0)))

    def _remote(self, entry: dict[str, Any]) -> RemotePlayer:
        # rooms and nodes are few: one string each, not one per player (every node keeps
        # every other node's players)
        return RemotePlayer(int(entry["id"]), entry["name"], sys.intern(str(entry["room"])),
                            sys.intern(str(entry["node"])),
                            bool(entry.get("admin")), float(entry.get("active", 0.0)),
                            self.link)

    # -- this node's players ------------------------------------------------------------
    def joined(self, session: "Session") -> None:
        self._tell("join", session)

    def moved(self, session: "Session") -> None:
        self._tell("move", session)

    def _tell(self, op: str, session: "Session") -> None:
        entry = _entry(session, self.link.node)
        self.link.control(op, entry=entry)
        self.link.spawn(self.link.redis.hset(ROSTER, str(entry["id"]), json.dumps(entry)))

    def left(self, session: "Session") -> None:
        account_id = session.account.id
        self.link.control("leave", account_id=account_id, node=self.link.node)
        self.link.spawn(self._forget(account_id))

    async def _forget(self, account_id: int) -> None:
        """Take a player who left this node out of the roster, unless another node's
        login has written them in since."""
        redis = self.link.redis
        raw = await redis.hget(ROSTER, str(account_id))
        if raw is not None and json.loads(raw)["node"] == self.link.node:
            await redis.hdel(ROSTER, str(account_id))

    async def write_all(self) -> None:
        """Every player of this node into the roster again (Redis may have lost them, or
        the others dropped this node while it was paused)."""
        for session in list(self.parlor.online.sessions.values()):
            entry = _entry(session, self.link.node)
            await self.link.redis.hset(ROSTER, str(entry["id"]), json.dumps(entry))
            self.link.control("join", entry=entry)

    async def leave_all(self, wait: float) -> None:
        """This node stops: its players out of the roster (bounded by ``wait``)."""
        mine = [str(s.account.id) for s in self.parlor.online.sessions.values()]
        if mine:
            await asyncio.wait_for(self.link.redis.hdel(ROSTER, *mine), wait)

    async def report_active(self) -> None:
        """Tell the other nodes when this node's players last typed a command (WHO's
        idle column), every ``ACTIVE_EVERY`` seconds, only for those who typed one since
        the last report (nothing is kept per player for it)."""
        while True:
            await asyncio.sleep(ACTIVE_EVERY)
            since, self._reported_at = self._reported_at, time.time()
            times = {str(account_id): session.last_command_at
                     for account_id, session in list(self.parlor.online.sessions.items())
                     if session.last_command_at >= since}
            if times:
                self.link.control("active", times=times)

    # -- the other nodes' players ---------------------------------------------------------
    def heard(self, op: str, data: dict[str, Any]) -> None:
        """Another node's news on the ``cluster`` topic: ``join``, ``move``, ``leave``,
        ``active`` or ``conn``."""
        online = self.parlor.online
        if op == "join":
            self._joined_elsewhere(self._remote(data["entry"]),
                                   float(data["entry"].get("since", 0.0)))
        elif op == "move":
            player = self._remote(data["entry"])
            known = online.remote.get(player.account_id)
            if known is not None and known.node == player.node:
                online.place(known, player.room)
        elif op == "leave":
            self.left_elsewhere(int(data["account_id"]), data["node"])
        elif op == "active":
            for account_id, at in data["times"].items():
                known = online.remote.get(int(account_id))
                if known is not None and known.node == data["node"]:
                    known.active = at
        elif op == "conn":
            counts = self._addresses[data["node"]]
            counts[data["address"]] += int(data["delta"])
            if counts[data["address"]] <= 0:
                del counts[data["address"]]

    def _joined_elsewhere(self, player: RemotePlayer, since: float) -> None:
        """``player`` logged in on another node at ``since``. A session of theirs here
        that logged in earlier is taken over (every node decides alike: the newer login
        wins)."""
        parlor = self.parlor
        mine = parlor.online.sessions.get(player.account_id)
        if mine is not None:
            if mine.logged_in_at >= since:
                return  # ours is the newer login: their node closes theirs
            mine.close(f"Your account has been taken over by a new connection (on "
                       f"{player.node}).")
            parlor.online.remove(mine)
        self.left_elsewhere(player.account_id, None)
        parlor.online.add_remote(player)
        for game in parlor.host.player_returned(player.account_id, player.name):
            parlor.tell(player.account_id, f"You have a game in progress: {game.title} "
                                           f"(#{game.id}).")

    def left_elsewhere(self, account_id: int, node: str | None) -> None:
        """A player left another node (``node``; None: wherever they were): out of the
        parlor's index; their games here wait for them, or the offers made here to or by
        them lapse."""
        parlor = self.parlor
        player = parlor.online.remote.get(account_id)
        if player is None or (node is not None and player.node != node):
            return
        parlor.online.remove(player)
        if parlor.host.games_of(account_id):
            parlor.host.player_left(account_id, player.name)
        else:
            parlor.host.offers.lapse(account_id, player.name)

    async def purge(self, node: str) -> None:
        """Take a dead node's players out of the roster (any node may: it is idempotent)."""
        entries = await self.link.redis.hgetall(ROSTER)
        dead = [k for k, v in entries.items() if json.loads(v)["node"] == node]
        if dead:
            await self.link.redis.hdel(ROSTER, *dead)

    def node_gone(self, node: str) -> None:
        """``node`` stopped or died: its players and connections go with it."""
        for player in [p for p in self.parlor.online.remote.values() if p.node == node]:
            self.left_elsewhere(player.account_id, node)
        self._addresses.pop(node, None)

    # -- the per-address cap across nodes -------------------------------------------------
    def connection(self, address: str, delta: int) -> None:
        """A connection from ``address`` opened (+1) or closed (-1) here."""
        self.link.control("conn", address=address, delta=delta)

    def connections_from(self, address: str) -> int:
        """Open connections from ``address`` on the other nodes."""
        return sum(counts.get(address, 0) for counts in self._addresses.values())
