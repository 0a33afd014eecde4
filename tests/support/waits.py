"""A bounded wait for the tests: check a condition until it holds, or fail once the time
is up. A test that sleeps a fixed while and then asserts passes on a quiet machine and
fails on a busy one; this waits as long as it must and no longer."""

from __future__ import annotations

import asyncio
from typing import Callable


async def until(check: Callable[[], object], what: str = "the condition",
                within: float = 10.0) -> None:
    """Return once ``check()`` is true; fail after ``within`` seconds, naming ``what``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not check():
        if loop.time() >= deadline:
            raise AssertionError(f"not within {within:g} s: {what}")
        await asyncio.sleep(0.02)
