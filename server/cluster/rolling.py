"""``esterport reload --rolling``: every node reloaded, one after another."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import redis.asyncio as aioredis

from server.cluster.lease import BEAT_KEY
from server.redis_bus import CONTROL, NODE, PREFIX


async def reload_nodes(redis_url: str, *, wait: float = 120.0,
                       say: Any = print) -> int:
    """``esterport reload --rolling``: reload every node of the cluster, one after
    another, each once the one before is back (its heartbeat comes from a new parlor).
    Each node must be held (``serve --hold``): its holder keeps its connections, so no
    player anywhere is disconnected. 0 when every node reloaded, else 1."""
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True,
                                    socket_connect_timeout=3)
    try:
        names = sorted([key[len(BEAT_KEY):]
                        async for key in redis.scan_iter(BEAT_KEY + "*")])
        if not names:
            say("esterport: no node of the cluster is running")
            return 1
        for name in names:
            beat = await redis.get(BEAT_KEY + name)
            before = json.loads(beat).get("pid") if beat else None
            body = {"n": "esterport-reload", "k": "reload", "t": CONTROL,
                    "d": {"node": "esterport-reload", "only": name}}
            await redis.publish(PREFIX + NODE + name, json.dumps(body))
            deadline = time.monotonic() + wait
            while True:
                await asyncio.sleep(0.2)
                beat = await redis.get(BEAT_KEY + name)
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
