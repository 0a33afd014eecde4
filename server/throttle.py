"""Login throttling: failed logins slow a name or an address down, and limits on how
often something may happen per key (logins to an account, accounts made)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections import defaultdict, deque
from typing import AsyncIterator, Callable


class LoginThrottle:
    """Failed logins per key (an address, a name, a name at an address).

    A key may fail ``max_failures`` times within ``window`` seconds; past that, each try
    waits after the last failure: ``first_delay`` seconds, doubling with every further
    failure, never more than ``lockout``. A delay that grows, not a hard lock: one
    person mistyping behind a shared address costs the others a few seconds, while a
    guesser is slowed to one try per ``lockout``."""

    def __init__(self, max_failures: int, window: float, lockout: float,
                 clock=time.monotonic, first_delay: float = 5.0) -> None:  # noqa: ANN001
        self.max_failures = max_failures
        self.window = window
        self.lockout = lockout
        self.first_delay = min(first_delay, lockout)
        self.clock = clock
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._in_flight: dict[str, int] = defaultdict(int)
        # told of every failure and success recorded here ("fail"/"succeed", keys): a
        # cluster's nodes tell each other, so a guesser gains nothing by spreading
        self.shared: Callable[[str, tuple[str, ...]], None] | None = None

    def wait(self, *keys: str) -> int:
        """Seconds until every key may try again (0: it may now). A key whose failures
        plus attempts still being checked reach the limit waits a second: guesses sent
        at once are as limited as guesses in a row."""
        now = self.clock()
        wait = max(0, int(max((self._delay(k, now) for k in keys), default=0) + 0.999))
        if not wait and any(self._in_flight.get(k, 0) and self._recent(k, now)
                            + self._in_flight[k] >= self.max_failures for k in keys):
            return 1
        return wait

    def _recent(self, key: str, now: float) -> int:
        times = self._failures.get(key)
        if not times:
            return 0
        while times and times[0] < now - self.window:
            times.popleft()
        return len(times)

    def _delay(self, key: str, now: float) -> float:
        """Seconds ``key`` must still wait (0 or less: none)."""
        over = self._recent(key, now) - self.max_failures + 1
        if over <= 0:
            return 0.0
        delay = min(self.lockout, self.first_delay * 2 ** min(over - 1, 30))
        return self._failures[key][-1] + delay - now

    def begin(self, *keys: str) -> None:
        """An attempt on ``keys`` is being checked (call ``end`` when it is)."""
        for key in keys:
            self._in_flight[key] += 1

    def end(self, *keys: str, ok: bool) -> None:
        """The attempt ``begin`` announced is decided: it is no longer in flight, and it
        counts as ``record`` says."""
        for key in keys:
            self._in_flight[key] -= 1
            if self._in_flight[key] <= 0:
                del self._in_flight[key]
        self.record(*keys, ok=ok)

    def record(self, *keys: str, ok: bool) -> None:
        """A decided attempt: a failure counts against ``keys``; a success clears them."""
        if ok:
            self.succeed(*keys)
        else:
            self.fail(*keys)

    def fail(self, *keys: str) -> None:
        self.failed_elsewhere(*keys)
        if self.shared is not None:
            self.shared("fail", keys)

    def failed_elsewhere(self, *keys: str) -> None:
        """Count a failure (one recorded here, or told by another node)."""
        now = self.clock()
        for key in keys:
            self._failures[key].append(now)
            self._recent(key, now)  # drop what the window forgot
        if len(self._failures) > 10000:
            self._prune(now)

    def locked(self, key: str) -> bool:
        """Whether ``key`` must wait before its next try."""
        return self._delay(key, self.clock()) > 0

    def succeed(self, *keys: str) -> None:
        self.succeeded_elsewhere(*keys)
        if self.shared is not None:
            self.shared("succeed", keys)

    def succeeded_elsewhere(self, *keys: str) -> None:
        for key in keys:
            self._failures.pop(key, None)

    def _prune(self, now: float) -> None:
        for key in [k for k, t in self._failures.items() if not t or t[-1] < now - self.window]:
            del self._failures[key]


class Sliding:
    """At most ``limit`` events per ``window`` seconds per key (account creation per
    address, and ``"*"`` for the whole server)."""

    def __init__(self, limit: int, window: float, clock=time.monotonic) -> None:  # noqa: ANN001
        self.limit, self.window, self.clock = limit, window, clock
        # per key, its event's time, or its events' times oldest first once it has more
        # than one (there is a key per account that logged in within the window, most
        # with one event: a bare time is 24 bytes, a list of one about 100)
        self._events: dict[str, float | list[float]] = {}
        self._pruned_at = clock()
        self.shared: Callable[[str, tuple[str, ...]], None] | None = None  # as LoginThrottle's

    def _times(self, key: str, now: float) -> list[float]:
        """``key``'s events within the window, oldest first (the older ones let go)."""
        held = self._events.get(key)
        if held is None:
            return []
        times = held if isinstance(held, list) else [held]
        cut = now - self.window
        if times[0] <= cut:
            times = [t for t in times if t > cut]
            if not times:
                del self._events[key]
            else:
                self._events[key] = times if len(times) > 1 else times[0]
        return times

    def wait(self, key: str) -> int:
        """Seconds until ``key`` may have another event (0: now)."""
        now = self.clock()
        times = self._times(key, now)
        if len(times) < self.limit:
            return 0
        return max(1, int(times[0] + self.window - now + 0.999))

    def count(self, key: str) -> int:
        """How many events ``key`` had within the window."""
        return len(self._times(key, self.clock()))

    def add(self, key: str) -> None:
        self.added_elsewhere(key)
        if self.shared is not None:
            self.shared("add", (key,))

    def added_elsewhere(self, key: str) -> None:
        """Count an event (one here, or told by another node)."""
        now = self.clock()
        key = sys.intern(key)  # one copy of a name, however told
        held = self._events.get(key)
        if held is None:
            self._events[key] = now
        elif isinstance(held, list):
            held.append(now)
        else:
            self._events[key] = [held, now]
        if now - self._pruned_at > self.window or len(self._events) > 10000:
            self._pruned_at = now  # keys whose events are all past the window go
            cut = now - self.window
            for k in [k for k, t in self._events.items()
                      if (t[-1] if isinstance(t, list) else t) <= cut]:
                del self._events[k]


class KeyedLocks:
    """One lock per key, kept only while someone holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def __call__(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
