"""The paced garbage collector (server/collector.py): frozen objects are out of the
collector's scans, cycles among them wait for a full collection, which comes when the
frozen objects have grown by a quarter."""

from __future__ import annotations

import asyncio
import gc
import weakref

from server.collector import Collector
from tests.support.waits import until


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cycle collector frees it


def test_a_cycle_frozen_waits_for_the_full_collection_that_growth_brings():
    collector = Collector(every=10.0)
    try:
        collector.full()
        node = Node()
        gone = weakref.ref(node)
        collector.step()             # frozen with everything else alive now
        del node
        gc.collect()                 # CPython's own collection: frozen objects are not scanned
        assert gone() is not None
        collector.step()             # no growth to speak of: no full collection
        assert gone() is not None and collector.full_runs == 1
        collector.base = int(gc.get_freeze_count() / 1.3)  # as if a quarter more had come
        collector.step()
        assert gone() is None and collector.full_runs == 2
        # the new base is what lived through that full collection; a frozen object
        # another thread (a database driver's worker) frees since then only lowers the count
        assert 0 <= collector.base - gc.get_freeze_count() < 1000
    finally:
        gc.unfreeze()


async def test_run_freezes_on_its_pace_and_unfreezes_when_stopped():
    collector = Collector(every=0.01)
    task = asyncio.create_task(collector.run())
    await until(lambda: collector.full_runs >= 1 and gc.get_freeze_count() > 0,
                "a full collection run, and the heap frozen")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert gc.get_freeze_count() == 0


def test_the_heap_goes_back_when_the_frozen_population_has_moved(monkeypatch):
    trims = []
    monkeypatch.setattr("server.collector.give_back", lambda: trims.append(1))
    collector = Collector(every=10.0)
    try:
        collector.full()                       # a full collection gives the heap back
        assert len(trims) == 1
        collector.step()                       # steady: nothing to give back
        assert len(trims) == 1
        # a burst of logins: more than a fortieth of the frozen objects, less than the
        # quarter that brings a full collection
        collector.trimmed = int(gc.get_freeze_count() / 1.05)
        collector.base = collector.trimmed
        collector.step()
        assert len(trims) == 2 and collector.full_runs == 1
        collector.step()                       # settled again
        assert len(trims) == 2
    finally:
        gc.unfreeze()
