"""The bus (``server/bus.py``) across a cluster's nodes, on Redis pub/sub.

An event is delivered to this node's subscribers at once, as the in-process bus does,
and published on the Redis channel of its topic (``esterport:<topic>``) for the other
nodes; a node subscribes in Redis to exactly the topics its own sessions follow. A topic
may be made *personal* (``personal``): its events then go on the channel of one node
(``esterport:node:<name>``) rather than a channel of their own; the cluster makes none
personal at present (``server/cluster/node.py`` says why). Events are plain data
already (JSON), so a consumer on another node draws what it shows from the event alone. When Redis goes away the bus says so once
in the log, keeps delivering here, and when Redis is back subscribes again and runs
``on_heal`` (``server/cluster/`` writes this node into Redis again).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from typing import Any, Callable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.bus import Event, LocalBus, Subscriber
from server.tasks import cancel_and_wait

log = logging.getLogger(__name__)

PREFIX = "esterport:"
MAX_BACKLOG = 10_000  # events kept for Redis while it is away (the oldest go first)
CONTROL = "cluster"   # the topic of roster changes and control (always followed)
NODE = "node:"        # + a node's name: the topic of what is for that node (followed there)
CLOSE_WAIT = 2.0  # seconds each last word to Redis may take when the node stops
# Redis connections a node holds at most. A burst of writes (thousands of players
# leaving at once) waits for one of them, up to POOL_WAIT seconds, rather than failing
# as redis-py's default pool does past 100, which looked like Redis lost.
POOL_SIZE = 32
POOL_WAIT = 20.0


class RedisBus:
    """The bus of a cluster node (see the module's docstring)."""

    def __init__(self, url: str, node: str) -> None:
        self.url = url
        self.node = node
        self._local = LocalBus()
        self._redis: aioredis.Redis | None = None
        self._pubsub: Any = None
        self._out: deque[tuple[str, str]] = deque(maxlen=MAX_BACKLOG)
        self._wake = asyncio.Event()
        self._changes: dict[str, bool] = {}  # topic -> subscribe (True) or not, to send
        self._tasks: list[asyncio.Task] = []
        self.connected = False
        self.heals = 0  # how often Redis came back after a loss (``server/bus.py``)
        self.closing = False
        self.on_heal: list[Callable[[], Any]] = []  # run when Redis is back after a loss
        # Which node follows a *personal* topic (a player's own, "account:42"): its
        # events travel on that node's channel ("node:<name>"), not a channel of their
        # own, so no node subscribes in Redis per player. The node's name, "" when no
        # other node is known to follow it, None for a topic that is not personal.
        self.personal: Callable[[str], str | None] = lambda topic: None

    # -- the Bus protocol -------------------------------------------------------------
    def subscribe(self, topic: str, fn: Subscriber) -> None:
        first = not self._local.subscribers(topic)
        self._local.subscribe(topic, fn)
        if first and self.personal(topic) is None:
            self._changes[topic] = True
            self._wake.set()

    def unsubscribe(self, topic: str, fn: Subscriber) -> None:
        had = self._local.subscribers(topic)
        self._local.unsubscribe(topic, fn)
        if had and not self._local.subscribers(topic) and self.personal(topic) is None:
            self._changes[topic] = False
            self._wake.set()

    def publish(self, topic: str, event: Event) -> None:
        """Deliver to this node's subscribers now; queue for the other nodes (a personal
        topic's event only for the node its player is on)."""
        where = self.personal(topic)
        body = {"n": self.node, "k": event.type, "d": event.data}
        if where:
            body["t"] = topic
        payload = json.dumps(body)
        self._deliver(topic, event.type, json.loads(payload)["d"])
        if where is None:
            self._out.append((topic, payload))
        elif where and where != self.node:
            self._out.append((NODE + where, payload))
        else:
            return  # here, or nowhere else: delivered already
        self._wake.set()

    def subscribers(self, topic: str) -> int:
        """Subscribers on this node."""
        return self._local.subscribers(topic)

    def wanted(self, topic: str) -> bool:
        """Another node may have subscribers: every event goes out."""
        return True

    # -- running ----------------------------------------------------------------------
    def _topics(self) -> list[str]:
        """The topics followed here through Redis channels of their own."""
        return [t for t in self._local._subs  # noqa: SLF001
                if self.personal(t) is None]

    @property
    def redis(self) -> aioredis.Redis:
        assert self._redis is not None, "start() the bus first"
        return self._redis

    async def start(self) -> None:
        """Connect (failing loudly if Redis is not there at start: a node that cannot
        reach the cluster's Redis would be a parlor of its own)."""
        self._redis = aioredis.Redis.from_pool(aioredis.BlockingConnectionPool.from_url(
            self.url, decode_responses=True, health_check_interval=10,
            socket_connect_timeout=3, max_connections=POOL_SIZE, timeout=POOL_WAIT))
        await self._redis.ping()
        await self._connect_pubsub()
        self.connected = True
        self._tasks = [asyncio.create_task(self._writer(), name="bus-writer"),
                       asyncio.create_task(self._reader(), name="bus-reader")]

    async def _connect_pubsub(self) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._changes.clear()
        await self._pubsub.subscribe(*(PREFIX + t for t in
                                       {CONTROL, NODE + self.node, *self._topics()}))

    async def close(self) -> None:
        self.closing = True  # the loops end (redis-py may turn a cancellation into an
        self._wake.set()     # error of its own, which they would take for Redis away)
        await cancel_and_wait(self._tasks, CLOSE_WAIT, "bus tasks")
        self._tasks = []
        # each last word to Redis is bounded: a node that stops never waits on a Redis
        # that is restarting or gone (seen: a pub/sub connection that never answered)
        for step in (self._flush, getattr(self._pubsub, "aclose", None),
                     getattr(self._redis, "aclose", None)):
            if step is None:
                continue
            try:
                await asyncio.wait_for(step(), CLOSE_WAIT)
            except (RedisError, OSError, AttributeError, asyncio.TimeoutError):
                pass

    def _deliver(self, topic: str, event_type: str, data: dict) -> None:
        self._local.deliver(topic, Event(event_type, data))

    async def _flush(self) -> None:
        """Send the subscription changes, then the events queued, in one round trip."""
        if self._changes:
            changes, self._changes = self._changes, {}
            add = [PREFIX + t for t, on in changes.items() if on]
            drop = [PREFIX + t for t, on in changes.items() if not on]
            try:
                if add:
                    await self._pubsub.subscribe(*add)
                if drop:
                    await self._pubsub.unsubscribe(*drop)
            except BaseException:
                for t, on in changes.items():
                    self._changes.setdefault(t, on)
                raise
        if self._out:
            batch = [self._out.popleft() for _ in range(min(len(self._out), 1000))]
            pipe = self.redis.pipeline(transaction=False)
            for topic, payload in batch:
                pipe.publish(PREFIX + topic, payload)
            try:
                await pipe.execute()
            except BaseException:
                self._out.extendleft(reversed(batch))
                raise

    async def _writer(self) -> None:
        while not self.closing:
            await self._wake.wait()
            self._wake.clear()
            try:
                while self._changes or self._out:
                    await self._flush()
            except (RedisError, OSError) as err:
                if self.closing:
                    return
                await self._lost(err)

    async def _reader(self) -> None:
        while not self.closing:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (RedisError, OSError, RuntimeError) as err:
                if self.closing:
                    return
                await self._lost(err)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                body = json.loads(message["data"])
                if body.get("n") == self.node:
                    continue  # delivered here when it was published
                self._deliver(body.get("t") or message["channel"][len(PREFIX):],
                              body["k"], body["d"])
            except Exception:  # a malformed message must not stop the bus
                log.exception("bus: bad message on %s", message.get("channel"))

    async def _lost(self, err: BaseException) -> None:
        """Redis is unreachable: say so once, retry until it is back, then heal."""
        if not self.connected:
            await asyncio.sleep(0.5)
            return
        self.connected = False
        log.error("cluster: lost Redis (%s); this node serves its own players until it "
                  "is back", err)
        delay = 0.2
        while not self.closing:
            await asyncio.sleep(delay)
            try:
                await self.redis.ping()
                try:
                    await self._pubsub.aclose()
                except Exception:
                    pass
                await self._connect_pubsub()
                break
            except (RedisError, OSError):
                delay = min(2.0, delay * 2)
        if self.closing:
            return
        self.connected = True
        self.heals += 1
        log.warning("cluster: Redis is back; this node rejoins")
        for heal in self.on_heal:
            try:
                await heal()
            except Exception:
                log.exception("cluster: healing failed")
        self._wake.set()
