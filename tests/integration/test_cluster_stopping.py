"""A cluster node stops even when its heartbeat loses the cancellation meant to end it.

The heartbeat writes to Redis through redis-py, which bounds every write with
``asyncio.wait_for``; cancelled as a write completes, it went on beating (Python 3.11
loses that cancellation), ``Cluster.close()`` gathered it for ever, and the suite hung
in a fixture's teardown with the node's Redis running. Here the node's real heartbeat is
cancelled at that instant.
"""

from __future__ import annotations

import asyncio

import attrs
import pytest

from commands.app import assemble
from server.config import ClusterSection
from tests.conftest import make_config
from tests.unit.test_stopping_tasks import LOSES_CANCELS, step_to_the_race

pytestmark = pytest.mark.postgres


@pytest.fixture
async def node(postgres, redis_server):
    redis_server.command("FLUSHALL")
    url = await postgres.new_database()
    config = attrs.evolve(make_config(url),
                          cluster=ClusterSection(redis=redis_server.url(), node="solo",
                                                 lease=2.0))  # a beat every 0.4 s
    parlor = assemble(config)
    await parlor.start()
    yield parlor
    if not parlor.stopped.is_set():
        await asyncio.wait_for(parlor.stop(), 30)


async def test_a_node_stops_though_its_heartbeat_lost_a_cancellation(node):
    cluster = node.cluster
    beat = next(t for t in cluster._tasks if t.get_name() == "cluster-heartbeat")
    hit = await step_to_the_race(beat, turns=200_000)
    assert hit or not LOSES_CANCELS
    await asyncio.wait_for(cluster.close(), 20)  # it hung here for ever
    assert beat.done()
    await asyncio.wait_for(node.stop(), 30)
