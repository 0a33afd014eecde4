"""The cluster's bus (server/redis_bus.py) between two nodes on a real Redis: a topic's
Redis channel lives while the node follows it, and a player's own topic travels on the
channel of the node the player is on, not on a channel of its own."""

from __future__ import annotations

import asyncio
import uuid

from server.bus import Event
from server.redis_bus import RedisBus
from tests.support.waits import until


def _channels(redis_server, pattern: str) -> bytes:  # noqa: ANN001
    return redis_server.command("PUBSUB", "CHANNELS", pattern)


async def test_a_topic_has_a_redis_channel_while_followed(redis_server):
    tag = uuid.uuid4().hex[:8]
    a, b = (RedisBus(redis_server.url(), f"{n}-{tag}") for n in "ab")
    await a.start()
    await b.start()
    try:
        heard: list[Event] = []
        topic = f"room:{tag}"

        def hear(_topic: str, event: Event) -> None:
            heard.append(event)

        b.subscribe(topic, hear)
        await until(lambda: tag.encode() in _channels(redis_server, f"esterport:{topic}"))
        a.publish(topic, Event("say", {"text": "hello"}))
        await until(lambda: heard)
        assert heard[0].data == {"text": "hello"}
        b.unsubscribe(topic, hear)  # the last one here: the channel goes
        await until(lambda: tag.encode() not in _channels(redis_server, f"esterport:{topic}"))
    finally:
        await a.close()
        await b.close()


async def test_a_players_own_topic_goes_to_their_node_only(redis_server):
    tag = uuid.uuid4().hex[:8]
    a, b, c = (RedisBus(redis_server.url(), f"{n}-{tag}") for n in "abc")
    topic = "account:7"
    # the roster, as server/cluster/ reads it: account 7 is on node b
    a.personal = c.personal = lambda t: b.node if t == topic else None
    b.personal = lambda t: "" if t == topic else None
    heard: dict[str, list[Event]] = {"b": [], "c": []}
    for bus in (a, b, c):
        await bus.start()
    try:
        b.subscribe(topic, lambda _t, e: heard["b"].append(e))
        c.subscribe(topic, lambda _t, e: heard["c"].append(e))  # c does not have them
        await until(lambda: f"esterport:node:{b.node}".encode()
                     in _channels(redis_server, f"esterport:node:*{tag}"))
        a.publish(topic, Event("tell", {"text": "psst"}))
        await until(lambda: heard["b"])
        await asyncio.sleep(0.2)
        assert [e.data for e in heard["b"]] == [{"text": "psst"}]
        assert heard["c"] == []  # sent to b's channel only
        assert _channels(redis_server, "esterport:account:*") == b"*0\r\n"
    finally:
        for bus in (a, b, c):
            await bus.close()


async def test_a_burst_of_writes_waits_for_a_connection_rather_than_failing(redis_server):
    # thousands of players leaving at once each take the roster's hash out: redis-py's
    # default pool failed past 100 at once ("Too many connections"), which the node
    # took for Redis lost
    tag = uuid.uuid4().hex[:8]
    bus = RedisBus(redis_server.url(), f"a-{tag}")
    await bus.start()
    try:
        key = f"esterport:test:{tag}"
        await asyncio.gather(*(bus.redis.hset(key, str(i), "x") for i in range(500)))
        assert await bus.redis.hlen(key) == 500
        assert bus.connected
        await bus.redis.delete(key)
    finally:
        await bus.close()
