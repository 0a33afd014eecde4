"""Worker processes for searches too long to run on the event loop's thread.

A search in pure Python holds the GIL: in a thread it slows every connection (measured
for Dice's HARD and Pyramid's Par solver: replies went from ~3 ms to 85–370 ms). So
such searches run in a :class:`WorkerPool` of *spawned* processes (a fresh interpreter:
forking a server that runs threads is unsafe). A program that embeds a Parlor must
therefore guard its entry point with ``if __name__ == "__main__":``, as multiprocessing
requires; ``esterport``, pytest and ``python -m server.cli`` do. Each worker first runs
``_WATCH_PARENT`` and exits when its parent is gone, even after a SIGKILL; a clean stop
joins them at exit.

Such a worker is scarce (one for the Pyramid solver), and players ask for it at will: a
:class:`FairQueue` shares it, in turn between addresses and then between players, with a
bound on what each may have waiting, so one address looping requests cannot make everyone
else wait behind its queue.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Awaitable, Callable, ClassVar, TypeVar

import attrs

T = TypeVar("T")

_WATCH_PARENT = """
import multiprocessing, multiprocessing.connection, os, threading
def _watch(sentinel=multiprocessing.parent_process().sentinel):
    multiprocessing.connection.wait([sentinel])
    os._exit(0)
threading.Thread(target=_watch, daemon=True).start()
"""


class WorkerPool:
    """A pool of spawned worker processes, started on first use."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max_workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def get(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self.max_workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=exec, initargs=(_WATCH_PARENT, {}))
            return self._pool

    def drop(self, broken: ProcessPoolExecutor) -> None:
        """Forget a pool that failed (a worker died); the next ``get`` starts a new one."""
        with self._lock:
            if self._pool is broken:
                self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)


class Busy(Exception):
    """A job refused rather than queued: its asker (``why == "asker"``) or its address
    (``why == "address"``) already has as many jobs waiting or running as it may."""

    def __init__(self, why: str, limit: int) -> None:
        super().__init__(f"{why} has {limit} jobs waiting already")
        self.why = why
        self.limit = limit


@attrs.frozen
class Asker:
    """Whom a job is for: a player (``account_id``) at an address. The server's own work
    (a tournament's figures) is ``SERVER``'s."""

    account_id: int | None
    address: str

    SERVER: ClassVar["Asker"]


Asker.SERVER = Asker(None, "")


@attrs.define(eq=False)
class Job:
    """A place in a :class:`FairQueue`: waiting until ``go`` is done, then running."""

    asker: Asker
    limited: bool
    seq: int
    go: asyncio.Future
    started: bool = False


class FairQueue:
    """Jobs sharing ``slots`` workers fairly between addresses and players.

    A job waits for a free slot. When one frees, it goes to the address served least
    lately among those waiting (one with nothing waiting or running is as new), within
    that address to the asker served least lately, and each asker's jobs go in order,
    what they asked for themselves (limited, below) before the rest. So an address that
    sends many players, or one player who asks again and again, gets one turn in each
    round like everyone else, however many it has queued; and a player's HINT does not
    wait for the verdict on their last game, only for the search running now.

    A *limited* job (one a player asked for) is refused with :class:`Busy` instead of
    queued when its asker already has ``per_asker`` limited jobs waiting or running, or
    its address ``per_address``; a job stays counted until it has finished, even when
    the one who asked went away meanwhile. Unlimited jobs (the server's own, or bounded
    by their caller) are never refused and count against neither.

    It holds no asyncio object beyond each job's future, made in the loop that asks.
    """

    def __init__(self, slots: int = 1, per_asker: int = 1, per_address: int = 2) -> None:
        self.slots = max(1, slots)
        self.per_asker = per_asker
        self.per_address = per_address
        self.running = 0
        self._waiting: list[Job] = []
        self._limited: Counter[Asker | str] = Counter()  # limited jobs, by asker and address
        self._jobs: Counter[Asker | str] = Counter()     # every job, by asker and address
        self._served: dict[Asker | str, int] = {}        # the turn each last started a job
        self._turn = 0
        self._seq = 0

    def enter(self, asker: Asker, *, limited: bool = True) -> Job:
        """A place in the queue for ``asker`` (refused with :class:`Busy` when its
        asker or address may have no more); :meth:`serve` then waits and runs."""
        if limited:
            if self._limited[asker] >= self.per_asker:
                raise Busy("asker", self.per_asker)
            if self._limited[asker.address] >= self.per_address:
                raise Busy("address", self.per_address)
            self._limited[asker] += 1
            self._limited[asker.address] += 1
        self._jobs[asker] += 1
        self._jobs[asker.address] += 1
        self._seq += 1
        job = Job(asker, limited, self._seq, asyncio.get_running_loop().create_future())
        self._waiting.append(job)
        self._pump()
        return job

    async def serve(self, job: Job, work: Callable[[], Awaitable[T]]) -> T:
        """Wait for ``job``'s turn, then ``await work()``; the slot is free after."""
        try:
            await job.go
            return await work()
        finally:
            self._leave(job)

    async def run(self, asker: Asker, work: Callable[[], Awaitable[T]], *,
                  limited: bool = True) -> T:
        """:meth:`enter` and :meth:`serve` in one."""
        return await self.serve(self.enter(asker, limited=limited), work)

    def waiting(self) -> int:
        return len(self._waiting)

    def _pump(self) -> None:
        while self.running < self.slots and self._waiting:
            served = self._served
            job = min(self._waiting, key=lambda j: (served.get(j.asker.address, -1),
                                                    served.get(j.asker, -1), not j.limited,
                                                    j.seq))
            self._waiting.remove(job)
            self._turn += 1
            served[job.asker] = served[job.asker.address] = self._turn
            job.started = True
            self.running += 1
            if not job.go.done():
                job.go.set_result(None)

    def _leave(self, job: Job) -> None:
        if job.started:
            self.running -= 1
        elif job in self._waiting:
            self._waiting.remove(job)
        else:
            return  # left already
        job.started = False
        for key in (job.asker, job.asker.address):
            if job.limited:
                self._limited[key] -= 1
                if self._limited[key] <= 0:
                    del self._limited[key]
            self._jobs[key] -= 1
            if self._jobs[key] <= 0:  # nothing left: it is as new as anyone next time
                del self._jobs[key]
                self._served.pop(key, None)
        self._pump()
