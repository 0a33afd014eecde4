"""Worker processes for searches too long to run on the event loop's thread.

A search in pure Python holds the GIL: in a thread it slows every connection (measured
for Dice's HARD and Pyramid's Par solver: replies went from ~3 ms to 85–370 ms). So
such searches run in a :class:`WorkerPool` of *spawned* processes (a fresh interpreter:
forking a server that runs threads is unsafe). A program that embeds a Parlor must
therefore guard its entry point with ``if __name__ == "__main__":``, as multiprocessing
requires; ``esterport``, pytest and ``python -m server.cli`` do. Each worker first runs
``_WATCH_PARENT`` and exits when its parent is gone, even after a SIGKILL; a clean stop
joins them at exit.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor

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
