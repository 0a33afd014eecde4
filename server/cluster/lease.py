"""Leases: this node's (its heartbeat key, and the fence a lapsed one puts before every
game) and the other nodes' (whether one is alive, whether it takes games)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from typing import TYPE_CHECKING, Awaitable, Callable

from redis.exceptions import RedisError

from server.redis_bus import CLOSE_WAIT, PREFIX

if TYPE_CHECKING:
    from server.cluster.link import Link
    from server.cluster.parlor import LocalParlor

log = logging.getLogger(__name__)

LEASE_SHARE = 0.8   # the part of the lease a node counts on (the rest: clocks, latency)
BEAT_KEY = PREFIX + "node:"  # + a node's name: its heartbeat, living ``lease`` seconds


class Lease:
    """A node's heartbeat key lives ``seconds`` and is renewed five times as often
    (``heartbeat``): a node dead for ``seconds`` is seen at the next beat after.

    This node's lease runs until a monotonic time that a beat pushes on only while it
    runs, so a node paused past it (SIGSTOP) finds it lapsed when it wakes, whatever its
    timers do first, and acts on no game before the store says which are still its own
    (:meth:`fence`). Where a game found lost then is driven now is looked up
    (``look_up``: the games table's), for its players' commands."""

    def __init__(self, link: "Link", parlor: "LocalParlor", seconds: float,
                 look_up: Callable[[int], Awaitable[None]]) -> None:
        self.link = link
        self.parlor = parlor
        self.look_up = look_up
        self.seconds = seconds
        self.heartbeat = seconds / 5
        self._until = 0.0
        self.fencing: asyncio.Task | None = None
        self.rejoin_due = False  # it lapsed: back into the roster at the next beat
        self._beaten_at = 0.0  # when the last heartbeat written was sent (monotonic)
        # no node is judged dead before this (monotonic) time: after Redis came back,
        # every node needs a beat to write its heartbeat again
        self.judge_after = 0.0

    async def beat(self, fresh: bool = False) -> None:
        """Write this node's heartbeat key. It renews this node's lease only while the
        lease runs (or when ``fresh``: at start, and once :meth:`fence` has found which
        games are still this node's)."""
        parlor = self.parlor
        sent = time.monotonic()
        await self.link.redis.set(
            BEAT_KEY + self.link.node,
            json.dumps({"at": time.time(), "players": len(parlor.online.sessions),
                        "draining": parlor.draining, "pid": os.getpid()}),
            px=int(self.seconds * 1000))
        if sent - self._beaten_at >= self.seconds:
            self.rejoin_due = True  # the key had expired: the others dropped this node
        self._beaten_at = sent
        if fresh or sent < self._until:
            self._until = sent + self.seconds * LEASE_SHARE

    def holds(self) -> bool:
        """Whether this node's lease runs: no other node may have taken its games."""
        return time.monotonic() < self._until

    async def fence(self) -> None:
        """Awaited before this node acts on a game it holds (``LiveGames.fence``). While
        the lease runs, nothing to do. Once it has lapsed (this node was paused, or cut
        off from Redis, for longer than the lease), the store says which games another
        node adopted meanwhile (their epoch rose): those are let go, unapplied and
        unpublished, and this node relays their commands like any other node; the rest
        are still its own, and the lease starts again."""
        if self.holds():
            return
        if self.fencing is None or self.fencing.done():
            self.fencing = asyncio.create_task(self._refence(), name="cluster-fence")
        try:
            await asyncio.shield(self.fencing)
        except Exception as err:  # the store is away: asked again at the next action;
            # meanwhile no write of a game lost here can be stored (its epoch)
            log.warning("cluster: could not check this node's games after its lease "
                        "lapsed (%r)", err)

    async def _refence(self) -> None:
        host = self.parlor.host
        sent = time.monotonic()
        try:
            await asyncio.wait_for(self.beat(), CLOSE_WAIT)
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
        self._until = (sent + self.seconds * LEASE_SHARE if renewed
                       else time.monotonic() + self.heartbeat)
        for game in lost:  # their players' commands go to the node driving them now
            try:
                await asyncio.wait_for(self.look_up(game.id), CLOSE_WAIT)
            except (RedisError, OSError, asyncio.TimeoutError):
                break  # the games table is read again at every beat

    async def end(self, wait: float) -> None:
        """This node stops and says so: its heartbeat key goes (bounded by ``wait``)."""
        await asyncio.wait_for(self.link.redis.delete(BEAT_KEY + self.link.node), wait)

    # -- the other nodes' leases -----------------------------------------------------------
    async def alive(self, nodes: set[str]) -> set[str]:
        """Those of ``nodes`` whose heartbeat key lives."""
        names = sorted(nodes)
        if not names:
            return set()
        found = await self.link.redis.mget([BEAT_KEY + n for n in names])
        return {n for n, beat in zip(names, found) if beat is not None}

    async def takers(self) -> list[str]:
        """The other live nodes, but those draining (stopping) themselves."""
        redis = self.link.redis
        keys = sorted([k async for k in redis.scan_iter(match=BEAT_KEY + "*")])
        beats = await redis.mget(keys) if keys else []
        return [k[len(BEAT_KEY):] for k, beat in zip(keys, beats)
                if beat is not None and k != BEAT_KEY + self.link.node
                and not json.loads(beat).get("draining")]
