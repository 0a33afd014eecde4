"""Login throttling: too many failed logins for one name or from one address lock it out."""

from __future__ import annotations

import time
from collections import defaultdict, deque


class LoginThrottle:
    def __init__(self, max_failures: int, window: float, lockout: float,
                 clock=time.monotonic) -> None:  # noqa: ANN001
        self.max_failures = max_failures
        self.window = window
        self.lockout = lockout
        self.clock = clock
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._locked_until: dict[str, float] = {}
        self._in_flight: dict[str, int] = defaultdict(int)

    def wait(self, *keys: str) -> int:
        """Seconds until every key may try again (0: it may now). A key whose failures
        plus attempts still being checked reach the limit waits a second: guesses sent
        at once are as limited as guesses in a row."""
        now = self.clock()
        waits = [self._locked_until.get(k, 0) - now for k in keys]
        wait = max(0, int(max(waits, default=0) + 0.999))
        if not wait and any(self._in_flight.get(k, 0) and self._recent(k, now)
                            + self._in_flight[k] >= self.max_failures for k in keys):
            return 1
        return wait

    def _recent(self, key: str, now: float) -> int:
        times = self._failures.get(key)
        return sum(1 for t in times if t >= now - self.window) if times else 0

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
        now = self.clock()
        for key in keys:
            times = self._failures[key]
            times.append(now)
            while times and times[0] < now - self.window:
                times.popleft()
            if len(times) >= self.max_failures:
                self._locked_until[key] = now + self.lockout
                times.clear()
        if len(self._failures) > 10000:
            self._prune(now)

    def locked(self, key: str) -> bool:
        return self._locked_until.get(key, 0) > self.clock()

    def succeed(self, *keys: str) -> None:
        for key in keys:
            self._failures.pop(key, None)

    def _prune(self, now: float) -> None:
        for key in [k for k, t in self._failures.items() if not t or t[-1] < now - self.window]:
            del self._failures[key]
        for key in [k for k, until in self._locked_until.items() if until < now]:
            del self._locked_until[key]


class Sliding:
    """At most ``limit`` events per ``window`` seconds per key (account creation per
    address, and ``"*"`` for the whole server)."""

    def __init__(self, limit: int, window: float, clock=time.monotonic) -> None:  # noqa: ANN001
        self.limit, self.window, self.clock = limit, window, clock
        self._events: dict[str, deque[float]] = defaultdict(deque)

    def wait(self, key: str) -> int:
        """Seconds until ``key`` may have another event (0: now)."""
        now = self.clock()
        times = self._events.get(key)
        if not times:
            return 0
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) < self.limit:
            return 0
        return max(1, int(times[0] + self.window - now + 0.999))

    def add(self, key: str) -> None:
        self._events[key].append(self.clock())
        if len(self._events) > 10000:
            now = self.clock()
            for k in [k for k, t in self._events.items() if not t or t[-1] < now - self.window]:
                del self._events[k]
