"""A lock every node of a cluster shares (the tournament director's)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import LockError, RedisError

log = logging.getLogger(__name__)


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
