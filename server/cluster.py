"""Several nodes, one parlor: the bus between nodes and who is online on which.

With ``[cluster] redis`` set, each server process is one *node* of a parlor whose nodes
share one PostgreSQL (the one store) and one Redis (fan-out, presence, leases). Redis
is used for what it is made for and nothing is built by hand on top of it beyond this:

* The bus between nodes is ``server/redis_bus.py``'s :class:`RedisBus`.
* :class:`Cluster` keeps the roster: every logged-in player of every node, in a Redis
  hash (``<prefix>roster``: account id -> where they are) that a node reads once when it
  starts, and kept current by the ``cluster`` topic (who logs in, moves, goes idle,
  leaves). Each node mirrors it in memory, so WHO, FINGER, TELL and LOOK answer from
  memory. A node that stops renewing its heartbeat key (killed) is dropped from every
  mirror, and its players with it, within ``[cluster] lease`` seconds and a beat.
* Control goes over the same topic: a login on node B takes over the session on node A
  (the newer login wins, on every node alike), an admin's @KICK reaches the node of the
  player kicked, @SHUTDOWN every node, ``@SHUTDOWN NODE <name>`` one; the login
  throttles and the per-address cap count every node's events.
* Games: each is driven by one node; a command about it typed on another node is relayed
  there (``server/relay.py``), and a dead node's games are taken over by the others. A
  node that stops hands its games over first (``drain``), each to the live node driving
  fewest, and closes its sessions once they have been taken.
* Ownership is proven, not hoped. The store names the node driving each game and its
  epoch, a fencing token: an adoption raises it (a compare-and-set on the stored epoch
  and version), and every write of a game is made under the epoch its writer holds, so
  a node that lost a game can store nothing more of it. Each node holds a lease (its
  heartbeat key); a node that finds its lease lapsed (it was paused with SIGSTOP, or cut
  off from Redis, longer than ``lease``) acts on no game before the store has said which
  are still its own (``fence``): the others are let go, and their commands relayed to
  the node that adopted them. Frames carry the epoch, and consumers drop older ones.
* Nothing is left undriven: once a beat each node writes its own games into the games
  table again (Redis may have lost them) and mirrors the others' from it, and every few
  beats it adopts any game in play in the store whose node is not alive.

When Redis goes away each node says so once in its log, goes on serving its own players
(their games are in the database), and heals when Redis is back: it subscribes again and
writes its players into the roster again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

import attrs
import redis.asyncio as aioredis
from redis.exceptions import LockError, RedisError

from server.bus import Event
from server.db import LOST, connection_lost
from server.hosting import Seat
from server.redis_bus import CLOSE_WAIT, CONTROL, NODE, PREFIX, RedisBus
from server.services.live import GameUnreachable
from server.services.offers import Offer
from server.relay import RELAY_TIMEOUT, RelayedSession, apply_relayed, session_view
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.app import Parlor
    from server.session import Session

log = logging.getLogger(__name__)

ACTIVE_EVERY = 5.0  # seconds between a node's reports of its players' last commands
ASK_TIMEOUT = 3.0   # seconds a node waits for another's list of games or board
LEASE_SHARE = 0.8   # the part of the lease a node counts on (the rest: clocks, latency)
SWEEP_EVERY = 5     # beats between two sweeps for games in play that no live node drives
HAND_OVER_TIMEOUT = 3.0  # seconds a stopping node waits for another to take a game
DRAIN_TIMEOUT = 10.0     # seconds a stopping node spends handing its games over, at most
LIST_FRESH = 1.0    # seconds another node's list of games is shown again without asking


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


class ClusterLock:
    """An ``async with`` lock held by one coroutine of one node at a time: a local
    ``asyncio.Lock`` (this node's coroutines queue here), then redis-py's lock in Redis
    (the nodes queue there). The tournament director runs every change of a tournament
    under it, so two nodes never pair one round twice. The Redis lock expires after
    ``timeout`` seconds should its node die holding it, or pause past it (SIGSTOP): then
    another node may take it, so ``held()`` says whether this node's hold still runs, by
    this node's own clock, and the director checks it before each thing it does
    (``server/services/tournaments.py``: with the row's version as the fencing token)."""

    def __init__(self, redis: aioredis.Redis, name: str, timeout: float = 60.0) -> None:
        self.redis = redis
        self.name = name
        self.timeout = timeout
        self._local = asyncio.Lock()
        self._held: Any = None
        self._until = 0.0  # monotonic: this node's hold surely runs until then

    async def __aenter__(self) -> None:
        await self._local.acquire()
        try:
            held = self.redis.lock(self.name, timeout=self.timeout, thread_local=False,
                                   blocking_timeout=self.timeout)
            asked = time.monotonic()
            if not await held.acquire():
                raise TimeoutError(f"{self.name}: not acquired in {self.timeout:g} s")
            # the key's time began at the last try, after ``asked``; the last tenth is
            # left for clocks that run apart
            self._until = max(asked, time.monotonic() - 0.1) + self.timeout * 0.9
            self._held = held
        except BaseException:
            self._local.release()
            raise

    def held(self) -> bool:
        """Whether this node still holds the lock: a node that slept past its time may
        have lost it to another, whatever Redis says when asked later."""
        return self._held is not None and time.monotonic() < self._until

    async def __aexit__(self, *exc: Any) -> None:
        held, self._held = self._held, None
        try:
            await held.release()
        except (RedisError, OSError, LockError):  # expired, or Redis away: nothing to free
            log.warning("cluster: %s was no longer held when released", self.name)
        finally:
            self._local.release()


def _entry(session: "Session", node: str) -> dict[str, Any]:
    return {"id": session.account.id, "name": session.name, "room": session.room,
            "node": node, "admin": session.is_admin, "since": session.logged_in_at,
            "active": session.last_command_at}


class Cluster:
    """This node's part in the cluster's roster and control (see the module's docstring).
    The parlor calls ``joined``, ``moved`` and ``left`` for its own players; the roster's
    other players reach the parlor as :class:`RemotePlayer` through ``parlor.remote_*``."""

    def __init__(self, parlor: "Parlor", bus: RedisBus, node: str, lease: float = 6.0) -> None:
        self.parlor = parlor
        # a node's heartbeat key lives ``lease`` seconds and is renewed five times as
        # often: a node dead for ``lease`` seconds is seen at the next beat after
        self.lease = lease
        self.heartbeat = lease / 5
        # this node's lease runs until this (monotonic) time: a beat renews it only while it
        # runs, so a node paused past it (SIGSTOP) finds it lapsed when it wakes, whatever
        # its timers do first, and acts on no game before the store says which are still
        # its own (``fence``)
        self._lease_until = 0.0
        self._fencing: asyncio.Task | None = None
        self._rejoin_due = False  # the lease lapsed: back into the roster at the next beat
        self._beaten_at = 0.0  # when the last heartbeat written was sent (monotonic)
        # no node is judged dead before this (monotonic) time: after Redis came back,
        # every node needs a beat to write its heartbeat again
        self._judge_after = 0.0
        self.bus = bus
        self.node = node
        self._tasks: set[asyncio.Task] = set()  # a burst of leaves makes thousands
        self._reported_at = time.time()  # when the last commands typed here were told
        # games driven by other nodes: number -> (node, kind key, players' account ids);
        # node "" while the game is being taken over from a node that died
        self.games: dict[int, tuple[str, str, tuple[int, ...]]] = {}
        self._where: dict[tuple[int, str], int] = {}  # (player, kind key) -> game number
        # the other nodes' games, as last asked: kind key (None: all) -> (when, the asking)
        self._lists: dict[str | None, tuple[float, asyncio.Task]] = {}
        # offers made on other nodes: (node, offer number) -> the offer
        self.offers: dict[tuple[str, int], Offer] = {}
        # questions to other nodes awaiting answers: key -> (answer, the node asked)
        self._waiting: dict[str, tuple[asyncio.Future, str]] = {}
        self._relays = 0
        # connections per address on each other node (the per-address cap counts them)
        self._addresses: dict[str, Counter[str]] = defaultdict(Counter)
        # the login throttles count every node's failures (server/throttle.py)
        self._throttles = {"throttle": parlor.throttle, "name_throttle": parlor.name_throttle,
                           "logins": parlor.logins, "creations": parlor.creations,
                           "creations_everywhere": parlor.creations_everywhere}
        for name, throttle in self._throttles.items():
            throttle.shared = (lambda op, keys, name=name:
                               self.control("throttle", which=name, change=op,
                                            keys=list(keys)))
        bus.on_heal.append(self._rejoin)

    @property
    def redis(self) -> aioredis.Redis:
        return self.bus.redis

    async def start(self) -> None:
        await self.bus.start()
        await self._beat(fresh=True)
        self._rejoin_due = False  # the first beat: nobody knew this node before
        self.bus.subscribe(CONTROL, self._on_control)
        # A player's own topic ("account:<id>") still goes to every node, as any other:
        # sent only to the node the roster names (``_node_of``), it was lost for a player
        # whose node had been paused past its lease and rejoined
        # (test_a_paused_node_wakes_to_find_its_game_played_on_and_games_lists_it_once).
        # Until the roster is right at once after a rejoin, nothing is personal.
        self.bus.subscribe(NODE + self.node, self._on_node)
        host = self.parlor.host
        host.games.fence = self.fence
        host.games.node = self.node
        host.games.listeners.append(self._game_changed)
        host.offers.listeners.append(self._offer_changed)
        host.other_nodes = self
        host.seeks.new_id = self._new_seek_id
        host.seeks.claim = self._claim_seek
        host.tournaments.lock = ClusterLock(self.redis, PREFIX + "tournaments")
        await self._purge(self.node)  # what a former run of this node left (killed)
        await self._load_roster()
        await self._load_games()
        self._tasks |= {asyncio.create_task(self._heartbeat(), name="cluster-heartbeat"),
                        asyncio.create_task(self._report_active(), name="cluster-active")}
        log.info("cluster: node %s joined through %s", self.node, self.bus.url)

    async def close(self, *, leaving: bool = True) -> None:
        """Stop this node's part of the cluster. ``leaving=False`` (a reload, whose next
        parlor takes the node's name, players and games on within the lease): nothing
        is said to the others."""
        await cancel_and_wait({*self._tasks, *([self._fencing] if self._fencing else [])},
                              CLOSE_WAIT, "cluster tasks")
        if not leaving:
            await self.bus.close()
            return
        mine = [str(s.account.id) for s in self.parlor.sessions.values()]
        try:  # bounded: a stopping node never waits on a Redis that is away
            if mine:
                await asyncio.wait_for(self.redis.hdel(PREFIX + "roster", *mine), CLOSE_WAIT)
            await asyncio.wait_for(self.redis.delete(PREFIX + "node:" + self.node), CLOSE_WAIT)
        except (RedisError, OSError, asyncio.TimeoutError):
            pass
        self.control("node-gone", node=self.node)
        await self.bus.close()

    # -- the roster -------------------------------------------------------------------
    async def _load_roster(self) -> None:
        roster = await self.redis.hgetall(PREFIX + "roster")
        alive = await self._alive_nodes({json.loads(v)["node"] for v in roster.values()})
        for raw in roster.values():
            entry = json.loads(raw)
            known = self.parlor.remote.get(int(entry["id"]))
            if known is not None and known.node == entry["node"]:
                continue  # known already (read again after Redis or this node was away)
            if entry["node"] != self.node and entry["node"] in alive:
                self.parlor.remote_join(self._remote(entry), float(entry.get("since", 0.0)))

    async def _alive_nodes(self, nodes: set[str]) -> set[str]:
        nodes = sorted(nodes)
        if not nodes:
            return set()
        found = await self.redis.mget([PREFIX + "node:" + n for n in nodes])
        return {n for n, beat in zip(nodes, found) if beat is not None}

    def _remote(self, entry: dict[str, Any]) -> RemotePlayer:
        # rooms and nodes are few: one string each, not one per player (every node keeps
        # every other node's players)
        return RemotePlayer(int(entry["id"]), entry["name"], sys.intern(str(entry["room"])),
                            sys.intern(str(entry["node"])),
                            bool(entry.get("admin")), float(entry.get("active", 0.0)), self)

    def joined(self, session: "Session") -> None:
        entry = _entry(session, self.node)
        self.control("join", entry=entry)
        self._background(self.redis.hset(PREFIX + "roster", str(entry["id"]),
                                         json.dumps(entry)))

    def moved(self, session: "Session") -> None:
        entry = _entry(session, self.node)
        self.control("move", entry=entry)
        self._background(self.redis.hset(PREFIX + "roster", str(entry["id"]),
                                         json.dumps(entry)))

    def left(self, session: "Session") -> None:
        account_id = session.account.id
        self.control("leave", account_id=account_id, node=self.node)
        self._background(self._forget(account_id))

    async def _forget(self, account_id: int) -> None:
        """Take a player who left this node out of the roster, unless another node's
        login has written them in since."""
        raw = await self.redis.hget(PREFIX + "roster", str(account_id))
        if raw is not None and json.loads(raw)["node"] == self.node:
            await self.redis.hdel(PREFIX + "roster", str(account_id))

    async def _rejoin(self) -> None:
        """After Redis came back (which may have lost everything), or after this node was
        paused past its lease: this node's heartbeat, the games it still drives (the
        store says which, ``fence``), and its players, into Redis again."""
        self._judge_after = time.monotonic() + self.lease
        await self._beat()
        self._rejoin_due = False  # done now
        await self.fence()
        await self._load_roster()  # a newer login on another node takes over one here
        for game in list(self.parlor.host.live.values()):
            self._game_changed(game, True)
        for session in list(self.parlor.sessions.values()):
            entry = _entry(session, self.node)
            await self.redis.hset(PREFIX + "roster", str(entry["id"]), json.dumps(entry))
            self.control("join", entry=entry)

    # -- control ----------------------------------------------------------------------
    def control(self, op: str, **data: Any) -> None:
        self.bus.publish(CONTROL, Event(op, {"node": self.node, **data}))

    def _on_control(self, _topic: str, event: Event) -> None:
        data = event.data
        if data.get("node") == self.node and event.kind in ("join", "move", "leave",
                                                            "active", "node-gone", "game",
                                                            "throttle", "conn",
                                                            "offer"):
            return  # our own roster news: already known here
        parlor = self.parlor
        if event.kind in ("join", "move"):
            remote = self._remote(data["entry"])
            if event.kind == "join":
                parlor.remote_join(remote, float(data["entry"].get("since", 0.0)))
            else:
                parlor.remote_move(remote)
        elif event.kind == "leave":
            parlor.remote_leave(int(data["account_id"]), data["node"])
        elif event.kind == "active":
            parlor.remote_active(data["node"], {int(k): v for k, v in data["times"].items()})
        elif event.kind == "node-gone":
            self._node_dead(data["node"])
        elif event.kind == "close":
            session = parlor.sessions.get(int(data["account_id"]))
            if session is not None:
                session.close(data.get("message") or None)
        elif event.kind == "throttle":
            throttle = self._throttles.get(data.get("which"))
            op = {"fail": "failed_elsewhere", "succeed": "succeeded_elsewhere",
                  "add": "added_elsewhere"}.get(data.get("change"))
            if throttle is not None and op is not None and hasattr(throttle, op):
                getattr(throttle, op)(*map(str, data["keys"]))
        elif event.kind == "conn":
            counts = self._addresses[data["node"]]
            counts[data["address"]] += int(data["delta"])
            if counts[data["address"]] <= 0:
                del counts[data["address"]]
        elif event.kind == "game":
            if data.get("entry") is None:
                known = self.games.get(int(data["number"]))
                if known is not None and known[0] in (data["node"], ""):
                    self._forget_game(int(data["number"]))
            else:
                self._remember(int(data["number"]), data["entry"])
        elif event.kind == "offer":
            self._offer_elsewhere(data)
        elif event.kind == "reload":  # a rolling reload reached this node
            if data.get("only") == self.node:
                parlor.request_reload()
        elif event.kind == "shutdown":  # a node stopping alone hands its games over
            if data.get("only") in (None, self.node):
                parlor.request_shutdown(data["message"], everywhere=False,
                                        hand_over=data.get("only") is not None)

    def _background(self, coro: Any) -> None:
        async def run() -> None:
            try:
                await coro
            except (RedisError, OSError) as err:
                log.debug("cluster: roster write failed (%s); healed when Redis is back", err)
        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- caps and throttles across nodes ---------------------------------------------
    def connection(self, address: str, delta: int) -> None:
        """A connection from ``address`` opened (+1) or closed (-1) here."""
        self.control("conn", address=address, delta=delta)

    def connections_from(self, address: str) -> int:
        """Open connections from ``address`` on the other nodes."""
        return sum(counts.get(address, 0) for counts in self._addresses.values())

    # -- games across nodes -----------------------------------------------------------
    async def _load_games(self) -> None:
        table = await self.redis.hgetall(PREFIX + "games")
        entries = {int(k): json.loads(v) for k, v in table.items()}
        alive = await self._alive_nodes({e["node"] for e in entries.values()})
        for number, entry in entries.items():
            if entry["node"] in alive and entry["node"] != self.node:
                self._remember(number, entry)

    def _remember(self, number: int, entry: dict[str, Any]) -> None:
        self._forget_game(number)
        players = tuple(int(p) for p in entry["players"])
        self.games[number] = (entry["node"], entry["kind"], players)
        for player in players:
            self._where[(player, entry["kind"])] = number

    def _forget_game(self, number: int) -> None:
        known = self.games.pop(number, None)
        if known is not None:
            for player in known[2]:
                if self._where.get((player, known[1])) == number:
                    del self._where[(player, known[1])]

    async def take(self, number: int, owner: str) -> bool:
        """Whether this node is to drive game ``number``, stored as driven by ``owner``
        (at start, or when its node died): it is, when it is its owner, or when no live
        node is and this node wins the race for it. The adoption itself is the store's
        (``GameHost._adopt``: the game's epoch rises), so a node that loses the race in
        Redis loses it there too."""
        if owner == self.node:
            return True
        if owner and await self._alive_nodes({owner}):
            return False
        return bool(await self.redis.set(PREFIX + f"adopt:{number}", self.node, nx=True,
                                         px=int(self.lease * 1000)))

    def _entry_of(self, game: Any) -> dict[str, Any]:
        """Game ``game``'s entry in the games table: driven here, of its kind, by whom."""
        players = [s.account_id for s in game.seats if s.computer is None and not s.left]
        return {"node": self.node, "kind": game.kind.key, "players": players}

    def _game_changed(self, game: Any, here: bool) -> None:
        entry = self._entry_of(game)
        self.control("game", number=game.id, entry=entry if here else None)
        if here:
            self._background(self.redis.hset(PREFIX + "games", str(game.id), json.dumps(entry)))
        else:
            self._background(self._release(game.id))

    async def _release(self, number: int) -> None:
        """Game ``number`` is no longer driven here: out of the games table, unless
        another node has taken it since."""
        raw = await self.redis.hget(PREFIX + "games", str(number))
        if raw is not None and json.loads(raw)["node"] == self.node:
            await self.redis.hdel(PREFIX + "games", str(number))

    def _node_dead(self, node: str) -> None:
        """``node`` stopped or its lease lapsed: its players go with it, what it was asked
        is never answered, its offers lapse, and its games are taken over (each by one
        node). Until then a command about one of them waits (``relay``)."""
        self.parlor.remote_node_gone(node)
        self._node_lost(node)
        self._addresses.pop(node, None)
        self._offers_gone(node)
        for number, (owner, kind, players) in list(self.games.items()):
            if owner == node:
                self.games[number] = ("", kind, players)  # being taken over
        self._background(self._adopt(node))

    async def _adopt(self, node: str) -> None:
        """A node died: take over the games it drove (each by one node only: the one that
        wins the race in Redis, then in the store), and learn who took the others."""
        host = self.parlor.host
        table = await self.redis.hgetall(PREFIX + "games")
        orphans = {n for n, (owner, _k, _p) in self.games.items() if owner in ("", node)}
        orphans |= {int(k) for k, v in table.items() if json.loads(v)["node"] == node}
        for number in sorted(orphans):
            known = self.games.get(number)
            if number in host.live or known is not None and known[0] not in ("", node):
                continue  # its new node has told us already
            if await host.restore(self.take, only=number):  # the store says who drove it
                self._forget_game(number)  # driven here now
                log.warning("cluster: node %s is gone; this node drives game #%d now",
                            node, number)
            else:
                await self._lookup(number)

    async def _lookup(self, number: int) -> None:
        """Learn from the games table which live node drives game ``number`` now."""
        raw = await self.redis.hget(PREFIX + "games", str(number))
        if raw is None:
            return
        entry = json.loads(raw)
        if entry["node"] != self.node and await self._alive_nodes({entry["node"]}):
            self._remember(number, entry)

    # -- a node that stops hands its games over ----------------------------------------
    async def drain(self) -> bool:
        """This node is stopping: hand each game it drives to another live node (the one
        driving fewest), and return once each is taken (each within
        ``HAND_OVER_TIMEOUT``, all within ``DRAIN_TIMEOUT``), so that no command about
        it waits for this node's lease to lapse. False when no other node takes games
        (nor Redis answers in time): then this node's games go to whichever node notices
        it gone, as after a kill."""
        try:
            return await asyncio.wait_for(self._drain(), DRAIN_TIMEOUT)
        except (asyncio.TimeoutError, RedisError, OSError) as err:
            log.warning("cluster: this node's games are not all handed over (%r)", err)
            return False

    async def _drain(self) -> bool:
        host = self.parlor.host
        handed: set[int] = set()
        await self._beat()  # marked draining: no node hands its games here now
        takers = await self._takers()
        while takers and (games := sorted((g for g in host.live.values()
                                           if g.id not in handed), key=lambda g: g.id)):
            table = await self.redis.hgetall(PREFIX + "games")
            load = Counter(json.loads(v)["node"] for v in table.values())
            handing = []
            for game in games:  # games started meanwhile go in the next pass
                node = min(takers, key=lambda n: (load[n], n))
                load[node] += 1
                handed.add(game.id)
                handing.append(self._hand_over(game, node))
            await asyncio.gather(*handing)
        return bool(takers)

    async def _takers(self) -> list[str]:
        """The other live nodes, but those draining (stopping) themselves."""
        prefix = PREFIX + "node:"
        keys = sorted([k async for k in self.redis.scan_iter(match=prefix + "*")])
        beats = await self.redis.mget(keys) if keys else []
        return [k[len(prefix):] for k, beat in zip(keys, beats)
                if beat is not None and k != prefix + self.node
                and not json.loads(beat).get("draining")]

    async def _hand_over(self, game: Any, node: str) -> None:
        """Hand ``game`` to ``node``: under the game's lock nothing is played on it here
        (and all it was is stored) while ``node`` takes it from the store; once it has,
        this node lets it go. Untaken, it stays here."""
        host = self.parlor.host
        async with game.lock:
            if host.live.get(game.id) is not game:
                return  # over meanwhile
            answer = await self._question(node, "adopt", HAND_OVER_TIMEOUT, {"game": game.id})
            if answer is None or answer.get("entry") is None:
                log.warning("cluster: node %s did not take game #%d", node, game.id)
                return
            self._remember(game.id, answer["entry"])  # this node's players' commands go there
            host.games.drop(game)  # let go, not finished (its ``outcome`` is None)
        log.info("cluster: game #%d handed to node %s", game.id, node)

    async def _take_over(self, data: dict[str, Any]) -> None:
        """A stopping node hands game ``data["game"]`` here: drive it from the store (its
        clock and computer turns go on here), then answer with its games-table entry
        (None: not taken)."""
        host = self.parlor.host
        entry = None
        try:
            number = int(data["game"])
            if not self.parlor.draining:
                self._forget_game(number)
                await host.restore(only=number)
            game = host.live.get(number)
            if game is not None:
                entry = self._entry_of(game)
                await self.redis.hset(PREFIX + "games", str(number), json.dumps(entry))
        except (RedisError, OSError):
            pass  # taken all the same: the games table has it again when Redis heals
        except Exception:
            log.exception("cluster: game %r handed here could not be taken", data.get("game"))
        self._answer(data, entry=entry)

    def owner_for(self, account_id: int, kind_key: str) -> str | None:
        """The node driving ``account_id``'s game of that kind, when another node does."""
        number = self._where.get((account_id, kind_key))
        return self.games[number][0] if number is not None else None

    def route(self, session: "Session", line: str) -> str | None:
        """The node a typed line must run on, when it is not this one: a game's command
        goes to the node driving the player's game of that kind, and an answer to a
        challenge to the node of the player who made it."""
        word, _, rest = line.partition(" ")
        host = self.parlor.host
        kind = host.kind_named(word)
        sub, _, more = rest.strip().partition(" ")
        account_id = session.account.id
        if kind is not None:
            if host.game_of(account_id, kind.key) is not None:
                return None
            owner = self.owner_for(account_id, kind.key)
            if owner is not None:
                return owner
            if sub.lower() in ("accept", "decline") and more:
                return self._node_of_player(more.split()[0])
            if sub.lower() == "accept":
                return self._offered_from(account_id, kind.key)
            for word in more.split()[:1]:  # a game of that kind named by number (TRIAD
                known = self.games.get(int(word.lstrip("#"))) \
                    if word.lstrip("#").isdecimal() and len(word) < 12 else None
                if known is not None and known[1] == kind.key:  # JOIN 7, DICE DISPLAY 7)
                    return known[0]
            return None
        if word.lower() in ("turn", "last", "claim"):
            return self._node_of_own(session, sub)
        if word.lower() in ("accept", "decline") and rest:
            return self._node_of_player(sub)
        if word.lower() == "accept":
            return self._offered_from(account_id, None)
        if word.lower() in ("observe", "watch", "resume", "adjourn") \
                and sub.lstrip("#").isdecimal() and len(sub) < 12:
            known = self.games.get(int(sub.lstrip("#")))
            return known[0] if known is not None else None
        if word.lower() == "adjourn":
            return self._node_of_own(session, "")
        return None

    def _node_of_own(self, session: "Session", word: str) -> str | None:
        """Where TURN, LAST and CLAIM run: with a game named (``word``), on the node
        driving the player's game of it; without, on the one other node driving every
        game they play and watch, if none is driven here."""
        host = self.parlor.host
        account_id = session.account.id
        kind = host.kind_named(word) if word else None
        if kind is not None:
            return None if host.game_of(account_id, kind.key) is not None else \
                self.owner_for(account_id, kind.key)
        if host.games_of(account_id) or any(n in host.live for n in session.watching):
            return None
        nodes = {self.games[n][0] for key in host.kinds
                 if (n := self._where.get((account_id, key))) is not None}
        nodes |= {self.games[n][0] for n in session.watching if n in self.games}
        return nodes.pop() if len(nodes) == 1 else None

    def _offered_from(self, account_id: int, kind_key: str | None) -> str | None:
        """A bare ACCEPT: the node of the one offer to ``account_id``, when it was made
        on another node (several offers: ACCEPT runs here and asks which)."""
        here, _ = self.parlor.host.offers.pending(account_id)
        there = {node for (node, _n), o in self.offers.items()
                 if o.target.account_id == account_id
                 and (kind_key is None or o.kind.key == kind_key)}
        if any(kind_key is None or o.kind.key == kind_key for o in here) or len(there) != 1:
            return None
        return there.pop()

    def _node_of_player(self, name: str) -> str | None:
        """The other node the player called ``name`` is on (None: here, or nobody)."""
        player = self.parlor.session_named(name)
        node = getattr(player, "node", None)
        return node if isinstance(node, str) and node != self.node else None

    async def relay(self, node: str, session: "Session", line: str) -> None:
        """Run ``line`` on ``node`` for ``session``, and show here what it wrote. When
        that node dies meanwhile, or no longer drives the game (it was paused, and the
        game adopted), or the game is being taken over (``node`` is ""), the line waits
        for the node that drives it next (or this one) and runs there: the game refuses
        it if it was played already."""
        session.begin_reply()
        try:
            number = self._game_for(session, line)
            for _attempt in range(3):
                if node:
                    answer = await self._ask(node, session, line, number)
                    if answer is not None and not answer.get("moved"):
                        apply_relayed(session, answer["out"], answer["view"])
                        return
                deadline = time.monotonic() + self.lease * 2 + 1
                while time.monotonic() < deadline:  # until another node drives it
                    await asyncio.sleep(0.2)
                    if number is not None:
                        await self._lookup(number)
                    moved = self.route(session, line)
                    if moved is None or moved and moved != node:
                        break  # here (or nowhere: then here says so), or its new node
                else:
                    break
                if moved is None:
                    await self.parlor.registry.dispatch(session, line)
                    return
                node = moved
            session.write("That game's server did not answer in time; try again in a "
                          "moment.")
        finally:
            session.end_reply()

    def _game_for(self, session: "Session", line: str) -> int | None:
        """The number of the player's own game ``line`` is routed for, if it is one."""
        kind = self.parlor.host.kind_named(line.partition(" ")[0])
        return None if kind is None else self._where.get((session.account.id, kind.key))

    async def _ask(self, node: str, session: "Session", line: str,
                   number: int | None) -> dict | None:
        """The answer of ``node`` to ``line``; None when the node is gone first."""
        return await self._question(node, "run", RELAY_TIMEOUT, {
            "account": session.account.id, "line": line, "view": session_view(session),
            "game": number})

    async def _question(self, node: str, kind: str, timeout: float,
                        data: dict[str, Any]) -> dict | None:
        """Ask ``node`` something (an event ``kind`` on its own topic) and wait for its
        answer; None when it does not come in ``timeout`` seconds or the node is gone."""
        self._relays += 1
        key = f"{self.node}:{self._relays}"
        future = asyncio.get_running_loop().create_future()
        self._waiting[key] = (future, node)
        self.bus.publish(NODE + node, Event(kind, {"key": key, "from": self.node, **data}))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            self._waiting.pop(key, None)

    def _answer(self, data: dict[str, Any], **answer: Any) -> None:
        self.bus.publish(NODE + data["from"], Event("answer", {"key": data["key"],
                                                                  **answer}))

    def _node_lost(self, node: str) -> None:
        """``node`` is gone: what it was asked will never be answered."""
        for future, asked in list(self._waiting.values()):
            if asked == node and not future.done():
                future.set_result(None)

    def _on_node(self, _topic: str, event: Event) -> None:
        data = event.data
        if event.kind == "run":
            task = asyncio.create_task(self._run(data))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif event.kind == "adopt":
            self._background(self._take_over(data))
        elif event.kind == "frames":
            self._answer(data, frames=self._frames_here(data.get("kind")))
        elif event.kind == "frame":
            game = self.parlor.host.live.get(int(data["game"]))
            self._answer(data, frame=None if game is None else {
                **game.frame(None), "watchers": self.parlor.host.watchers(game.id)})
        elif event.kind == "answer":
            future, _node = self._waiting.get(data.get("key"), (None, None))
            if future is not None and not future.done():
                future.set_result(data)

    async def _run(self, data: dict[str, Any]) -> None:
        """A command relayed here from another node: run it for a stand-in session. About
        a game this node does not drive (any more), it answers ``moved``: the asking node
        finds the node that does. The asking node always gets an answer: if this fails,
        one line saying so."""
        await self.fence()
        number = data.get("game")
        if number is not None and int(number) not in self.parlor.host.live:
            self._answer(data, moved=True)
            return
        out: list[list[Any]] = []
        view = data.get("view", {})
        try:
            account = await self.parlor.accounts.get_by_id(int(data["account"]))
            if account is not None:
                stand_in = RelayedSession(self.parlor, account, view)
                await self.parlor.registry.dispatch(stand_in, data["line"])
                out = stand_in.out
                view = session_view(stand_in)  # type: ignore[arg-type]
        except Exception as err:  # noqa: BLE001
            log.exception("relayed command %r failed", str(data.get("line"))[:200])
            out = [["text", LOST if connection_lost(err) else
                    "Sorry, something went wrong with that command; it has been logged."]]
        self._answer(data, out=out, view=view)

    # -- what players here ask of the other nodes (``GameHost.other_nodes``) -------------
    def _frames_here(self, kind_key: str | None) -> list[dict[str, Any]]:
        host = self.parlor.host
        return [{**g.frame(None, with_view=False), "watchers": host.watchers(g.id)}
                for g in host.live.values() if kind_key is None or g.kind.key == kind_key]

    async def frames(self, kind_key: str | None) -> list[dict[str, Any]]:
        """The games the other nodes drive (GAMES, the web's lists), asked of each: once
        for every GAMES typed at the same time, and again after ``LIST_FRESH`` seconds
        (a crowd typing GAMES costs the other nodes one question a second)."""
        now = time.monotonic()
        asked = self._lists.get(kind_key)
        if asked is None or now - asked[0] > LIST_FRESH or \
                asked[1].done() and asked[1].exception() is not None:
            asked = (now, asyncio.create_task(self._ask_frames(kind_key)))
            self._lists[kind_key] = asked
        return await asyncio.shield(asked[1])

    async def _ask_frames(self, kind_key: str | None) -> list[dict[str, Any]]:
        nodes = sorted({node for node, kind, _p in self.games.values()
                        if node and (kind_key is None or kind == kind_key)})
        answers = await asyncio.gather(*(self._question(n, "frames", ASK_TIMEOUT,
                                                        {"kind": kind_key}) for n in nodes))
        return [f for answer in answers if answer for f in answer["frames"]]

    async def frame(self, game_id: int) -> dict[str, Any] | None:
        """A game another node drives, as its watchers see it (a web page's board)."""
        known = self.games.get(game_id)
        if known is None:
            if await self.parlor.host.epochs([game_id]):  # in play, its node just died
                raise GameUnreachable(game_id)
            return None
        answer = None
        if known[0]:
            answer = await self._question(known[0], "frame", ASK_TIMEOUT, {"game": game_id})
        if answer is None or answer["frame"] is None:
            raise GameUnreachable(game_id)  # dead, paused, or being taken over
        return answer["frame"]

    def offers_to(self, account_id: int) -> list[Offer]:
        return [o for o in self.offers.values() if o.target.account_id == account_id]

    def _offer_changed(self, offer: Offer, made: bool) -> None:
        """An offer made or gone here: the other nodes mirror it (PENDING, ACCEPT)."""
        self.control("offer", id=offer.id, made=made, kind=offer.kind.key,
                     challenger=offer.challenger.to_json(), target=offer.target.to_json(),
                     options=offer.options, created=offer.created,
                     rematch_of=offer.rematch_of, swapped=offer.swapped)

    def _offer_elsewhere(self, data: dict[str, Any]) -> None:
        key = (data["node"], int(data["id"]))
        kind = self.parlor.host.kinds.get(data["kind"])
        if not data["made"] or kind is None:
            self.offers.pop(key, None)
            return
        self.offers[key] = Offer(key[1], kind, Seat.from_json(data["challenger"]),
                                 Seat.from_json(data["target"]), data["options"],
                                 float(data["created"]), data["rematch_of"], data["swapped"])

    def _offers_gone(self, node: str) -> None:
        for key in [k for k in self.offers if k[0] == node]:
            del self.offers[key]

    async def _new_seek_id(self) -> int:
        """A seek's number, the same on every node."""
        return int(await self.redis.incr(PREFIX + "seek-ids"))

    async def _claim_seek(self, number: int) -> bool:
        """Whether this node is the one to take seek ``number`` (two nodes may try at once)."""
        return bool(await self.redis.set(PREFIX + f"seek-taken:{number}", self.node, nx=True,
                                         ex=3600))

    # -- liveness ---------------------------------------------------------------------
    async def _beat(self, fresh: bool = False) -> None:
        """Write this node's heartbeat key (it lives ``lease`` seconds). It renews this
        node's lease only while the lease runs (or when ``fresh``: at start, and once
        ``fence`` has found which games are still this node's)."""
        sent = time.monotonic()
        await self.redis.set(PREFIX + "node:" + self.node,
                             json.dumps({"at": time.time(), "players": len(self.parlor.sessions),
                                         "draining": self.parlor.draining,
                                         "pid": os.getpid()}),
                             px=int(self.lease * 1000))
        if sent - self._beaten_at >= self.lease:
            self._rejoin_due = True  # the key had expired: the others dropped this node
        self._beaten_at = sent
        if fresh or sent < self._lease_until:
            self._lease_until = sent + self.lease * LEASE_SHARE

    def holds_lease(self) -> bool:
        """Whether this node's lease runs: no other node may have taken its games."""
        return time.monotonic() < self._lease_until

    async def fence(self) -> None:
        """Awaited before this node acts on a game it holds (``LiveGames.fence``). While
        the lease runs, nothing to do. Once it has lapsed (this node was paused, or cut
        off from Redis, for longer than ``lease``), the store says which games another
        node adopted meanwhile (their epoch rose): those are let go, unapplied and
        unpublished, and this node relays their commands like any other node; the rest
        are still its own, and the lease starts again."""
        if self.holds_lease():
            return
        if self._fencing is None or self._fencing.done():
            self._fencing = asyncio.create_task(self._refence(), name="cluster-fence")
        try:
            await asyncio.shield(self._fencing)
        except Exception as err:  # the store is away: asked again at the next action;
            # meanwhile no write of a game lost here can be stored (its epoch)
            log.warning("cluster: could not check this node's games after its lease "
                        "lapsed (%r)", err)

    async def _refence(self) -> None:
        host = self.parlor.host
        sent = time.monotonic()
        try:
            await asyncio.wait_for(self._beat(), CLOSE_WAIT)
            renewed = True
        except (RedisError, OSError, asyncio.TimeoutError):
            renewed = False  # Redis is away: no node can adopt a game meanwhile either
        held = list(host.live.values())
        stored = await host.epochs([g.id for g in held]) if held else {}
        lost = [g for g in held if stored.get(g.id) != g.epoch and host.games.holds(g)]
        for game in lost:
            log.warning("cluster: this node's lease had lapsed; game #%d is driven by "
                        "another node now, and let go here", game.id)
            host.games.drop(game)
        # the store vouches for the rest now; without Redis, again at the next beat
        self._lease_until = (sent + self.lease * LEASE_SHARE if renewed
                             else time.monotonic() + self.heartbeat)
        for game in lost:  # their players' commands go to the node driving them now
            try:
                await asyncio.wait_for(self._lookup(game.id), CLOSE_WAIT)
            except (RedisError, OSError, asyncio.TimeoutError):
                break  # the games table is read again at every beat

    async def _heartbeat(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(self.heartbeat)
            beats += 1
            try:
                lapsed = not self.holds_lease()
                await self._beat()
                if lapsed:  # paused past the lease, or Redis was away that long
                    await self.fence()
                if self._rejoin_due:
                    self._rejoin_due = False
                    await self._rejoin()
                    continue
                nodes = self.parlor.remote_nodes() | {g[0] for g in self.games.values()
                                                      if g[0]}
                if nodes and time.monotonic() >= self._judge_after:
                    alive = await self._alive_nodes(nodes)
                    for gone in nodes - alive:
                        log.warning("cluster: node %s is gone; its players with it", gone)
                        self._node_dead(gone)
                        self._background(self._purge(gone))
                await self._reconcile(sweep=beats % SWEEP_EVERY == 0)
            except (RedisError, OSError):
                pass  # the bus says Redis is away, and heals
            except Exception:
                log.exception("cluster: heartbeat failed; trying again at the next beat")

    async def _reconcile(self, sweep: bool) -> None:
        """Make the games table and this node's mirror of it agree with what is driven
        where, once a beat: every game driven here is in the table under this node (Redis
        may have lost it, restarted empty); a game another live node says it drives
        either is not this node's any more (its epoch rose: let go here) or is (the table
        is written again); the other nodes' games are mirrored as the table has them.
        With ``sweep`` (every few beats), a game in play in the store that no live node
        drives (its adopter died too, or the adoption was lost) is adopted."""
        host = self.parlor.host
        table = {int(k): json.loads(v)
                 for k, v in (await self.redis.hgetall(PREFIX + "games")).items()}
        alive = await self._alive_nodes({e["node"] for e in table.values()} - {self.node})
        alive.add(self.node)
        claimed = [g for g in list(host.live.values())
                   if table.get(g.id, {}).get("node") not in (self.node, None)
                   and table[g.id]["node"] in alive]
        stored = await host.epochs([g.id for g in claimed]) if claimed else {}
        for game in list(host.live.values()):
            entry = table.get(game.id)
            if game in claimed and stored.get(game.id) != game.epoch:
                continue  # let go below
            if entry is None or entry["node"] != self.node:
                await self.redis.hset(PREFIX + "games", str(game.id),
                                      json.dumps(self._entry_of(game)))
        for game in claimed:
            if stored.get(game.id) != game.epoch and host.games.holds(game):
                log.warning("cluster: game #%d is driven by node %s now; let go here",
                            game.id, table[game.id]["node"])
                host.games.drop(game)
        for number, entry in table.items():
            if entry["node"] != self.node and entry["node"] in alive \
                    and number not in host.live:
                known = self.games.get(number)
                if known is None or known[0] != entry["node"]:
                    self._remember(number, entry)
        if sweep:
            await self._sweep()

    async def _sweep(self) -> None:
        """Adopt the games in play in the store whose node is not alive (and not this
        one): nothing in play is left undriven, whatever was lost on the way."""
        host = self.parlor.host
        # a game stored in the last lease is left alone: it may be starting on its node
        drivers = await host.drivers(before=time.time() - self.lease)
        nodes = {n for n in drivers.values() if n and n != self.node}
        alive = await self._alive_nodes(nodes)
        for number, owner in sorted(drivers.items()):
            if number in host.live or owner in alive:
                continue
            if await host.restore(self.take, only=number):  # ours (yet not here), or undriven
                self._forget_game(number)
                log.warning("cluster: game #%d was driven by no live node; this node "
                            "drives it now", number)

    async def _purge(self, node: str) -> None:
        """Take a dead node's players out of the roster, and its games out of the games
        table (any node may: it is idempotent; a game taken over names its new node)."""
        for table in ("roster", "games"):
            entries = await self.redis.hgetall(PREFIX + table)
            dead = [k for k, v in entries.items() if json.loads(v)["node"] == node]
            if dead:
                await self.redis.hdel(PREFIX + table, *dead)

    async def _report_active(self) -> None:
        """Tell the other nodes when this node's players last typed a command (WHO's
        idle column), every ``ACTIVE_EVERY`` seconds, only for those who typed one since
        the last report (nothing is kept per player for it)."""
        while True:
            await asyncio.sleep(ACTIVE_EVERY)
            since, self._reported_at = self._reported_at, time.time()
            times = {str(account_id): session.last_command_at
                     for account_id, session in list(self.parlor.sessions.items())
                     if session.last_command_at >= since}
            if times:
                self.control("active", times=times)


async def reload_nodes(redis_url: str, *, wait: float = 120.0,
                       say: Any = print) -> int:
    """``esterport reload --rolling``: reload every node of the cluster, one after
    another, each once the one before is back (its heartbeat comes from a new parlor).
    Each node must be held (``serve --hold``): its holder keeps its connections, so no
    player anywhere is disconnected. 0 when every node reloaded, else 1."""
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True,
                                    socket_connect_timeout=3)
    try:
        names = sorted([key[len(PREFIX + "node:"):]
                        async for key in redis.scan_iter(PREFIX + "node:*")])
        if not names:
            say("esterport: no node of the cluster is running")
            return 1
        for name in names:
            beat = await redis.get(PREFIX + "node:" + name)
            before = json.loads(beat).get("pid") if beat else None
            body = {"n": "esterport-reload", "k": "reload", "t": CONTROL,
                    "d": {"node": "esterport-reload", "only": name}}
            await redis.publish(PREFIX + NODE + name, json.dumps(body))
            deadline = time.monotonic() + wait
            while True:
                await asyncio.sleep(0.2)
                beat = await redis.get(PREFIX + "node:" + name)
                now = json.loads(beat) if beat else {}
                if now.get("pid") not in (None, before) and not now.get("draining"):
                    say(f"node {name}: reloaded")
                    break
                if time.monotonic() > deadline:
                    say(f"esterport: node {name} did not reload within {wait:.0f} s (is it "
                        "running with --hold?); the nodes after it were left as they are")
                    return 1
        return 0
    finally:
        await redis.aclose()
