"""The web door's connections, counted in the one budget of descriptors it shares with telnet.

Every client socket is a descriptor, and the process has a fixed number of them. The
telnet door counts its connections in ``parlor.counter["open"]`` and refuses past its cap
(``server/telnet.py``: below RLIMIT_NOFILE, with room for the database and the logs). The
web door counts its own in the same place against the same cap, so the two together never
take the descriptors the process needs: 1,100 silent web connections once took every one,
and then telnet logins, pages and the accept loop all failed.

Within the budget the web door takes at most its *share* (three quarters, or ``[web]
max_requests`` if lower), so a flood of web connections from many addresses still leaves
telnet room; one address holds at most ``[web] max_connections_per_address`` (a trusted
proxy is not capped: its connections are many clients'). When the door is full, a new
connection closes the oldest one that is waiting for a request (silent, trickling its
head, or idle between requests) rather than being refused: a request that arrives whole
is then answered, however many slow connections an attacker keeps opening. Only when
every web connection is busy (a page being made, a live stream, a browser session) is a
new one refused, with a 503 and at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections import Counter
from typing import Callable, Iterator

FULL = "The parlor is full right now; please try again in a few minutes."
TOO_MANY = "Too many connections from your address."


def web_share(total: int, configured: int) -> int:
    """The most connections the web door may hold of a budget of ``total``."""
    return max(1, min(configured, total - total // 4))


def proxy_test(proxies: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether an address is one of ``proxies`` (``[web] trusted_proxies``: addresses,
    networks such as ``10.0.0.0/8``, or ``*``)."""
    if "*" in proxies:
        return lambda address: True
    networks = []
    for proxy in proxies:
        with contextlib.suppress(ValueError):   # not an address: compared as written
            networks.append(ipaddress.ip_network(proxy, strict=False))

    def trusted(address: str) -> bool:
        if address in proxies:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in networks)

    return trusted


class Budget:
    """The web door's open connections, by transport, against both doors' cap."""

    def __init__(self, counter: dict[str, int], total: int, share: int, per_address: int,
                 uncapped: Callable[[str], bool]) -> None:
        self.counter = counter          # the parlor's: {"open": n, "refused": n}, both doors
        self.total = total              # the cap of both doors together
        self.share = share              # the web door's most
        self.per_address = per_address
        self.uncapped = uncapped        # addresses with no per-address cap (trusted proxies)
        self.open: dict[asyncio.BaseTransport, str] = {}   # counted connections -> address
        self.addresses: Counter[str] = Counter()
        self.waiting: dict[asyncio.BaseTransport, None] = {}  # no request under way; oldest first

    def admit(self, transport: asyncio.BaseTransport, address: str) -> str | None:
        """Count a new connection from ``address``; None when it may stay, else why not."""
        if self.addresses[address] >= self.per_address and not self.uncapped(address):
            self.counter["refused"] += 1
            return TOO_MANY
        if self._full() and not self._evict():
            self.counter["refused"] += 1
            return FULL
        self.open[transport] = address
        self.addresses[address] += 1
        self.counter["open"] += 1
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The connection is gone (or evicted): uncount it. Idempotent."""
        self.waiting.pop(transport, None)
        address = self.open.pop(transport, None)
        if address is None:
            return
        self.counter["open"] -= 1
        self.addresses[address] -= 1
        if self.addresses[address] <= 0:
            del self.addresses[address]

    def wait(self, transport: asyncio.BaseTransport) -> None:
        """The connection waits for a request: it may be evicted to make room."""
        if transport in self.open:
            self.waiting.pop(transport, None)
            self.waiting[transport] = None

    def busy(self, transport: asyncio.BaseTransport) -> None:
        """A request is under way on the connection: it is not evicted."""
        self.waiting.pop(transport, None)

    @contextlib.contextmanager
    def lent(self) -> Iterator[None]:
        """While a browser session runs over a WebSocket, the telnet protocol it is handed
        to counts the connection (and may refuse it, as telnet does); it is uncounted here
        meanwhile, so that one socket is one in the budget."""
        self.counter["open"] -= 1
        try:
            yield
        finally:
            self.counter["open"] += 1

    def _full(self) -> bool:
        return self.counter["open"] >= self.total or len(self.open) >= self.share

    def _evict(self) -> bool:
        """Close the connection that has waited longest for a request; False if none."""
        if not self.waiting:
            return False
        oldest = next(iter(self.waiting))
        self.release(oldest)
        oldest.abort()   # not close(): its descriptor is free at once, read or not
        return True
