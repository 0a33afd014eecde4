"""Stopping background tasks for sure.

``task.cancel()`` asks once, and on Python 3.11 the request can be lost: when a task is
cancelled in the instant after the future it awaits through ``asyncio.wait_for`` has
completed, ``wait_for`` returns that result and the ``CancelledError`` is gone (CPython
gh-86296, fixed in 3.12, whose ``wait_for`` is built on ``asyncio.timeout``). redis-py
sends every command through ``asyncio.wait_for`` (its default ``socket_timeout`` is 5 s),
so a loop that talks to Redis (a cluster node's heartbeat, the tournament clock under
its Redis lock) goes on running after the cancellation meant to end it, and whoever
gathered it waits for ever: the test suite hung this way in fixtures' teardown.

:func:`cancel_and_wait` cancels, waits a moment, and cancels again whatever still runs,
within a bound; what is still running then is logged by name and left behind.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Iterable

log = logging.getLogger(__name__)

async def cancel_and_wait(tasks: Iterable[asyncio.Future], within: float = 5.0,
                          what: str = "background tasks", *,
                          patience: float = 1.0) -> set[asyncio.Future]:
    """Cancel ``tasks`` and wait until each is done, cancelling again every ``patience``
    seconds (time for a task's own cleanup) each that goes on: its cancellation was
    lost. ``within`` seconds at most in all; returns those still running then (a warning
    names them)."""
    me = asyncio.current_task()
    pending = {t for t in tasks if t is not me and not t.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while pending:
        for task in pending:
            task.cancel()
        left = deadline - loop.time()
        if left <= 0:
            break
        _done, pending = await asyncio.wait(pending, timeout=min(patience, left))
    if pending:
        names = sorted(t.get_name() if isinstance(t, asyncio.Task) else repr(t)
                       for t in pending)
        log.warning("%d %s still running %g s after they were cancelled: %s",
                    len(pending), what, within, ", ".join(names[:10]))
    return pending
