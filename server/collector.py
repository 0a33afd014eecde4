"""The garbage collector, paced for a server that holds many sessions at once.

CPython's cycle collector scans every object it tracks at each full collection, and
starts one whenever the long-lived objects have grown by a quarter. A logged-in session is
about two hundred such objects (most of them telnetlib3's: its option tables, handlers
and buffers), so at 10,000 sessions a full collection scans two million objects and stops
the event loop for a second or more, again and again while players log in: every player
waits that long for an answer (``bench/cluster.py`` measured it).

:class:`Collector` moves every object that has lived ``every`` seconds into the
permanent generation (``gc.freeze``), so the collector's own runs scan only what is newer
than that: milliseconds. Objects still die as soon as nothing refers to them; only
garbage in reference cycles waits (a closed session leaves about 145 objects in cycles),
until the frozen objects have grown by ``growth`` (a quarter, CPython's own rule) since
the last full collection: then one full collection frees it. A parlor whose population
is steady never pauses for a full collection; one that grows pauses as CPython's would,
but for the growth only, not for every burst of commands. After a full collection the
heap's free pages go back to the system (:func:`give_back`, glibc's ``malloc_trim``): a
burst of logins frees much of what it allocated, which the process kept before. So they
do after a step that finds the frozen objects moved by a fortieth (``growth / 10``) since
the heap last went back, without a full collection: the burst that grew the population
by less than a quarter. A steady parlor pays for neither.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import time
from typing import Callable

log = logging.getLogger(__name__)


def _malloc_trim() -> "Callable[[int], int] | None":
    """glibc's ``malloc_trim``, where there is one."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def give_back() -> None:
    """Return the heap's free pages to the system (glibc ``malloc_trim``): a burst of
    logins, or a restart carrying thousands of sessions on, frees much of what it
    allocated, and without this the process keeps those pages for good."""
    if _TRIM is not None:
        _TRIM(0)


class Collector:
    def __init__(self, every: float, growth: float = 0.25) -> None:
        self.every = every
        self.growth = growth
        self.base = 0          # frozen objects after the last full collection
        self.trimmed = 0       # frozen objects when the heap was last given back
        self.full_runs = 0

    def full(self) -> None:
        """Collect everything (frozen objects too), then freeze what lives."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        give_back()
        self.base = self.trimmed = gc.get_freeze_count()
        self.full_runs += 1
        log.info("full garbage collection: %d objects live, %d freed, %.0f ms", self.base,
                 found, (time.perf_counter() - started) * 1000)

    def step(self) -> None:
        """Freeze what lived through the last ``every`` seconds; collect everything when
        the frozen objects have grown by ``growth`` since the last full collection."""
        gc.freeze()
        frozen = gc.get_freeze_count()
        if frozen > self.base * (1 + self.growth):
            self.full()
        elif abs(frozen - self.trimmed) > self.trimmed * self.growth / 10:
            give_back()
            self.trimmed = frozen

    @staticmethod
    def before_connections() -> None:
        """A parlor that has loaded and waits for connections (a held parlor's spare):
        collect and freeze what it loaded now, while nobody waits on it."""
        gc.collect()
        gc.freeze()

    async def run(self, *, full_first: bool = True) -> None:
        """Collect in steps from now on; first with a full collection, unless
        ``full_first`` is False (what lived was collected and frozen before, and what is
        new is only frozen: a parlor that has just carried thousands of sessions on pauses
        for none of them)."""
        if full_first:
            self.full()
        else:
            gc.freeze()
            give_back()
            self.base = self.trimmed = gc.get_freeze_count()
        try:
            while True:
                await asyncio.sleep(self.every)
                self.step()
        finally:
            gc.unfreeze()  # stopped: CPython's own pacing again
