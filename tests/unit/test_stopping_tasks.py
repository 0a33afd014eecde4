"""Background tasks stop when their owner closes, even when a cancellation is lost.

On Python 3.11 ``asyncio.wait_for`` loses a cancellation that arrives as the future it
waits on completes (``server/tasks.py`` says more); redis-py writes every command through
it, and the test suite hung on a tournament clock and a node's heartbeat that went on
after ``close()`` had cancelled them once and gathered them for ever. The loops here
write as redis-py does, and are cancelled at that very instant.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from server.services.turns import Turns
from server.tasks import cancel_and_wait

LOSES_CANCELS = sys.version_info < (3, 12)  # Python 3.12's wait_for no longer does


async def _write() -> None:
    """A write that completes at once (a socket's drain on loopback)."""


async def writing_loop() -> None:
    """A loop like a node's heartbeat: each turn a write bounded as redis-py bounds it."""
    while True:
        await asyncio.wait_for(_write(), 5)
        await asyncio.sleep(0.001)


def at_the_race(task: asyncio.Task) -> bool:
    """Whether ``task`` waits in an ``asyncio.wait_for`` whose inner future is already
    done: a cancellation now is the one Python 3.11 loses."""
    coro = task.get_coro()
    while coro is not None and hasattr(coro, "cr_frame"):
        frame = coro.cr_frame
        if coro.cr_code is asyncio.tasks.wait_for.__code__ and frame is not None:
            inner = frame.f_locals.get("fut")
            if isinstance(inner, asyncio.Future) and inner.done():
                return True
        coro = coro.cr_await
    return False


async def step_to_the_race(task: asyncio.Task, turns: int = 10_000) -> bool:
    for _ in range(turns):
        if at_the_race(task):
            return True
        await asyncio.sleep(0)
    return False


async def test_turns_close_ends_a_task_whose_cancellation_was_lost():
    turns = Turns(None, None, 0.0)  # close() needs only the tasks it spawned
    task = turns.spawn(writing_loop())
    hit = await step_to_the_race(task)
    assert hit or not LOSES_CANCELS
    await asyncio.wait_for(turns.close(), 10)  # it hung here for ever
    assert task.done()


async def test_the_race_loses_a_single_cancellation():
    """The premise: one cancel() at that instant leaves the loop running (3.11)."""
    task = asyncio.create_task(writing_loop())
    if await step_to_the_race(task):
        task.cancel()
        await asyncio.sleep(0.05)
        assert task.done() != LOSES_CANCELS
    pending = await cancel_and_wait([task], 5)
    assert not pending and task.done()


async def test_a_task_that_will_not_stop_is_named_and_left_within_the_bound(caplog):
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass  # ignores every cancellation

    task = asyncio.create_task(stubborn(), name="stubborn")
    caplog.set_level(logging.WARNING)
    pending = await asyncio.wait_for(cancel_and_wait([task], 0.3, "test tasks",
                                                     patience=0.1), 10)
    assert pending == {task} and not task.done()
    assert "1 test tasks still running" in caplog.text and "stubborn" in caplog.text
    release.set()
    await asyncio.wait_for(task, 5)
