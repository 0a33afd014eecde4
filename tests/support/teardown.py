"""Fixtures' teardown, each step bounded: one that hangs or fails does not stop the rest.

    async with cleanup() as steps:
        for parlor in parlors:
            await steps.run(f"stopping {parlor.node}", parlor.stop(), 60)
        steps.call("stopping Redis", redis.stop)

A step that is still running after its bound is logged with its stack (which step, and
what it awaits), cancelled, and left; a step that raises is logged. Every other step
still runs, and at the end the teardown fails with one line per step that went wrong,
so the test reports it rather than the suite waiting for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, AsyncIterator, Awaitable, Callable

log = logging.getLogger("tests.teardown")

CANCEL_WAIT = 5.0  # seconds a step that overran has to end once cancelled


class Steps:
    def __init__(self) -> None:
        self.problems: list[str] = []

    async def run(self, what: str, step: Awaitable[Any], within: float = 15.0) -> bool:
        """Await ``step`` at most ``within`` seconds; whether it ended well."""
        task = asyncio.ensure_future(step)
        # asyncio.wait, not wait_for: a step that will not end on cancellation must not
        # hold the teardown (wait_for waits for the cancelled step to finish)
        done, _ = await asyncio.wait({task}, timeout=within)
        if not done:
            from tests.support.hangs import task_stack  # a pytest plugin: imported by it

            stack = task_stack(task)
            task.cancel()
            await asyncio.wait({task}, timeout=CANCEL_WAIT)
            self._problem(f"{what}: still running after {within:g} s; left behind",
                          stack)
            return False
        if task.cancelled():
            self._problem(f"{what}: cancelled")
            return False
        if task.exception() is not None:
            err = task.exception()
            log.error("teardown: %s failed", what, exc_info=err)
            self.problems.append(f"{what}: {type(err).__name__}: {err}")
            return False
        return True

    def call(self, what: str, fn: Callable[..., Any], *args: Any) -> bool:
        """A synchronous step (its own waits are bounded: a process's ``wait(timeout=)``);
        whether it ended well."""
        try:
            fn(*args)
        except Exception as err:
            log.error("teardown: %s failed", what, exc_info=err)
            self.problems.append(f"{what}: {type(err).__name__}: {err}")
            return False
        return True

    def _problem(self, text: str, detail: str = "") -> None:
        log.error("teardown: %s\n%s", text, detail)
        self.problems.append(text)


@contextlib.asynccontextmanager
async def cleanup() -> AsyncIterator[Steps]:
    """Steps of a teardown (see the module's docstring); fails at the end if any did."""
    steps = Steps()
    yield steps
    if steps.problems:
        raise AssertionError("teardown: " + "; ".join(steps.problems))


@contextlib.contextmanager
def sync_cleanup() -> Any:
    """The same for a synchronous fixture: ``steps.call(...)`` each step."""
    steps = Steps()
    yield steps
    if steps.problems:
        raise AssertionError("teardown: " + "; ".join(steps.problems))
