"""A tournament changed by two nodes: the row's version is the fencing token. A node that
read a row and then slept past the director's lock (a pause, SIGSTOP) must not write its
old copy over the change another node made meanwhile, nor start anything for it."""

from __future__ import annotations

import asyncio
import time
import types
import uuid

import pytest
import redis.asyncio as aioredis
from sqlalchemy.exc import DBAPIError

from server.bus import LocalBus
from server.cluster import ClusterLock
from server.hosting import Seat
from server.services.meeting_models import TournamentRecord
from server.services.tournaments import Tournaments, TournamentMoved


class _Formulas:
    async def rating(self, account_id: int, kind: str) -> tuple[float, float]:
        return 1500.0, 350.0


def _director(db) -> Tournaments:  # noqa: ANN001
    """The director alone, as a node has it: no games are started in these tests."""
    return Tournaments(db, LocalBus(), {}, types.SimpleNamespace(listeners=[], live={}),
                       _Formulas(), start=None, is_online=lambda _id: False,
                       tell=lambda *_a: None, tell_or_keep=lambda *_a: None,
                       spawn=lambda coro: coro.close())


async def _tournament(db) -> int:  # noqa: ANN001
    now = time.time()
    row = TournamentRecord(kind="dice", system="swiss", status="open", title="Fenced",
                           state={"entrants": [], "pairings": []}, version=0,
                           created_at=now, updated_at=now)
    async with db.session() as tx:
        tx.add(row)
        await tx.commit()
    return row.id


async def test_a_change_made_from_an_older_copy_of_the_row_is_refused(db):
    a, b = _director(db), _director(db)
    number = await _tournament(db)
    old = await a.get(number)  # node a read the row...
    await b.join(number, Seat(2, "Bea"))  # ...node b changed it since
    with pytest.raises(TournamentMoved, match="changed on another server"):
        await a.save(old, {**old.state, "entrants": [{"id": 1, "name": "Ann"}]}, "open")
    row = await a.get(number)
    assert [e["name"] for e in row.state["entrants"]] == ["Bea"]
    assert row.version == 1
    await a.join(number, Seat(1, "Ann"))  # typed again, the change is made afresh
    assert [e["name"] for e in (await b.get(number)).state["entrants"]] == ["Bea", "Ann"]


async def test_a_node_that_slept_past_the_lock_drops_its_change(db, redis_server):
    name = f"esterport:test:tournaments:{uuid.uuid4().hex[:8]}"
    clients = [aioredis.Redis.from_url(redis_server.url()) for _ in range(2)]
    a, b = _director(db), _director(db)
    a.lock = ClusterLock(clients[0], name, timeout=1.0)
    b.lock = ClusterLock(clients[1], name, timeout=5.0)
    number = await _tournament(db)
    try:
        async with a.lock:
            assert a.lock.held()
            row = await a.get(number)  # node a reads the row, then stalls past its hold
            joining = asyncio.create_task(b.join(number, Seat(2, "Bea")))
            await asyncio.wait_for(joining, 10)  # b takes the lock once a's has run out
            assert not a.lock.held()
            with pytest.raises(TournamentMoved):  # before a game is started or a bar set
                a.fence(row)
            with pytest.raises(TournamentMoved):
                await a.save(row, {**row.state, "entrants": [{"id": 1, "name": "Ann"}]},
                             "open")
        row = await b.get(number)
        assert [e["name"] for e in row.state["entrants"]] == ["Bea"]
        assert row.version == 1
        async with b.lock:  # a's late release freed nothing of anyone else's
            assert b.lock.held()
            assert not await clients[0].lock(name, blocking_timeout=0.2).acquire()
    finally:
        for client in clients:
            await client.aclose()


async def test_the_clock_goes_on_while_the_database_is_away():
    """A look of the clock that finds the database away is a warning and the next look
    retries; it had named a function it never imported, so the clock itself died."""
    async def look() -> None:
        raise DBAPIError("SELECT 1", {}, OSError("gone"), connection_invalidated=True)

    await Tournaments._guarded(look(), "the tournament clock")
