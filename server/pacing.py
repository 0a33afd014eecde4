"""How fast a session's commands run: its own rate limit, and the governor that makes
sessions sending hard wait their turn while the server is behind."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class RateLimiter:
    """A token bucket: ``rate`` commands a second, bursts up to ``burst``."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next command is allowed (0: now)."""
        return max(0.0, (1.0 - self.level()) / self.rate) if self.rate > 0 else 0.0

    def level(self) -> float:
        """The tokens in the bucket now (``burst``: the session has been quiet)."""
        now = time.monotonic()
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate)


class Paced(Protocol):
    """A session as the governor reads it (a :class:`~server.session.Session`): its rate
    limit, and whether it is gone."""

    limiter: RateLimiter
    closed: bool


class LoadGovernor:
    """Fairness between sessions when the server is behind.

    Every session has its own rate limit, but many sessions each under theirs can still
    keep the event loop busy for everyone. The governor measures the loop's lag (how
    late a short sleep wakes up); while the loop is behind, a session that has been
    sending hard (less than half its burst left) waits its turn before its next command
    runs, up to ``max_wait`` seconds a command. A player who has been quiet (a person
    typing LOOK) never waits."""

    def __init__(self, interval: float = 0.05, threshold: float = 0.1,
                 max_wait: float = 2.0) -> None:
        self.interval, self.threshold, self.max_wait = interval, threshold, max_wait
        self.lag = 0.0
        self.behind = False

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(self.interval)
            self.lag = loop.time() - started - self.interval
            self.behind = self.lag > self.threshold

    async def turn(self, session: Paced) -> None:
        """Wait (if ``session`` must) until the loop has caught up, or it is gone."""
        limiter, waited = session.limiter, 0.0
        while (self.behind and waited < self.max_wait and not session.closed
               and limiter.level() < limiter.burst / 2):
            await asyncio.sleep(self.interval)
            waited += self.interval
