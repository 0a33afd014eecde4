"""This node's link to the others, which every part of the cluster uses: the node's
name, the bus (and Redis under it), news told to every node on the ``cluster`` topic,
and writes to Redis made in the background."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.bus import Event
from server.redis_bus import CONTROL, RedisBus

log = logging.getLogger(__name__)


class Link:
    """This node (``node``, its name) on the bus between nodes (``bus``)."""

    def __init__(self, bus: RedisBus, node: str) -> None:
        self.bus = bus
        self.node = node
        self.writes: set[asyncio.Task] = set()  # a burst of leaves makes thousands

    @property
    def redis(self) -> aioredis.Redis:
        return self.bus.redis

    def control(self, op: str, **data: Any) -> None:
        """Tell every node ``op`` on the ``cluster`` topic."""
        self.bus.publish(CONTROL, Event(op, {"node": self.node, **data}))

    def spawn(self, coro: Any) -> None:
        """Run a write to Redis in the background (in ``writes`` until it ends); one that
        fails is made good when Redis is back (``Cluster._rejoin``)."""
        async def run() -> None:
            try:
                await coro
            except (RedisError, OSError) as err:
                log.debug("cluster: write failed (%s); made good when Redis is back", err)
        task = asyncio.create_task(run())
        self.writes.add(task)
        task.add_done_callback(self.writes.discard)
