"""This node's part in the cluster: its parts wired to the parlor, the two topics it
follows, and its heartbeat."""

from __future__ import annotations

import asyncio
import logging
import time

from redis.exceptions import RedisError

from server.bus import Event
from server.cluster.games import SWEEP_EVERY, GameTable
from server.cluster.lease import Lease
from server.cluster.link import Link
from server.cluster.lock import ClusterLock
from server.cluster.offers import OffersElsewhere
from server.cluster.parlor import LocalParlor
from server.cluster.questions import Questions
from server.cluster.roster import Roster
from server.cluster.routing import Router
from server.frames import Frame
from server.redis_bus import CLOSE_WAIT, CONTROL, NODE, PREFIX, RedisBus
from server.services.offers import Offer
from server.tasks import cancel_and_wait

log = logging.getLogger(__name__)

# what a node tells the others on the ``cluster`` topic, and hears again itself
_OWN_NEWS = ("join", "move", "leave", "active", "node-gone", "game", "throttle", "conn",
             "offer")


class Cluster:
    """This node of the cluster (see the package's docstring), in parts with one job
    each: ``lease`` (heartbeats; the fence), ``roster`` (who is on which node),
    ``games`` (which node drives each game), ``offers`` (challenges and seeks across
    nodes), ``router`` (lines run on another node) and ``questions`` (asking a node).
    Each part is handed what it uses: the node's ``link`` to the others, the parlor, and
    the other parts it asks.

    It follows two topics: ``cluster`` (every node's news and control) and
    ``node:<name>`` (questions to this node, and their answers), and hands each event to
    its part. It is also ``GameHost.other_nodes``: :meth:`frames`, :meth:`frame` and
    :meth:`offers_to`."""

    def __init__(self, parlor: LocalParlor, bus: RedisBus, node: str, lease: float = 6.0) -> None:
        self.parlor = parlor
        self.bus = bus
        self.node = node
        self.link = Link(bus, node)  # what every part tells the others through
        self._tasks: set[asyncio.Task] = set()
        self.questions = Questions(self.link)
        self.lease = Lease(self.link, parlor, lease,
                           look_up=lambda number: self.games.lookup(number))
        self.roster = Roster(self.link, parlor, self.lease)
        self.games = GameTable(self.link, parlor, self.lease, self.questions)
        self.offers = OffersElsewhere(self.link, parlor)
        self.router = Router(self.link, parlor, self.lease, self.games, self.questions,
                             self.offers)
        # the login throttles count every node's failures (server/throttle.py)
        self._throttles = {"throttle": parlor.throttle, "name_throttle": parlor.name_throttle,
                           "logins": parlor.logins, "creations": parlor.creations,
                           "creations_everywhere": parlor.creations_everywhere}
        for name, throttle in self._throttles.items():
            throttle.shared = (lambda op, keys, name=name:
                               self.link.control("throttle", which=name, change=op,
                                                 keys=list(keys)))
        bus.on_heal.append(self._rejoin)

    async def start(self) -> None:
        await self.bus.start()
        await self.lease.beat(fresh=True)
        self.lease.rejoin_due = False  # the first beat: nobody knew this node before
        self.bus.subscribe(CONTROL, self._on_control)
        # A player's own topic ("account:<id>") still goes to every node, as any other:
        # sent only to the node the roster names, it was lost for a player whose node had
        # been paused past its lease and rejoined
        # (test_a_paused_node_wakes_to_find_its_game_played_on_and_games_lists_it_once).
        # Until the roster is right at once after a rejoin, nothing is personal.
        self.bus.subscribe(NODE + self.node, self._on_node)
        host = self.parlor.host
        host.games.fence = self.lease.fence
        host.games.node = self.node
        host.games.listeners.append(self.games.changed)
        host.offers.listeners.append(self.offers.changed)
        host.other_nodes = self
        host.seeks.new_id = self.offers.new_seek_id
        host.seeks.claim = self.offers.claim_seek
        host.tournaments.lock = ClusterLock(self.link.redis, PREFIX + "tournaments")
        await self._purge(self.node)  # what a former run of this node left (killed)
        await self.roster.load()
        await self.games.load()
        self._tasks |= {asyncio.create_task(self._heartbeat(), name="cluster-heartbeat"),
                        asyncio.create_task(self.roster.report_active(),
                                            name="cluster-active")}
        log.info("cluster: node %s joined through %s", self.node, self.bus.url)

    async def close(self, *, leaving: bool = True) -> None:
        """Stop this node's part of the cluster. ``leaving=False`` (a reload, whose next
        parlor takes the node's name, players and games on within the lease): nothing
        is said to the others."""
        fencing = self.lease.fencing
        await cancel_and_wait({*self._tasks, *self.link.writes, *([fencing] if fencing else [])},
                              CLOSE_WAIT, "cluster tasks")
        if not leaving:
            await self.bus.close()
            return
        try:  # bounded: a stopping node never waits on a Redis that is away
            await self.roster.leave_all(CLOSE_WAIT)
            await self.lease.end(CLOSE_WAIT)
        except (RedisError, OSError, asyncio.TimeoutError):
            pass
        self.link.control("node-gone", node=self.node)
        await self.bus.close()

    async def _rejoin(self) -> None:
        """After Redis came back (which may have lost everything), or after this node was
        paused past its lease: this node's heartbeat, the games it still drives (the
        store says which, ``fence``), and its players, into Redis again."""
        self.lease.judge_after = time.monotonic() + self.lease.seconds
        await self.lease.beat()
        self.lease.rejoin_due = False  # done now
        await self.lease.fence()
        await self.roster.load()  # a newer login on another node takes over one here
        self.games.announce_all()
        await self.roster.write_all()

    # -- the two topics -----------------------------------------------------------------
    def _on_control(self, _topic: str, event: Event) -> None:
        op, data = event.type, event.data
        if data.get("node") == self.node and op in _OWN_NEWS:
            return  # our own news: already known here
        parlor = self.parlor
        if op in ("join", "move", "leave", "active", "conn"):
            self.roster.heard(op, data)
        elif op == "node-gone":
            self._node_gone(data["node"])
        elif op == "game":
            self.games.heard(data)
        elif op == "offer":
            self.offers.heard(data)
        elif op == "close":
            session = parlor.online.sessions.get(int(data["account_id"]))
            if session is not None:
                session.close(data.get("message") or None)
        elif op == "throttle":
            throttle = self._throttles.get(data.get("which"))
            change = {"fail": "failed_elsewhere", "succeed": "succeeded_elsewhere",
                      "add": "added_elsewhere"}.get(data.get("change"))
            if throttle is not None and change is not None and hasattr(throttle, change):
                getattr(throttle, change)(*map(str, data["keys"]))
        elif op == "reload":  # a rolling reload reached this node
            if data.get("only") == self.node:
                parlor.request_reload()
        elif op == "shutdown":  # a node stopping alone hands its games over
            if data.get("only") in (None, self.node):
                parlor.request_shutdown(data["message"], everywhere=False,
                                        hand_over=data.get("only") is not None)

    def _on_node(self, _topic: str, event: Event) -> None:
        op, data = event.type, event.data
        if op == "run":
            task = asyncio.create_task(self.router.run(data))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif op == "adopt":
            self.link.spawn(self.games.take_over(data))
        elif op == "frames":
            self.questions.answer(data, frames=self.games.frames_here(data.get("kind")))
        elif op == "frame":
            self.questions.answer(data, frame=self.games.frame_here(int(data["game"])))
        elif op == "answer":
            self.questions.answered(data)

    # -- liveness -------------------------------------------------------------------------
    def _node_gone(self, node: str) -> None:
        """``node`` stopped or its lease lapsed: its players go with it, what it was asked
        is never answered, its offers lapse, and its games are taken over."""
        self.roster.node_gone(node)
        self.questions.node_gone(node)
        self.offers.node_gone(node)
        self.games.node_gone(node)

    async def _heartbeat(self) -> None:
        lease = self.lease
        beats = 0
        while True:
            await asyncio.sleep(lease.heartbeat)
            beats += 1
            try:
                lapsed = not lease.holds()
                await lease.beat()
                if lapsed:  # paused past the lease, or Redis was away that long
                    await lease.fence()
                if lease.rejoin_due:
                    lease.rejoin_due = False
                    await self._rejoin()
                    continue
                nodes = self.parlor.online.nodes() | {g[0] for g in self.games.elsewhere.values()
                                               if g[0]}
                if nodes and time.monotonic() >= lease.judge_after:
                    alive = await lease.alive(nodes)
                    for gone in nodes - alive:
                        log.warning("cluster: node %s is gone; its players with it", gone)
                        self._node_gone(gone)
                        self.link.spawn(self._purge(gone))
                await self.games.reconcile(sweep=beats % SWEEP_EVERY == 0)
            except (RedisError, OSError):
                pass  # the bus says Redis is away, and heals
            except Exception:
                log.exception("cluster: heartbeat failed; trying again at the next beat")

    async def _purge(self, node: str) -> None:
        """Take a dead node's players out of the roster and its games out of the games
        table (any node may: it is idempotent)."""
        await self.roster.purge(node)
        await self.games.purge(node)

    # -- ``GameHost.other_nodes`` ---------------------------------------------------------
    async def frames(self, kind_key: str | None) -> list[Frame]:
        return await self.games.frames(kind_key)

    async def frame(self, game_id: int) -> Frame | None:
        return await self.games.frame(game_id)

    def offers_to(self, account_id: int) -> list[Offer]:
        return self.offers.to(account_id)
